"""Open files people already have: a ``.mindir``, a ``.ir`` dump file or a dump folder.

- :mod:`.sources`: a path -> the ``ascend-lab.graph/1`` payload (no MindSpore needed);
- :mod:`.error_page`: the page shown instead of a graph when a file cannot be read;
- :mod:`.serve`: one page served on 127.0.0.1;
- :mod:`.cli`: ``ascend-lab view PATH [-o FILE | --serve]``.
"""

from ascend_lab.viewfile.sources import ViewFileError, payload_for_path

__all__ = ["ViewFileError", "payload_for_path"]

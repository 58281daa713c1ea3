"""Measured execution: MindSpore's own profiler, read back and put on the traced graph.

The public entry points are :func:`ascend_lab.profile` (run a net under the profiler) and
:func:`load_profile` (read a profiler folder someone already wrote, e.g. on an Ascend
machine). Parts:

- ``capture``: the only module that imports MindSpore (runs the net under the profiler);
- ``files``: finds the profiler's files in its folder and reads them with a size cap;
- ``cpu_files``, ``ascend_files``, ``trace_view``: pure parsers (text in, rows out);
- ``model``: :class:`Profile` and its rows; ``build``: rows -> Profile (per kernel, per op
  type, per step); ``join``: kernel rows -> nodes of a trace's graph;
- ``plot`` (matplotlib top-N), ``payload`` (the payload's ``profile`` section),
  ``magic`` (``%ascend_profile``), ``api`` (glue).

Importing this package does not import MindSpore.
"""

from typing import Any

__all__ = ["Profile", "ProfileError", "load_profile"]

_LAZY = {
    "Profile": "ascend_lab.model.profile",
    "ProfileError": "ascend_lab.errors.profile",
    "load_profile": "ascend_lab.profiling.api",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

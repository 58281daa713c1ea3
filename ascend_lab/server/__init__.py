"""The ascend-lab Jupyter server extension: device status and course location over REST.

Routes (all authenticated, under the server's ``base_url``):

- ``GET {base_url}ascend-lab/api/status`` -> ``DeviceStatus.to_dict()`` JSON of the registered
  MindSpore kernel's environment (``subject`` says which; see :mod:`.kernel_env`)
  (``?refresh=1`` skips the shared cache).
- ``GET {base_url}ascend-lab/api/course`` -> where the course's first notebook is.
- ``GET {base_url}ascend-lab/api/graph?path=P`` -> the graph payload of a .mindir, .ir or
  dump folder under the server's root (:mod:`.file_handlers`).
- ``GET {base_url}ascend-lab/api/profile?path=P`` -> the profile payload of a profiler
  folder under the server's root (:mod:`.profile_handlers`).

Nothing here imports MindSpore: loading the extension must stay cheap.
"""

from typing import Any

from ascend_lab import _jupyter_server_extension_points  # defined once, in ascend_lab/__init__.py
from ascend_lab._version import __version__  # shown by `jupyter server extension list`
from ascend_lab.server.config import AscendLabServerConfig

__all__ = ["AscendLabServerConfig", "__version__", "_jupyter_server_extension_points"]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Called by jupyter_server: read the config, create the shared cache, add routes."""
    import jupyter_server

    major = jupyter_server.__version__.split(".", 1)[0]
    if not major.isdigit() or int(major) < 2:
        # An image's JupyterLab 3 (jupyter_server 1.x) cannot load the JupyterLab 4 front end
        # that calls these routes: stay out of its way; the kernel side works without them.
        serverapp.log.warning(
            "ascend-lab server extension not loaded: it needs jupyter_server >= 2 "
            "(JupyterLab 4), this server has jupyter_server %s. The kernel-side features "
            "(%%ascend_status, trace, %%ascend_doctor) work without it; "
            "`pip install 'ascend-lab[lab]'` installs JupyterLab 4.",
            jupyter_server.__version__,
        )
        return
    from ascend_lab.server.handlers import setup_handlers

    config = AscendLabServerConfig(parent=serverapp)
    setup_handlers(serverapp, config)
    from ascend_lab.server.file_handlers import setup_file_handlers

    setup_file_handlers(serverapp)
    from ascend_lab.server.profile_handlers import setup_profile_handlers

    setup_profile_handlers(serverapp)
    serverapp.log.info(
        "ascend-lab server extension loaded (status cache %.1f s, npu-smi timeout %.1f s)",
        config.cache_seconds,
        config.timeout,
    )

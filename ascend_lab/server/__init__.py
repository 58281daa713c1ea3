"""The ascend-lab Jupyter server extension: device status and course location over REST.

Routes (all authenticated, under the server's ``base_url``):

- ``GET {base_url}ascend-lab/api/status`` -> ``DeviceStatus.to_dict()`` JSON
  (``?refresh=1`` skips the shared cache).
- ``GET {base_url}ascend-lab/api/course`` -> where the course's first notebook is.

Nothing here imports MindSpore: loading the extension must stay cheap.
"""

from typing import Any, Dict, List

from .config import AscendLabServerConfig

__all__ = ["AscendLabServerConfig", "_jupyter_server_extension_points"]


def _jupyter_server_extension_points() -> List[Dict[str, str]]:
    return [{"module": "ascend_lab.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Called by jupyter_server: read the config, create the shared cache, add routes."""
    from .handlers import setup_handlers

    config = AscendLabServerConfig(parent=serverapp)
    setup_handlers(serverapp, config)
    serverapp.log.info(
        "ascend-lab server extension loaded (status cache %.1f s, npu-smi timeout %.1f s)",
        config.cache_seconds,
        config.timeout,
    )


# jupyter_server < 2 looked for this name.
load_jupyter_server_extension = _load_jupyter_server_extension

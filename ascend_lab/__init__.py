"""ascend-lab: learn and use Huawei Ascend NPUs with MindSpore from inside Jupyter.

Importing this package is cheap on purpose: nothing here imports MindSpore, NumPy or
matplotlib. Heavy parts load on first use (``ascend_lab.trace`` imports MindSpore only
when a trace is captured).
"""

from typing import Any, Dict, List

# ``ascend_lab.trace`` is the trace subpackage, which is callable: ``ascend_lab.trace(net, x)``
# (see ascend_lab/trace/__init__.py). Importing it is cheap; MindSpore loads on first call.
from . import trace
from ._version import __version__

__all__ = ["__version__", "load_ipython_extension", "status", "trace"]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext ascend_lab``: register the magics (without importing MindSpore)."""
    from .magics import register

    register(ipython)


def status(refresh: bool = False) -> Any:
    """Return a :class:`~ascend_lab.device.status.DeviceStatus` snapshot of this machine."""
    from .device.probe import collect_status

    return collect_status(refresh=refresh)


def _jupyter_labextension_paths() -> List[Dict[str, str]]:
    """Where JupyterLab finds the prebuilt front-end extension (``jupyter labextension``)."""
    return [{"src": "labextension", "dest": "ascend-lab"}]


def _jupyter_server_extension_points() -> List[Dict[str, str]]:
    """The server extension (``/ascend-lab/api/...``); loading it never imports MindSpore."""
    return [{"module": "ascend_lab.server"}]

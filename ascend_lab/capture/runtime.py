"""The MindSpore runtime's own memory numbers (Ascend only): what the planner is compared with."""

import importlib
from typing import Any, Optional, Tuple

from ascend_lab.analysis.lifetimes import fmt_bytes
from ascend_lab.i18n import _

__all__ = ["runtime_peak"]


def runtime_peak(device: Optional[str] = None) -> Tuple[Optional[int], str]:
    """(bytes, explanation) of the runtime's own peak device memory; the explanation is in
    the reader's language (the course prints it).

    Only on Ascend: ``mindspore.runtime.max_memory_allocated()``. On CPU MindSpore uses a
    dynamic host pool and reports zeros, so this returns ``(None, reason)`` without calling
    it. ``device`` defaults to MindSpore's current device target (imports MindSpore).
    """
    if device is None:
        device = _current_device()
    if (device or "").lower() != "ascend":
        return None, _(
            "device is {}: MindSpore's runtime memory statistics are only meaningful on "
            "Ascend (on CPU they are all zeros), so only the planned numbers are shown."
        ).format(device or "unknown")
    import mindspore

    # mindspore.runtime (2.5+); MindSpore 2.3/2.4 on Ascend images have it in mindspore.hal.
    source: Any = getattr(mindspore, "runtime", None)
    name = "mindspore.runtime"
    if source is None or not hasattr(source, "max_memory_allocated"):
        source = importlib.import_module("mindspore.hal")
        name = "mindspore.hal"
    peak = int(source.max_memory_allocated())
    return peak, _("{}.max_memory_allocated() on Ascend: {}").format(name, fmt_bytes(peak))


def _current_device() -> Optional[str]:
    try:
        import mindspore
    except ImportError:
        return None
    getter: Any = getattr(mindspore, "get_context", None)
    try:
        return str(getter("device_target")) if getter else None
    except Exception:  # noqa: BLE001 - any failure means "not known"
        return None

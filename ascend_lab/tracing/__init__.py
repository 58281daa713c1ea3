"""Tracing a Cell through MindSpore's compiler: capture IR dumps, then analyse them.

The public entry point is :func:`ascend_lab.trace`. This package holds its parts:
``capture`` (the only module that touches MindSpore), ``timeline`` (the dumped passes),
``fusion`` (fused kernel -> original ops), ``api`` (the :class:`Trace` object),
``mindir_io`` (MindIR export and load-back) and ``magic`` (``%ascend_trace``).

Importing this package does not import MindSpore; capturing a trace does.
"""

from typing import Any

__all__ = ["Trace", "TraceBusyError", "TraceError", "export_and_compare"]

_LAZY = {
    "Trace": "ascend_lab.results.trace",
    "TraceError": "ascend_lab.errors.trace",
    "TraceBusyError": "ascend_lab.errors.trace",
    "export_and_compare": "ascend_lab.capture.mindir_export",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

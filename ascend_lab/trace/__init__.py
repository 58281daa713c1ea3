"""Trace a Cell through MindSpore's compiler: capture IR dumps, then analyse them.

Importing this package does not import MindSpore; :func:`ascend_lab.trace.api.trace` does.

``ascend_lab.trace`` is both this package and the function ``ascend_lab.trace(net, x)``:
a package attribute of a parent is always the subpackage once that is imported, so the
package itself is callable and forwards to :func:`ascend_lab.trace.api.trace`.
"""

import sys
import types
from typing import Any

__all__ = ["Trace", "TraceBusyError", "TraceError", "trace", "export_and_compare"]

_LAZY = {
    "Trace": ".api",
    "trace": ".api",
    "TraceError": ".errors",
    "TraceBusyError": ".errors",
    "export_and_compare": ".mindir_io",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name], __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    def __call__(self, net: Any, *inputs: Any, **options: Any) -> Any:
        from .api import trace as _trace

        return _trace(net, *inputs, **options)


sys.modules[__name__].__class__ = _CallableModule

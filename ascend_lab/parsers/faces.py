"""The faces of the parser families (``ir/``, ``mindir/``, ``profiler/``) load on first use.

Each family's ``__init__`` names its entry points and the module that defines each; importing
one module of a family then does not import the rest of it (PEP 562 module ``__getattr__``).
"""

import importlib
from typing import Any, Callable, Dict


def lazy_exports(package: str, table: Dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``table[name]`` on first use."""

    def __getattr__(name: str) -> Any:
        if name in table:
            return getattr(importlib.import_module(table[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__

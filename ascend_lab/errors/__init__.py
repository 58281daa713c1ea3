"""The root of every exception ascend-lab raises: ``except AscendLabError`` catches them all.

Each class keeps its builtin base too (``class GraphParseError(AscendLabError, ValueError)``),
so code that catches ``ValueError`` or ``OSError`` keeps working. No imports: every layer
may import this module.
"""

__all__ = ["AscendLabError"]


class AscendLabError(Exception):
    """Base class of every exception defined in ``ascend_lab``."""

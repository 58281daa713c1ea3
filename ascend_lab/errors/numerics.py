"""Errors of the numeric comparison: each says which side and what to do."""

from ascend_lab.errors import AscendLabError


class NumericsError(AscendLabError, ValueError):
    """A numeric comparison that cannot be made (bad sides, inputs or reference)."""


class NumericsRunError(NumericsError, RuntimeError):
    """One side failed to build or run on the inputs (MindSpore's message kept)."""


class NumericsInputError(NumericsError):
    """The inputs do not fit a side (shapes, dtypes, count)."""


class NumericsReferenceError(NumericsError):
    """A reference (``.npz`` or dict of arrays) that names no Cell, unknown Cells or bad shapes."""

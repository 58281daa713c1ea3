"""What the sample inputs of a trace are to MindSpore's graph mode, said when it matters.

Graph mode compiles a tuple, list, dict or Python scalar input as a constant (unless it is
wrapped in ``mindspore.mutable``), so a net that only computes on such inputs folds to no
kernels at all; a NumPy array is an opaque Python object to it, and the compile fails far
from the cause ("Failed calling Shape with input_x=External"). No MindSpore import here:
inputs are told apart by their types.
"""

from typing import Any, List, Sequence

__all__ = ["constant_input_notes", "numpy_input_notes"]

_CONTAINERS = (tuple, list, dict)


def _is_numpy_array(value: Any) -> bool:
    kind = type(value)
    return kind.__name__ == "ndarray" and kind.__module__ == "numpy"


def numpy_input_notes(inputs: Sequence[Any]) -> List[str]:
    """One line per NumPy array among ``inputs`` (graph mode does not take them)."""
    return [
        f"input {i} is a numpy.ndarray: graph mode reads it as an opaque Python object; "
        "pass mindspore.Tensor(x) instead"
        for i, value in enumerate(inputs)
        if _is_numpy_array(value)
    ]


def constant_input_notes(inputs: Sequence[Any]) -> List[str]:
    """One line per tuple, list or dict among ``inputs`` that graph mode takes as a constant
    (not wrapped in ``mindspore.mutable``)."""
    return [
        f"input {i} is a {type(value).__name__}: graph mode compiles it, and everything "
        "computed from it, as a constant unless it is wrapped in mindspore.mutable(...)"
        for i, value in enumerate(inputs)
        if isinstance(value, _CONTAINERS) and not getattr(value, "__ms_mutable__", False)
    ]

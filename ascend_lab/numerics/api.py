"""``compare_numerics(a, b, *inputs)``: where two runs of a network part ways."""

from typing import Any, Mapping, Optional

from ascend_lab.analysis.numeric_compare import K_DEFAULT, align, find_divergence
from ascend_lab.errors.numerics import NumericsInputError
from ascend_lab.model.tensor_stats import SAMPLE_SIZE
from ascend_lab.numerics.result import REFERENCE, NumericsResult


def _is_reference(obj: Any) -> bool:
    import os

    return isinstance(obj, (dict, str, os.PathLike)) or hasattr(obj, "files")


def compare_numerics(
    a: Any,
    *args: Any,
    amp: Optional[str] = None,
    mapping: Optional[Mapping[str, str]] = None,
    k: float = K_DEFAULT,
    floor: Optional[float] = None,
    tensors: bool = False,
    sample_size: int = SAMPLE_SIZE,
) -> NumericsResult:
    """See :func:`ascend_lab.compare_numerics`."""
    from ascend_lab.capture.cell_outputs import amp_copy, capture_side

    if amp is not None:
        b: Any = amp_copy(a, amp)
        inputs = list(args)
        name_b = f"{type(a).__name__} amp={amp}"
    else:
        if not args:
            raise NumericsInputError(
                "compare_numerics(a, b, *inputs): name the second side (a Cell, or reference "
                "arrays as a dict or .npz), or use amp='O2'"
            )
        b, inputs = args[0], list(args[1:])
        name_b = REFERENCE if _is_reference(b) else type(b).__name__
    if not inputs:
        raise NumericsInputError("compare_numerics needs the net's inputs after the sides")
    if _is_reference(a):
        raise NumericsInputError("side a must be a mindspore.nn.Cell; a reference goes second")
    if sample_size < 1:
        raise NumericsInputError("sample_size must be at least 1")
    side_a, _ = capture_side(a, inputs, "a", tensors, sample_size)
    if _is_reference(b):
        from ascend_lab.numerics.reference import reference_side

        side_b = reference_side(b, side_a.by_key(), "b", tensors, sample_size)
    else:
        side_b, _ = capture_side(b, inputs, "b", tensors, sample_size)
    pairs, unmatched = align(side_a, side_b, mapping)
    first = find_divergence(pairs, k, floor)
    return NumericsResult(type(a).__name__, name_b, pairs, unmatched, first, k)

"""``compare_numerics(a, b, *inputs)``: where two runs of a network part ways.

Two captures (``capture=``):

* ``"cells"`` (the default): each side runs once in PyNative with a forward hook on every
  sub-Cell (:mod:`ascend_lab.capture.cell_outputs`): one record per Cell call, with its
  inputs and outputs. An op written in a ``construct`` (``ops.softmax(x)``) is part of the
  Cell whose ``construct`` holds it.
* ``"dump"``: each side is compiled and run once in GRAPH_MODE (graph-kernel fusion off) in
  a child process with MindSpore's own dump on (:mod:`ascend_lab.capture.op_dump`, which
  says why a child process): one record per kernel, outputs only, aligned by full scope
  name and op type (``attn/Softmax``), a one-sided Cast unmatched and never a divergence
  (:func:`ascend_lab.analysis.numeric_compare.align_ops`). An op's input error is that of
  its producers in the dumped kernel graph. Both sides must be Cells whose classes live in
  a module file (not a notebook cell); ``amp=`` works (the AMP copy is sent). The dump
  folder is removed afterwards, also when a compile fails.

  ``fusion=`` turns graph-kernel fusion on in a side's child (``True``: both, ``"a"`` or
  ``"b"``: that side, or a pair of bools), to ask "does fusion change my numbers?". The
  CPU dump writes a fused kernel's outputs only: it is paired with the last original op it
  computes on the other side, and the ops inside it are unmatched, "inside fused kernel X"
  (:func:`ascend_lab.analysis.numeric_compare.align_ops`).

  With ``capture="cells"``, a first divergent Cell that computes ops of its own is drilled
  into this way automatically (``drill=False``: not), and the finding names the op inside
  it (:mod:`ascend_lab.numerics.drill`).

  Reference arrays work here too (:func:`ascend_lab.numerics.reference.reference_op_side`):
  keyed by op (``attn/Softmax``, ``attn/Softmax#2`` for the third, as the table labels
  them) or by Cell path (compared at the Cell's last op).
"""

from typing import Any, Mapping, Optional, Tuple

from ascend_lab.analysis.numeric_compare import K_DEFAULT, align, align_ops, find_divergence
from ascend_lab.errors.numerics import NumericsInputError
from ascend_lab.model.tensor_stats import SAMPLE_SIZE
from ascend_lab.results.numerics import REFERENCE, NumericsResult

CAPTURES = ("cells", "dump")


def _is_reference(obj: Any) -> bool:
    import os

    return isinstance(obj, (dict, str, os.PathLike)) or hasattr(obj, "files")


def _fusion_sides(fusion: Any, capture: str) -> Tuple[bool, bool]:
    """``fusion=`` as (side a, side b): False, True (both), "a", "b" or a pair of bools."""
    if isinstance(fusion, bool):
        sides = (fusion, fusion)
    elif fusion in ("a", "b"):
        sides = (fusion == "a", fusion == "b")
    elif (
        isinstance(fusion, (tuple, list))
        and len(fusion) == 2
        and all(isinstance(f, bool) for f in fusion)
    ):
        sides = (fusion[0], fusion[1])
    else:
        raise NumericsInputError(
            f"fusion is True, False, 'a', 'b' or a pair of bools (side a, side b), got {fusion!r}"
        )
    if any(sides) and capture != "dump":
        raise NumericsInputError(
            "fusion= needs capture='dump' (graph mode; capture='cells' runs in PyNative, "
            "where nothing is fused)"
        )
    return sides


def compare_numerics(
    a: Any,
    *args: Any,
    amp: Optional[str] = None,
    mapping: Optional[Mapping[str, str]] = None,
    k: float = K_DEFAULT,
    floor: Optional[float] = None,
    tensors: bool = False,
    sample_size: int = SAMPLE_SIZE,
    capture: str = "cells",
    fusion: Any = False,
    drill: bool = True,
) -> NumericsResult:
    """See :func:`ascend_lab.compare_numerics` (and this module's docstring for ``capture``)."""
    if capture not in CAPTURES:
        raise NumericsInputError(
            f"capture must be 'cells' (PyNative, Cell by Cell) or 'dump' (graph mode, op by "
            f"op), got {capture!r}"
        )
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
    shapes = [tuple(s) for s in (getattr(x, "shape", None) for x in inputs) if s is not None]
    if shapes and all(0 in s for s in shapes):  # one empty input (a KV cache) may be fine
        raise NumericsInputError(
            "the inputs {} hold no values (a batch of 0?): there is nothing to compare; give "
            "at least one sample".format(", ".join(str(s) for s in shapes))
        )
    if _is_reference(a):
        raise NumericsInputError("side a must be a mindspore.nn.Cell; a reference goes second")
    if sample_size < 1:
        raise NumericsInputError("sample_size must be at least 1")
    fuse_a, fuse_b = _fusion_sides(fusion, capture)
    from ascend_lab.capture.cell_outputs import nonfinite_inputs, random_cells

    nonfinite = nonfinite_inputs(inputs)
    random = {
        side: random_cells(net)
        for side, net in (("a", a), ("b", b))
        if not _is_reference(net) and hasattr(net, "cells_and_names")
    }
    if capture == "dump":
        from ascend_lab.capture.op_dump import capture_side_dump

        if _is_reference(b):
            if fuse_b:
                raise NumericsInputError("fusion applies to Cells; side b is reference arrays")
            from ascend_lab.numerics.reference import reference_op_side

            ops_a = capture_side_dump(a, inputs, "a", tensors, sample_size, fuse_a)
            ref = reference_op_side(b, ops_a.by_key(), "b", tensors, sample_size)
            pairs, unmatched = align(ops_a, ref, mapping)
            first = find_divergence(pairs, k, floor, ops_a, ref)
            return NumericsResult(
                type(a).__name__, name_b, pairs, unmatched, first, k, capture, random, nonfinite
            )
        ops_a = capture_side_dump(a, inputs, "a", tensors, sample_size, fuse_a)
        ops_b = capture_side_dump(b, inputs, "b", tensors, sample_size, fuse_b)
        pairs, unmatched = align_ops(ops_a, ops_b, mapping)
        first = find_divergence(pairs, k, floor, ops_a, ops_b)
        return NumericsResult(
            type(a).__name__, name_b, pairs, unmatched, first, k, capture, random, nonfinite
        )
    side_a, _ = capture_side(a, inputs, "a", tensors, sample_size)
    if _is_reference(b):
        from ascend_lab.numerics.reference import reference_side

        side_b = reference_side(b, side_a.by_key(), "b", tensors, sample_size)
    else:
        side_b, _ = capture_side(b, inputs, "b", tensors, sample_size)
    pairs, unmatched = align(side_a, side_b, mapping)
    first = find_divergence(pairs, k, floor)
    result = NumericsResult(
        type(a).__name__, name_b, pairs, unmatched, first, k, "cells", random, nonfinite
    )
    if drill and first is not None and not _is_reference(b):
        from ascend_lab.numerics.drill import drill_into, worth_drilling

        if worth_drilling(a, first.a.path):
            result.drill = drill_into(a, b, inputs, first.a.path, mapping, k, floor, sample_size)
    return result

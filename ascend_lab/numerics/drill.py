"""Drill into the first divergent Cell op by op, so the finding names the op (#36).

The default capture (``capture="cells"``) records one output per Cell call. When the first
divergent Cell computes ops in its own ``construct`` (``ops.softmax(x)``, ``x * scale``, the
``exp`` an AMP float16 overflows), that capture can name only the Cell, "the whole net" at
worst. Then both sides are captured once more op by op (``capture="dump"``: graph mode,
MindSpore's own dump, in a child process each; :mod:`ascend_lab.capture.op_dump`), and the
first op *inside that Cell* whose error jumps past its inputs' is the finding's op. This
works for AMP copies (``amp="O2"``/``"O3"`` against float32) as it does for two nets.

Not drilled into: a Cell of MindSpore's own library with no sub-Cells (``nn.Dense``,
``nn.Softmax``: its name already says which op), reference arrays as side b (nothing to
run), and ``drill=False``. When a drill cannot run (a Cell that does not compile in graph
mode, a class the child cannot rebuild), the result says why, and the Cell stays the
finding.
"""

from dataclasses import dataclass
from typing import Any, List, Mapping, Optional

from ascend_lab.analysis.numeric_compare import OpComparison, align_ops, find_divergence
from ascend_lab.errors.numerics import NumericsError
from ascend_lab.i18n import _


@dataclass
class Drill:
    """The op-by-op look inside the first divergent Cell: the op found, or why none."""

    cell: str  # the Cell's path ("" for the net itself)
    op: Optional[OpComparison] = None  # the first divergent op inside it
    reason: Optional[str] = None  # why there is no op (could not run, none diverged)
    ops_inside: int = 0  # matched ops inside the Cell

    def lines(self) -> List[str]:
        """The summary's lines on this drill (in the reader's language)."""
        from ascend_lab.results.numerics import _dtypes, _g, _where

        where = self.cell or "(net)"
        if self.op is None:
            return ["  " + _("op by op inside {}: {}").format(where, self.reason or "-")]
        op = self.op
        text = _("op by op inside {}: the first divergent op is {} ({}), rel err {} > {}").format(
            where, op.label, op.a.op_type, _g(op.max_rel), _g(op.threshold)
        )
        out = ["  " + text]
        for side, rec in (("a", op.a), ("b", op.b)):
            shown = " ".join(w for w in (rec.scope, _where(rec), _dtypes(rec)) if w)
            out.append("    " + _("side {}: {}").format(side, shown))
        return out

    def to_dict(self) -> dict:
        return {
            "cell": self.cell,
            "op": self.op.label if self.op is not None else None,
            "op_type": self.op.a.op_type if self.op is not None else None,
            "max_rel": self.op.max_rel if self.op is not None else None,
            "reason": self.reason,
            "ops_inside": self.ops_inside,
        }


def _inside(path: str, cell: str) -> bool:
    """An op path (``head/Softmax``, ``blocks.0.attn/MatMul``) inside the Cell ``cell``."""
    return not cell or path == cell or path.startswith((cell + "/", cell + "."))


def _cell_at(net: Any, path: str) -> Any:
    if not path:
        return net
    for name, cell in net.cells_and_names():
        if name == path:
            return cell
    return None


def worth_drilling(net: Any, path: str) -> bool:
    """Does the Cell at ``path`` compute ops of its own that its name does not say? A Cell
    of the user's (any), or one of MindSpore's library holding sub-Cells; not a leaf of
    MindSpore's library (``nn.Dense`` is its MatMul and BiasAdd)."""
    cell = _cell_at(net, path)
    if cell is None:
        return False
    module = type(cell).__module__ or ""
    if not module.startswith("mindspore."):
        return True
    return any(True for _ in cell.cells())


def drill_into(
    a: Any,
    b: Any,
    inputs: List[Any],
    cell: str,
    mapping: Optional[Mapping[str, str]],
    k: float,
    floor: Optional[float],
    sample_size: int,
) -> Drill:
    """Capture both sides op by op and find the first divergent op inside ``cell``."""
    from ascend_lab.capture.op_dump import capture_side_dump

    try:
        ops_a = capture_side_dump(a, inputs, "a", False, sample_size, False)
        ops_b = capture_side_dump(b, inputs, "b", False, sample_size, False)
    except NumericsError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return Drill(cell, reason=_("the op-by-op capture could not run ({})").format(first))
    op_mapping = None
    if mapping:  # Cell paths renamed by the port: the same for the ops inside them
        op_mapping = dict(mapping)
    pairs, _unmatched = align_ops(ops_a, ops_b, op_mapping)
    first_op = find_divergence(pairs, k, floor, ops_a, ops_b)
    inside = sorted((p for p in pairs if _inside(p.a.path, cell)), key=lambda p: p.a.index)
    if first_op is not None and _inside(first_op.a.path, cell):
        return Drill(cell, op=first_op, ops_inside=len(inside))
    found = next((p for p in inside if p.diverged), None)
    if found is not None:
        return Drill(cell, op=found, ops_inside=len(inside))
    if not inside:
        return Drill(cell, reason=_("no op of it was matched between the two sides"))
    return Drill(
        cell,
        reason=_(
            "none of its {} ops diverges in graph mode (the error shows only in PyNative)"
        ).format(len(inside)),
        ops_inside=len(inside),
    )

"""The result of a numeric comparison: a table, a plain-text summary and an (escaped) HTML view.

The summary, the table and the HTML view speak the reader's language (:func:`ascend_lab.i18n.
choose`: in a Chinese-edition notebook, Chinese); ``to_dict`` stays English. The doctor reads
a pasted summary in either language: its ``numerics`` entries match both forms
(``first divergence:`` / ``首个偏离点：``, ``rel err`` / ``相对误差``, ``side a:`` / ``a 侧：``).
"""

import os
from typing import Any, Dict, List, Optional

from ascend_lab.analysis.numeric_advice import suggest
from ascend_lab.analysis.numeric_compare import OpComparison, Unmatched
from ascend_lab.i18n import N_, _, display_width, ljust
from ascend_lab.model import display

REFERENCE = N_("reference")  # side b's name when it is reference arrays (numerics.api)
# what the input error of a divergence was measured on (OpComparison.input_basis)
BASIS = {
    "inputs": N_("inputs"),
    "producers": N_("producers"),
    "earlier": N_("earlier"),
    "inner cells": N_("inner cells"),
}


def _g(x: float) -> str:
    if x != x:
        return "nan"
    if x == float("inf"):
        return "inf"
    return f"{x:.3g}"


def _where(rec: Any) -> str:
    src = rec.source
    if src:
        head, _, line = src.rpartition(":")
        src = f"{os.path.basename(head)}:{line}"
    return src


def _dtypes(rec: Any) -> str:
    names = sorted({s.dtype for s in rec.outputs if s is not None})
    return "[" + ", ".join(names) + "]" if names else ""


class Divergence:
    """Where the two sides part ways: the op on each side, and by how much."""

    def __init__(self, pair: OpComparison):
        self.pair = pair
        self.scope_a, self.scope_b = pair.a.scope, pair.b.scope
        self.op_type_a, self.op_type_b = pair.a.op_type, pair.b.op_type
        self.source_a, self.source_b = pair.a.source, pair.b.source
        self.path = pair.a.path
        self.label = pair.label
        self.max_rel = pair.max_rel
        self.input_rel = pair.input_rel
        self.threshold = pair.threshold
        self.advice = suggest(pair)

    def __str__(self) -> str:
        basis = self.pair.input_basis
        text = _("first divergence: {} ({}) rel err {} > {} cos {} (inputs {}, {})").format(
            self.label,
            self.op_type_a,
            _g(self.max_rel),
            _g(self.threshold),
            _g(self.pair.cosine),
            _g(self.input_rel),
            _(BASIS[basis]) if basis in BASIS else basis,
        )
        if self.pair.jump_before:
            text += "\n  " + _("in its own construct, before {} (its inputs differ)").format(
                self.pair.jump_before
            )
        for side, label in self.pair.unpaired_inputs[:4]:
            text += "\n  " + _(
                "side {} feeds it from {}, which has no partner on the other side (an op or "
                "layer only this side has)"
            ).format(side, label)
        for side, rec in (("a", self.pair.a), ("b", self.pair.b)):
            where = " ".join(w for w in (rec.scope, _where(rec), _dtypes(rec)) if w)
            text += "\n  " + _("side {}: {}").format(side, where)
            under = rec.scoped_under
            if rec.fused_ops:
                text += " (" + _("a fused kernel of {}").format(", ".join(rec.fused_ops)) + ")"
            elif under is not None:
                text += (
                    " ("
                    + _("scoped by MindSpore under {}, which gives the source line too").format(
                        under or "(net)"
                    )
                    + ")"
                )
        return text

    def __repr__(self) -> str:
        return f"Divergence({self.label!r}, {self.op_type_a})"


def _at_or_inside(path: str, cell: str) -> bool:
    """An op or Cell path (``drop``, ``drop/DropoutGenMask``, ``blocks.0.drop``) at or
    inside the Cell path ``cell`` (``""``: the net)."""
    return not cell or path == cell or path.startswith((cell + ".", cell + "/"))


def _op_cell(pair: OpComparison) -> str:
    """The table's op column: side a's op type, and where MindSpore scoped it when the
    capture's scope repair moved it (``Add (MindSpore: blocks.0.attn_norm)``), or that
    side b computed it inside a fused kernel."""
    rec = pair.a
    if pair.b.fused_ops and not rec.fused_ops:
        return _("{} (fused on side b)").format(rec.op_type)
    under = rec.scoped_under
    if under is None:
        return str(rec.op_type)
    return _("{} (MindSpore: {})").format(rec.op_type, under or "(net)")


# The table's columns; "cell" (the Cell's name, what exercise 06.3 asks for) and the
# nan/inf counts read the same in both languages.
COLUMNS = (
    "#",
    "cell",
    N_("op"),
    N_("max abs"),
    N_("max rel"),
    N_("cosine"),
    N_("in rel"),
    "nan/inf a",
    "nan/inf b",
    N_("fp16 ovf a/b"),
    "",
)
LOCALIZED_COLUMNS = frozenset(COLUMNS[2:7] + COLUMNS[9:10])


def numerics_columns() -> List[str]:
    """The column headers in the reader's language."""
    return [_(c) if c in LOCALIZED_COLUMNS else c for c in COLUMNS]


class NumericsResult:
    """Every matched Cell call with its error, what was not matched, and the first divergence."""

    def __init__(
        self,
        name_a: str,
        name_b: str,
        pairs: List[OpComparison],
        unmatched: List[Unmatched],
        first: Optional[OpComparison],
        k: float,
        capture: str = "cells",
        random: Optional[Dict[str, List[str]]] = None,
        nonfinite: Optional[List[str]] = None,
    ):
        # the inputs that already hold NaN/Inf ("input 0: 1 NaN")
        self.nonfinite_inputs: List[str] = list(nonfinite or [])
        # side -> paths of its Cells that draw random numbers (Dropout in train mode, ...)
        self.random: Dict[str, List[str]] = {k: list(v) for k, v in (random or {}).items() if v}
        self.capture = capture  # "cells" (PyNative, per Cell call) or "dump" (graph, per op)
        self.name_a = name_a
        self.name_b = name_b
        self.pairs = sorted(pairs, key=lambda p: p.a.index)
        self.unmatched = unmatched
        self.k = k
        self.first_divergence: Optional[Divergence] = (
            Divergence(first) if first is not None else None
        )
        # capture="cells": the op-by-op look inside the first divergent Cell (numerics.drill)
        self.drill: Any = None

    @property
    def advice(self) -> List[str]:
        found = list(self.first_divergence.advice) if self.first_divergence else []
        op = self.drill.op if self.drill is not None else None
        if op is not None:  # the op inside the Cell says more than the Cell's name
            found = [e for e in suggest(op) if e not in found] + found
        return found

    def find(self, label: str) -> Optional[OpComparison]:
        for p in self.pairs:
            if p.label == label:
                return p
        return None

    def rows(self) -> List[List[str]]:
        rows = []
        for p in self.pairs:
            ca, cb = p.counts("a"), p.counts("b")
            mark = (
                "FIRST"
                if self.first_divergence and p is self.first_divergence.pair
                else ("!" if p.diverged else "")
            )
            rows.append(
                [
                    str(p.a.index),
                    p.label,
                    _op_cell(p),
                    _g(p.max_abs),
                    _g(p.max_rel),
                    _g(p.cosine),
                    _g(p.input_rel),
                    "{}/{}".format(ca["nan"], ca["inf"]),
                    "{}/{}".format(cb["nan"], cb["inf"]),
                    "{}/{}".format(ca["fp16_overflow"], cb["fp16_overflow"]),
                    mark,
                ]
            )
        return rows

    def table(self) -> str:
        """A fixed-width text table, one row per matched Cell call in execution order."""
        rows = [numerics_columns()] + self.rows()
        widths = [max(display_width(r[i]) for r in rows) for i in range(len(COLUMNS))]
        lines = ["  ".join(ljust(c, w) for c, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join(lines)

    def __str__(self) -> str:
        name_b = _(REFERENCE) if self.name_b == REFERENCE else self.name_b
        head = _("numerics {} vs {}: {} matched, {} unmatched").format(
            self.name_a, name_b, len(self.pairs), len(self.unmatched)
        )
        if self.capture == "dump":
            head += " " + _("(op by op, graph mode, MindSpore's dump)")
        notes = self._notes()
        if self.first_divergence is None:
            worst = max(self.pairs, key=lambda p: p.max_rel, default=None)
            tail = _("no divergence (k={:g})").format(self.k)
            if worst is not None:
                tail += _("; largest rel err {} at {}").format(_g(worst.max_rel), worst.label)
            return "\n".join([head, tail] + notes)
        lines = [head, str(self.first_divergence)]
        if self.drill is not None:
            lines.extend(self.drill.lines())
        lines.extend(notes)
        if self.advice:
            lines.append(
                "  "
                + _(
                    "doctor: {} (paste this summary into %ascend_doctor or "
                    "`ascend-lab doctor -` for the fix)"
                ).format(", ".join(self.advice))
            )
        return "\n".join(lines)

    def _notes(self) -> List[str]:
        """What the summary says of inputs holding NaN/Inf and of random Cells (an error
        there is randomness)."""
        lines = []
        if self.nonfinite_inputs:
            lines.append(
                "  "
                + _(
                    "note: the inputs already hold NaN or Inf ({}): every op they reach "
                    "carries them on both sides, and errors are measured only where both "
                    "sides are finite"
                ).format("; ".join(self.nonfinite_inputs[:4]))
            )
        sides = sorted(self.random)
        both = len(sides) == 2 and self.random["a"] == self.random["b"]
        for side in sides[:1] if both else sides:  # the same Cells on both sides: said once
            paths = [p or "(net)" for p in self.random[side]]
            shown = ", ".join(paths[:4]) + (", ..." if len(paths) > 4 else "")
            who = _("both sides") if both else _("side {}").format(side)
            lines.append(
                "  "
                + _(
                    "note: {} draw random numbers in {} (Dropout in train mode or a random "
                    "op): the outputs change from run to run, so an error there and after it "
                    "is randomness, not a divergence; call net.set_train(False) on both sides "
                    "before comparing"
                ).format(who, shown)
            )
        first = self.first_divergence
        if first is not None and any(
            _at_or_inside(first.path, p) for paths in self.random.values() for p in paths
        ):
            lines.append(
                "  " + _("the first divergence is in a random Cell: it may be randomness alone")
            )
        return lines

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return display.call("card_html", self)

    def to_payload(self, trace: Any) -> Dict[str, Any]:
        """``trace``'s graph payload with a ``numerics`` section: each node's error, the
        first divergence marked (``trace`` is ``ascend_lab.trace(a, *inputs)``)."""
        return display.call("payload", self, trace=trace)

    def show(self, trace: Any) -> Any:
        """The viewer on ``trace``'s graph, nodes coloured by this comparison's error."""
        return display.call("show", self, trace=trace)

    def to_dict(self) -> Dict[str, Any]:
        """Plain data (JSON-ready): per matched call, both sides' statistics and the error."""
        out = []
        for p in self.pairs:
            out.append(
                {
                    "label": p.label,
                    "path": p.a.path,
                    "call": p.a.call,
                    "op_type": p.op_type,
                    "scope_a": p.a.scope,
                    "scope_b": p.b.scope,
                    "scoped_under_a": p.a.scoped_under,
                    "scoped_under_b": p.b.scoped_under,
                    "fused_ops_a": p.a.fused_ops,
                    "fused_ops_b": p.b.fused_ops,
                    "source_a": p.a.source,
                    "source_b": p.b.source,
                    "max_abs": p.max_abs,
                    "max_rel": p.max_rel if p.max_rel != float("inf") else None,
                    "cosine": p.cosine if p.cosine == p.cosine else None,
                    "input_rel": p.input_rel,
                    "diverged": p.diverged,
                    "a": [s.to_dict() for s in p.a.outputs if s is not None],
                    "b": [s.to_dict() for s in p.b.outputs if s is not None],
                }
            )
        first = self.first_divergence
        return {
            "a": self.name_a,
            "b": self.name_b,
            "pairs": out,
            "unmatched": [
                {
                    "side": u.side,
                    "label": u.record.label,
                    "op_type": u.record.op_type,
                    "reason": u.reason,
                }
                for u in self.unmatched
            ],
            "first_divergence": first.label if first else None,
            "drill": self.drill.to_dict() if self.drill is not None else None,
            "advice": self.advice,
            "capture": self.capture,
            "random": self.random,
            "nonfinite_inputs": self.nonfinite_inputs,
        }

"""The result of a numeric comparison: a table, a plain-text summary and an (escaped) HTML view."""

import html
import os
from typing import Any, Dict, List, Optional

from ascend_lab.analysis.numeric_compare import OpComparison, Unmatched
from ascend_lab.numerics.advice import suggest


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
        text = (
            f"first divergence: {self.label} ({self.op_type_a}) rel err {_g(self.max_rel)}"
            f" > {_g(self.threshold)} cos {_g(self.pair.cosine)}"
            f" (inputs {_g(self.input_rel)}, {self.pair.input_basis})"
        )
        if self.pair.jump_before:
            text += f"\n  in its own construct, before {self.pair.jump_before} (its inputs differ)"
        for side, rec in (("a", self.pair.a), ("b", self.pair.b)):
            where = " ".join(w for w in (rec.scope, _where(rec), _dtypes(rec)) if w)
            text += f"\n  side {side}: {where}"
        return text

    def __repr__(self) -> str:
        return f"Divergence({self.label!r}, {self.op_type_a})"


COLUMNS = (
    "#",
    "cell",
    "op",
    "max abs",
    "max rel",
    "cosine",
    "in rel",
    "nan/inf a",
    "nan/inf b",
    "fp16 ovf a/b",
    "",
)


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
    ):
        self.name_a = name_a
        self.name_b = name_b
        self.pairs = sorted(pairs, key=lambda p: p.a.index)
        self.unmatched = unmatched
        self.k = k
        self.first_divergence: Optional[Divergence] = (
            Divergence(first) if first is not None else None
        )

    @property
    def advice(self) -> List[str]:
        return self.first_divergence.advice if self.first_divergence else []

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
                    p.op_type,
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
        rows = [list(COLUMNS)] + self.rows()
        widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join(lines)

    def __str__(self) -> str:
        head = (
            f"numerics {self.name_a} vs {self.name_b}: {len(self.pairs)} matched,"
            f" {len(self.unmatched)} unmatched"
        )
        if self.first_divergence is None:
            worst = max(self.pairs, key=lambda p: p.max_rel, default=None)
            tail = f"no divergence (k={self.k:g})"
            if worst is not None:
                tail += f"; largest rel err {_g(worst.max_rel)} at {worst.label}"
            return head + "\n" + tail
        lines = [head, str(self.first_divergence)]
        if self.advice:
            lines.append(
                "  doctor: "
                + ", ".join(self.advice)
                + " (paste this summary into %ascend_doctor or `ascend-lab doctor -` for the fix)"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        e = html.escape
        parts = [f"<div class='al-numerics'><pre>{e(str(self))}</pre>"]
        parts.append(
            "<table><thead><tr>{}</tr></thead><tbody>".format(
                "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
            )
        )
        for row in self.rows():
            style = " style='background:#fdd'" if row[-1] else ""
            parts.append("<tr{}>{}</tr>".format(style, "".join(f"<td>{e(c)}</td>" for c in row)))
        parts.append("</tbody></table>")
        if self.unmatched:
            parts.append(f"<details><summary>{len(self.unmatched)} unmatched</summary><ul>")
            for u in self.unmatched[:200]:
                parts.append(
                    f"<li>{e(u.side)} {e(u.record.label)} {e(u.record.op_type)}: {e(u.reason)}</li>"
                )
            parts.append("</ul></details>")
        parts.append("</div>")
        return "".join(parts)

    def to_payload(self, trace: Any) -> Dict[str, Any]:
        """``trace``'s graph payload with a ``numerics`` section: each node's error, the
        first divergence marked (``trace`` is ``ascend_lab.trace(a, *inputs)``)."""
        from ascend_lab.payload import check_payload
        from ascend_lab.payload.numerics_section import attach

        payload = attach(trace.to_payload(passes="none", memory=False), self)
        check_payload(payload)
        return payload

    def show(self, trace: Any) -> Any:
        """The viewer on ``trace``'s graph, nodes coloured by this comparison's error."""
        from ascend_lab.render.widgets import ViewerWidget

        return ViewerWidget(payload=self.to_payload(trace), view="graph")

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
            "advice": self.advice,
        }

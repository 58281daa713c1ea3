"""The :class:`Comparison` of two traces: aligned nodes, kernel counts, memory peaks, times.

Built by :func:`ascend_lab.compare` (:mod:`ascend_lab.comparison`), which makes each
:class:`Side` from a Trace, a saved payload or a Graph and aligns their final graphs
(:mod:`ascend_lab.analysis.align`).
"""

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.analysis.align import Alignment, Match
from ascend_lab.model import display
from ascend_lab.model.graph import Graph, Node
from ascend_lab.model.ops import op_name

__all__ = ["Comparison", "Side"]


@dataclass
class Side:
    """One side of a comparison: its final graph and what is known about it."""

    title: str
    graph: Graph
    fused: Dict[str, List[Node]] = field(default_factory=dict)  # kernel id -> originals
    mindspore_version: Optional[str] = None
    fusion: Optional[bool] = None
    peak: Optional[int] = None  # bytes, from the memory planner
    time_us: Optional[float] = None  # mean measured step, when a profile is attached

    @property
    def kernel_ops(self) -> Dict[str, int]:
        """Kernels per op type (``Conv2D``: 2, ``Fused_ReLU``: 2, ...)."""
        return dict(Counter(op_name(n.op) for n in self.graph.kernels))

    @property
    def kernel_count(self) -> int:
        return len(self.graph.kernels)

    @property
    def casts(self) -> int:
        return sum(1 for n in self.graph.kernels if op_name(n.op) == "Cast")

    @property
    def unknown_sizes(self) -> int:
        """Kernel outputs whose size is unknown until run time (a dynamic dimension, -1, or
        no shape): the memory planner leaves them out of :attr:`peak`."""
        return sum(
            1
            for n in self.graph.kernels
            for t in n.outputs
            if t.shape is None or any(d < 0 for d in t.shape)
        )


def _source_line(source: List[str]) -> str:
    """The call-stack line that is the user's: the first outside MindSpore's own package,
    as ``file.py:12`` (else MindSpore's first)."""
    import os

    for line in source:
        if "site-packages/mindspore/" not in line and "/mindspore/nn/" not in line:
            return os.path.basename(line)
    return os.path.basename(source[0]) if source else ""


def node_label(node: Node) -> str:
    """A node as people find it: op, scope and source line (``Conv2D [Default/conv-Conv2d]
    net.py:12``), not its id in the graph (``%4``)."""
    parts = [op_name(node.op)]
    if node.scope:
        parts.append(f"[{node.scope}]")
    line = _source_line(node.source)
    if line:
        parts.append(line)
    return " ".join(parts)


def _fmt_bytes(value: Optional[int]) -> str:
    if value is None:
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024  # type: ignore[assignment]
    return str(value)


class Comparison:
    """Two traces aligned: what was added, removed, changed and matched, and the totals."""

    def __init__(self, a: Side, b: Side, alignment: Alignment) -> None:
        self.a = a
        self.b = b
        self.alignment = alignment
        # where compare() spent its time: "sides" (reading both sides, memory plans
        # included) and "align"; "payload" once the payload is built (benchmarks read it)
        self.seconds: Dict[str, float] = {}

    # -- the node sets ------------------------------------------------------------------
    @property
    def matched(self) -> List[Match]:
        return list(self.alignment.matches)

    @property
    def added(self) -> List[Node]:
        """Kernels and parameters only in B (bookkeeping nodes left out)."""
        return [
            n for n in (self.b.graph.node(i) for i in self.alignment.added) if not n.bookkeeping
        ]

    @property
    def removed(self) -> List[Node]:
        """Kernels and parameters only in A (bookkeeping nodes left out)."""
        return [
            n for n in (self.a.graph.node(i) for i in self.alignment.removed) if not n.bookkeeping
        ]

    def _labelled(self, matches: List[Match]) -> List[Match]:
        """``matches`` with their ``labels`` set (op, scope, source line of each side)."""

        def label(graph: Graph, ids: Tuple[str, ...]) -> str:
            return ", ".join(node_label(graph.node(i)) if i in graph else i for i in ids)

        for m in matches:
            if not m.labels[0] and not m.labels[1]:
                m.labels = (label(self.a.graph, m.a), label(self.b.graph, m.b))
        return matches

    @property
    def changed(self) -> List[Match]:
        """Pairs whose dtype, shape, device format differ, and fused-kernel pairs (each
        printed with its ops' names, scopes and source lines)."""
        return self._labelled(self.alignment.changed)

    @property
    def fused(self) -> List[Match]:
        return self._labelled([m for m in self.alignment.matches if m.how == "fusion"])

    @property
    def casts_added(self) -> int:
        return sum(1 for n in self.added if op_name(n.op) == "Cast")

    @property
    def kernel_counts(self) -> Tuple[Dict[str, int], Dict[str, int]]:
        return self.a.kernel_ops, self.b.kernel_ops

    @property
    def peaks(self) -> Tuple[Optional[int], Optional[int]]:
        return self.a.peak, self.b.peak

    def changes_of(self, field_name: str) -> List[Match]:
        """Pairs where ``field_name`` (``dtype``, ``shape``, ``format``, ``fusion``) differs."""
        return self._labelled([m for m in self.alignment.matches if field_name in m.changes])

    # -- text ---------------------------------------------------------------------------
    def summary_rows(self) -> List[Tuple[str, str, str]]:
        """(label, A, B) per total; the labels in the reader's language."""
        from ascend_lab.i18n import _

        def t(v: Optional[float]) -> str:
            return "-" if v is None else f"{v:.1f} us"

        return [
            (_("kernels"), str(self.a.kernel_count), str(self.b.kernel_count)),
            (_("nodes"), str(len(self.a.graph.nodes)), str(len(self.b.graph.nodes))),
            (_("Cast kernels"), str(self.a.casts), str(self.b.casts)),
            (_("memory peak"), _fmt_bytes(self.a.peak), _fmt_bytes(self.b.peak)),
            (_("time per step"), t(self.a.time_us), t(self.b.time_us)),
        ]

    def summary(self) -> str:
        """A few lines on the comparison, in the reader's language (names and numbers as
        they are)."""
        from ascend_lab.i18n import _, display_width, ljust

        rows = self.summary_rows()
        lines = [_("Comparison: A = {}, B = {}").format(self.a.title, self.b.title)]
        width = max(display_width(r[0]) for r in rows)
        for label, va, vb in rows:
            lines.append(f"  {ljust(label, width)}  A {va:>12}   B {vb:>12}")
        how = ", ".join(f"{k} {v}" for k, v in sorted(self.alignment.how_counts().items()))
        lines.append(
            "  "
            + _("matched {} ({}); removed {}, added {} (Casts added: {}), changed {}").format(
                len(self.matched),
                how or _("none"),
                len(self.removed),
                len(self.added),
                self.casts_added,
                len(self.changed),
            )
        )
        ops = sorted(set(self.a.kernel_ops) | set(self.b.kernel_ops))
        diffs = [
            f"{op} {self.a.kernel_ops.get(op, 0)}->{self.b.kernel_ops.get(op, 0)}"
            for op in ops
            if self.a.kernel_ops.get(op, 0) != self.b.kernel_ops.get(op, 0)
        ]
        if diffs:
            lines.append("  " + _("kernels per op that differ: {}").format(", ".join(diffs)))
        note = self.peak_note()
        if note:
            lines.append("  " + note)
        return "\n".join(lines)

    def peak_note(self) -> str:
        """What the memory peaks leave out, in the reader's language ("" when nothing)."""
        from ascend_lab.i18n import _

        unknown = [
            (s, n) for s, n in (("A", self.a.unknown_sizes), ("B", self.b.unknown_sizes)) if n
        ]
        if not unknown:
            return ""
        return _(
            "memory peak counts only tensors of known size; not counted: {} (dynamic shapes)"
        ).format(", ".join(f"{side} {n}" for side, n in unknown))

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        return display.call("card_html", self)

    # -- data, payload, views -------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return {
            "a": {"title": self.a.title, "mindspore_version": self.a.mindspore_version},
            "b": {"title": self.b.title, "mindspore_version": self.b.mindspore_version},
            "alignment": self.alignment.to_dict(),
            "added": [n.id for n in self.added],
            "removed": [n.id for n in self.removed],
            "changed": [m.to_dict() for m in self.changed],
            "summary": self.summary_dict(),
        }

    def summary_dict(self) -> Dict[str, Any]:
        # each side's kernels counted once (kernel_count and casts are totals of kernel_ops)
        ops_a, ops_b = self.a.kernel_ops, self.b.kernel_ops
        added = self.added
        return {
            "kernels": [sum(ops_a.values()), sum(ops_b.values())],
            "nodes": [len(self.a.graph.nodes), len(self.b.graph.nodes)],
            "casts": [ops_a.get("Cast", 0), ops_b.get("Cast", 0)],
            "casts_added": sum(1 for n in added if op_name(n.op) == "Cast"),
            "peak": [self.a.peak, self.b.peak],
            "time_us": [self.a.time_us, self.b.time_us],
            "kernel_ops": [ops_a, ops_b],
            "matched": len(self.alignment.matches),
            "added": len(added),
            "removed": len(self.removed),
            "changed": len(self.changed),
        }

    def to_payload(self) -> Dict[str, Any]:
        """The ``ascend-lab.graph/1`` payload with its ``compare`` section (both graphs).

        Built once: ``to_html`` and ``show`` after it (``%ascend_compare --html`` does
        both) reuse it, so treat it as read-only (copy it to edit)."""
        return display.call("payload", self)

    def to_html(self, path: str, redact: bool = True, project: Optional[str] = None) -> str:
        """Write one self-contained HTML page with the two graphs side by side."""
        return display.call("html", self, path, redact=redact, project=project)

    def show(self, **options: Any) -> Any:
        """The side-by-side viewer as a widget (anywidget)."""
        return display.call("show", self, **options)

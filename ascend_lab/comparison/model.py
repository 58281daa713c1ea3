"""The :class:`Comparison` of two traces: aligned nodes, kernel counts, memory peaks, times.

A side is anything with a final graph: a :class:`~ascend_lab.tracing.trace.Trace`, an
``ascend-lab.graph/1`` payload dict (saved with ``trace.to_payload()``, or what
``ascend-lab view`` builds from a dump folder or a ``.mindir``), or a bare
:class:`~ascend_lab.model.graph.Graph`. A side's fusion map (``trace.fusion``, or the
payload's ``fusion`` section with its ``before`` graph) is what lets one side's fused
kernel pair with the several ops it replaced on the other side.
"""

import html
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.analysis.align import Alignment, Match, align_graphs
from ascend_lab.model.graph import Graph, Node
from ascend_lab.model.ops import op_name
from ascend_lab.parsers.gc_pause import gc_paused

__all__ = ["Comparison", "Side", "compare", "side_of"]


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


def _graph_from_payload(payload: Dict[str, Any], key: Optional[str]) -> Optional[Graph]:
    if not key or key not in payload.get("graphs", {}):
        return None
    return Graph.from_dict(payload["graphs"][key])


def _fused_from_payload(payload: Dict[str, Any]) -> Dict[str, List[Node]]:
    fusion = payload.get("fusion")
    before = _graph_from_payload(payload, (payload.get("views") or {}).get("before"))
    if not isinstance(fusion, dict) or before is None:
        return {}
    out: Dict[str, List[Node]] = {}
    for k in fusion.get("kernels") or []:
        out[k["kernel"]] = [before.node(o) for o in k.get("originals", []) if o in before]
    return out


def _plan_peak(graph: Graph) -> Optional[int]:
    from ascend_lab.memory import plan_graph

    try:
        return plan_graph(graph).peak
    except Exception:  # a graph the planner cannot read still compares
        return None


def _profile_time(profile: Any) -> Optional[float]:
    return None if profile is None else getattr(profile, "mean_step_us", None)


def side_of(source: Any, title: Optional[str] = None, profile: Any = None) -> Side:
    """A :class:`Side` from a Trace, a payload dict or a Graph."""
    if isinstance(source, Side):
        return source
    if isinstance(source, Graph):
        return Side(
            title or source.name, source, peak=_plan_peak(source), time_us=_profile_time(profile)
        )
    if isinstance(source, dict):
        from ascend_lab.payload import check_payload

        check_payload(source)
        graph = _graph_from_payload(source, source["views"]["main"])
        assert graph is not None  # check_payload checked views.main
        meta = source.get("meta") or {}
        memory = source.get("memory")
        peak = memory.get("peak") if isinstance(memory, dict) else None
        return Side(
            title or str(meta.get("title") or graph.name),
            graph,
            fused=_fused_from_payload(source),
            mindspore_version=meta.get("mindspore_version"),
            fusion=meta.get("fusion"),
            peak=peak if peak is not None else _plan_peak(graph),
            time_us=_profile_time(profile),
        )
    graph = getattr(source, "graph", None)
    if not isinstance(graph, Graph):
        raise TypeError(
            "compare() takes traces (ascend_lab.trace(net, x)), payload dicts or graphs; "
            f"got {type(source).__name__}"
        )
    fused: Dict[str, List[Node]] = {}
    fmap = getattr(source, "fusion", None)
    before = getattr(source, "before_fusion", None)
    if fmap is not None and before is not None:
        for k in fmap.kernels:
            fused[k.kernel] = [before.node(o) for o in k.originals if o in before]
    return Side(
        title or str(getattr(source, "net_name", graph.name)),
        graph,
        fused=fused,
        mindspore_version=getattr(source, "mindspore_version", None),
        fusion=getattr(source, "fusion_enabled", None),
        peak=_plan_peak(graph),
        time_us=_profile_time(profile),
    )


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
        self._payload: Optional[Dict[str, Any]] = None

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

    @property
    def changed(self) -> List[Match]:
        """Pairs whose dtype, shape, device format differ, and fused-kernel pairs."""
        return self.alignment.changed

    @property
    def fused(self) -> List[Match]:
        return [m for m in self.alignment.matches if m.how == "fusion"]

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
        return [m for m in self.alignment.matches if field_name in m.changes]

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
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        e = html.escape
        rows = "".join(
            f"<tr><th>{e(label)}</th><td>{e(va)}</td><td>{e(vb)}</td></tr>"
            for label, va, vb in self.summary_rows()
        )
        changed = "".join(
            "<li>{} &rarr; {}: {}</li>".format(
                e(", ".join(m.a)),
                e(", ".join(m.b)),
                e("; ".join(f"{k} {v[0]} -> {v[1]}" for k, v in m.changes.items())),
            )
            for m in self.changed[:50]
        )
        return (
            '<div class="ascend-lab-compare">'
            f"<p><b>A</b> = {e(self.a.title)}, <b>B</b> = {e(self.b.title)}</p>"
            f"<table><tr><th></th><th>A</th><th>B</th></tr>{rows}</table>"
            f"<p>matched {len(self.matched)}, removed {len(self.removed)}, "
            f"added {len(self.added)} (Casts added: {self.casts_added}), "
            f"changed {len(self.changed)}</p>"
            + (f"<ul>{changed}</ul>" if changed else "")
            + "</div>"
        )

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
        if self._payload is None:
            from ascend_lab.payload.compare_section import comparison_payload

            started = time.perf_counter()
            self._payload = comparison_payload(self)
            self.seconds["payload"] = time.perf_counter() - started
        return self._payload

    def to_html(self, path: str, redact: bool = True, project: Optional[str] = None) -> str:
        """Write one self-contained HTML page with the two graphs side by side."""
        from ascend_lab.render import to_html

        title = f"{self.a.title} vs {self.b.title}"
        return to_html(self.to_payload(), path, title=title, redact=redact, project=project)

    def show(self, **options: Any) -> Any:
        """The side-by-side viewer as a widget (anywidget)."""
        from ascend_lab.render.widgets import TraceView

        return TraceView(self.to_payload(), **options)


def compare(
    a: Any,
    b: Any,
    titles: Optional[Tuple[str, str]] = None,
    profiles: Optional[Tuple[Any, Any]] = None,
) -> Comparison:
    """Align the final graphs of ``a`` and ``b`` (see :func:`ascend_lab.compare`)."""
    ta, tb = titles or (None, None)
    pa, pb = profiles or (None, None)
    started = time.perf_counter()
    # the memory plans and the alignment allocate many small containers, with no cycles
    with gc_paused():
        side_a = side_of(a, ta, pa)
        side_b = side_of(b, tb, pb)
        if side_a.title == side_b.title:
            side_a.title += " (A)"
            side_b.title += " (B)"
        sides = time.perf_counter()
        alignment = align_graphs(side_a.graph, side_b.graph, side_a.fused, side_b.fused)
    cmp = Comparison(side_a, side_b, alignment)
    cmp.seconds.update(sides=sides - started, align=time.perf_counter() - sides)
    return cmp

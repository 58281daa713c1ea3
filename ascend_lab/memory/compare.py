"""Memory plans side by side, for the course's comparisons.

Fusion off vs on, batch 1 vs 32, static vs dynamic shapes: :func:`compare_plans` builds a
small table (text and HTML). On Ascend, :func:`runtime_peak` reads the runtime's own peak
(``mindspore.runtime.max_memory_allocated``) to put beside the plan; on CPU MindSpore uses a
dynamic pool and reports zeros, so it returns None with the reason instead.
"""

import html
import importlib
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple

from .lifetimes import fmt_bytes
from .planner import MemoryPlan

COLUMNS = (
    "tensors",
    "excluded",
    "peak",
    "lower bound",
    "peak / lower bound",
    "no reuse",
    "saved by fusion",
    "persistent",
    "strategy",
)


@dataclass
class PlanComparison:
    """One row per plan: the numbers the course compares, plus notes that explain them."""

    labels: List[str]
    plans: List[MemoryPlan]
    notes: List[str] = field(default_factory=list)

    def row(self, plan: MemoryPlan) -> Tuple[str, ...]:
        p = plan.problem
        ratio = plan.ratio
        fusion = (
            f"{p.fused_internal_tensors} tensors, {fmt_bytes(p.fused_internal_bytes)}"
            if p.fused_internal_tensors
            else "-"
        )
        return (
            str(len(p.tensors)),
            str(len(p.excluded)),
            fmt_bytes(plan.peak),
            fmt_bytes(plan.lower_bound),
            f"{ratio:.3f}" if ratio is not None else "n/a",
            fmt_bytes(plan.no_reuse),
            fusion,
            fmt_bytes(p.persistent_bytes),
            plan.strategy,
        )

    def rows(self) -> List[Tuple[str, ...]]:
        return [(label,) + self.row(plan) for label, plan in zip(self.labels, self.plans)]

    def to_dict(self) -> List[dict]:
        """Raw numbers (bytes) per plan, for tests and JSON."""
        out = []
        for label, plan in zip(self.labels, self.plans):
            p = plan.problem
            out.append(
                {
                    "label": label,
                    "tensors": len(p.tensors),
                    "excluded": len(p.excluded),
                    "peak": plan.peak,
                    "lower_bound": plan.lower_bound,
                    "ratio": plan.ratio,
                    "no_reuse": plan.no_reuse,
                    "fused_internal_tensors": p.fused_internal_tensors,
                    "fused_internal_bytes": p.fused_internal_bytes,
                    "persistent_bytes": p.persistent_bytes,
                    "strategy": plan.strategy,
                }
            )
        return out

    def text(self) -> str:
        header = ("",) + COLUMNS
        table = [header] + self.rows()
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
        lines += ["note: " + n for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        esc = html.escape
        head = "".join(f"<th>{esc(c)}</th>" for c in ("",) + COLUMNS)
        body = "".join(
            "<tr>{}</tr>".format("".join(f"<td>{esc(c)}</td>" for c in row)) for row in self.rows()
        )
        notes = "".join(f"<li>{esc(n)}</li>" for n in self.notes)
        return "<table><tr>{}</tr>{}</table>{}".format(
            head,
            body,
            f"<ul>{notes}</ul>" if notes else "",
        )


def compare_plans(
    a: MemoryPlan, b: MemoryPlan, labels: Sequence[str] = ("A", "B")
) -> PlanComparison:
    """Compare two plans (fusion off/on, batch 1/32, static/dynamic); ``labels`` names them."""
    return compare_many([a, b], labels)


def compare_many(plans: Sequence[MemoryPlan], labels: Sequence[str]) -> PlanComparison:
    """Compare two or more plans; ``labels`` names them in order."""
    plans = list(plans)
    names = list(labels)
    if len(plans) < 2 or len(names) != len(plans):
        raise ValueError(
            "compare needs at least 2 plans and one label per plan; "
            f"got {len(plans)} plans, {len(names)} labels"
        )
    comparison = PlanComparison(names, plans)
    base, other = plans[0], plans[1]
    if base.peak and other.peak:
        comparison.notes.append(
            f"{names[0]} needs {fmt_bytes(base.peak)} of reusable memory, "
            f"{names[1]} needs {fmt_bytes(other.peak)} (x{other.peak / base.peak:.2f})."
        )
    for name, plan in zip(names, plans):
        p = plan.problem
        if p.fused_internal_tensors:
            comparison.notes.append(
                f"{name}: fusion keeps {p.fused_internal_tensors} intermediate tensor(s) "
                f"({fmt_bytes(p.fused_internal_bytes)}) on chip, so they never get device memory."
            )
        dynamic = [e for e in p.excluded if e.reason.startswith("dynamic")]
        if dynamic:
            comparison.notes.append(
                f"{name}: {len(dynamic)} tensor(s) have dynamic shapes (-1): their size is "
                "only known at run time, so no offset can be planned ahead. SOMAS plans the "
                "whole graph's memory at compile time and needs static shapes; with dynamic "
                "shapes MindSpore allocates from a dynamic memory pool instead. The numbers for "
                f"{name} cover only the static tensors."
            )
    return comparison


def runtime_peak(device: Optional[str] = None) -> Tuple[Optional[int], str]:
    """(bytes, explanation) of the runtime's own peak device memory.

    Only on Ascend: ``mindspore.runtime.max_memory_allocated()``. On CPU MindSpore uses a
    dynamic host pool and reports zeros, so this returns ``(None, reason)`` without calling
    it. ``device`` defaults to MindSpore's current device target (imports MindSpore).
    """
    if device is None:
        device = _current_device()
    if (device or "").lower() != "ascend":
        return None, (
            "device is %s: MindSpore's runtime memory statistics are only meaningful on "
            "Ascend (on CPU they are all zeros), so only the planned numbers are shown."
            % (device or "unknown")
        )
    import mindspore

    # mindspore.runtime (2.5+); MindSpore 2.3/2.4 on Ascend images have it in mindspore.hal.
    source: Any = getattr(mindspore, "runtime", None)
    name = "mindspore.runtime"
    if source is None or not hasattr(source, "max_memory_allocated"):
        source = importlib.import_module("mindspore.hal")
        name = "mindspore.hal"
    peak = int(source.max_memory_allocated())
    return peak, f"{name}.max_memory_allocated() on Ascend: {fmt_bytes(peak)}"


def _current_device() -> Optional[str]:
    try:
        import mindspore
    except ImportError:
        return None
    getter: Any = getattr(mindspore, "get_context", None)
    try:
        return str(getter("device_target")) if getter else None
    except Exception:  # noqa: BLE001 - any failure means "not known"
        return None


def with_runtime_peak(plan: MemoryPlan, device: Optional[str] = None) -> PlanComparison:
    """A one-row table of ``plan`` with the runtime's peak (Ascend) or why it is absent."""
    peak, why = runtime_peak(device)
    comparison = PlanComparison(["planned"], [plan])
    if peak is not None:
        comparison.notes.append(
            f"runtime peak {fmt_bytes(peak)} vs planned arena {fmt_bytes(plan.peak)} + "
            f"persistent {fmt_bytes(plan.problem.persistent_bytes)} (the runtime also holds "
            "workspaces and the pool's own overhead)."
        )
    comparison.notes.append(why)
    return comparison


def fusion_comparison(trace: Any) -> PlanComparison:
    """Before vs after graph-kernel fusion for one ``ascend_lab.trace(..., fusion=True)``.

    Plans the kernel graph before fusion (``trace.before_fusion``) and the final one
    (``trace.graph``) with the same planner, so the difference is fusion's alone.
    """
    from .planner import plan_graph

    before = getattr(trace, "before_fusion", None)
    if before is None:
        raise ValueError(
            "this trace has no graph before fusion: trace the net with fusion=True "
            "(ascend_lab.trace(net, x, fusion=True))"
        )
    return compare_plans(
        plan_graph(before), plan_graph(trace.graph), ("before fusion", "after fusion")
    )

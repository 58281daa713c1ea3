"""Memory plans side by side, for the course's comparisons.

Fusion off vs on, batch 1 vs 32, static vs dynamic shapes: :func:`compare_plans` builds a
small table (text and HTML). The runtime's own peak on Ascend is read by
:func:`ascend_lab.capture.runtime.runtime_peak` and put beside a plan by
:func:`ascend_lab.memory.with_runtime_peak`.
"""

from dataclasses import dataclass, field
from typing import Any, List, Sequence, Tuple

from ascend_lab.analysis.lifetimes import fmt_bytes
from ascend_lab.analysis.planner import MemoryPlan
from ascend_lab.i18n import N_, _, display_width, ljust, localize, msg
from ascend_lab.model import display

COLUMNS = (  # English names; the tables show them in the reader's language
    N_("tensors"),
    N_("excluded"),
    N_("peak"),
    N_("lower bound"),
    N_("peak / lower bound"),
    N_("no reuse"),
    N_("saved by fusion"),
    N_("persistent"),
    N_("strategy"),
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
            msg("{} tensors, {}", p.fused_internal_tensors, fmt_bytes(p.fused_internal_bytes))
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

    def shown(self) -> Tuple[Tuple[str, ...], List[Tuple[str, ...]], List[str]]:
        """(header, rows, notes) in the reader's language (numbers and names as they are)."""
        header = ("",) + tuple(_(c) for c in COLUMNS)
        # the labels are the caller's names: shown as given
        rows = [row[:1] + tuple(localize(c) for c in row[1:]) for row in self.rows()]
        return header, rows, [localize(n) for n in self.notes]

    def text(self) -> str:
        header, rows, notes = self.shown()
        table = [header] + rows
        widths = [max(display_width(r[i]) for r in table) for i in range(len(header))]
        lines = ["  ".join(ljust(c, w) for c, w in zip(r, widths)).rstrip() for r in table]
        lines += [_("note: {}").format(n) for n in notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return display.call("card_html", self)


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
            msg(
                "{} needs {} of reusable memory, {} needs {} (x{}).",
                names[0],
                fmt_bytes(base.peak),
                names[1],
                fmt_bytes(other.peak),
                f"{other.peak / base.peak:.2f}",
            )
        )
    for name, plan in zip(names, plans):
        p = plan.problem
        if p.fused_internal_tensors:
            comparison.notes.append(
                msg(
                    "{}: fusion keeps {} intermediate tensor(s) ({}) on chip, so they never get "
                    "device memory.",
                    name,
                    p.fused_internal_tensors,
                    fmt_bytes(p.fused_internal_bytes),
                )
            )
        dynamic = [e for e in p.excluded if e.reason.startswith("dynamic")]
        if dynamic:
            comparison.notes.append(
                msg(
                    "{}: {} tensor(s) have dynamic shapes (-1): their size is only known at run "
                    "time, so no offset can be planned ahead. SOMAS plans the whole graph's "
                    "memory at compile time and needs static shapes; with dynamic shapes "
                    "MindSpore allocates from a dynamic memory pool instead. The numbers for {} "
                    "cover only the static tensors.",
                    name,
                    len(dynamic),
                    name,
                )
            )
    return comparison


def fusion_comparison(trace: Any) -> PlanComparison:
    """Before vs after graph-kernel fusion for one ``ascend_lab.trace(..., fusion=True)``.

    Plans the kernel graph before fusion (``trace.before_fusion``) and the final one
    (``trace.graph``) with the same planner, so the difference is fusion's alone.
    """
    from ascend_lab.analysis.planner import plan_graph

    before = getattr(trace, "before_fusion", None)
    if before is None:
        raise ValueError(
            "this trace has no graph before fusion: trace the net with fusion=True "
            "(ascend_lab.trace(net, x, fusion=True))"
        )
    return compare_plans(
        plan_graph(before), plan_graph(trace.graph), ("before fusion", "after fusion")
    )

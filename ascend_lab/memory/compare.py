"""Plans side by side with what the runtime measured: the verb over the capture and the result."""

from typing import Optional

from ascend_lab.analysis.lifetimes import fmt_bytes
from ascend_lab.analysis.planner import MemoryPlan
from ascend_lab.capture.runtime import runtime_peak
from ascend_lab.i18n import msg
from ascend_lab.results.memory import PlanComparison

__all__ = ["with_runtime_peak"]


def with_runtime_peak(plan: MemoryPlan, device: Optional[str] = None) -> PlanComparison:
    """A one-row table of ``plan`` with the runtime's peak (Ascend) or why it is absent."""
    peak, why = runtime_peak(device)
    comparison = PlanComparison(["planned"], [plan])
    if peak is not None:
        comparison.notes.append(
            msg(
                "runtime peak {} vs planned arena {} + persistent {} (the runtime also holds "
                "workspaces and the pool's own overhead).",
                fmt_bytes(peak),
                fmt_bytes(plan.peak),
                fmt_bytes(plan.problem.persistent_bytes),
            )
        )
    comparison.notes.append(why)
    return comparison

"""Memory reuse: tensor lifetimes, an offset planner like MindSpore's SOMAS, and views.

``plan_graph(trace.graph)`` gives a :class:`MemoryPlan` (peak arena, lower bound, no-reuse
total, winning strategy, offsets); ``plot_memory_map(plan)`` draws it (matplotlib, imported
on first use); ``compare_plans`` puts plans side by side. Nothing here imports MindSpore.
"""

from ascend_lab.analysis.lifetimes import MemoryProblem, PersistentTensor, TensorLife, lifetimes
from ascend_lab.analysis.planner import (
    STRATEGIES,
    MemoryPlan,
    plan,
    plan_best,
    plan_graph,
    validate,
)
from ascend_lab.capture.runtime import runtime_peak
from ascend_lab.memory.compare import with_runtime_peak
from ascend_lab.render.memory_plot import plot_memory_map
from ascend_lab.results.memory import (
    PlanComparison,
    compare_many,
    compare_plans,
    fusion_comparison,
)

__all__ = [
    "STRATEGIES",
    "MemoryPlan",
    "MemoryProblem",
    "PersistentTensor",
    "PlanComparison",
    "TensorLife",
    "compare_many",
    "compare_plans",
    "fusion_comparison",
    "lifetimes",
    "plan",
    "plan_best",
    "plan_graph",
    "plot_memory_map",
    "runtime_peak",
    "validate",
    "with_runtime_peak",
]

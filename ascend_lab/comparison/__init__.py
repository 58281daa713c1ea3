"""Compare two traces side by side (issue #27): ``ascend_lab.compare(trace_a, trace_b)``.

:func:`compare` builds a :class:`~ascend_lab.results.comparison.Comparison` from two traces,
saved payloads or graphs: the nodes of the two final graphs aligned
(:mod:`ascend_lab.analysis.align`), kernel counts per op type, each side's memory peak
(:func:`ascend_lab.analysis.planner.plan_graph`) and, when profiles are attached, each side's
time per step. Importing this package is cheap (no MindSpore).
"""

import time
from typing import Any, Optional, Tuple

from ascend_lab.analysis.align import align_graphs
from ascend_lab.comparison.sides import side_of
from ascend_lab.parsers.gc_pause import gc_paused
from ascend_lab.results.comparison import Comparison, Side

__all__ = ["Comparison", "Side", "compare", "side_of"]


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

"""Compare two traces side by side (issue #27): ``ascend_lab.compare(trace_a, trace_b)``.

:mod:`.model` builds a :class:`Comparison` from two traces, saved payloads or graphs:
the nodes of the two final graphs aligned (:mod:`ascend_lab.analysis.align`), kernel counts
per op type, each side's memory peak (:func:`ascend_lab.memory.plan_graph`) and, when
profiles are attached, each side's time per step. :mod:`.payload` turns it into the
viewer's ``compare`` payload section. Importing this package is cheap (no MindSpore).
"""

from ascend_lab.comparison.model import Comparison, Side, compare, side_of

__all__ = ["Comparison", "Side", "compare", "side_of"]

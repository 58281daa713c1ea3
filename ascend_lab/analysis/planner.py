"""Offset planning for tensor lifetimes: ascend-lab's own best-of sort x fit heuristics.

Every tensor of a :class:`~ascend_lab.analysis.lifetimes.MemoryProblem` gets an offset in
one arena so that two tensors alive at the same step never overlap in address. Several
greedy heuristics (an order to place tensors in x a rule to pick the gap) are run and the
smallest arena wins. This is the same kind of search MindSpore's SOMAS runs on Ascend, but
not its code or its exact strategies: SOMAS's offsets are not printed on CPU, so a plan here
is not MindSpore's plan. What is checked against MindSpore is the input: the tensor sizes
match the byte sizes in its actor-set dump (:mod:`~ascend_lab.analysis.actor_set`). The plan
also states the lower bound (the most bytes alive at any one step; no plan can beat it) and
the no-reuse total (every tensor its own block).

Placement only looks at tensors whose lifetime overlaps the one being placed: already
placed tensors are indexed by step (alive at a step / starting at a step), so a 10,000
tensor graph plans in well under a second.
"""

import html
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from ascend_lab.analysis.lifetimes import MemoryProblem, TensorLife, align_up, fmt_bytes
from ascend_lab.i18n import N_, _, display_width, ljust, localize, msg

# Said under a plan that saves nothing (a short chain such as Conv2D -> BatchNorm -> ReLU).
NOTHING_TO_REUSE = N_(
    "Nothing to reuse here: at the busiest step every planned tensor is alive at once, so "
    "no reuse, the lower bound and the peak are the same. Reuse saves memory when a tensor "
    "dies before another is born (in a longer net)."
)

NO_REUSE = "no-reuse"

# name -> (sort key over tensors, fit rule); "breadth" orders by the busiest steps first.
_SortKey = Callable[[TensorLife], Tuple[int, ...]]
_ORDERS: Dict[str, _SortKey] = {
    "size": lambda t: (-t.size, t.start, -t.end),
    "lifetime": lambda t: (t.start, -t.size, -t.end),
    "longest": lambda t: (-t.duration, -t.size, t.start),
    "area": lambda t: (-t.size * t.duration, -t.size, t.start),
}
STRATEGIES: Dict[str, Tuple[str, str]] = {
    "greedy-size-best-fit": ("size", "best"),
    "greedy-size-first-fit": ("size", "first"),
    "greedy-lifetime": ("lifetime", "best"),
    "greedy-lifetime-first-fit": ("lifetime", "first"),
    "greedy-breadth": ("breadth", "best"),
    "longest-lifetime-first": ("longest", "best"),
    "greedy-size-x-lifetime": ("area", "best"),
}


@dataclass
class MemoryPlan:
    """Offsets for every tensor of a problem, and the numbers that judge them."""

    problem: MemoryProblem
    strategy: str
    offsets: Dict[str, int]
    peak: int
    lower_bound: int
    no_reuse: int
    strategies: Dict[str, int] = field(default_factory=dict)
    live_bytes: List[int] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ratio(self) -> Optional[float]:
        """peak / lower bound (1.0 is optimal); None for an empty plan."""
        if self.lower_bound <= 0:
            return None
        return self.peak / self.lower_bound

    @property
    def tensors(self) -> List[TensorLife]:
        return self.problem.tensors

    @property
    def saved(self) -> int:
        """Bytes that reuse saves compared with giving every tensor its own block."""
        return self.no_reuse - self.peak

    def offset(self, tensor_id: str) -> int:
        return self.offsets[tensor_id]

    def rows(self) -> List[Tuple[str, str]]:
        """(name, value) pairs shown by ``summary`` and ``_repr_html_`` (English; they show
        them in the reader's language)."""
        p = self.problem
        ratio = self.ratio
        rows = [
            (N_("graph"), p.graph),
            (N_("kernels (steps)"), str(p.steps)),
            (N_("tensors planned"), str(len(p.tensors))),
            (msg("peak arena ({})", self.strategy), fmt_bytes(self.peak)),
            (N_("lower bound"), fmt_bytes(self.lower_bound)),
            (N_("peak / lower bound"), f"{ratio:.3f}" if ratio is not None else "n/a"),
            (N_("no reuse"), fmt_bytes(self.no_reuse)),
            (N_("saved by reuse"), fmt_bytes(self.saved)),
            (N_("persistent (params, inputs, outputs)"), fmt_bytes(p.persistent_bytes)),
            (N_("alignment"), f"{p.alignment} B"),
        ]
        if p.fused_internal_tensors:
            rows.append(
                (
                    N_("saved by fusion"),
                    msg(
                        "{} tensors, {}",
                        p.fused_internal_tensors,
                        fmt_bytes(p.fused_internal_bytes),
                    ),
                )
            )
        if p.excluded:
            rows.append((N_("excluded tensors"), str(len(p.excluded))))
        return rows

    def all_notes(self) -> List[str]:
        """:attr:`notes`, and why nothing is saved when nothing is (a true 0, explained)."""
        notes = list(self.notes)
        if self.problem.tensors and self.saved <= 0 and self.no_reuse == self.lower_bound:
            notes.append(NOTHING_TO_REUSE)
        return notes

    def shown_rows(self) -> List[Tuple[str, str]]:
        """:meth:`rows` in the reader's language (numbers and names as they are)."""
        return [(localize(k), localize(v)) for k, v in self.rows()]

    def summary(self) -> str:
        rows = self.shown_rows()
        width = max(display_width(k) for k, _v in rows)
        lines = [_("Memory plan")]
        lines += [f"  {ljust(k, width)}  {v}" for k, v in rows]
        if self.strategies:
            lines.append("  " + _("strategies:"))
            for name, size in sorted(self.strategies.items(), key=lambda kv: (kv[1], kv[0])):
                lines.append(f"    {name:<28} {fmt_bytes(size)}")
        for note in self.all_notes():
            lines.append("  " + _("note: {}").format(localize(note)))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        esc = html.escape
        body = "".join(
            f"<tr><th style='text-align:left'>{esc(k)}</th><td>{esc(v)}</td></tr>"
            for k, v in self.shown_rows()
        )
        notes = "".join(f"<li>{esc(localize(n))}</li>" for n in self.all_notes())
        return "<div class='ascend-lab-memory-plan'><table>{}</table>{}</div>".format(
            body,
            f"<ul>{notes}</ul>" if notes else "",
        )

    def to_payload(self, graph_key: str) -> Dict[str, object]:
        """The ``memory`` object of the graph payload (``ascend-lab.graph/1``)."""
        p = self.problem
        return {
            "graph": graph_key,
            "alignment": p.alignment,
            "strategy": self.strategy,
            "strategies": dict(self.strategies),
            "peak": self.peak,
            "lower_bound": self.lower_bound,
            "no_reuse": self.no_reuse,
            "persistent_bytes": p.persistent_bytes,
            "steps": p.steps,
            "live_bytes": list(self.live_bytes),
            "tensors": [
                {
                    "id": t.id,
                    "node": t.node,
                    "label": t.label,
                    "op": t.op,
                    "size": t.size,
                    "start": t.start,
                    "end": t.end,
                    "offset": self.offsets[t.id],
                }
                for t in p.tensors
            ],
            "persistent": [
                {"id": q.id, "node": q.node, "label": q.label, "kind": q.kind, "size": q.size}
                for q in p.persistent
            ],
            "notes": list(self.notes),
        }


def _place(problem: MemoryProblem, order: List[TensorLife], rule: str) -> Dict[str, int]:
    """Place tensors in ``order``; each goes in the lowest (first fit) or tightest (best
    fit) gap between the placed tensors whose lifetimes overlap its own.

    Placed blocks are indexed by step twice: ``alive[s]`` (alive at step s) and
    ``starting[s]`` (born at step s). The blocks overlapping ``start..end`` in time are
    ``alive[start]`` plus ``starting[start+1..end]``: no scan over every placed tensor.
    Block ends are rounded up to the alignment, so every gap start is aligned.
    """
    steps = problem.steps
    alive: List[List[Tuple[int, int]]] = [[] for _ in range(steps)]
    starting: List[List[Tuple[int, int]]] = [[] for _ in range(steps)]
    alignment = max(1, problem.alignment)
    first_fit = rule == "first"
    offsets: Dict[str, int] = {}
    for tensor in order:
        start, end = tensor.start, tensor.end
        size = tensor.size
        blocks = alive[start][:]
        for born in starting[start + 1 : end + 1]:
            blocks.extend(born)
        offset = 0
        if blocks:
            blocks.sort()
            best = -1
            best_gap = 0
            cursor = 0
            for lo, hi in blocks:
                gap = lo - cursor
                if gap >= size:
                    if first_fit:
                        best = cursor
                        break
                    if best < 0 or gap < best_gap:
                        best, best_gap = cursor, gap
                if hi > cursor:
                    cursor = hi
            offset = best if best >= 0 else cursor
        offsets[tensor.id] = offset
        block = (offset, offset + (size if size % alignment == 0 else align_up(size, alignment)))
        starting[start].append(block)
        for bucket in alive[start : end + 1]:
            bucket.append(block)
    return offsets


def _breadth_order(problem: MemoryProblem, live: List[int]) -> List[TensorLife]:
    """Tensors of the busiest steps first (each step's tensors by size), like TFLite's
    greedy-by-breadth: a tensor's key is the rank of the busiest step it is alive at."""
    rank = [0] * problem.steps
    for position, step in enumerate(sorted(range(problem.steps), key=lambda s: (-live[s], s))):
        rank[step] = position
    return sorted(problem.tensors, key=lambda t: (min(rank[t.start : t.end + 1]), -t.size, t.start))


def _peak(problem: MemoryProblem, offsets: Dict[str, int]) -> int:
    return max((offsets[t.id] + t.size for t in problem.tensors), default=0)


def plan(
    problem: MemoryProblem,
    strategy: str = "greedy-size-best-fit",
    _live: Optional[List[int]] = None,
) -> MemoryPlan:
    """Place every tensor of ``problem`` with one strategy (see ``STRATEGIES`` and
    ``"no-reuse"``)."""
    started = time.perf_counter()
    live = problem.live_bytes() if _live is None else _live
    if strategy == NO_REUSE:
        offsets = {}
        cursor = 0
        for t in sorted(problem.tensors, key=lambda t: (t.start, t.id)):
            offsets[t.id] = cursor
            cursor += t.size
    elif strategy in STRATEGIES:
        order_name, rule = STRATEGIES[strategy]
        if order_name == "breadth":
            order = _breadth_order(problem, live)
        else:
            order = sorted(problem.tensors, key=_ORDERS[order_name])
        offsets = _place(problem, order, rule)
    else:
        known = ", ".join([NO_REUSE] + sorted(STRATEGIES))
        raise ValueError(f"unknown strategy {strategy!r}; choose one of: {known}")
    peak = _peak(problem, offsets)
    return MemoryPlan(
        problem=problem,
        strategy=strategy,
        offsets=offsets,
        peak=peak,
        lower_bound=max(live, default=0),
        no_reuse=problem.no_reuse,
        strategies={strategy: peak},
        live_bytes=list(live),
        notes=list(problem.notes),
        seconds=time.perf_counter() - started,
    )


def plan_best(problem: MemoryProblem) -> MemoryPlan:
    """Run every strategy and keep the smallest arena (a sort x fit search like SOMAS')."""
    started = time.perf_counter()
    live = problem.live_bytes()
    results = [plan(problem, name, live) for name in [NO_REUSE] + list(STRATEGIES)]
    best = min(results, key=lambda p: (p.peak, p.strategy == NO_REUSE))
    best.strategies = {p.strategy: p.peak for p in results}
    best.seconds = time.perf_counter() - started
    if not problem.tensors:
        best.strategy = "none"
    return best


def plan_graph(graph: object, alignment: int = 512) -> MemoryPlan:
    """``plan_best(lifetimes(graph, alignment))``: the plan the course shows."""
    from ascend_lab.analysis.lifetimes import lifetimes
    from ascend_lab.model.graph import Graph

    if not isinstance(graph, Graph):
        raise TypeError(
            "plan_graph expects an ascend_lab.model.graph.Graph (e.g. trace.graph), "
            f"got {type(graph).__name__}"
        )
    return plan_best(lifetimes(graph, alignment))


def validate(plan_: MemoryPlan) -> List[str]:
    """Problems with a plan (overlaps in address and time, misaligned offsets); [] if valid.

    A sweep over steps: at each step the alive blocks, sorted by offset, must not overlap.
    """
    errors: List[str] = []
    problem = plan_.problem
    alignment = max(1, problem.alignment)
    by_step: List[List[Tuple[int, int, str]]] = [[] for _ in range(problem.steps)]
    for t in problem.tensors:
        off = plan_.offsets.get(t.id)
        if off is None:
            errors.append(f"{t.id} has no offset")
            continue
        if off < 0 or off % alignment:
            errors.append(f"{t.id} offset {off} not aligned to {alignment}")
        for step in range(t.start, t.end + 1):
            by_step[step].append((off, off + t.size, t.id))
    for step, blocks in enumerate(by_step):
        blocks.sort()
        reach, owner = -1, ""
        for lo, hi, name in blocks:
            if lo < reach:
                errors.append(f"step {step}: {name} overlaps {owner} at offset {lo}")
            if hi > reach:
                reach, owner = hi, name
    if plan_.peak != _peak(problem, plan_.offsets):
        errors.append(f"peak {plan_.peak} does not match the offsets")
    return errors

"""Tensor lifetimes of a kernel graph: what the memory planner has to place.

A kernel graph's nodes are in execution order. Every output of a kernel is a tensor that
lives from the step of the kernel that produces it to the step of its last consumer. This
module turns a :class:`~ascend_lab.model.graph.Graph` into a :class:`MemoryProblem`:

- parameters, graph inputs and graph outputs are *persistent* (they live outside the
  reusable arena) and are listed apart;
- views and in-place ("ref") outputs share the memory of their source instead of getting a
  block of their own: reshape-like ops, ``Assign``/``AssignAdd``, BatchNorm's moving
  statistics written back into parameters, ``Depend``;
- bookkeeping nodes (``Load``, ``Depend``, ``UpdateState``, ``MakeTuple``,
  ``TupleGetItem``, ``Return``) never allocate;
- tensors inside a fused kernel's subgraph never reach device memory: they are counted as
  "saved by fusion";
- tensors whose size cannot be known (dynamic ``-1`` dimensions, unknown dtype) or is zero
  are left out, each with a note: a static plan cannot place them (that is why SOMAS needs
  static shapes).

Pure: no MindSpore import.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ascend_lab.i18n import N_, msg
from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.model.ops import PASS_THROUGH_OPS, TUPLE_OPS, fused_kernel_name, op_name

DEFAULT_ALIGNMENT = 512

# Ops whose output 0 is a view of input 0 (same bytes, new shape): no new block.
VIEW_OPS = frozenset(
    {
        "Reshape",
        "ExpandDims",
        "Squeeze",
        "Flatten",
        "Unsqueeze",
        "View",
        "FlattenExt",
        "Identity",
    }
)

# Ops whose outputs are written in place into one of their inputs: output index -> input index.
REF_OUTPUTS: Dict[str, Dict[int, int]] = {
    "Assign": {0: 0},
    "AssignAdd": {0: 0},
    "AssignSub": {0: 0},
    "ScatterUpdate": {0: 0},
    "ScatterNdUpdate": {0: 0},
    "ScatterAdd": {0: 0},
    # Optimizer updates write into the parameter (and its moments) in place.
    "ApplyMomentum": {0: 0},
    "ApplyGradientDescent": {0: 0},
    "SGD": {0: 0},
    "Adam": {0: 0, 1: 1, 2: 2},
    "AdamWeightDecay": {0: 0, 1: 1, 2: 2},
    "ApplyAdam": {0: 0, 1: 1, 2: 2},
    # BatchNorm(x, scale, bias, moving_mean, moving_variance, ...): in training the moving
    # statistics are updated in place; outputs 1/2 are written back into those parameters.
    "BatchNorm": {1: 3, 2: 4},
    "FusedBatchNorm": {1: 3, 2: 4},
    "BNTrainingUpdate": {1: 3, 2: 4},
}

PERSISTENT_KINDS = ("parameter", "input", "constant")

# Anchored at the start of a digit run (lookbehind) so a long run is scanned once, and at most
# 18 digits: an index longer than that is not an index (and int() of a huge run raises).
_INT_RE = re.compile(r"(?<!\d)(-?\d{1,18})\)?\s*$")


def align_up(nbytes: int, alignment: int) -> int:
    """Round ``nbytes`` up to a multiple of ``alignment`` (``alignment <= 1``: unchanged)."""
    if alignment <= 1:
        return nbytes
    return -(-nbytes // alignment) * alignment


@dataclass
class TensorLife:
    """One tensor the arena must hold: ``size`` aligned bytes over steps ``start..end``."""

    id: str
    node: str
    label: str
    op: str
    size: int
    nbytes: int
    start: int
    end: int

    @property
    def duration(self) -> int:
        return self.end - self.start + 1


@dataclass
class PersistentTensor:
    """A value that lives for the whole run (parameter, graph input, graph output)."""

    id: str
    node: str
    label: str
    kind: str
    size: int
    nbytes: Optional[int]


@dataclass
class Excluded:
    """A tensor left out of the plan, and why."""

    id: str
    node: str
    label: str
    reason: str


@dataclass
class MemoryProblem:
    """Everything the planner needs, plus what was left out and why."""

    graph: str
    alignment: int
    steps: int
    tensors: List[TensorLife] = field(default_factory=list)
    persistent: List[PersistentTensor] = field(default_factory=list)
    excluded: List[Excluded] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    kernels: List[str] = field(default_factory=list)
    shared: int = 0
    fused_internal_tensors: int = 0
    fused_internal_bytes: int = 0

    @property
    def persistent_bytes(self) -> int:
        return sum(p.size for p in self.persistent)

    @property
    def no_reuse(self) -> int:
        return sum(t.size for t in self.tensors)

    def live_bytes(self) -> List[int]:
        """Aligned bytes alive at each step (difference array, O(tensors + steps))."""
        diff = [0] * (self.steps + 1)
        for t in self.tensors:
            diff[t.start] += t.size
            diff[t.end + 1] -= t.size
        live = []
        total = 0
        for step in range(self.steps):
            total += diff[step]
            live.append(total)
        return live

    @property
    def lower_bound(self) -> int:
        """No plan can use less than the largest total of bytes alive at one step."""
        return max(self.live_bytes(), default=0)


def node_label(node: Node, graph: Optional[Graph] = None) -> str:
    """``Conv2D (Default/conv-Conv2d)``: op plus scope, for tables and plots."""
    op = kernel_op(node, graph)
    where = node.scope or node.name
    return f"{op} ({where})" if where else op


def kernel_op(node: Node, graph: Optional[Graph] = None) -> str:
    """The op type of a kernel; for a fused-kernel call, its ``Fused_*`` name."""
    if node.subgraph:
        sub = graph.subgraphs.get(node.subgraph) if graph is not None else None
        info = sub.attrs.get("info_name") if sub is not None else None
        name = info or node.subgraph
        return fused_kernel_name(name)
    return op_name(node.op)


def tensor_nbytes(tensor_type: Optional[TensorType]) -> Optional[int]:
    """Bytes of one value: shape x dtype; None if unknown or dynamic."""
    return None if tensor_type is None else tensor_type.nbytes


def tuple_index(node: Node, graph: Graph) -> Optional[int]:
    """The index a ``TupleGetItem`` selects, or None if it cannot be read."""
    for key in ("index", "idx"):
        if key in node.attrs:
            match = _INT_RE.search(str(node.attrs[key]))
            if match:
                return int(match.group(1))
    if len(node.inputs) < 2:
        return None
    ref = node.inputs[1]
    candidates = [ref]
    if ref in graph:
        const = graph.node(ref)
        candidates = [const.attrs.get("value", ""), const.name or "", const.op, ref]
    for text in candidates:
        match = _INT_RE.search(str(text))
        if match:
            return int(match.group(1))
    return None


# A storage root: ("t", tensor id) for an arena tensor, ("p", node id) for a persistent value.
Root = Tuple[str, str]


class _Resolver:
    """Maps a value (node id, output index) to the storage it really lives in."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.memo: Dict[Tuple[str, Optional[int]], List[Root]] = {}
        self.unresolved_tuple_items: Set[str] = set()

    def roots(self, node_id: str, index: Optional[int] = None) -> List[Root]:
        key = (node_id, index)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        path: List[Tuple[str, Optional[int]]] = []
        result = self._roots(node_id, index, path)
        for visited in path:  # every value on the chain resolves to the same storage
            self.memo[visited] = result
        return result

    def _roots(
        self, node_id: str, index: Optional[int], path: List[Tuple[str, Optional[int]]]
    ) -> List[Root]:
        graph = self.graph
        # Single-successor steps (Load/Depend, TupleGetItem, views) are followed in a loop,
        # so long chains in big training graphs never hit Python's recursion limit.
        for _ in range(len(graph.nodes) + 1):
            key = (node_id, index)
            cached = self.memo.get(key)
            if cached is not None:
                return cached
            self.memo[key] = []  # guards against cycles in malformed graphs
            path.append(key)
            if node_id not in graph:
                return []  # literal constants (I64(0), U monads, ...) are not tensors
            node = graph.node(node_id)
            op = op_name(node.op)
            if node.kind in PERSISTENT_KINDS:
                return [("p", node.id)]
            if node.kind == "output":
                return []
            if op in PASS_THROUGH_OPS:
                if not node.inputs:
                    return []
                node_id = node.inputs[0]
                continue
            if op == "TupleGetItem":
                if not node.inputs:
                    return []
                index = tuple_index(node, graph)
                if index is None:
                    self.unresolved_tuple_items.add(node.id)
                node_id = node.inputs[0]
                continue
            if op in TUPLE_OPS:
                if index is not None and 0 <= index < len(node.inputs):
                    node_id, index = node.inputs[index], None
                    continue
                out: List[Root] = []
                for src in node.inputs:
                    out.extend(self.roots(src, None))
                return out
            if node.bookkeeping:  # UpdateState, Return: no data
                return []
            if index is None and len(node.outputs) == 1:
                index = 0
            if index is not None:
                source = shared_source(graph, node, index)
                if source is None:
                    return [("t", f"{node.id}:{index}")]
                node_id, index = source, None
                continue
            out = []
            for i in range(len(node.outputs)):
                source = shared_source(graph, node, i)
                if source is not None:
                    out.extend(self.roots(source, None))
                else:
                    out.append(("t", f"{node.id}:{i}"))
            return out
        return []  # a cycle of pass-through nodes: malformed graph, nothing to keep alive


def _constant_text(graph: Graph, ref: str) -> str:
    """The printed value of a constant input (``Bool(0)``), or the id itself."""
    if ref in graph:
        node = graph.node(ref)
        return str(node.attrs.get("value") or node.name or ref)
    return ref


def shared_source(graph: Graph, node: Node, index: int) -> Optional[str]:
    """Input id whose memory output ``index`` of ``node`` shares (views, ref outputs), if any.

    BatchNorm writes its moving statistics back only when training (its ``is_training``
    input, slot 5, is not ``Bool(0)``/``False``); in inference they are ordinary outputs.
    """
    op = op_name(node.op)
    if op in VIEW_OPS and index == 0 and node.inputs:
        return node.inputs[0]
    ref = REF_OUTPUTS.get(op)
    if ref is None or index not in ref or ref[index] >= len(node.inputs):
        return None
    if op == "BatchNorm" and len(node.inputs) > 5:
        flag = _constant_text(graph, node.inputs[5]).replace(" ", "").lower()
        if flag in ("bool(0)", "false", "0"):
            return None
    return node.inputs[ref[index]]


def _describe(tensor_type: Optional[TensorType]) -> str:
    # Msg: English (its first word is the exclusion's kind), shown in the reader's language
    if tensor_type is None or tensor_type.shape is None:
        return msg("unknown shape")
    shape = tensor_type.shape
    if any(d < 0 for d in shape):
        return msg("dynamic shape {}", list(shape))
    if tensor_nbytes(tensor_type) is None:
        return msg("unknown dtype {!r}", tensor_type.device_dtype or tensor_type.dtype)
    return msg("size 0 (shape {})", list(shape))


def _fused_internals(graph: Graph, node: Node, alignment: int) -> Tuple[int, int]:
    """(count, aligned bytes) of the tensors a fused kernel keeps on-chip."""
    sub = graph.subgraphs.get(node.subgraph) if node.subgraph else None
    if sub is None:
        return 0, 0
    returned: Set[str] = set()
    for inner in sub.nodes:
        if op_name(inner.op) == "Return":
            stack = list(inner.inputs)
            while stack:
                rid = stack.pop()
                returned.add(rid)
                if rid in sub and sub.node(rid).bookkeeping:
                    stack.extend(sub.node(rid).data_inputs)  # through MakeTuple, Depend, ...
    count = 0
    total = 0
    for inner in sub.nodes:
        if not inner.is_kernel or inner.id in returned:
            continue
        for tensor_type in inner.outputs:
            count += 1
            total += align_up(tensor_nbytes(tensor_type) or 0, alignment)
    return count, total


def lifetimes(graph: Graph, alignment: int = DEFAULT_ALIGNMENT) -> MemoryProblem:
    """Tensors of ``graph`` (a kernel graph in execution order) with sizes and lifetimes.

    Tensor ids are ``"<node id>:<output index>"``; steps count kernels from 0. A tensor
    nobody consumes lives only at the step that produces it.
    """
    if not isinstance(graph, Graph):
        raise TypeError(
            f"lifetimes() expects an ascend_lab.model.graph.Graph (e.g. trace.graph), "
            f"got {type(graph).__name__}"
        )
    if not isinstance(alignment, int) or alignment < 1:
        raise ValueError(f"alignment must be a positive number of bytes, got {alignment!r}")
    problem = MemoryProblem(graph=graph.name, alignment=alignment, steps=0)
    kernels = graph.kernels
    problem.steps = len(kernels)
    problem.kernels = [k.id for k in kernels]
    if not kernels:
        problem.notes.append(
            msg(
                "The graph {} has no kernels (only parameters/bookkeeping): nothing to plan.",
                repr(graph.name),
            )
        )
    resolver = _Resolver(graph)
    step_of = {k.id: s for s, k in enumerate(kernels)}

    # 1. Every kernel output that owns memory becomes a candidate tensor.
    candidates: Dict[str, TensorLife] = {}
    order: List[str] = []
    for node in kernels:
        step = step_of[node.id]
        label = node_label(node, graph)
        kop = kernel_op(node, graph)
        for index, tensor_type in enumerate(node.outputs):
            t_id = f"{node.id}:{index}"
            if shared_source(graph, node, index) is not None:
                problem.shared += 1
                continue
            nbytes = tensor_nbytes(tensor_type)
            if not nbytes:
                problem.excluded.append(Excluded(t_id, node.id, label, _describe(tensor_type)))
                continue
            size = align_up(nbytes, alignment)
            candidates[t_id] = TensorLife(t_id, node.id, label, kop, size, nbytes, step, step)
            order.append(t_id)
        if node.subgraph:
            count, total = _fused_internals(graph, node, alignment)
            problem.fused_internal_tensors += count
            problem.fused_internal_bytes += total

    # 2. Each consumer extends the lifetime of the storage it reads (through views/refs).
    for node in kernels:
        step = step_of[node.id]
        for src in node.inputs:
            for kind, rid in resolver.roots(src, None):
                if kind == "t":
                    tensor = candidates.get(rid)
                    if tensor is not None and tensor.end < step:
                        tensor.end = step

    # 3. Graph outputs (inputs of Return, through MakeTuple/Depend) are persistent.
    outputs: List[str] = []
    for node in graph.nodes:
        if op_name(node.op) == "Return" or node.kind == "output":
            for src in node.inputs:
                for kind, rid in resolver.roots(src, None):
                    if kind == "t" and rid in candidates and rid not in outputs:
                        outputs.append(rid)

    for node in graph.nodes:
        if node.kind in ("parameter", "input"):
            nbytes = tensor_nbytes(node.outputs[0]) if node.outputs else None
            problem.persistent.append(
                PersistentTensor(
                    node.id + ":0",
                    node.id,
                    node.name or node.id,
                    node.kind,
                    align_up(nbytes, alignment) if nbytes else 0,
                    nbytes,
                )
            )
            if not nbytes:
                why = _describe(node.outputs[0] if node.outputs else None)
                template = (
                    N_("Parameter {}: size unknown ({}), counted as 0 persistent bytes.")
                    if node.kind == "parameter"
                    else N_("Input {}: size unknown ({}), counted as 0 persistent bytes.")
                )
                problem.notes.append(msg(template, node.name or node.id, why))
    output_set = set(outputs)
    for t_id in outputs:
        tensor = candidates[t_id]
        problem.persistent.append(
            PersistentTensor(t_id, tensor.node, tensor.label, "output", tensor.size, tensor.nbytes)
        )
    problem.tensors = [candidates[t] for t in order if t not in output_set]

    # 4. Notes: what was left out and why.
    if resolver.unresolved_tuple_items:
        problem.notes.append(
            msg(
                "{} TupleGetItem node(s) with an unreadable index: their consumers keep every "
                "output of the tuple alive (conservative).",
                len(resolver.unresolved_tuple_items),
            )
        )
    _note_exclusions(problem)
    if problem.shared:
        problem.notes.append(
            msg(
                "{} output(s) of views/in-place ops (Reshape-like, Assign, optimizer updates, "
                "BatchNorm moving statistics) share their source's memory: no block of their own.",
                problem.shared,
            )
        )
    if problem.fused_internal_tensors:
        problem.notes.append(
            msg(
                "Fusion keeps {} intermediate tensor(s) ({}) inside fused kernels: they never "
                "reach device memory.",
                problem.fused_internal_tensors,
                fmt_bytes(problem.fused_internal_bytes),
            )
        )
    if outputs:
        problem.notes.append(
            msg(
                "{} graph output(s) are persistent (returned to the caller) and not in the arena.",
                len(outputs),
            )
        )
    if kernels:
        problem.notes.append(
            N_(
                "Kernel workspaces (scratch memory some kernels request at launch) are not in "
                "the graph dump and are not planned."
            )
        )
    return problem


def _note_exclusions(problem: MemoryProblem) -> None:
    by_reason: Dict[str, List[Excluded]] = {}
    for item in problem.excluded:
        by_reason.setdefault(item.reason.split(" ", 1)[0], []).append(item)
    for kind, items in sorted(by_reason.items()):
        examples = ""
        for e in items[:5]:  # Msg pieces: each reason is shown in the reader's language
            example = msg("{} [{}]: {}", e.id, e.label, e.reason)
            examples = msg("{}, {}", examples, example) if examples else example
        more = msg(" and {} more", len(items) - 5) if len(items) > 5 else ""
        if kind == "dynamic":
            why = N_(
                "their size is only known at run time, so a static plan cannot place them "
                "(SOMAS needs static shapes; with dynamic shapes MindSpore falls back to "
                "a dynamic memory pool)"
            )
        elif kind == "unknown":
            why = N_("their byte size cannot be computed")
        else:
            why = N_("they need no memory")
        problem.notes.append(
            msg(
                "Excluded {} tensor(s) from the plan because {}: {}{}.",
                len(items),
                why,
                examples,
                more,
            )
        )


def fmt_bytes(nbytes: float) -> str:
    """Human-readable byte count: ``1.5 MiB``."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{nbytes} B"  # pragma: no cover


def problem_from_intervals(
    intervals: Sequence[Tuple[int, int, int]], alignment: int = 1, steps: Optional[int] = None
) -> MemoryProblem:
    """A problem from ``(size, start, end)`` triples (tests, benchmarks, teaching)."""
    tensors = []
    for i, (size, start, end) in enumerate(intervals):
        if size <= 0 or start < 0 or end < start:
            raise ValueError(f"bad interval #{i}: size={size!r} start={start!r} end={end!r}")
        tensors.append(
            TensorLife(
                f"t{i}:0", f"t{i}", f"t{i}", "T", align_up(size, alignment), size, start, end
            )
        )
    last = max((t.end for t in tensors), default=-1) + 1
    return MemoryProblem(
        graph="synthetic",
        alignment=alignment,
        steps=last if steps is None else max(steps, last),
        tensors=tensors,
    )

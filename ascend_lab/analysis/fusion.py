"""Fusion map: which nodes of the pre-fusion kernel graph each fused kernel came from.

With graph-kernel fusion on, the final kernel graph calls ``Fused_*`` subgraphs. Their inner
nodes are *expanded* basic ops (``BiasAdd`` -> ``Add``, ``ReLU`` -> ``Maximum``) that carry
``expand_from`` and, often but not always, the original scope
(``Default/fc1-Dense/expand_BiasAdd/Add-op0``; ReLU's ``Maximum`` loses it). So the map is
built from dataflow, checked against the ops the kernel says it contains:

1. nodes of the *before* graph that no longer exist in the *after* graph (matched by stable
   key: scope path + op) are the fused-away ones;
2. walking the fused kernels in execution order, each kernel's inputs are located in the
   before graph (directly by key, or through the originals of an earlier fused kernel that
   feeds it); fused-away nodes fed by those inputs (or by nodes already taken) are taken,
   as long as the kernel's own op budget (multiset of ``expand_from`` / inner ops) allows.

Many-to-many: a node can be claimed by more than one kernel only if MindSpore duplicated it
(recompute); normally the map is one kernel -> several originals.
"""

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ascend_lab.model.graph import Graph, Node
from ascend_lab.parsers.ir.timeline import node_key


@dataclass
class FusedKernel:
    kernel: str  # node id in the after graph
    name: str  # op of the call, e.g. Fused_BiasAdd_ReLU_fusion
    originals: List[str] = field(default_factory=list)  # node ids in the before graph
    ops: List[str] = field(default_factory=list)  # original ops the kernel contains
    subgraph: Optional[str] = None

    def to_dict(self) -> Dict[str, object]:
        return {
            "kernel": self.kernel,
            "name": self.name,
            "originals": list(self.originals),
            "ops": list(self.ops),
        }


@dataclass
class FusionMap:
    kernels: List[FusedKernel]
    kernel_count_before: int
    kernel_count_after: int
    unmapped: List[str] = field(default_factory=list)  # fused-away before-nodes no kernel took

    def to_dict(self) -> Dict[str, object]:
        return {
            "kernels": [k.to_dict() for k in self.kernels],
            "kernel_count_before": self.kernel_count_before,
            "kernel_count_after": self.kernel_count_after,
        }

    def by_name(self) -> Dict[str, int]:
        return dict(Counter(k.name for k in self.kernels))


def _clean(value: str) -> str:
    return value.strip().strip('"')


def fused_ops(kernel_graph: Graph) -> List[str]:
    """Original ops a fused subgraph computes: each ``expand_from`` once, other inner ops
    each time they occur (GeLU expands into ~9 basic ops that all say ``expand_from: GeLU``).
    """
    ops: List[str] = []
    expanded = set()
    for node in kernel_graph.nodes:
        if node.kind != "op" or node.bookkeeping:
            continue
        origin = node.attrs.get("cnode:expand_from") or node.attrs.get("expand_from")
        if origin:
            origin = _clean(origin)
            if origin not in expanded:
                expanded.add(origin)
                ops.append(origin)
        else:
            ops.append(node.op)
    return ops


def name_ops(name: str) -> List[str]:
    """Ops named by a fused kernel: ``Fused_BiasAdd_Reshape_GeLU_fusion`` -> 3 ops."""
    body = name[len("Fused_") :] if name.startswith("Fused_") else name
    parts = body.split("_")
    while parts and parts[-1] in ("fusion", "split", "more") or (parts and parts[-1].isdigit()):
        parts.pop()
    return [p for p in parts if p and p[0].isupper()]


def op_budget(name: str, kernel_graph: Optional[Graph]) -> Counter:
    """How many originals of each op a fused kernel may take (name and body, merged)."""
    budget: Counter = Counter(name_ops(name))
    if kernel_graph is not None:
        for op, count in Counter(fused_ops(kernel_graph)).items():
            budget[op] = max(budget[op], count)
    return budget


def is_fused_call(node: Node) -> bool:
    return node.kind == "call" and node.op.startswith("Fused_")


def _keys(graph: Graph) -> Dict[str, str]:
    """node id -> stable key, with occurrence numbers for repeated keys."""
    out: Dict[str, str] = {}
    seen: Counter = Counter()
    for node in graph.nodes:
        if node.kind == "constant":
            continue
        base = node_key(node)
        n = seen[base]
        seen[base] += 1
        out[node.id] = base if n == 0 else f"{base}#{n}"
    return out


def build_fusion_map(before: Graph, after: Graph) -> FusionMap:
    """Map each ``Fused_*`` call of ``after`` to the nodes of ``before`` it replaced."""
    before_keys = _keys(before)
    after_keys = _keys(after)
    key_to_before = {k: nid for nid, k in before_keys.items()}
    remaining_after = {k for nid, k in after_keys.items() if not is_fused_call(after.node(nid))}
    fused_away = [
        n for n in before.nodes if n.is_kernel and before_keys.get(n.id) not in remaining_after
    ]
    fused_away_ids = {n.id for n in fused_away}
    kernels: List[FusedKernel] = []
    originals_of_call: Dict[str, List[str]] = {}
    claimed: Dict[str, int] = Counter()
    calls = [n for n in after.nodes if is_fused_call(n)]
    calls.sort(key=lambda n: n.step if n.step is not None else 1 << 30)
    for call in calls:
        sub = after.subgraphs.get(call.subgraph or "")
        budget = op_budget(call.op, sub)
        anchors = set()
        for src in call.inputs:
            if src in originals_of_call:
                anchors.update(originals_of_call[src])
                continue
            key = after_keys.get(src)
            if key is not None and key in key_to_before:
                anchors.add(key_to_before[key])
        taken: List[str] = []
        region = set(anchors)
        for node in before.nodes:
            if node.id not in fused_away_ids or node.id in region:
                continue
            if not any(src in region for src in node.inputs):
                continue
            if budget and budget[node.op] <= 0:
                continue
            if claimed[node.id] and not budget:
                continue
            budget[node.op] -= 1
            region.add(node.id)
            taken.append(node.id)
            claimed[node.id] += 1
        originals_of_call[call.id] = taken
        kernels.append(
            FusedKernel(
                kernel=call.id,
                name=call.op,
                originals=taken,
                ops=[before.node(t).op for t in taken] or sorted(budget.elements()),
                subgraph=call.subgraph,
            )
        )
    unmapped = [n.id for n in fused_away if not claimed[n.id]]
    return FusionMap(
        kernels=kernels,
        kernel_count_before=len(before.kernels),
        kernel_count_after=len(after.kernels),
        unmapped=unmapped,
    )

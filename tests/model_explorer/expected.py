"""What Model Explorer should show, counted from ascend-lab's own model (the Graph objects
and the scope repair), not from the converter's output."""

from collections import Counter
from typing import Dict, List, Tuple

from ascend_lab.analysis.scopes import MODULE_ROOTS, repair_scopes, split_scope
from ascend_lab.model.graph import Graph, Node


def _namespace(scope: str) -> Tuple[str, ...]:
    parts = split_scope(scope)
    return parts[1:] if parts and parts[0] in MODULE_ROOTS else parts


def counts(graph: Graph) -> Tuple[int, int]:
    """(nodes, layers): every parameter, input and kernel, a fused call counted as the
    kernels of its subgraph; a layer is a scope (after repair, without ``Default``) or a
    fused call holding at least two nodes (Model Explorer draws a one-node layer as the
    node)."""
    repaired = repair_scopes(graph)
    by_id = {n.id: n for n in graph.nodes}
    nodes = 0
    per_path: Counter = Counter()
    weights: Dict[str, Tuple[str, ...]] = {}  # a parameter is drawn beside its first user
    for node in graph.nodes:
        if node.kind in ("parameter", "input"):
            nodes += 1
            continue
        if not node.is_kernel:
            continue
        path = _namespace(repaired.get(node.id) or node.scope or "")
        for source in _sources(by_id, node.inputs):
            if by_id[source].kind == "parameter":
                weights.setdefault(source, path)
        callee = graph.subgraphs.get(node.subgraph or "") if node.kind == "call" else None
        if callee is not None:
            inner = sum(1 for n in callee.nodes if n.is_kernel)
            nodes += inner
            _add(per_path, path + (f"{node.op} {node.id}",), inner)
        else:
            nodes += 1
            _add(per_path, path, 1)
    for path in weights.values():
        _add(per_path, path, 1)
    return nodes, sum(1 for n in per_path.values() if n >= 2)


def _sources(by_id: Dict[str, Node], refs: List[str]) -> List[str]:
    out: List[str] = []
    todo = list(refs)
    while todo:
        ref = todo.pop(0)
        node = by_id.get(ref)
        if node is None:
            continue
        if node.bookkeeping:
            todo[:0] = node.data_inputs
        else:
            out.append(ref)
    return out


def _add(per_path: Counter, path: Tuple[str, ...], n: int) -> None:
    for i in range(1, len(path) + 1):
        per_path[path[:i]] += n

"""Convert a :class:`~ascend_lab.model.graph.Graph` to a ``networkx.DiGraph`` for analysis.

networkx is imported when the function is called, never at import time.
"""

from typing import TYPE_CHECKING, Dict, List

from ascend_lab.model.graph import Graph

if TYPE_CHECKING:  # pragma: no cover
    import networkx


def to_networkx(graph: Graph, include_bookkeeping: bool = True) -> "networkx.DiGraph":
    """One networkx node per graph node (keyed by id), one edge per data input.

    Node attributes: ``op``, ``kind``, ``name``, ``scope``, ``bookkeeping``, ``outputs``
    (list of TensorType), ``shape``/``dtype`` of the first output, ``source``, ``step``,
    ``subgraph`` and ``attrs``; edge attribute ``slot`` (input position; when one node feeds
    several slots of another, ``slots`` lists them all). With ``include_bookkeeping=False``,
    bookkeeping nodes (Load, UpdateState, Depend, MakeTuple, TupleGetItem, Return) are left
    out and their data inputs (not monad/state inputs) are bridged to their users, so
    data paths through them remain.
    """
    import networkx as nx

    g = nx.DiGraph(name=graph.name, file=graph.file)
    keep = {n.id for n in graph.nodes if include_bookkeeping or not n.bookkeeping}
    for n in graph.nodes:
        if n.id not in keep:
            continue
        first = n.outputs[0] if n.outputs else None
        g.add_node(
            n.id,
            op=n.op,
            kind=n.kind,
            name=n.name,
            scope=n.scope,
            bookkeeping=n.bookkeeping,
            outputs=list(n.outputs),
            shape=first.shape if first is not None else None,
            dtype=first.dtype if first is not None else None,
            source=list(n.source),
            step=n.step,
            subgraph=n.subgraph,
            attrs=dict(n.attrs),
        )
    by_id = {n.id: n for n in graph.nodes}

    cache: Dict[str, List[str]] = {}

    def producers(src: str) -> List[str]:
        """Nearest kept producers of ``src``, looking through dropped bookkeeping nodes."""
        if src in keep:
            return [src]
        found = cache.get(src)
        if found is not None:
            return found
        found = []
        seen = set()
        stack = [src]
        while stack:  # iterative: chains of Depend/Load can be long in big graphs
            cur = stack.pop()
            if cur in seen:
                continue
            seen.add(cur)
            if cur in keep:
                found.append(cur)
                continue
            node = by_id.get(cur)
            if node is None:
                continue
            stack.extend(reversed(node.data_inputs))  # see ascend_lab.model.ops
        cache[src] = found
        return found

    for n in graph.nodes:
        if n.id not in keep:
            continue
        for slot, src in enumerate(n.inputs):
            for p in producers(src):
                if p == n.id:
                    continue
                if g.has_edge(p, n.id):
                    g.edges[p, n.id].setdefault("slots", [g.edges[p, n.id]["slot"]]).append(slot)
                else:
                    g.add_edge(p, n.id, slot=slot)
    return g

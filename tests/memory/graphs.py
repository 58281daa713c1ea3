"""Hand-built kernel graphs for the memory tests (shaped like MindSpore's kernel graphs)."""

from typing import List, Optional, Sequence, Tuple

from ascend_lab.model.graph import Graph, Node, TensorType


def t(*shape: int, dtype: str = "Float32") -> TensorType:
    return TensorType(dtype=dtype, shape=tuple(shape))


def param(node_id: str, *shape: int, kind: str = "parameter") -> Node:
    return Node(
        id=node_id, op="Parameter", kind=kind, name=node_id.lstrip("%"), outputs=[t(*shape)]
    )


def op(
    node_id: str,
    name: str,
    inputs: Sequence[str],
    outputs: Sequence[TensorType],
    scope: str = "Default",
    kind: str = "op",
    subgraph: Optional[str] = None,
) -> Node:
    return Node(
        id=node_id,
        op=name,
        kind=kind,
        name=f"{scope}/{name}-op0",
        scope=scope,
        inputs=list(inputs),
        outputs=list(outputs),
        subgraph=subgraph,
    )


def ret(node_id: str, values: List[str]) -> List[Node]:
    """MakeTuple(values) + Return(MakeTuple)."""
    return [
        op(node_id, "MakeTuple", values, []),
        op(node_id + "r", "Return", [node_id], []),
    ]


def chain(sizes: Sequence[Tuple[int, ...]]) -> Graph:
    """x -> Relu -> Relu -> ... one op per shape; the last output is returned."""
    nodes = [param("%x", *sizes[0], kind="input")]
    prev = "%x"
    for i, shape in enumerate(sizes):
        nodes.append(op(f"%{i}", "ReLU", [prev], [t(*shape)]))
        prev = f"%{i}"
    nodes += ret("%mt", [prev])
    return Graph(name="chain", nodes=nodes)

"""One graph model for every source (``.ir`` dumps, ``.mindir`` files).

Plain data: parsers build it, analyses (timeline diffs, fusion map, memory plan) read it,
``to_dict`` turns it into the ``graph`` part of the payload (see
``ascend_lab/payload/graph.schema.json``). Nothing here imports MindSpore.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ascend_lab.model import display
from ascend_lab.model.ops import BOOKKEEPING_OPS, data_inputs

__all__ = ["BOOKKEEPING_OPS", "DTYPE_BYTES", "NODE_KINDS", "Graph", "Node", "TensorType"]

NODE_KINDS = ("op", "call", "parameter", "input", "constant", "output")

# Bytes per element for the dtype names MindSpore prints (``Float32``, ``Int64``, ...).
DTYPE_BYTES = {
    "bool": 1,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "float16": 2,
    "bfloat16": 2,
    "int32": 4,
    "uint32": 4,
    "float32": 4,
    "int64": 8,
    "uint64": 8,
    "float64": 8,
    "complex64": 8,
    "complex128": 16,
}


@dataclass(frozen=True)
class TensorType:
    """dtype and shape of one value; ``device_dtype``/``format`` once kernels are selected.

    ``shape`` is None when unknown (scalars have ``()``); ``-1`` marks a dynamic dimension.
    """

    dtype: Optional[str] = None
    shape: Optional[Tuple[int, ...]] = None
    device_dtype: Optional[str] = None
    format: Optional[str] = None

    @property
    def itemsize(self) -> Optional[int]:
        # MindSpore prints device dtype "Unknown" for parameters: fall back to the dtype.
        for name in (self.device_dtype, self.dtype):
            size = DTYPE_BYTES.get((name or "").lower())
            if size is not None:
                return size
        return None

    @property
    def is_dynamic(self) -> bool:
        return self.shape is not None and any(d < 0 for d in self.shape)

    @property
    def nbytes(self) -> Optional[int]:
        """Size in bytes, or None if the dtype is unknown or the shape is unknown/dynamic."""
        size = self.itemsize
        if size is None or self.shape is None or self.is_dynamic:
            return None
        for dim in self.shape:
            size *= dim
        return size

    def to_dict(self) -> Dict[str, Any]:
        return {
            "dtype": self.dtype,
            "shape": list(self.shape) if self.shape is not None else None,
            "device_dtype": self.device_dtype,
            "format": self.format,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "TensorType":
        shape = data.get("shape")
        return cls(
            dtype=data.get("dtype"),
            shape=tuple(shape) if shape is not None else None,
            device_dtype=data.get("device_dtype"),
            format=data.get("format"),
        )


@dataclass
class Node:
    """One node: an operator call, a call into a subgraph (fused kernel), or a value.

    ``id`` is unique within its graph (``%3``, ``%para1_conv.weight``, ...). ``name`` is the
    full name with scope that MindSpore prints (``Default/conv-Conv2d/Conv2D-op0``) and is
    stable across passes, unlike ``id``. ``inputs`` holds ids of other nodes of the same graph.
    """

    id: str
    op: str
    kind: str = "op"
    name: Optional[str] = None
    scope: Optional[str] = None
    inputs: List[str] = field(default_factory=list)
    outputs: List[TensorType] = field(default_factory=list)
    input_types: List[TensorType] = field(default_factory=list)
    attrs: Dict[str, str] = field(default_factory=dict)
    source: List[str] = field(default_factory=list)
    subgraph: Optional[str] = None
    step: Optional[int] = None

    @property
    def bookkeeping(self) -> bool:
        return self.op in BOOKKEEPING_OPS

    @property
    def data_inputs(self) -> List[str]:
        """The inputs that carry data (a bookkeeping node's monad and state inputs left out)."""
        return data_inputs(self.op, self.inputs)

    @property
    def is_kernel(self) -> bool:
        """True for nodes that run as a kernel on the device (ops and fused-kernel calls)."""
        return self.kind in ("op", "call") and not self.bookkeeping

    def to_dict(self) -> Dict[str, Any]:
        return {
            "id": self.id,
            "op": self.op,
            "kind": self.kind,
            "name": self.name,
            "scope": self.scope,
            "bookkeeping": self.bookkeeping,
            "inputs": list(self.inputs),
            "outputs": [t.to_dict() for t in self.outputs],
            "input_types": [t.to_dict() for t in self.input_types],
            "attrs": dict(self.attrs),
            "source": list(self.source),
            "subgraph": self.subgraph,
            "step": self.step,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Node":
        return cls(
            id=data["id"],
            op=data["op"],
            kind=data.get("kind", "op"),
            name=data.get("name"),
            scope=data.get("scope"),
            inputs=list(data.get("inputs", [])),
            outputs=[TensorType.from_dict(t) for t in data.get("outputs", [])],
            input_types=[TensorType.from_dict(t) for t in data.get("input_types", [])],
            attrs=dict(data.get("attrs", {})),
            source=list(data.get("source", [])),
            subgraph=data.get("subgraph"),
            step=data.get("step"),
        )


@dataclass
class Graph:
    """A graph: nodes in textual order (for a kernel graph, the execution order).

    ``subgraphs`` holds graphs this one calls (``Fused_*`` kernels), keyed by name.
    """

    name: str
    nodes: List[Node] = field(default_factory=list)
    file: Optional[str] = None
    attrs: Dict[str, str] = field(default_factory=dict)
    subgraphs: Dict[str, "Graph"] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._index: Optional[Dict[str, Node]] = None

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def node(self, node_id: str) -> Node:
        if self._index is None or len(self._index) != len(self.nodes):
            self._index = {n.id: n for n in self.nodes}
        return self._index[node_id]

    def __contains__(self, node_id: object) -> bool:
        try:
            self.node(node_id)  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return True

    @property
    def parameters(self) -> List[Node]:
        return [n for n in self.nodes if n.kind in ("parameter", "input")]

    @property
    def kernels(self) -> List[Node]:
        """Nodes that run as kernels, in execution order."""
        return [n for n in self.nodes if n.is_kernel]

    def edges(self) -> List[Tuple[str, str, int]]:
        """(source id, target id, input slot) for every input that is a node of this graph."""
        ids = {n.id for n in self.nodes}
        return [
            (src, n.id, slot) for n in self.nodes for slot, src in enumerate(n.inputs) if src in ids
        ]

    def to_networkx(self, include_bookkeeping: bool = True) -> Any:
        """This graph as a ``networkx.DiGraph`` (see :func:`ascend_lab.model.nx.to_networkx`)."""
        from ascend_lab.model.nx import to_networkx

        return to_networkx(self, include_bookkeeping=include_bookkeeping)

    def plot(self, ax: Any = None, hide_bookkeeping: bool = True, max_nodes: int = 200) -> Any:
        """Draw this (small) graph with matplotlib; returns ``(figure, axes)``.

        See :func:`ascend_lab.render.graph_plot.plot_graph`.
        """
        return display.call(
            "plot", self, ax=ax, hide_bookkeeping=hide_bookkeeping, max_nodes=max_nodes
        )

    def to_dict(self) -> Dict[str, Any]:
        """The ``graph`` object of the payload schema (subgraphs are emitted separately)."""
        return {"name": self.name, "file": self.file, "nodes": [n.to_dict() for n in self.nodes]}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Graph":
        return cls(
            name=data["name"],
            file=data.get("file"),
            nodes=[Node.from_dict(n) for n in data.get("nodes", [])],
        )

"""Parse ``.mindir`` files (protobuf ``mind_ir.ModelProto``) into the one Graph model.

The protobuf classes come from MindSpore's generated ``mindspore/train/mind_ir_pb2.py``,
loaded *by file path* under a private module name, so MindSpore's package ``__init__``
(~2.5 s) never runs: only ``protobuf`` is needed.

Mapping:

- ``graph.parameter`` (weights, with ``raw_data``) -> kind ``parameter``; ``graph.input``
  -> kind ``input``; each ``graph.output`` -> a node of kind ``output`` (op ``Output``)
  whose input is the value returned.
- ``node.op_type`` ``REF::<Prim>:<id>`` refers to ``ModelProto.primitives``: op is the
  primitive's ``op_type``, its attributes become ``attrs`` (text). ``REF::<graph>``
  naming one of ``ModelProto.functions`` -> kind ``call`` with ``subgraph`` set; the called
  graphs are parsed into ``Graph.subgraphs``. ``Constant`` nodes -> kind ``constant``.
- Node ids are the protobuf names without the ``<graph name>:`` prefix; ``node.domain`` is
  the full name with scope (``Default/conv1-Conv2d/Conv2D-op0``); the ``shape`` attribute
  gives the output dtypes and shapes.

Corrupt or truncated bytes raise :class:`~ascend_lab.graph.errors.GraphParseError` naming
the file and the byte offset where decoding failed.
"""

import importlib.util
import os
import sys
from types import ModuleType
from typing import Any, Dict, List, Optional, Tuple, Union

from .errors import GraphParseError
from .model import Graph, Node, TensorType

__all__ = ["parse_mindir", "parse_mindir_file", "load_mind_ir_pb2", "MindIRUnavailable"]

_MODULE_NAME = "_ascend_lab_mind_ir_pb2"

# TensorProto.DataType names -> the dtype names MindSpore prints in .ir files.
_DTYPES = {
    "FLOAT": "Float32",
    "FLOAT16": "Float16",
    "BFLOAT16": "BFloat16",
    "DOUBLE": "Float64",
    "FLOAT64": "Float64",
    "INT8": "Int8",
    "INT16": "Int16",
    "INT32": "Int32",
    "INT64": "Int64",
    "UINT8": "UInt8",
    "UINT16": "UInt16",
    "UINT32": "UInt32",
    "UINT64": "UInt64",
    "BOOL": "Bool",
    "STRING": "String",
    "COMPLEX64": "Complex64",
    "COMPLEX128": "Complex128",
}


class MindIRUnavailable(ImportError):
    """Neither MindSpore's ``mind_ir_pb2.py`` nor a usable ``protobuf`` could be loaded."""


def load_mind_ir_pb2() -> ModuleType:
    """MindSpore's generated ``mind_ir_pb2`` module, loaded without importing MindSpore."""
    cached = sys.modules.get(_MODULE_NAME)
    if cached is not None:
        return cached
    try:
        spec = importlib.util.find_spec("mindspore")
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec else []
    candidates = [os.path.join(loc, "train", "mind_ir_pb2.py") for loc in locations]
    found = [c for c in candidates if os.path.isfile(c)]
    if not found:
        raise MindIRUnavailable(
            "reading .mindir files needs MindSpore's mind_ir_pb2.py (pip install mindspore); "
            "MindSpore was not found"
        )
    file_spec = importlib.util.spec_from_file_location(_MODULE_NAME, found[0])
    if file_spec is None or file_spec.loader is None:
        raise MindIRUnavailable(f"cannot load {found[0]}")
    module = importlib.util.module_from_spec(file_spec)
    try:
        file_spec.loader.exec_module(module)
    except Exception as exc:  # a protobuf runtime too old/new for the generated code
        raise MindIRUnavailable(
            f"cannot load {found[0]} ({type(exc).__name__}: {exc}); "
            "check that the installed protobuf matches MindSpore's"
        ) from exc
    sys.modules[_MODULE_NAME] = module
    return module


# ---------------------------------------------------------------------------- wire check


def _varint(data: bytes, pos: int, end: int) -> Tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise _WireError(pos, "varint runs past the end of its message")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _WireError(pos, "varint longer than 10 bytes")


class _WireError(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


def _check_wire(data: bytes, descriptor: Any, pos: int, end: int, depth: int = 0) -> None:
    """Walk the protobuf wire format guided by ``descriptor``; raise _WireError where bad."""
    if depth > 64:
        raise _WireError(pos, "messages nested too deeply")
    fields = descriptor.fields_by_number
    while pos < end:
        start = pos
        tag, pos = _varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise _WireError(start, "field number 0")
        if wire == 0:
            _, pos = _varint(data, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = _varint(data, pos, end)
            if pos + length > end:
                raise _WireError(
                    start, f"field {number} claims {length} bytes but its message ends first"
                )
            field = fields.get(number)
            if field is not None and field.message_type is not None:
                _check_wire(data, field.message_type, pos, pos + length, depth + 1)
            elif field is not None and field.type == field.TYPE_STRING:
                try:
                    data[pos : pos + length].decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _WireError(pos + exc.start, "invalid UTF-8 in a string field") from None
            pos += length
        else:
            raise _WireError(start, f"unknown wire type {wire}")
        if pos > end:
            raise _WireError(start, "value runs past the end of its message")


# ---------------------------------------------------------------------------- values


def _dtype(pb2: ModuleType, code: int) -> Optional[str]:
    try:
        name = pb2.TensorProto.DataType.Name(code)
    except ValueError:
        return f"dtype#{code}"
    if name == "UNDEFINED":
        return None
    return _DTYPES.get(name, name)


def _tensor_type(pb2: ModuleType, tensor: Any) -> TensorType:
    return TensorType(dtype=_dtype(pb2, tensor.data_type), shape=tuple(int(d) for d in tensor.dims))


def _shape_types(pb2: ModuleType, attr: Any) -> List[TensorType]:
    """Output types from a node's ``shape`` attribute (TENSORS, or TUPLE of them)."""
    kind = pb2.AttributeProto.AttributeType.Name(attr.type)
    if kind == "TENSORS" or attr.tensors:
        return [_tensor_type(pb2, t) for t in attr.tensors]
    if kind in ("TUPLE", "LIST"):
        out: List[TensorType] = []
        for value in attr.values:
            out.extend(_shape_types(pb2, value))
        return out
    if kind in _DTYPES:
        return [TensorType(dtype=_DTYPES[kind], shape=())]
    if kind == "UMONAD":
        return [TensorType(dtype="UMonad", shape=())]
    return [TensorType(dtype=kind.title())]


def _attr_text(pb2: ModuleType, attr: Any, depth: int = 0) -> str:
    """An attribute value as the short text MindSpore's .ir files would show."""
    try:
        kind = pb2.AttributeProto.AttributeType.Name(attr.type)
    except ValueError:
        kind = f"type#{attr.type}"
    if depth > 16:
        return "..."
    # Scalars sit in `i`/`f`/`d`/`s`, or in `ints`/`floats`/... inside sequences.
    if kind in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"):
        return ", ".join(str(v) for v in attr.ints) if attr.ints else str(attr.i)
    if kind == "BOOL":
        values = list(attr.ints) if attr.ints else [attr.i]
        return ", ".join("true" if v else "false" for v in values)
    if kind in ("FLOAT", "FLOAT16", "BFLOAT16"):
        return ", ".join(repr(v) for v in attr.floats) if attr.floats else repr(attr.f)
    if kind == "DOUBLE":
        return ", ".join(repr(v) for v in attr.doubles) if attr.doubles else repr(attr.d)
    if kind == "STRING":
        values = list(attr.strings) if attr.strings else [attr.s]
        return ", ".join(v.decode("utf-8", errors="replace") for v in values)
    if kind in ("TUPLE", "LIST"):
        inner = ", ".join(_attr_text(pb2, v, depth + 1) for v in attr.values)
        return f"({inner})" if kind == "TUPLE" else f"[{inner}]"
    if kind in ("TENSORS", "TENSOR"):
        tensors = list(attr.tensors) if kind == "TENSORS" else [attr.t]
        parts = []
        for t in tensors:
            dims = ", ".join(str(d) for d in t.dims)
            parts.append(f"Tensor[{_dtype(pb2, t.data_type)}]({dims})")
        return ", ".join(parts)
    if kind == "UMONAD":
        return "UMonad"
    if kind == "IOMONAD":
        return "IOMonad"
    if kind == "NONE":
        return "None"
    if kind == "GRAPH":
        return "@" + attr.g.name
    if attr.ref_attr_name:
        return attr.ref_attr_name
    text = " ".join(str(attr).split())
    return f"{kind}: {text}"[:500]


# ---------------------------------------------------------------------------- graphs


def _strip(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


class _Model:
    """Lookup tables over the whole file: primitives, functions, constants, node names."""

    def __init__(self, pb2: ModuleType, model: Any) -> None:
        self.pb2 = pb2
        self.prims = {p.name: p for p in model.primitives}
        self.functions = {f.name: f for f in model.functions}
        self.constants: Dict[str, Any] = {}
        self.owner: Dict[str, str] = {}  # full value name -> name of the graph defining it
        for gp in [model.graph, *model.functions]:
            for p in gp.parameter:
                self.owner[p.name] = gp.name
            for vi in gp.input:
                self.owner[vi.name] = gp.name
            for n in gp.node:
                self.owner[n.name] = gp.name
                if n.op_type == "Constant":
                    self.constants[n.name] = n


def _constant(pb2: ModuleType, np_: Any, nid: str) -> Node:
    node = Node(id=nid, op="Constant", kind="constant")
    for attr in np_.attribute:
        if attr.name == "value":
            node.attrs["value"] = _attr_text(pb2, attr)
            node.outputs = _shape_types(pb2, attr)
    return node


def _graph(m: _Model, gp: Any) -> Graph:
    pb2 = m.pb2
    prefix = gp.name + ":"
    graph = Graph(name=gp.name)
    for attr in gp.attribute:
        graph.attrs[attr.name] = _attr_text(pb2, attr)
    local: Dict[str, str] = {}  # full name -> node id in this graph
    for p in gp.parameter:
        pid = local[p.name] = _strip(p.name, prefix)
        graph.nodes.append(
            Node(
                id=pid,
                op="Parameter",
                kind="parameter",
                name=pid,
                outputs=[_tensor_type(pb2, p)],
                attrs={"bytes": str(len(p.raw_data))} if p.raw_data else {},
            )
        )
    for vi in gp.input:
        vid = local[vi.name] = _strip(vi.name, prefix)
        types = [_tensor_type(pb2, t) for t in vi.tensor]
        graph.nodes.append(Node(id=vid, op="Parameter", kind="input", name=vid, outputs=types))
    for np_ in gp.node:
        local[np_.name] = _strip(np_.name, prefix)

    def resolve(src: str, user: Node, slot: int, extra: List[Node]) -> str:
        """The id in this graph of input ``src``, adding constant/free-variable nodes."""
        if src in local:
            return local[src]
        cid = f"{user.id}#{slot}"
        if src in m.functions:
            extra.append(Node(id=cid, op="Constant", kind="constant", attrs={"value": "@" + src}))
            if user.kind == "call" and user.subgraph is None:
                user.subgraph = src
            return cid
        if src in m.constants:  # constants are shared between graphs: copy it here once
            local[src] = src
            extra.append(_constant(pb2, m.constants[src], src))
            return src
        if src in m.owner:  # a value of another graph (closure)
            attrs = {"value": src, "graph": m.owner[src]}
            extra.append(Node(id=cid, op="FreeVariable", kind="input", attrs=attrs))
            return cid
        raise _Unresolved(f"node {user.id} uses {src!r}, which is not defined in the file")

    for np_ in gp.node:
        nid = local[np_.name]
        op_type = np_.op_type
        if op_type == "Constant":
            graph.nodes.append(_constant(pb2, np_, nid))
            continue
        node = Node(id=nid, op=op_type)
        if np_.domain:
            node.name = np_.domain
            slash = np_.domain.rfind("/")
            node.scope = np_.domain[:slash] if slash > 0 else None
        callee: Optional[str] = None
        if op_type.startswith("REF::"):
            ref = op_type[5:]
            if ref in m.prims:
                prim = m.prims[ref]
                node.op = prim.op_type or ref.rsplit(":", 1)[0]
                if node.op in ("Partial",):
                    node.kind = "call"
                if prim.instance_name:
                    node.attrs["instance_name"] = prim.instance_name
                for attr in prim.attribute:
                    node.attrs[attr.name] = _attr_text(pb2, attr)
            elif ref in m.functions:
                node.kind, node.op, node.subgraph = "call", "call", ref
            elif ref in m.owner:  # calls the value of a node (e.g. a Switch's result)
                node.kind, node.op = "call", "call"
                callee = ref
            else:
                raise _Unresolved(f"node {nid} refers to {op_type}, which is not in the file")
        extra: List[Node] = []
        sources = ([callee] if callee else []) + list(np_.input)
        node.inputs = [resolve(src, node, slot, extra) for slot, src in enumerate(sources)]
        for attr in np_.attribute:
            if attr.name == "shape":
                node.outputs = _shape_types(pb2, attr)
            else:
                node.attrs.setdefault(attr.name, _attr_text(pb2, attr))
        for attr in np_.node_attr:
            node.attrs["cnode:" + attr.name] = _attr_text(pb2, attr)
        for attr in np_.primal_attr:
            node.attrs["primal:" + attr.name] = _attr_text(pb2, attr)
        graph.nodes.extend(extra)
        graph.nodes.append(node)
    for i, vi in enumerate(gp.output):
        out = Node(
            id=f"output:{i}" if len(gp.output) > 1 else "output",
            op="Output",
            kind="output",
            outputs=[_tensor_type(pb2, t) for t in vi.tensor],
        )
        extra = []
        out.inputs = [resolve(vi.name, out, 0, extra)]
        graph.nodes.extend(extra)
        graph.nodes.append(out)
    # Input types follow from the producers' outputs (MindIR stores outputs only).
    by_id = {n.id: n for n in graph.nodes}
    for n in graph.nodes:
        if n.kind in ("op", "call", "output"):
            n.input_types = [
                by_id[s].outputs[0] if s in by_id and len(by_id[s].outputs) == 1 else TensorType()
                for s in n.inputs
            ]
    return graph


class _Unresolved(Exception):
    pass


def parse_mindir(data: bytes, path: Optional[str] = None) -> Graph:
    """Parse the bytes of a ``.mindir`` file; ``path`` only names the file in errors."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("parse_mindir() takes the bytes of a .mindir file")
    data = bytes(data)
    pb2 = load_mind_ir_pb2()
    if not data:
        raise GraphParseError("empty file: not a MindIR model", path, offset=0)
    try:
        _check_wire(data, pb2.ModelProto.DESCRIPTOR, 0, len(data))
    except _WireError as exc:
        raise GraphParseError(
            f"corrupt or truncated MindIR: {exc.message}", path, offset=exc.offset
        ) from None
    model = pb2.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # google.protobuf.message.DecodeError and friends
        raise GraphParseError(f"corrupt MindIR ({exc})", path, offset=0) from None
    if not model.HasField("graph") or not model.graph.node:
        raise GraphParseError(
            "no graph in the file (not a MindIR model, or truncated)", path, offset=len(data)
        )
    try:
        tables = _Model(pb2, model)
        main = _graph(tables, model.graph)
        for fp in model.functions:
            main.subgraphs[fp.name] = _graph(tables, fp)
    except _Unresolved as exc:
        raise GraphParseError(
            f"{exc} (the file looks truncated or corrupt)", path, offset=len(data)
        ) from None
    main.file = path
    for g in main.subgraphs.values():
        g.file = path
    main.attrs.setdefault("producer", f"{model.producer_name} {model.model_version}".strip())
    main.attrs.setdefault("ir_version", model.ir_version)
    if model.mind_ir_version:
        main.attrs.setdefault("mind_ir_version", str(model.mind_ir_version))
    return main


def parse_mindir_file(path: Union[str, "os.PathLike[str]"]) -> Graph:
    """Read and parse one ``.mindir`` file."""
    p = os.fspath(path)
    with open(p, "rb") as fh:
        return parse_mindir(fh.read(), p)

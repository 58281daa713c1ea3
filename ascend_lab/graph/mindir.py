"""Parse ``.mindir`` files (protobuf ``mind_ir.ModelProto``) into the one Graph model.

Two decoders give the same Graph (tests check it on every fixture):

- ``protobuf``: MindSpore's generated ``mindspore/train/mind_ir_pb2.py``, loaded *by file
  path* under a private module name, so MindSpore's package ``__init__`` (~2.5 s) never
  runs; only ``protobuf`` is needed. Used by default when MindSpore is installed.
- ``builtin``: a small decoder of the protobuf wire format for the fields read here (field
  numbers from ``mind_ir.proto``), for machines without MindSpore or protobuf.

Mapping:

- ``graph.parameter`` (weights, with ``raw_data``) -> kind ``parameter``; ``graph.input``
  -> kind ``input``; each ``graph.output`` -> a node of kind ``output`` (op ``Output``)
  whose input is the value returned.
- ``node.op_type`` ``REF::<Prim>:<id>`` refers to ``ModelProto.primitives``: op is the
  primitive's ``op_type``, its attributes become ``attrs`` (text). ``REF::<graph>``
  naming one of ``ModelProto.functions`` -> kind ``call`` with ``subgraph`` set (the called
  graphs are parsed into ``Graph.subgraphs``); ``REF::<graph>:<node>`` calls the value of
  a node (e.g. a ``Switch`` choosing a branch) -> kind ``call``, that node as first input.
  ``Partial`` -> kind ``call`` with ``subgraph`` = the graph it binds. ``Constant`` nodes
  -> kind ``constant`` (copied into each graph that uses them); values of other graphs
  -> kind ``input``, op ``FreeVariable``.
- Node ids are the protobuf names without the ``<graph name>:`` prefix; ``node.domain`` is
  the full name with scope (``Default/conv1-Conv2d/Conv2D-op0``); the ``shape`` attribute
  gives the output dtypes and shapes; input types are the producers' output types.

Corrupt or truncated bytes raise :class:`~ascend_lab.graph.errors.GraphParseError` naming
the file and the byte offset where decoding failed.
"""

import importlib.util
import os
import struct
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


# Enum values of mind_ir.proto (TensorProto.DataType, AttributeProto.AttributeType).
_DATA_TYPES = dict(
    enumerate(
        "UNDEFINED FLOAT UINT8 INT8 UINT16 INT16 INT32 INT64 STRING BOOL FLOAT16 DOUBLE "
        "UINT32 UINT64 COMPLEX64 COMPLEX128 BFLOAT16 FLOAT64 QINT4X2".split()
    )
)
_ATTR_TYPES = dict(
    enumerate(
        "UNDEFINED FLOAT UINT8 INT8 UINT16 INT16 INT32 INT64 STRING BOOL FLOAT16 DOUBLE "
        "UINT32 UINT64 COMPLEX64 COMPLEX128 BFLOAT16 TENSOR GRAPH TENSORS TUPLE LIST DICT "
        "UMONAD IOMONAD NONE PRIMITIVECLOSURE FUNCGRAPHCLOSURE PARTIALCLOSURE UNIONFUNCCLOSURE "
        "CSR_TENSOR COO_TENSOR ROW_TENSOR CLASS_TYPE NAME_SPACE SYMBOL TYPE_NULL MAP_TENSOR "
        "FUNCTOR SCALAR SCALAR_GRAPH_HOLDER".split()
    )
)


class MindIRUnavailable(ImportError):
    """Neither MindSpore's ``mind_ir_pb2.py`` nor a usable ``protobuf`` could be loaded."""


def load_mind_ir_pb2() -> ModuleType:
    """MindSpore's generated ``mind_ir_pb2`` module, loaded without importing MindSpore."""
    cached = sys.modules.get(_MODULE_NAME)
    if cached is not None:
        return cached
    try:
        spec = importlib.util.find_spec("mindspore")
    except (ImportError, ValueError, AttributeError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec else []
    candidates = [os.path.join(loc, "train", "mind_ir_pb2.py") for loc in locations]
    found = [c for c in candidates if os.path.isfile(c)]
    if not found:
        raise MindIRUnavailable(
            "the protobuf MindIR decoder needs MindSpore's mind_ir_pb2.py (pip install "
            "mindspore), and MindSpore was not found; decoder='builtin' needs neither"
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


def _dtype(code: int) -> Optional[str]:
    name = _DATA_TYPES.get(code)
    if name is None:
        return f"dtype#{code}"
    if name == "UNDEFINED":
        return None
    return _DTYPES.get(name, name)


def _tensor_type(tensor: Any) -> TensorType:
    return TensorType(dtype=_dtype(tensor.data_type), shape=tuple(int(d) for d in tensor.dims))


def _shape_types(attr: Any) -> List[TensorType]:
    """Output types from a node's ``shape`` attribute (TENSORS, or TUPLE of them)."""
    kind = _ATTR_TYPES.get(attr.type, f"type#{attr.type}")
    if kind == "TENSORS" or attr.tensors:
        return [_tensor_type(t) for t in attr.tensors]
    if kind in ("TUPLE", "LIST"):
        out: List[TensorType] = []
        for value in attr.values:
            out.extend(_shape_types(value))
        return out
    if kind in _DTYPES:
        return [TensorType(dtype=_DTYPES[kind], shape=())]
    if kind == "UMONAD":
        return [TensorType(dtype="UMonad", shape=())]
    return [TensorType(dtype=kind.title())]


def _attr_text(attr: Any, depth: int = 0) -> str:
    """An attribute value as the short text MindSpore's .ir files would show."""
    kind = _ATTR_TYPES.get(attr.type, f"type#{attr.type}")
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
        inner = ", ".join(_attr_text(v, depth + 1) for v in attr.values)
        return f"({inner})" if kind == "TUPLE" else f"[{inner}]"
    if kind in ("TENSORS", "TENSOR"):
        tensors = list(attr.tensors) if kind == "TENSORS" else [attr.t]
        parts = []
        for t in tensors:
            dims = ", ".join(str(d) for d in t.dims)
            parts.append(f"Tensor[{_dtype(t.data_type)}]({dims})")
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
    # Any other type: show whichever value fields are set (same text for both decoders).
    parts = []
    if attr.values:
        parts.append("(" + ", ".join(_attr_text(v, depth + 1) for v in attr.values) + ")")
    if attr.tensors:
        parts.append(", ".join(f"Tensor[{_dtype(t.data_type)}]" for t in attr.tensors))
    for seq in (attr.ints, attr.floats, attr.doubles):
        if seq:
            parts.append(", ".join(repr(v) for v in seq))
    if attr.strings:
        parts.append(", ".join(bytes(v).decode("utf-8", errors="replace") for v in attr.strings))
    if attr.s:
        parts.append(bytes(attr.s).decode("utf-8", errors="replace"))
    for scalar in (attr.i, attr.f, attr.d):
        if scalar:
            parts.append(repr(scalar))
    return f"{kind}: {' '.join(parts)}"[:500] if parts else kind


# ---------------------------------------------------------------------------- graphs


def _strip(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


class _Model:
    """Lookup tables over the whole file: primitives, functions, constants, node names."""

    def __init__(self, model: Any) -> None:
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


def _constant(np_: Any, nid: str) -> Node:
    node = Node(id=nid, op="Constant", kind="constant")
    for attr in np_.attribute:
        if attr.name == "value":
            node.attrs["value"] = _attr_text(attr)
            node.outputs = _shape_types(attr)
    return node


def _graph(m: _Model, gp: Any) -> Graph:
    prefix = gp.name + ":"
    graph = Graph(name=gp.name)
    for attr in gp.attribute:
        graph.attrs[attr.name] = _attr_text(attr)
    local: Dict[str, str] = {}  # full name -> node id in this graph
    for p in gp.parameter:
        pid = local[p.name] = _strip(p.name, prefix)
        graph.nodes.append(
            Node(
                id=pid,
                op="Parameter",
                kind="parameter",
                name=pid,
                outputs=[_tensor_type(p)],
                attrs={"bytes": str(len(p.raw_data))} if p.raw_data else {},
            )
        )
    for vi in gp.input:
        vid = local[vi.name] = _strip(vi.name, prefix)
        types = [_tensor_type(t) for t in vi.tensor]
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
            extra.append(_constant(m.constants[src], src))
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
            graph.nodes.append(_constant(np_, nid))
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
                    node.attrs[attr.name] = _attr_text(attr)
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
                node.outputs = _shape_types(attr)
            else:
                node.attrs.setdefault(attr.name, _attr_text(attr))
        for attr in np_.node_attr:
            node.attrs["cnode:" + attr.name] = _attr_text(attr)
        for attr in np_.primal_attr:
            node.attrs["primal:" + attr.name] = _attr_text(attr)
        graph.nodes.extend(extra)
        graph.nodes.append(node)
    for i, vi in enumerate(gp.output):
        out = Node(
            id=f"output:{i}" if len(gp.output) > 1 else "output",
            op="Output",
            kind="output",
            outputs=[_tensor_type(t) for t in vi.tensor],
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


# ---------------------------------------------------------------------------- own decoder

# The fields of mind_ir.proto this module reads: number -> (name, kind, repeated, message).
# Kinds: str (UTF-8), bytes, raw (large bytes, kept as a memoryview), int (int64/int32),
# uint, bool, enum, float (fixed32), double (fixed64), msg. Other fields are skipped.
_S, _B, _I, _M = "str", "bytes", "int", "msg"
_SCHEMA: Dict[str, Dict[int, Tuple[str, str, bool, Optional[str]]]] = {
    "ModelProto": {
        1: ("ir_version", _S, False, None),
        2: ("producer_name", _S, False, None),
        3: ("producer_version", _S, False, None),
        4: ("domain", _S, False, None),
        5: ("model_version", _S, False, None),
        6: ("doc_string", _S, False, None),
        7: ("graph", _M, False, "GraphProto"),
        8: ("functions", _M, True, "GraphProto"),
        9: ("preprocessor", _M, False, "PreprocessorProto"),
        10: ("little_endian", "bool", False, None),
        11: ("parallel", _M, False, "ParallelProto"),
        12: ("primitives", _M, True, "PrimitiveProto"),
        13: ("mind_ir_version", _I, False, None),
        14: ("user_info", _M, True, "UserInfoEntry"),
    },
    "GraphProto": {
        1: ("node", _M, True, "NodeProto"),
        2: ("name", _S, False, None),
        3: ("parameter", _M, True, "TensorProto"),
        4: ("doc_string", _S, False, None),
        5: ("input", _M, True, "ValueInfoProto"),
        6: ("output", _M, True, "ValueInfoProto"),
        7: ("bprop_hash", _S, False, None),
        8: ("attribute", _M, True, "AttributeProto"),
        9: ("bprop_filepath", _S, False, None),
        10: ("map_parameter", _M, True, "MapTensorProto"),
    },
    "NodeProto": {
        1: ("input", _S, True, None),
        2: ("output", _S, True, None),
        3: ("name", _S, False, None),
        4: ("op_type", _S, False, None),
        5: ("attribute", _M, True, "AttributeProto"),
        6: ("doc_string", _S, False, None),
        7: ("domain", _S, False, None),
        8: ("node_attr", _M, True, "AttributeProto"),
        9: ("primal_attr", _M, True, "AttributeProto"),
    },
    "AttributeProto": {
        1: ("name", _S, False, None),
        2: ("f", "float", False, None),
        3: ("i", _I, False, None),
        4: ("d", "double", False, None),
        5: ("s", _B, False, None),
        6: ("t", _M, False, "TensorProto"),
        7: ("g", _M, False, "GraphProto"),
        8: ("floats", "float", True, None),
        9: ("doubles", "double", True, None),
        10: ("ints", _I, True, None),
        11: ("strings", _B, True, None),
        12: ("tensors", _M, True, "TensorProto"),
        13: ("graphs", _M, True, "GraphProto"),
        14: ("doc_string", _S, False, None),
        15: ("ref_attr_name", _S, False, None),
        16: ("type", "enum", False, None),
        17: ("values", _M, True, "AttributeProto"),
        18: ("seq_info", _M, False, "SeqInfoProto"),
        19: ("functor", _M, False, "FunctorProto"),
        20: ("graph_holder", _M, False, "ScalarGraphHolderProto"),
    },
    "SeqInfoProto": {
        1: ("is_dyn_len", "bool", False, None),
        2: ("tuple_elem_item", _M, False, "AttributeProto"),
    },
    "TensorProto": {
        1: ("dims", _I, True, None),
        2: ("data_type", _I, False, None),
        3: ("float_data", "float", True, None),
        4: ("int32_data", _I, True, None),
        5: ("string_data", _B, True, None),
        6: ("int64_data", _I, True, None),
        7: ("name", _S, False, None),
        8: ("doc_string", _S, False, None),
        9: ("raw_data", "raw", False, None),
        10: ("double_data", "double", True, None),
        11: ("uint64_data", "uint", True, None),
        12: ("external_data", _M, False, "ExternalDataProto"),
        13: ("ref_key", _S, False, None),
        14: ("min_dims", _I, True, None),
        15: ("max_dims", _I, True, None),
        16: ("compression_type", "enum", False, None),
        17: ("quant_params", _M, True, "QuantParamProto"),
    },
    "ValueInfoProto": {
        1: ("name", _S, False, None),
        2: ("tensor", _M, True, "TensorProto"),
        3: ("doc_string", _S, False, None),
        4: ("denotation", _S, False, None),
        5: ("attr_info", _M, False, "AttributeProto"),
    },
    "PrimitiveProto": {
        1: ("name", _S, False, None),
        2: ("op_type", _S, False, None),
        3: ("attribute", _M, True, "AttributeProto"),
        4: ("instance_name", _S, False, None),
        5: ("prim_type", "enum", False, None),
    },
    # Messages this module does not read, decoded so that corrupt ones are caught the same
    # way protobuf catches them.
    "ExternalDataProto": {
        1: ("location", _S, False, None),
        2: ("offset", _I, False, None),
        3: ("length", _I, False, None),
    },
    "QuantParamProto": {
        1: ("quant_algo_name", _S, False, None),
        2: ("attribute", _M, True, "AttributeProto"),
    },
    "FunctorProto": {
        1: ("type", "enum", False, None),
        2: ("name", _S, False, None),
        3: ("values", _M, True, "AttributeProto"),
    },
    "ScalarGraphHolderProto": {
        1: ("scalar_node", _M, True, "ScalarNodeProto"),
        2: ("input_shape_index", "uint", True, None),
    },
    "ScalarNodeProto": {
        1: ("scalar_op_type", _I, False, None),
        2: ("in_index", _I, True, None),
        3: ("value", _I, True, None),
    },
    "MapTensorProto": {
        1: ("name", _S, False, None),
        2: ("default_value", _M, False, "AttributeProto"),
        3: ("key_tensor", _M, False, "TensorProto"),
        4: ("value_tensor", _M, False, "TensorProto"),
        5: ("status_tensor", _M, False, "TensorProto"),
    },
    "PreprocessorProto": {1: ("op", _M, True, "PreprocessOpProto")},
    "PreprocessOpProto": {
        1: ("input_columns", _S, False, None),
        2: ("output_columns", _S, False, None),
        3: ("project_columns", _S, False, None),
        4: ("op_type", _S, False, None),
        5: ("operations", _S, False, None),
        6: ("offload", "bool", False, None),
    },
    "ParallelProto": {1: ("layout", _M, True, "LayoutProto")},
    "LayoutProto": {
        1: ("name", _S, False, None),
        2: ("device_arrangement_int", _I, True, None),
        3: ("tensor_map_int", _I, True, None),
        4: ("slice_shape_int", _I, True, None),
        5: ("field_size", _I, False, None),
        6: ("uniform_split", "bool", False, None),
        7: ("opt_shard_group", _S, False, None),
        8: ("pipeline_shared", "bool", False, None),
        9: ("is_send", "bool", False, None),
        10: ("peer_rank", _I, False, None),
        11: ("sr_tag", _I, False, None),
        12: ("opt_shard_slice_shape_int", _I, True, None),
    },
    "UserInfoEntry": {1: ("key", _S, False, None), 2: ("value", _S, False, None)},
}
_DEFAULTS = {_S: "", _B: b"", "raw": b"", _I: 0, "uint": 0, "bool": False, "enum": 0}
_DEFAULTS.update({"float": 0.0, "double": 0.0})
_BY_NAME = {msg: {spec[0]: spec for spec in fields.values()} for msg, fields in _SCHEMA.items()}
_WIRE_OF = {_S: 2, _B: 2, "raw": 2, _M: 2, _I: 0, "uint": 0, "bool": 0, "enum": 0}
_WIRE_OF.update({"float": 5, "double": 1})


class _Message:
    """A decoded message: fields as attributes, protobuf-style defaults when unset."""

    __slots__ = ("_type", "_values")

    def __init__(self, type_name: str) -> None:
        self._type = type_name
        self._values: Dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        values = self._values
        if name in values:
            return values[name]
        spec = _BY_NAME[self._type].get(name)
        if spec is None:
            raise AttributeError(f"{self._type} has no field {name!r}")
        if spec[2]:
            value: Any = []
        elif spec[1] == _M:
            value = _Message(spec[3] or "")
        else:
            return _DEFAULTS[spec[1]]
        values[name] = value
        return value

    def HasField(self, name: str) -> bool:  # noqa: N802 - the protobuf method name
        return name in self._values


def _scalar(data: bytes, kind: str, wire: int, pos: int, end: int) -> Tuple[Any, int]:
    if wire == 0:
        value, pos = _varint(data, pos, end)
        if kind == _I and value >= 1 << 63:
            value -= 1 << 64
        elif kind == "bool":
            value = bool(value)
        return value, pos
    if wire == 5:
        if pos + 4 > end:
            raise _WireError(pos, "fixed32 value runs past the end of its message")
        return struct.unpack_from("<f", data, pos)[0], pos + 4
    if pos + 8 > end:
        raise _WireError(pos, "fixed64 value runs past the end of its message")
    return struct.unpack_from("<d", data, pos)[0], pos + 8


def _decode(data: bytes, type_name: str, pos: int, end: int, depth: int = 0) -> _Message:
    """Decode one message of ``_SCHEMA[type_name]`` from ``data[pos:end]``."""
    if depth > 64:
        raise _WireError(pos, "messages nested too deeply")
    msg = _Message(type_name)
    values = msg._values
    fields = _SCHEMA[type_name]
    view = memoryview(data)
    while pos < end:
        start = pos
        tag, pos = _varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise _WireError(start, "field number 0")
        if wire not in (0, 1, 2, 5):
            raise _WireError(start, f"unknown wire type {wire}")
        length = 0
        if wire == 2:
            length, pos = _varint(data, pos, end)
            if pos + length > end:
                raise _WireError(
                    start, f"field {number} claims {length} bytes but its message ends first"
                )
        spec = fields.get(number)
        if spec is None:  # a field this module does not read: skip it
            if wire == 2:
                pos += length
            elif wire == 0:
                _, pos = _varint(data, pos, end)
            else:
                pos += 8 if wire == 1 else 4
                if pos > end:
                    raise _WireError(start, "value runs past the end of its message")
            continue
        name, kind, repeated, sub = spec
        expected = _WIRE_OF[kind]
        packed = wire == 2 and repeated and expected != 2
        if wire != expected and not packed:
            # protobuf treats a field with an unexpected wire type as an unknown field.
            if wire == 2:
                pos += length
            elif wire == 0:
                _, pos = _varint(data, pos, end)
            else:
                pos += 8 if wire == 1 else 4
                if pos > end:
                    raise _WireError(start, "value runs past the end of its message")
            continue
        if wire == 2 and kind == _M:
            value: Any = _decode(data, sub or "", pos, pos + length, depth + 1)
            pos += length
        elif wire == 2 and kind in (_S, _B, "raw"):
            chunk = data[pos : pos + length] if kind != "raw" else view[pos : pos + length]
            if kind == _S:
                try:
                    value = chunk.decode("utf-8")  # type: ignore[union-attr]
                except UnicodeDecodeError as exc:
                    raise _WireError(pos + exc.start, "invalid UTF-8 in a string field") from None
            else:
                value = chunk
            pos += length
        elif packed:  # packed repeated scalars
            items = values.setdefault(name, [])
            stop = pos + length
            while pos < stop:
                item, pos = _scalar(data, kind, expected, pos, stop)
                items.append(item)
            continue
        else:
            value, pos = _scalar(data, kind, wire, pos, end)
            if kind == "enum" and type_name == "AttributeProto" and value not in _ATTR_TYPES:
                continue  # proto2 enums keep unknown values out of the field, as protobuf does
        if repeated:
            values.setdefault(name, []).append(value)
        elif kind == _M and name in values:
            _merge(values[name], value)  # a message field seen twice is merged, as protobuf does
        else:
            values[name] = value
    return msg


def _merge(into: _Message, other: _Message) -> None:
    fields = _BY_NAME[into._type]
    for name, value in other._values.items():
        _, kind, repeated, _ = fields[name]
        if repeated:
            into._values.setdefault(name, []).extend(value)
        elif kind == _M and name in into._values:
            _merge(into._values[name], value)
        else:
            into._values[name] = value


def _decode_model(data: bytes) -> _Message:
    return _decode(data, "ModelProto", 0, len(data))


# ---------------------------------------------------------------------------- entry points


def parse_mindir(data: bytes, path: Optional[str] = None, decoder: str = "auto") -> Graph:
    """Parse the bytes of a ``.mindir`` file; ``path`` only names the file in errors.

    ``decoder``: ``"protobuf"`` uses MindSpore's ``mind_ir_pb2`` (loaded by path),
    ``"builtin"`` this module's own decoder of the wire format (no MindSpore or protobuf
    needed), ``"auto"`` the first when MindSpore is installed, else the second.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("parse_mindir() takes the bytes of a .mindir file")
    if decoder not in ("auto", "protobuf", "builtin"):
        raise ValueError(f"decoder must be 'auto', 'protobuf' or 'builtin', not {decoder!r}")
    data = bytes(data)
    pb2: Optional[ModuleType] = None
    if decoder != "builtin":
        try:
            pb2 = load_mind_ir_pb2()
        except MindIRUnavailable:
            if decoder == "protobuf":
                raise
    if not data:
        raise GraphParseError("empty file: not a MindIR model", path, offset=0)
    try:
        if pb2 is not None:
            _check_wire(data, pb2.ModelProto.DESCRIPTOR, 0, len(data))
            model: Any = pb2.ModelProto()
            model.ParseFromString(data)
        else:
            model = _decode_model(data)
    except _WireError as exc:
        raise GraphParseError(
            f"corrupt or truncated MindIR: {exc.message}", path, offset=exc.offset
        ) from None
    except Exception as exc:  # google.protobuf.message.DecodeError and friends
        raise GraphParseError(f"corrupt MindIR ({exc})", path, offset=0) from None
    if not model.HasField("graph") or not model.graph.node:
        raise GraphParseError(
            "no graph in the file (not a MindIR model, or truncated)", path, offset=len(data)
        )
    try:
        tables = _Model(model)
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


def parse_mindir_file(path: Union[str, "os.PathLike[str]"], decoder: str = "auto") -> Graph:
    """Read and parse one ``.mindir`` file (see :func:`parse_mindir` for ``decoder``)."""
    p = os.fspath(path)
    with open(p, "rb") as fh:
        return parse_mindir(fh.read(), p, decoder=decoder)

"""Parse ``.mindir`` files (protobuf ``mind_ir.ModelProto``) into the one Graph model.

One decoder on every machine: :mod:`~ascend_lab.parsers.mindir.protobuf_wire`, a decoder of the
protobuf wire format driven by the field table generated from the vendored
``mind_ir.proto`` (:mod:`~ascend_lab.parsers.mindir.mind_ir_fields`); it needs neither MindSpore nor
protobuf. ``decoder="protobuf"`` decodes with MindSpore's generated ``mind_ir_pb2``
(:mod:`~ascend_lab.parsers.mindir.mind_ir_pb2_loader`, loaded without importing MindSpore) instead:
the tests use it as the oracle the builtin decoder must equal on every fixture.

This module only maps the decoded messages to the Graph model.

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
- Node ids are the protobuf names without the ``<graph name>:`` prefix, made unique in
  their graph (a second ``y`` is ``y~2``, in file order); MindSpore 1.x files refer to a
  node by the name of its output (``NodeProto.output``, e.g. the graph output
  ``<graph>:6:2`` of the node ``<graph>:5:1``): that name leads to the node too.
  ``REF::MetaFuncGraph::<name>`` and ``REF::ClassType::<module.Class>`` (2.0's bprop
  graphs) are ops named by that text.
  ``node.domain`` is the full name with scope (``Default/conv1-Conv2d/Conv2D-op0``); the
  ``shape`` attribute gives the output dtypes and shapes; input types are the producers'
  output types.

Corrupt or truncated bytes raise :class:`~ascend_lab.parsers.errors.GraphParseError` naming
the file and the byte offset where decoding failed (``truncated MindIR`` when the bytes stop
inside a value of the outermost message); an encrypted export (``enc_key``) is named as
such, with how to load it; so does a file over
``ASCEND_LAB_MINDIR_MAX_BYTES`` (:mod:`~ascend_lab.parsers.limits`), a tensor of more than
``MAX_RANK`` dimensions, and a model too large for memory. Long attribute values are shown
by their first ``MAX_SHOWN_VALUES`` values and their count.
"""

import os
from types import ModuleType
from typing import Any, BinaryIO, Dict, List, Optional, Set, Union

from ascend_lab.errors import AscendLabError
from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.limits import MINDIR_MAX_BYTES_ENV, limit, read_capped, too_large
from ascend_lab.parsers.mindir.mind_ir_fields import ENUMS, MESSAGES
from ascend_lab.parsers.mindir.mind_ir_pb2_loader import MindIRUnavailable, load_mind_ir_pb2
from ascend_lab.parsers.mindir.protobuf_wire import (
    Schema,
    WireError,
    check_wire,
    decode,
    first,
    read_varint,
)

__all__ = [
    "parse_mindir",
    "parse_mindir_file",
    "check_mindir_head",
    "check_not_truncated",
    "load_mind_ir_pb2",
    "MindIRUnavailable",
]

MAX_RANK = 1024  # MindSpore tensors have at most 8 dimensions; more is a corrupt file
MAX_SHOWN_VALUES = 1000  # an attribute's text shows this many values, then the count

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
    "QINT4X2": "QInt4x2",
}


# Enum values of mind_ir.proto (TensorProto.DataType, AttributeProto.AttributeType).
_DATA_TYPES = ENUMS["TensorProto.DataType"]
_ATTR_TYPES = ENUMS["AttributeProto.AttributeType"]
# A tensor's weights are kept as a view of the file's bytes, not copied.
_SCHEMA = Schema(MESSAGES, ENUMS, raw_fields=frozenset({("TensorProto", "raw_data")}))


# ---------------------------------------------------------------------------- values


def _dtype(code: int) -> Optional[str]:
    name = _DATA_TYPES.get(code)
    if name is None:
        return f"dtype#{code}"
    if name == "UNDEFINED":
        return None
    return _DTYPES.get(name, name)


def _tensor_type(tensor: Any) -> TensorType:
    dims = tensor.dims
    if len(dims) > MAX_RANK:
        raise _BadModel(f"a tensor with {len(dims):,} dimensions (at most {MAX_RANK} expected)")
    return TensorType(dtype=_dtype(tensor.data_type), shape=tuple(int(d) for d in dims))


def _joined(values: Any, show: Any = str) -> str:
    """``", "``-joined values; past ``MAX_SHOWN_VALUES`` only their count."""
    shown = first(values, MAX_SHOWN_VALUES)
    text = ", ".join(show(v) for v in shown)
    if len(values) > len(shown):
        text += f", ... ({len(values):,} values)"
    return text


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
        return _joined(attr.ints) if attr.ints else str(attr.i)
    if kind == "BOOL":
        values = attr.ints if attr.ints else [attr.i]
        return _joined(values, lambda v: "true" if v else "false")
    if kind in ("FLOAT", "FLOAT16", "BFLOAT16"):
        return _joined(attr.floats, repr) if attr.floats else repr(attr.f)
    if kind == "DOUBLE":
        return _joined(attr.doubles, repr) if attr.doubles else repr(attr.d)
    if kind == "STRING":
        values = attr.strings if attr.strings else [attr.s]
        return _joined(values, lambda v: bytes(v).decode("utf-8", errors="replace"))
    if kind in ("TUPLE", "LIST"):
        inner = _joined(attr.values, lambda v: _attr_text(v, depth + 1))
        return f"({inner})" if kind == "TUPLE" else f"[{inner}]"
    if kind in ("TENSORS", "TENSOR"):
        tensors = attr.tensors if kind == "TENSORS" else [attr.t]
        return _joined(tensors, lambda t: f"Tensor[{_dtype(t.data_type)}]({_joined(t.dims)})")
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
        parts.append("(" + _joined(attr.values, lambda v: _attr_text(v, depth + 1)) + ")")
    if attr.tensors:
        parts.append(_joined(attr.tensors, lambda t: f"Tensor[{_dtype(t.data_type)}]"))
    for seq in (attr.ints, attr.floats, attr.doubles):
        if seq:
            parts.append(_joined(seq, repr))
    if attr.strings:
        parts.append(_joined(attr.strings, lambda v: bytes(v).decode("utf-8", errors="replace")))
    if attr.s:
        parts.append(bytes(attr.s[:500]).decode("utf-8", errors="replace"))
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
            for n in gp.node:  # MindSpore 1.x refers to a node by its output's name
                for out in n.output:
                    self.owner.setdefault(out, gp.name)
                    if n.op_type == "Constant":
                        self.constants.setdefault(out, n)

    def known(self, name: str) -> bool:
        """Whether ``name`` is a value of the file: a node (by its name or, in MindSpore
        1.x files, by its output's name), a graph input or weight, a graph, a constant."""
        return name in self.owner or name in self.functions or name in self.constants


class _Ids:
    """Node ids of one graph: the short name, or with ``~2``, ``~3``... when it is taken
    (a graph input ``y`` and a node ``y`` are two nodes); the same file gives the same ids."""

    def __init__(self) -> None:
        self.used: Set[str] = set()
        self.next: Dict[str, int] = {}  # base -> the first k not yet tried

    def take(self, base: str) -> str:
        """Linear in all: each base resumes from the k it reached (issue #37: n nodes of one
        name tried k = 2, 3, ... from the start each time, n² set lookups: 99 KB, 10 s).
        A name ``b~k`` is only ever tried for base ``b``, so all tries add up to at most
        the number of ids."""
        base = base or "_"
        nid = base
        if nid in self.used:
            k = self.next.get(base, 2)
            nid = f"{base}~{k}"
            while nid in self.used:
                k += 1
                nid = f"{base}~{k}"
            self.next[base] = k + 1
        self.used.add(nid)
        return nid


# ``REF::MetaFuncGraph::hyper_map[zeros_like_leaf]``, ``REF::ClassType::mindspore.ops...``:
# MindSpore 2.0's bprop graphs name these by text, not by an entry of ``primitives``.
_NAMED_REFS = ("MetaFuncGraph::", "ClassType::")
_NAMED_REFS_ATTR = {"MetaFuncGraph": "meta_func_graph", "ClassType": "class_type"}


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
    ids = _Ids()
    local: Dict[str, str] = {}  # full name (or a node's output name) -> node id in this graph
    for p in gp.parameter:
        pid = local[p.name] = ids.take(_strip(p.name, prefix))
        graph.nodes.append(
            Node(
                id=pid,
                op="Parameter",
                kind="parameter",
                name=_strip(p.name, prefix),
                outputs=[_tensor_type(p)],
                attrs={"bytes": str(len(p.raw_data))} if p.raw_data else {},
            )
        )
    for vi in gp.input:
        vid = local[vi.name] = ids.take(_strip(vi.name, prefix))
        types = [_tensor_type(t) for t in vi.tensor]
        name = _strip(vi.name, prefix)
        graph.nodes.append(Node(id=vid, op="Parameter", kind="input", name=name, outputs=types))
    for np_ in gp.node:
        local[np_.name] = ids.take(_strip(np_.name, prefix))
    for np_ in gp.node:
        for out in np_.output:
            local.setdefault(out, local[np_.name])

    def resolve(src: str, user: Node, slot: int, extra: List[Node]) -> str:
        """The id in this graph of input ``src``, adding constant/free-variable nodes."""
        if src in local:
            return local[src]
        if not m.known(src):
            raise _BadModel(f"node {user.id} uses {src!r}, which is not defined in the file")
        if src in m.functions:
            cid = ids.take(f"{user.id}#{slot}")
            extra.append(Node(id=cid, op="Constant", kind="constant", attrs={"value": "@" + src}))
            if user.kind == "call" and user.subgraph is None:
                user.subgraph = src
            return cid
        if src in m.constants:  # constants are shared between graphs: copy it here once
            local[src] = ids.take(_strip(src, m.owner.get(src, "") + ":"))
            extra.append(_constant(m.constants[src], local[src]))
            return local[src]
        # a value of another graph (closure)
        cid = ids.take(f"{user.id}#{slot}")
        attrs = {"value": src, "graph": m.owner[src]}
        extra.append(Node(id=cid, op="FreeVariable", kind="input", attrs=attrs))
        return cid

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
            elif ref.startswith(_NAMED_REFS):  # a MetaFuncGraph or a Python class, by name
                kind, _, name = ref.partition("::")
                node.op = name.rsplit(".", 1)[-1] if kind == "ClassType" else name
                node.attrs[_NAMED_REFS_ATTR[kind]] = name
            else:
                raise _BadModel(f"node {nid} refers to {op_type}, which is not in the file")
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
            id=ids.take(f"output:{i}" if len(gp.output) > 1 else "output"),
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


class _BadModel(AscendLabError):
    pass


# ---------------------------------------------------------------------------- entry points


def parse_mindir(data: bytes, path: Optional[str] = None, decoder: str = "auto") -> Graph:
    """Parse the bytes of a ``.mindir`` file; ``path`` only names the file in errors.

    ``decoder``: ``"auto"`` and ``"builtin"`` use this module's own decoder of the wire
    format (no MindSpore or protobuf needed, the same on every machine); ``"protobuf"``
    uses MindSpore's ``mind_ir_pb2`` (loaded by path), to compare the two.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("parse_mindir() takes the bytes of a .mindir file")
    if decoder not in ("auto", "protobuf", "builtin"):
        raise ValueError(f"decoder must be 'auto', 'protobuf' or 'builtin', not {decoder!r}")
    if len(data) > limit(MINDIR_MAX_BYTES_ENV):
        raise too_large("the model", len(data), "bytes", MINDIR_MAX_BYTES_ENV, path)
    data = bytes(data)
    pb2: Optional[ModuleType] = None
    if decoder == "protobuf":  # kept to compare the two decoders (tests), not by default
        try:
            pb2 = load_mind_ir_pb2()
        except MindIRUnavailable:
            if decoder == "protobuf":
                raise
    if not data:
        raise GraphParseError("empty file: not a MindIR model", path, offset=0)
    check_mindir_head(data[:_HEAD_BYTES], path)
    try:
        return _parse(data, path, pb2)
    except (MemoryError, RecursionError) as exc:
        raise GraphParseError(
            f"model too large or too deeply nested to parse ({type(exc).__name__})", path
        ) from None


# MindSpore's encrypted export (``ms.export(..., enc_key=..., enc_mode=...)``, C++
# ``mindspore/core/utils/crypto.cc``) writes blocks that start with a 4-byte little-endian
# magic number; a protobuf ModelProto never starts so (it has no field 27).
_CIPHER_MAGIC = {0x7F3A5ED8: "AES-GCM", 0x7F3A5ED9: "AES-CBC", 0x7F3A5EDA: "SM4-CBC"}
_HEAD_BYTES = 16
_FIELD_HEAD = 20  # a field's tag and length: two varints of at most 10 bytes


def check_mindir_head(head: bytes, path: Optional[str] = None) -> None:
    """Raise :class:`GraphParseError` saying what the file is when its first bytes show
    it is not a readable MindIR model: an encrypted export, or a ``.ir`` text dump."""
    if len(head) >= 4 and int.from_bytes(head[:4], "little") in _CIPHER_MAGIC:
        mode = _CIPHER_MAGIC[int.from_bytes(head[:4], "little")]
        raise GraphParseError(
            f"encrypted MindIR ({mode}, exported with enc_key): its graph cannot be read "
            f"without the key. Load it with mindspore.load(path, dec_key=KEY, "
            f"dec_mode={mode!r}), or export the model again without enc_key to view it",
            path,
            offset=0,
        )


def check_not_truncated(f: BinaryIO, size: int, path: Optional[str] = None) -> None:
    """Raise "the file is truncated" when a field of the file's outermost message runs past
    its ``size`` bytes (a cut file), reading only the fields' headers (a few bytes each)
    from the open file ``f``: for a reader that found bad bytes without decoding it all."""
    pos = 0
    while pos < size:
        f.seek(pos)
        head = f.read(_FIELD_HEAD)
        try:
            tag, at = read_varint(head, 0, len(head))
            wire = tag & 7
            if wire == 0:
                at, width = read_varint(head, at, len(head))[1], 0
            elif wire == 2:
                width, at = read_varint(head, at, len(head))
            elif wire in (1, 5):
                width = 8 if wire == 1 else 4
            else:
                return  # not a protobuf field: corrupt, not cut
        except WireError:
            if pos + len(head) < size:
                return  # a bad number inside the file: corrupt, not cut
            at, width = len(head) + 1, 0  # the file stops inside the field's header
        if pos + at + width > size:
            raise GraphParseError(
                f"the file is truncated: it ends at byte {size:,}, inside the field that "
                f"starts at byte {pos:,}",
                path,
                offset=pos,
            )
        pos += at + width


def _parse(data: bytes, path: Optional[str], pb2: Optional[ModuleType]) -> Graph:
    try:
        if pb2 is not None:
            check_wire(data, pb2.ModelProto.DESCRIPTOR)
            model: Any = pb2.ModelProto()
            model.ParseFromString(data)
        else:
            model = decode(data, _SCHEMA, "ModelProto")
    except WireError as exc:
        if exc.truncated:
            reason = f"truncated MindIR: the file ends early ({len(data):,} bytes; {exc.message})"
        else:
            reason = f"corrupt or truncated MindIR: {exc.message}"
        raise GraphParseError(reason, path, offset=exc.offset) from None
    except (MemoryError, RecursionError):
        raise
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
    except _BadModel as exc:
        raise GraphParseError(
            f"{exc} (the file looks truncated or corrupt)", path, offset=len(data)
        ) from None
    except (KeyError, AttributeError, TypeError, IndexError, ValueError) as exc:
        # content this module does not expect: a message (exit 2, an error page), not a
        # traceback
        raise GraphParseError(
            f"cannot map this MindIR to a graph ({type(exc).__name__}: {exc}); "
            "please report it with the file's producer and model_version",
            path,
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
    return parse_mindir(read_capped(p, MINDIR_MAX_BYTES_ENV), p, decoder=decoder)

"""A ``.mindir`` without its weights' bytes, so a 100 MB model opens in a few MB of memory.

The file is memory-mapped and walked at the protobuf wire level: the graphs' parameters
(``GraphProto.parameter``, one ``TensorProto`` per weight) are copied without their data
fields (``raw_data`` and the typed ``*_data`` lists), which are skipped by their length
and never read; everything else is copied as is. The parser then sees every weight's
name, shape and dtype. Field numbers are those of MindSpore's ``mind_ir.proto``
(:mod:`ascend_lab.graph.mind_ir_fields`).
"""

import mmap
import os
from typing import Optional, Tuple

from ..graph.errors import GraphParseError

MODEL_GRAPHS = frozenset({7, 8})  # ModelProto.graph, ModelProto.functions
GRAPH_PARAMETER = 3  # GraphProto.parameter
# TensorProto: float_data, int32_data, string_data, int64_data, raw_data, double_data,
# uint64_data
TENSOR_DATA = frozenset({3, 4, 5, 6, 9, 10, 11})

_MODEL, _GRAPH, _TENSOR = "model", "graph", "tensor"


class _Skipped:
    def __init__(self) -> None:
        self.tensors = 0
        self.bytes = 0


def _varint(data: "mmap.mmap", pos: int, end: int) -> Tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end:
            raise GraphParseError("corrupt or truncated MindIR: a number runs past its message")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise GraphParseError("corrupt or truncated MindIR: a number longer than 10 bytes")


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _copy(data: "mmap.mmap", start: int, end: int, kind: str, skipped: _Skipped) -> bytes:
    out = bytearray()
    pos = start
    while pos < end:
        field_start = pos
        key, pos = _varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(data, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, body = _varint(data, pos, end)
            pos = body + length
            if pos > end:
                raise GraphParseError(
                    f"corrupt or truncated MindIR: field {number} claims {length} bytes but "
                    "its message ends first",
                    offset=field_start,
                )
            inner = _inner_kind(kind, number)
            if inner is not None:
                payload = _copy(data, body, pos, inner, skipped)
                out += _encode_varint(key) + _encode_varint(len(payload)) + payload
                continue
            if kind == _TENSOR and number in TENSOR_DATA:
                skipped.bytes += length
                continue
        else:
            raise GraphParseError(
                f"corrupt MindIR: unsupported wire type {wire}", offset=field_start
            )
        if pos > end:
            raise GraphParseError("corrupt or truncated MindIR: a field runs past its message")
        if kind == _TENSOR and number in TENSOR_DATA:
            skipped.bytes += pos - field_start
            continue
        out += data[field_start:pos]
    if kind == _TENSOR:
        skipped.tensors += 1
    return bytes(out)


def _inner_kind(kind: str, number: int) -> Optional[str]:
    if kind == _MODEL and number in MODEL_GRAPHS:
        return _GRAPH
    if kind == _GRAPH and number == GRAPH_PARAMETER:
        return _TENSOR
    return None


def read_mindir_skeleton(path: str) -> Tuple[bytes, int, int]:
    """``(model bytes without weight data, weights, weight bytes skipped)``."""
    size = os.path.getsize(path)
    if size == 0:
        raise GraphParseError("empty file: not a MindIR model", path, offset=0)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        skipped = _Skipped()
        try:
            model = _copy(data, 0, size, _MODEL, skipped)
        except GraphParseError as exc:
            raise GraphParseError(exc.reason, path, offset=exc.offset) from None
    return model, skipped.tensors, skipped.bytes

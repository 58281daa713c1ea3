"""A ``.mindir`` without its weights' bytes, so a 100 MB model opens in a few MB of memory.

The file is walked at the protobuf wire level, through a small read window (not a memory
map: every page a mapped walk touches, with the large pages recent kernels cache files in,
would count in the process's memory): the graphs' parameters
(``GraphProto.parameter``, one ``TensorProto`` per weight) are copied without their data
fields (``raw_data`` and the typed ``*_data`` lists), which are skipped by their length
and never read; everything else is copied as is. The parser then sees every weight's
name, shape and dtype. The same walk lists where each weight's bytes are
(:func:`weight_records`), for the statistics read on request
(:mod:`ascend_lab.viewfile.weight_stats`). Field numbers are those of MindSpore's
``mind_ir.proto`` (:mod:`ascend_lab.parsers.mindir.mind_ir_fields`).
"""

import os
from typing import (
    Any,
    BinaryIO,
    Callable,
    Dict,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Tuple,
    TypeVar,
    Union,
)

from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.regular_file import NotARegularFile, open_regular

MODEL_GRAPHS = frozenset({7, 8})  # ModelProto.graph, ModelProto.functions
GRAPH_PARAMETER = 3  # GraphProto.parameter
# TensorProto: float_data, int32_data, string_data, int64_data, raw_data, double_data,
# uint64_data
TENSOR_DATA = frozenset({3, 4, 5, 6, 9, 10, 11})
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_NAME, TENSOR_RAW_DATA = 1, 2, 7, 9
TENSOR_EXTERNAL_DATA = 12  # ExternalDataProto: 1 location, 2 offset, 3 length
MAX_RANK = 1024  # as the parser: more dimensions is a corrupt file

_MODEL, _GRAPH, _TENSOR = "model", "graph", "tensor"
_T = TypeVar("_T")


class _Skipped:
    def __init__(self) -> None:
        self.tensors = 0
        self.bytes = 0


class ExternalData(NamedTuple):
    """``TensorProto.external_data``: ``length`` bytes at ``offset`` of file ``location``
    (relative to the model's folder; MindSpore writes ``<name>_variables/data_N``)."""

    location: str
    offset: int
    length: int


class WeightRecord(NamedTuple):
    """One weight of a ``.mindir``: where its bytes are, without reading them."""

    name: str  # as in the file: ``<graph name>:<parameter name>``
    data_type: int  # TensorProto.DataType code
    dims: Tuple[int, ...]
    raw_data: Optional[Tuple[int, int]]  # (file offset, length) of raw_data in the file
    external: Optional[ExternalData]
    other_data: Tuple[int, ...]  # typed data fields present (float_data, ...), by number


class _Field(NamedTuple):
    number: int
    wire: int
    start: int  # the field's key
    body: int  # its value (after the length, for length-delimited fields)
    end: int  # the byte after it
    value: int  # a varint's value, a length-delimited field's length


class FileBytes:
    """A file's bytes by index and slice, read ``WINDOW`` bytes at a time when needed."""

    WINDOW = 1 << 16

    def __init__(self, f: BinaryIO, size: int) -> None:
        self._f = f
        self._size = size
        self._start = 0
        self._window = b""

    def __len__(self) -> int:
        return self._size

    def _read(self, start: int, length: int) -> bytes:
        self._f.seek(start)
        chunks = []
        while length > 0:
            chunk = self._f.read(length)
            if not chunk:
                raise GraphParseError("truncated MindIR: the file ended while it was read")
            chunks.append(chunk)
            length -= len(chunk)
        return b"".join(chunks)

    def __getitem__(self, key: Union[int, slice]) -> Any:
        if isinstance(key, slice):
            start, stop = key.start or 0, min(self._size, key.stop)
            if start >= stop:
                return b""
            if self._start <= start and stop <= self._start + len(self._window):
                return self._window[start - self._start : stop - self._start]
            return self._read(start, stop - start)
        if not self._start <= key < self._start + len(self._window):
            if not 0 <= key < self._size:
                raise IndexError(key)
            self._start = key
            self._window = self._read(key, min(self.WINDOW, self._size - key))
        return self._window[key - self._start]


def _varint(data: "FileBytes", pos: int, end: int) -> Tuple[int, int]:
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


def _fields(data: "FileBytes", start: int, end: int) -> Iterator[_Field]:
    """The fields of the message in ``data[start:end]``, values not read."""
    pos = start
    while pos < end:
        field_start = pos
        key, pos = _varint(data, pos, end)
        number, wire = key >> 3, key & 7
        value = 0
        body = pos
        if wire == 0:
            value, pos = _varint(data, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            value, body = _varint(data, pos, end)
            pos = body + value
            if pos > end:
                raise GraphParseError(
                    f"corrupt or truncated MindIR: field {number} claims {value} bytes but "
                    "its message ends first",
                    offset=field_start,
                )
        else:
            raise GraphParseError(
                f"corrupt MindIR: unsupported wire type {wire}", offset=field_start
            )
        if pos > end:
            raise GraphParseError("corrupt or truncated MindIR: a field runs past its message")
        yield _Field(number, wire, field_start, body, pos, value)


def _copy(data: "FileBytes", start: int, end: int, kind: str, skipped: _Skipped) -> bytes:
    out = bytearray()
    for f in _fields(data, start, end):
        inner = _inner_kind(kind, f.number) if f.wire == 2 else None
        if inner is not None:
            payload = _copy(data, f.body, f.end, inner, skipped)
            key = f.number << 3 | f.wire
            out += _encode_varint(key) + _encode_varint(len(payload)) + payload
        elif kind == _TENSOR and f.number in TENSOR_DATA:
            skipped.bytes += f.value if f.wire == 2 else f.end - f.start
        else:
            out += data[f.start : f.end]
    if kind == _TENSOR:
        skipped.tensors += 1
    return bytes(out)


def _inner_kind(kind: str, number: int) -> Optional[str]:
    if kind == _MODEL and number in MODEL_GRAPHS:
        return _GRAPH
    if kind == _GRAPH and number == GRAPH_PARAMETER:
        return _TENSOR
    return None


def _text(data: "FileBytes", f: _Field) -> str:
    return bytes(data[f.body : f.end]).decode("utf-8", errors="replace")


def _external(data: "FileBytes", start: int, end: int) -> ExternalData:
    location, numbers = "", {2: 0, 3: 0}
    for f in _fields(data, start, end):
        if f.number == 1 and f.wire == 2:
            location = _text(data, f)
        elif f.number in numbers and f.wire == 0:
            numbers[f.number] = f.value
    return ExternalData(location, numbers[2], numbers[3])


def _record(data: "FileBytes", start: int, end: int) -> WeightRecord:
    name, data_type = "", 0
    dims: List[int] = []
    raw: Optional[Tuple[int, int]] = None
    external: Optional[ExternalData] = None
    other: List[int] = []
    for f in _fields(data, start, end):
        if f.number == TENSOR_NAME and f.wire == 2:
            name = _text(data, f)
        elif f.number == TENSOR_DATA_TYPE and f.wire == 0:
            data_type = f.value
        elif f.number == TENSOR_DIMS and f.wire == 0:
            dims.append(f.value)
        elif f.number == TENSOR_DIMS and f.wire == 2:  # packed
            pos = f.body
            while pos < f.end:
                value, pos = _varint(data, pos, f.end)
                dims.append(value)
                if len(dims) > MAX_RANK:
                    break
        elif f.number == TENSOR_RAW_DATA and f.wire == 2:
            raw = (f.body, f.value)
        elif f.number == TENSOR_EXTERNAL_DATA and f.wire == 2:
            external = _external(data, f.body, f.end)
        elif f.number in TENSOR_DATA:
            other.append(f.number)
        if len(dims) > MAX_RANK:
            raise GraphParseError(
                f"corrupt MindIR: weight {name or '?'} has more than {MAX_RANK} dimensions",
                offset=f.start,
            )
    # int64 dims are varints of their two's complement: -1 (dynamic) is 2**64 - 1
    signed = tuple(d - (1 << 64) if d >= 1 << 63 else d for d in dims)
    return WeightRecord(name, data_type, signed, raw, external, tuple(other))


def _records(data: "FileBytes", start: int, end: int, kind: str, out: List[WeightRecord]) -> None:
    for f in _fields(data, start, end):
        inner = _inner_kind(kind, f.number) if f.wire == 2 else None
        if inner == _TENSOR:
            out.append(_record(data, f.body, f.end))
        elif inner is not None:
            _records(data, f.body, f.end, inner, out)


def _walk_file(path: str, walk: Callable[["FileBytes", int], _T]) -> _T:
    try:
        f = open_regular(path)  # a FIFO named m.mindir is refused, not waited on
    except NotARegularFile as exc:
        raise GraphParseError(f"{exc.strerror}", path) from None
    with f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise GraphParseError("empty file: not a MindIR model", path, offset=0)
        try:
            return walk(FileBytes(f, size), size)
        except GraphParseError as exc:
            raise GraphParseError(exc.reason, path, offset=exc.offset) from None


def read_mindir_skeleton(path: str) -> Tuple[bytes, int, int]:
    """``(model bytes without weight data, weights, weight bytes skipped)``."""

    def walk(data: "FileBytes", size: int) -> Tuple[bytes, int, int]:
        skipped = _Skipped()
        model = _copy(data, 0, size, _MODEL, skipped)
        return model, skipped.tensors, skipped.bytes

    return _walk_file(path, walk)


def weight_records(path: str) -> Dict[str, WeightRecord]:
    """Every weight of the ``.mindir`` at ``path`` by its name in the file, data not read."""

    def walk(data: "FileBytes", size: int) -> Dict[str, WeightRecord]:
        found: List[WeightRecord] = []
        _records(data, 0, size, _MODEL, found)
        return {r.name: r for r in found}

    return _walk_file(path, walk)

"""A decoder of the protobuf wire format, guided by a field table; no protobuf package needed.

:func:`decode` reads one message of a :class:`Schema` (for MindIR, the table generated from
``mind_ir.proto``, :mod:`ascend_lab.parsers.mindir.mind_ir_fields`) into :class:`Message` objects
that answer like protobuf's generated classes for the fields read (``msg.field``,
``msg.HasField``, defaults when unset). :func:`check_wire` walks bytes the same way guided by
a protobuf *descriptor*, to find the offset of the damage before protobuf's own parser
(which only says "error") runs.

Both stop with :class:`WireError` (offset and reason) at the first malformed byte. Packed
repeated numbers (a tensor's data, a long ``ints`` list) are checked in C-speed passes and
kept as bytes, decoded only when read: 20 MB of packed integers cost no more than the bytes.
"""

import re
import struct
import sys
from array import array
from itertools import islice
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Tuple

from ascend_lab.errors import AscendLabError

Field = Tuple[str, str, bool, Optional[str]]  # name, kind, repeated, message or enum type

_MAX_DEPTH = 64  # messages inside messages; protobuf's own limit is 100
_VARINT_KINDS = frozenset({"int", "uint", "bool", "enum"})
_LENGTH_KINDS = frozenset({"str", "bytes", "msg"})
_FIXED = {"float": ("f", 4), "double": ("d", 8)}
_DEFAULTS: Dict[str, Any] = {"str": "", "bytes": b"", "int": 0, "uint": 0, "bool": False}
_DEFAULTS.update({"enum": 0, "float": 0.0, "double": 0.0})
_LOW_BYTES = bytes(range(0x80))  # deleted by translate(): what is left are continuation bytes
_LONG_VARINT = re.compile(rb"[\x80-\xff]{10}")  # ten continuation bytes: over 64 bits


class WireError(AscendLabError):
    """Malformed protobuf bytes: ``offset`` where decoding failed, ``message`` why."""

    def __init__(self, offset: int, message: str, truncated: bool = False) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message
        # True when the bytes stop inside a value of the outermost message: the data ends
        # early (a cut file), rather than holding a wrong byte somewhere inside.
        self.truncated = truncated


class Schema:
    """The messages and enums a decoder knows; ``raw_fields`` are bytes fields kept as
    memoryviews of the input instead of copies (e.g. a tensor's ``raw_data``)."""

    def __init__(
        self,
        messages: Dict[str, Dict[int, Field]],
        enums: Dict[str, Dict[int, str]],
        raw_fields: FrozenSet[Tuple[str, str]] = frozenset(),
    ) -> None:
        self.messages = messages
        self.enums = enums
        self.raw_fields = raw_fields
        self.by_name = {m: {f[0]: f for f in fields.values()} for m, fields in messages.items()}


def read_varint(data: bytes, pos: int, end: int) -> Tuple[int, int]:
    """``(value, position after it)`` of the varint at ``pos``."""
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise WireError(pos, "varint runs past the end of its message", end >= len(data))
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError(pos, "varint longer than 10 bytes")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


class PackedVarints:
    """The varints of one packed field, validated now and decoded when iterated."""

    __slots__ = ("_data", "_kind", "_count")

    def __init__(self, data: memoryview, kind: str, offset: int) -> None:
        raw = bytes(data)
        if raw and raw[-1] & 0x80:
            raise WireError(offset + len(raw) - 1, "packed varint runs past the end of its field")
        long = _LONG_VARINT.search(raw)
        if long:
            raise WireError(offset + long.start(), "varint longer than 10 bytes")
        self._data = raw
        self._kind = kind
        self._count = len(raw) - len(raw.translate(None, _LOW_BYTES))

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Any]:
        data, kind = self._data, self._kind
        if self._count == len(data):  # one byte per value: 0..127 whatever the kind
            yield from (map(bool, data) if kind == "bool" else data)
            return
        pos, end = 0, len(data)
        while pos < end:
            value, pos = read_varint(data, pos, end)
            if kind == "int":
                value = _signed(value)
            elif kind == "bool":
                value = bool(value)
            yield value


class Repeated:
    """A repeated number field: values given one by one and packed runs, in file order."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: List[Any] = []  # lists, PackedVarints and arrays

    def append(self, value: Any) -> None:
        if not self.parts or not isinstance(self.parts[-1], list):
            self.parts.append([])
        self.parts[-1].append(value)  # type: ignore[union-attr]

    def extend(self, other: "Repeated") -> None:
        self.parts.extend(other.parts)

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def __bool__(self) -> bool:
        return any(len(p) for p in self.parts)

    def __iter__(self) -> Iterator[Any]:
        for part in self.parts:
            yield from part

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            index += len(self)
        for value in islice(iter(self), index, None):
            return value
        raise IndexError("repeated field index out of range")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Repeated, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Repeated({len(self)} values)"


class Message:
    """A decoded message: fields as attributes, protobuf-style defaults when unset."""

    __slots__ = ("_schema", "_type", "_values")

    def __init__(self, schema: Schema, type_name: str) -> None:
        self._schema = schema
        self._type = type_name
        self._values: Dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        values = self._values
        if name in values:
            return values[name]
        spec = self._schema.by_name[self._type].get(name)
        if spec is None:
            raise AttributeError(f"{self._type} has no field {name!r}")
        if spec[2]:
            value: Any = [] if spec[1] in _LENGTH_KINDS else Repeated()
        elif spec[1] == "msg":
            value = Message(self._schema, spec[3] or "")
        else:
            return _DEFAULTS[spec[1]]
        values[name] = value
        return value

    def HasField(self, name: str) -> bool:  # noqa: N802 - the protobuf method name
        return name in self._values


def _skip(data: bytes, wire: int, pos: int, end: int, start: int, length: int) -> int:
    if wire == 2:
        return pos + length
    if wire == 0:
        return read_varint(data, pos, end)[1]
    pos += 8 if wire == 1 else 4
    if pos > end:
        raise WireError(start, "value runs past the end of its message", end >= len(data))
    return pos


def _scalar(data: bytes, kind: str, wire: int, pos: int, end: int) -> Tuple[Any, int]:
    if wire == 0:
        value, pos = read_varint(data, pos, end)
        if kind == "int":
            value = _signed(value)
        elif kind == "bool":
            value = bool(value)
        return value, pos
    if wire == 5:
        if pos + 4 > end:
            raise WireError(pos, "fixed32 value runs past the end of its message", end >= len(data))
        return struct.unpack_from("<f", data, pos)[0], pos + 4
    if pos + 8 > end:
        raise WireError(pos, "fixed64 value runs past the end of its message", end >= len(data))
    return struct.unpack_from("<d", data, pos)[0], pos + 8


def _packed(view: memoryview, kind: str, offset: int) -> Any:
    if kind in _VARINT_KINDS:
        return PackedVarints(view, kind, offset)
    code, size = _FIXED[kind]
    if len(view) % size:
        raise WireError(offset, f"packed {kind} values do not fill their field")
    values = array(code)
    values.frombytes(view)
    if sys.byteorder == "big":  # the wire format is little-endian
        values.byteswap()
    return values


def _wire_of(kind: str) -> int:
    if kind in _VARINT_KINDS:
        return 0
    if kind == "float":
        return 5
    if kind == "double":
        return 1
    return 2


def decode(data: bytes, schema: Schema, type_name: str) -> Message:
    """Decode all of ``data`` as one message ``type_name`` of ``schema``."""
    return _decode(data, memoryview(data), schema, type_name, 0, len(data), 0)


def _decode(
    data: bytes, view: memoryview, schema: Schema, type_name: str, pos: int, end: int, depth: int
) -> Message:
    if depth > _MAX_DEPTH:
        raise WireError(pos, "messages nested too deeply")
    msg = Message(schema, type_name)
    values = msg._values
    fields = schema.messages[type_name]
    while pos < end:
        start = pos
        tag, pos = read_varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise WireError(start, "field number 0")
        if wire not in (0, 1, 2, 5):
            raise WireError(start, f"unknown wire type {wire}")
        length = 0
        if wire == 2:
            length, pos = read_varint(data, pos, end)
            if pos + length > end:
                raise WireError(
                    start,
                    f"field {number} claims {length} bytes but its message ends first",
                    truncated=end >= len(data) and depth == 0,
                )
        spec = fields.get(number)
        if spec is None:  # a field the table does not know: skip it, as protobuf does
            pos = _skip(data, wire, pos, end, start, length)
            continue
        name, kind, repeated, sub = spec
        expected = _wire_of(kind)
        packed = wire == 2 and repeated and expected != 2
        if wire != expected and not packed:
            # protobuf treats a field with an unexpected wire type as an unknown field.
            pos = _skip(data, wire, pos, end, start, length)
            continue
        value: Any
        if kind == "msg":
            value = _decode(data, view, schema, sub or "", pos, pos + length, depth + 1)
            pos += length
        elif kind == "str":
            try:
                value = data[pos : pos + length].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise WireError(pos + exc.start, "invalid UTF-8 in a string field") from None
            pos += length
        elif kind == "bytes":
            raw = (type_name, name) in schema.raw_fields
            value = view[pos : pos + length] if raw else data[pos : pos + length]
            pos += length
        elif packed:
            part = _packed(view[pos : pos + length], kind, pos)
            target = values.get(name)
            if target is None:
                target = values[name] = Repeated()
            target.parts.append(part)
            pos += length
            continue
        else:
            value, pos = _scalar(data, kind, wire, pos, end)
            if kind == "enum" and sub is not None and value not in schema.enums[sub]:
                continue  # proto2 enums keep unknown values out of the field, as protobuf does
        if repeated:
            target = values.get(name)
            if target is None:
                target = values[name] = [] if kind in _LENGTH_KINDS else Repeated()
            target.append(value)
        elif kind == "msg" and name in values:
            _merge(values[name], value)  # a message field seen twice is merged, as protobuf does
        else:
            values[name] = value
    return msg


def _merge(into: Message, other: Message) -> None:
    fields = into._schema.by_name[into._type]
    for name, value in other._values.items():
        _, kind, repeated, _ = fields[name]
        if repeated:
            into.__getattr__(name).extend(value)
        elif kind == "msg" and name in into._values:
            _merge(into._values[name], value)
        else:
            into._values[name] = value


def check_wire(data: bytes, descriptor: Any, pos: int = 0, end: Optional[int] = None) -> None:
    """Walk ``data`` guided by a protobuf message ``descriptor``; raise WireError where bad."""
    _check(data, descriptor, pos, len(data) if end is None else end, 0)


def _check(data: bytes, descriptor: Any, pos: int, end: int, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise WireError(pos, "messages nested too deeply")
    fields = descriptor.fields_by_number
    while pos < end:
        start = pos
        tag, pos = read_varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise WireError(start, "field number 0")
        if wire == 0:
            _, pos = read_varint(data, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = read_varint(data, pos, end)
            if pos + length > end:
                raise WireError(
                    start,
                    f"field {number} claims {length} bytes but its message ends first",
                    truncated=end >= len(data) and depth == 0,
                )
            field = fields.get(number)
            if field is not None and field.message_type is not None:
                _check(data, field.message_type, pos, pos + length, depth + 1)
            elif field is not None and field.type == field.TYPE_STRING:
                try:
                    data[pos : pos + length].decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise WireError(pos + exc.start, "invalid UTF-8 in a string field") from None
            pos += length
        else:
            raise WireError(start, f"unknown wire type {wire}")
        if pos > end:
            raise WireError(start, "value runs past the end of its message", end >= len(data))


def first(values: Iterable[Any], count: int) -> List[Any]:
    """The first ``count`` of ``values`` (a list, a protobuf container or a Repeated)."""
    return list(islice(values, count))

"""Write small (or streamed large) ``.mindir`` files with chosen weights, for tests.

The bytes are those of MindSpore's ``mind_ir.proto``: a ModelProto whose graph ``main``
has one node and the given parameters (TensorProto with dims, data_type, name and either
raw_data or external_data). A weight's data may be bytes or ``(length, write)``: ``write(f)``
streams ``length`` bytes, so a file can hold a tensor larger than the test's memory.
"""

from typing import BinaryIO, Callable, Iterable, Optional, Sequence, Tuple, Union

from ascend_lab.parsers.mindir.mindir_skeleton import _encode_varint

Data = Union[bytes, Tuple[int, Callable[[BinaryIO], None]]]

FLOAT, UINT8, INT8, INT32, INT64, STRING, BOOL, FLOAT16, DOUBLE = 1, 2, 3, 6, 7, 8, 9, 10, 11
COMPLEX64, BFLOAT16, FLOAT64 = 14, 16, 17


def varint(n: int) -> bytes:
    # the skeleton's own encoder (test_weight_stats.py checks the files written here with
    # the parser's independent decoder); negative int64 as protobuf writes it
    return _encode_varint(n & ((1 << 64) - 1))


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def number(num: int, value: int) -> bytes:
    return varint(num << 3) + varint(value)


class Weight:
    def __init__(
        self,
        name: str,
        data_type: int,
        dims: Sequence[int],
        data: Optional[Data] = None,
        external: Optional[Tuple[str, int, int]] = None,
    ) -> None:
        self.name, self.data_type, self.dims = name, data_type, list(dims)
        self.data, self.external = data, external

    def head(self) -> bytes:
        """The TensorProto up to its raw_data's bytes (those come after)."""
        out = field(1, b"".join(varint(d) for d in self.dims)) if self.dims else b""
        out += number(2, self.data_type) + field(7, f"main:{self.name}".encode())
        if self.external is not None:
            location, offset, length = self.external
            ext = field(1, location.encode()) + number(2, offset) + number(3, length)
            out += field(12, ext)
        if self.data is not None:
            out += varint(9 << 3 | 2) + varint(self.length())
        return out

    def length(self) -> int:
        data = self.data
        return len(data) if isinstance(data, bytes) else (data[0] if data else 0)

    def write(self, f: BinaryIO) -> None:
        head = self.head()
        f.write(varint(3 << 3 | 2) + varint(len(head) + self.length()) + head)
        if isinstance(self.data, bytes):
            f.write(self.data)
        elif self.data is not None:
            self.data[1](f)

    def size(self) -> int:
        head = self.head()
        body = len(head) + self.length()
        return len(varint(3 << 3 | 2)) + len(varint(body)) + body


def write_mindir(path: str, weights: Iterable[Weight]) -> None:
    """A model whose graph ``main`` returns ``Add(first weight, first weight)``."""
    weights = list(weights)
    first = weights[0].name if weights else "x"
    node = field(1, f"main:{first}".encode()) + field(1, f"main:{first}".encode())
    node += field(3, b"main:n") + field(4, b"Add")
    rest = field(1, node) + field(2, b"main") + field(6, field(1, b"main:n"))
    graph_len = len(rest) + sum(w.size() for w in weights)
    with open(path, "wb") as f:
        f.write(varint(7 << 3 | 2) + varint(graph_len) + rest)
        for w in weights:
            w.write(f)

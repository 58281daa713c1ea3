"""The value grammar of MindSpore's IR text: bracket-aware splitting and type expressions.

Split out of :mod:`~ascend_lab.parsers.ir.ir_text` (whose line-by-line parser calls these):
splitting a line at its top-level commas and colons with quotes and brackets respected
(``split_top``, ``_match_close``, attribute lists), joining a value that runs over several
lines, and reading type expressions (``<Tensor[Float32], (1, 16)>``, tuples, device types
``Float32xDefaultFormat{1, 84}``) into :class:`~ascend_lab.model.graph.TensorType`. Pure and
linear: every scan visits each character a bounded number of times; results are cached for
short texts only.
"""

import re
from functools import lru_cache
from typing import List, Optional, Tuple

from ascend_lab.model.graph import TensorType

_SPECIAL_RE = re.compile(r"[()\[\]{}\"',]")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}
_TENSOR_RE = re.compile(r"(?:Ref\[)?Tensor\[([^\]]+)\]\]?, \(([^)]*)\)")
# 1.x names a tensor's dtype short: `Tensor(F32)`, and `<Ref[Tensor(F32)], (4)>` in a 1.11/2.0
# block's header; SHORT_DTYPES spells them out as the later dumps print them.
_SHORT_TENSOR_RE = re.compile(r"(?:Ref\[)?Tensor\((\w+)\)\]?, \(([^)]*)\)")
# 1.1-1.10 join the dtype and the shape with an `x`: `Tensor[Float32]x(2, 3)`.
_X_TENSOR_RE = re.compile(r"(?:Ref\[)?Tensor\[([^\]]+)\]\]?x\(([^)]*)\)$")
SHORT_DTYPES = {
    "F16": "Float16",
    "F32": "Float32",
    "F64": "Float64",
    "BF16": "BFloat16",
    "I8": "Int8",
    "I16": "Int16",
    "I32": "Int32",
    "I64": "Int64",
    "U8": "UInt8",
    "U16": "UInt16",
    "U32": "UInt32",
    "U64": "UInt64",
    "Bool": "Bool",
}
_SCALAR_RE = re.compile(r"([^\s,\[\]]+), NoShape$")
_ELEM_RE = re.compile(r"(?:Ref\[)?Tensor\[([^\]]+)\]")
_TUPLE_SEP = "], TupleShape("
# `Float32xDefaultFormat[...]{1, 84}`: the word is split at its first `x<Capital>` in Python.
_DEVICE_RE = re.compile(r"([A-Za-z0-9_]+)(?:\[[^\]]*\])?\{([^}]*)\}$")
_DEVICE_WORD_RE = re.compile(r"<([A-Z][A-Za-z0-9_]*)[\[{]")
_DEVICE_SPLIT_RE = re.compile(r"x[A-Z]")
_LABEL_RE = re.compile(r"\s*(?:\{instance name: ([^}]*)\}|([A-Za-z_]\w*): \{)")
# Results of the cached helpers are kept for short texts only: a cache of 4096 one-megabyte
# lines would hold gigabytes after the parse.
_CACHE_MAX_CHARS = 1024
# A decimal number longer than this is no count or dimension a dump can mean (and int() of a
# million digits takes seconds on Python 3.8).
_MAX_DIGITS = 19


def _small_int(text: str) -> Optional[int]:
    """``int(text)`` for a plain decimal of at most ``_MAX_DIGITS`` digits, else None."""
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    if not digits or len(digits) > _MAX_DIGITS or not (digits.isascii() and digits.isdigit()):
        return None
    return int(text)


# ---------------------------------------------------------------------------- splitting


# MindSpore prints a string constant between double quotes as it is, unescaped: a `"` or a
# line break inside it is printed raw (`Print("a (b", x)`, a dict key `"b)""`). So a `"` ends
# a string only where a string can end: before `,`, a closing bracket, `:`, a `'` (an f-string
# in `Script['...']`, MindSpore 2.2) or the line's end.
_QUOTE_ENDS = frozenset([",", ")", "]", "}", ":", "'", "\r", "\n", ""])


def _closes_quote(text: str, at: int) -> bool:
    """Whether the ``"`` at ``text[at]``, inside a string, is the one that ends it."""
    return text[at - 1] != "\\" and text[at + 1 : at + 2] in _QUOTE_ENDS


def _walk_brackets(
    text: str, start: int, depth: int, in_quote: bool, to_close: bool, commas: Optional[List[int]]
) -> Tuple[int, int, bool]:
    """One walk over the brackets, commas and double quotes of ``text`` from ``start``, from
    ``depth`` open brackets (``in_quote``: inside a string): ``(index just past the bracket
    that closes depth 1 -> 0, or -1; depth after the walk; whether it ends in a string)``.
    With ``to_close`` it stops at that bracket; ``commas`` collects the commas at depth 0.
    A plain loop, not a generator: parsing a dump splits some 100,000 argument lists."""
    for m in _SPECIAL_RE.finditer(text, start):
        at = m.start()
        ch = text[at]
        if in_quote:
            if ch == '"' and _closes_quote(text, at):
                in_quote = False
        elif ch == '"':
            in_quote = True
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0 and to_close:
                return at + 1, depth, in_quote
        elif ch == "," and depth == 0 and commas is not None:
            commas.append(at)
    return -1, depth, in_quote


def _scan_top(text: str, start: int, to_close: bool) -> Tuple[List[int], int]:
    """``(positions of the commas outside brackets and quotes, index just past the bracket
    that closes the one at text[start] or -1)``; with ``to_close`` it stops there."""
    commas: List[int] = []
    close = _walk_brackets(text, start, 0, False, to_close, commas)[0]
    return commas, close


# A node line whose tensor constant MindSpore prints over several lines (numpy's layout of a
# small value: a 2-D+ one after ``value=`` and a line break, 3-D ones with blank lines, a
# wrapped 1-D one on lines that start with spaces): at most this many lines are joined to it.
_VALUE_LINES_MAX = 4096


def _open_depth(text: str, depth: int = 0, in_quote: bool = False) -> Tuple[int, bool]:
    """Brackets still open after ``text`` (outside double quotes), from ``depth``, and
    whether ``text`` ends inside a string (MindSpore prints a line break in one raw)."""
    _, depth, in_quote = _walk_brackets(text, 0, depth, in_quote, False, None)
    return depth, in_quote


def value_line_follows(nxt: str) -> bool:
    """Whether the line after a node line may carry its tensor value: not one of the node's
    own ``: types`` / ``# ...`` lines, not the next node, ``Return`` or the block's end."""
    if nxt.startswith("      "):
        return nxt.lstrip()[:1] not in (":", "#")  # a wrapped 1-D value starts with spaces
    return not nxt.startswith(("  %", "  Return(", "}"))


def join_value_lines(lines: List[str], idx: int, max_chars: int) -> Tuple[str, int]:
    """The node line at ``lines[idx]`` with the lines of a tensor value that MindSpore
    printed under it joined on (one space each), and the index of the line after them.
    Unchanged (``idx + 1``) when its brackets close on the line, or do not close within
    :data:`_VALUE_LINES_MAX` lines and ``max_chars``: the parser then says what is wrong."""
    line = lines[idx]
    depth, in_quote = _open_depth(line)
    if depth <= 0 and not in_quote:
        return line, idx + 1
    parts = [line]
    size = len(line)
    end = idx + 1
    while (depth > 0 or in_quote) and end < len(lines) and end - idx <= _VALUE_LINES_MAX:
        nxt = lines[end]
        if not value_line_follows(nxt):  # the node's own lines, the next node, the end
            break
        size += len(nxt) + 1
        if size > max_chars:
            break
        parts.append(nxt.strip())
        depth, in_quote = _open_depth(nxt, depth, in_quote)
        end += 1
    if depth != 0 or in_quote:
        return line, idx + 1
    return " ".join(p for p in parts if p), end


def _match_close(text: str, start: int) -> int:
    """Index just past the bracket that closes the one at ``text[start]``; -1 if none."""
    return _scan_top(text, start, True)[1]


def split_top(text: str) -> List[str]:
    """Split at commas that are not inside brackets or double quotes; strip the parts."""
    text = text.strip()
    if not text:
        return []
    if not any(c in text for c in '([{"'):
        return [p.strip() for p in text.split(",")]
    parts = []
    last = 0
    for at in _scan_top(text, 0, False)[0]:
        parts.append(text[last:at].strip())
        last = at + 1
    parts.append(text[last:].strip())
    return parts


def _split_attrs(body: str) -> Tuple[Tuple[str, str], ...]:
    """``"a: I64(1), b: (1, 2)"`` -> ``(("a", "I64(1)"), ("b", "(1, 2)"))``."""
    if len(body) > _CACHE_MAX_CHARS:
        return _split_attrs_uncached(body)
    return _split_attrs_cached(body)


def _split_attrs_uncached(body: str) -> Tuple[Tuple[str, str], ...]:
    out = []
    for part in split_top(body):
        if not part:
            continue
        key, sep, value = part.partition(": ")
        if not sep:
            key, sep, value = part.partition(":")
        out.append((key.strip(), value.strip()) if sep else (part, ""))
    return tuple(out)


_split_attrs_cached = lru_cache(maxsize=4096)(_split_attrs_uncached)


def _tail_attrs(tail: str) -> Optional[Tuple[Tuple[str, str], ...]]:
    if len(tail) > _CACHE_MAX_CHARS:
        return _tail_attrs_uncached(tail)
    return _tail_attrs_cached(tail)


def _tail_attrs_uncached(tail: str) -> Optional[Tuple[Tuple[str, str], ...]]:
    """The attributes after a node's arguments, as (key, text) pairs; None if unbalanced.

    ``{instance name: x}`` -> ``instance_name``; ``primitive_attrs: {...}`` entries keep
    their keys; other ``<label>_attrs: {...}`` entries get a ``<label>:`` prefix; anything
    unrecognised is kept under ``text``.
    """
    out: List[Tuple[str, str]] = []
    pos = 0
    while pos < len(tail):
        m = _LABEL_RE.match(tail, pos)
        if not m:
            rest = tail[pos:].strip()
            if rest:
                out.append(("text", rest))
            break
        if m.group(1) is not None:
            out.append(("instance_name", m.group(1)))
            pos = m.end()
            continue
        label = m.group(2)
        open_at = m.end() - 1
        close = _match_close(tail, open_at)
        if close < 0:
            return None
        prefix = "" if label == "primitive_attrs" else label.replace("_attrs", "") + ":"
        for key, value in _split_attrs(tail[open_at + 1 : close - 1]):
            out.append((prefix + key, value))
        pos = close
    return tuple(out)


_tail_attrs_cached = lru_cache(maxsize=4096)(_tail_attrs_uncached)


# ---------------------------------------------------------------------------- types


def _shape(text: str) -> Optional[Tuple[int, ...]]:
    text = text.strip()
    if not text:
        return ()
    dims = text.split(",")
    if any(len(d) > _MAX_DIGITS + 8 for d in dims):
        return None
    try:
        return tuple(int(d) for d in dims)
    except ValueError:
        return None


def parse_type(text: str) -> List[TensorType]:
    """One abstract type (without ``<>``) -> one TensorType, or several for a tuple."""
    return list(_parse_type(text))


def _parse_type(text: str) -> Tuple[TensorType, ...]:
    if len(text) > _CACHE_MAX_CHARS:
        return tuple(_parse_type_uncached(text))
    return _parse_type_cached(text)


@lru_cache(maxsize=8192)
def _parse_type_cached(text: str) -> Tuple[TensorType, ...]:
    # Types repeat across nodes and files: parse each distinct text once (results are frozen).
    return tuple(_parse_type_uncached(text))


def _tuple_parts(text: str) -> Optional[Tuple[str, str]]:
    """``Tuple[<elems>], TupleShape(<shapes>)`` -> ``(elems, shapes)``, split at the last
    separator (what a greedy regex would pick, without its quadratic backtracking)."""
    if not (text.startswith("Tuple[") and text.endswith(")")):
        return None
    at = text.rfind(_TUPLE_SEP, 6)
    if at < 0 or at + len(_TUPLE_SEP) > len(text) - 1:
        return None
    return text[6:at], text[at + len(_TUPLE_SEP) : -1]


def _tuple_elems(elems_text: str, shape_count: int) -> Optional[List[str]]:
    """Element dtypes of a tuple, ``Float32*3`` standing for three; None unless there are
    exactly ``shape_count`` of them. Counts are added up before anything is expanded, so
    ``Float32*30000000`` against a line holding three shapes allocates nothing."""
    counted: List[Tuple[str, int]] = []
    total = 0
    for part in split_top(elems_text):
        name, star, count = part.rpartition("*")
        n = _small_int(count) if star and count.isdigit() else None
        if n is None:
            counted.append((part, 1))
            total += 1
        else:
            counted.append((name, n))
            total += n
        if total > shape_count:
            return None
    if total != shape_count:
        return None
    return [name for name, n in counted for _ in range(n)]


def _parse_type_uncached(text: str) -> List[TensorType]:
    if text == "null" or not text:
        return [TensorType()]
    m = _TENSOR_RE.match(text)
    if m:
        return [TensorType(dtype=m.group(1), shape=_shape(m.group(2)))]
    m = _SHORT_TENSOR_RE.match(text) or _X_TENSOR_RE.match(text)
    if m:
        return [
            TensorType(dtype=SHORT_DTYPES.get(m.group(1), m.group(1)), shape=_shape(m.group(2)))
        ]
    m = _SCALAR_RE.match(text)
    if m:
        return [TensorType(dtype=m.group(1), shape=())]
    parts = _tuple_parts(text)
    if parts:
        shapes = split_top(parts[1])
        elems = _tuple_elems(parts[0], len(shapes))
        if elems is not None:
            types = []
            for elem, shp in zip(elems, shapes):
                tm = _ELEM_RE.match(elem)
                dtype = tm.group(1) if tm else elem
                if shp == "NoShape":
                    types.append(TensorType(dtype=dtype, shape=()))
                elif shp.startswith("(") and shp.endswith(")"):
                    types.append(TensorType(dtype=dtype, shape=_shape(shp[1:-1])))
                else:
                    types.append(TensorType(dtype=dtype, shape=None))
            return types
    return [TensorType(dtype=text)]


def _slot_type(text: str) -> TensorType:
    """The type of one input slot: a tuple stays one value (dtype ``Tuple[...]``)."""
    types = parse_type(text)
    if len(types) == 1:
        return types[0]
    return TensorType(dtype=text.partition(", TupleShape")[0])


def _type_list(text: str) -> List[str]:
    """``"<A>, <B>"`` -> ``["A", "B"]``."""
    text = text.strip()
    if not text:
        return []
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1].split(">, <")
    return split_top(text)


def _parse_types_line(body: str) -> Tuple[List[str], Optional[List[str]]]:
    """``(<a>, <b>) -> (<c>)`` -> (["a", "b"], ["c"]); ``(<c>)`` -> (["c"], None)."""
    arrow = body.find(") -> (")
    if arrow >= 0:
        ins = body[1:arrow] if body.startswith("(") else body[:arrow]
        outs = body[arrow + 6 :]
        if outs.endswith(")"):
            outs = outs[:-1]
        return _type_list(ins), _type_list(outs)
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    return _type_list(body), None


def _first_types_uncached(body: str) -> Tuple[Tuple[TensorType, ...], Tuple[TensorType, ...]]:
    """A node's first type line ``(<a>, <b>) -> (<c>)`` -> (input slot types, output types)."""
    ins, outs = _parse_types_line(body)
    # `Return(%x)` prints one list: the value it returns.
    return (
        tuple(_slot_type(t) for t in ins),
        tuple(t for text in (ins if outs is None else outs) for t in _parse_type(text)),
    )


# A 32-layer decoder's passes print 78,000 first type lines, 878 distinct ones.
_first_types_cached = lru_cache(maxsize=4096)(_first_types_uncached)


def _first_types(body: str) -> Tuple[Tuple[TensorType, ...], Tuple[TensorType, ...]]:
    if len(body) > _CACHE_MAX_CHARS:
        return _first_types_uncached(body)
    return _first_types_cached(body)


def _device(text: str) -> Optional[Tuple[str, str, Optional[Tuple[int, ...]]]]:
    """``Float32xDefaultFormat{1, 84}`` -> ``("Float32", "DefaultFormat", (1, 84))``."""
    if len(text) > _CACHE_MAX_CHARS:
        return _device_uncached(text)
    return _device_cached(text)


def _device_uncached(text: str) -> Optional[Tuple[str, str, Optional[Tuple[int, ...]]]]:
    m = _DEVICE_RE.match(text)
    if not m:
        return None
    word = m.group(1)
    x = _DEVICE_SPLIT_RE.search(word, 1)
    if not x:
        return None
    return word[: x.start()], word[x.start() + 1 :], _shape(m.group(2))


_device_cached = lru_cache(maxsize=4096)(_device_uncached)


def _has_device_type(body: str) -> bool:
    """True if a type line names device types (``<Float32xDefaultFormat{...}>``)."""
    for m in _DEVICE_WORD_RE.finditer(body):
        word = m.group(1)
        x = _DEVICE_SPLIT_RE.search(word, 1)
        if x and "_" not in word[: x.start()]:
            return True
    return False

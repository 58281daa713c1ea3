"""Size limits of the graph parsers, and reads that respect them.

A dump or model file larger than any real one, or a line longer than any MindSpore prints,
is refused with a :class:`~ascend_lab.parsers.errors.GraphParseError` naming the limit and
the environment variable that raises it, before the parser spends time or memory on it.
Limits are read from the environment on each call, so they can be changed in a session.
"""

import math
import os
from typing import Any, Optional, Tuple

from ascend_lab import settings
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.regular_file import FileRefused, read_gated, read_tail_gated

IR_MAX_BYTES_ENV = "ASCEND_LAB_IR_MAX_BYTES"
IR_MAX_LINE_ENV = "ASCEND_LAB_IR_MAX_LINE"
MINDIR_MAX_BYTES_ENV = "ASCEND_LAB_MINDIR_MAX_BYTES"

# A ResNet-50 kernel graph dump is ~1 MB and its longest line ~2 KB; a MindIR holds the
# weights, and protobuf itself refuses messages of 2 GiB or more. The defaults (256 MiB,
# 4 Mi characters, 2 GiB - 1) are registered in ascend_lab.settings (issue #25).
DEFAULTS = {
    env: settings.setting(env).default
    for env in (IR_MAX_BYTES_ENV, IR_MAX_LINE_ENV, MINDIR_MAX_BYTES_ENV)
}


def limit(env: str, default: Optional[int] = None) -> int:
    """The limit set by environment variable ``env``, else ``default`` (for this module's
    ``*_ENV`` names, its ``DEFAULTS``); a value that is not a positive number is a ValueError.

    Values are parsed as :mod:`ascend_lab.settings` parses byte sizes (``_`` separators and a
    K/M/G/T suffix allowed); unlike ``settings.get``, a bad value here is an error, not a
    fallback: a parser silently reading 256 MiB where 2 GiB was asked would mislead."""
    text = os.environ.get(env, "").strip()
    if not text:
        return DEFAULTS[env] if default is None else default
    item = settings.SETTINGS.get(env) or settings.Setting(
        env, "bytes", default, ("all",), "", "", minimum=1
    )
    value, why = item.parse(text)
    if why or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{env}={text[:60]!r}: expected a positive whole number of bytes")
    return value


def too_large(
    what: str,
    size: int,
    unit: str,
    env: str,
    path: Optional[str],
    line: Optional[int] = None,
) -> GraphParseError:
    """The error for ``what`` (``size`` ``unit`` long) over the limit ``env``."""
    return GraphParseError(
        f"{what} is {size:,} {unit} long, over the limit of {limit(env):,} {unit} "
        f"(set {env} to allow more)",
        path,
        line=line,
    )


def read_capped(path: str, env: str, root: Optional[str] = None) -> bytes:
    """The bytes of ``path``, through the one gate (:func:`~ascend_lab.parsers.regular_file.
    read_gated`: a regular file, inside ``root`` if given, never read past the limit
    ``env``); over the limit is a GraphParseError naming ``env``, any other refusal an
    OSError as ``open`` raises."""
    try:
        return read_gated(path, limit(env), root)
    except FileRefused as exc:
        if exc.reason == "too large":
            raise too_large("the file", exc.size, "bytes", env, path) from None
        raise


def decode_text(data: bytes) -> str:
    """UTF-8 (bad bytes become U+FFFD), newlines as ``\\n`` (what open() gave before)."""
    text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text_capped(path: str, env: str) -> str:
    """:func:`read_capped` decoded by :func:`decode_text`."""
    return decode_text(read_capped(path, env))


def read_tail(path: str, cap: int) -> Tuple[bytes, int]:
    """The last ``cap`` bytes of a file and its whole size (a log's tail says what went
    wrong; its head may be gigabytes earlier), through the gate. OSError as ``open``
    raises it (a FIFO or a link is refused as one)."""
    return read_tail_gated(path, cap)


# The largest magnitude a number read from a file may have (issue #37). Every quantity the
# readers take is below it (the largest: a start time in nanoseconds since 1970, 1.8e18).
# Any sum of at most MAX_ROWS such numbers, or of their squares, stays finite (1e40 x 2e6),
# so no total, mean, deviation or ratio computed later turns into ``inf``: the page's JSON
# stays JSON.
MAX_MAGNITUDE = 1e20
# The most rows one table file (CSV, trace events, database table) may hold: rows are
# refused before the byte cap is reached, since a short row costs a hundred times its bytes
# once it is an object (a launch, a span).
MAX_ROWS = 2_000_000
# Within that, a file holds at most ROWS_FREE + its bytes / MIN_ROW_BYTES rows: the shortest
# rows a profiler writes are ~40 bytes (op_statistic.csv, memory_record.csv), and a row's
# objects cost a few hundred bytes, so memory stays a small multiple of the file (at most
# ~20x) plus a constant, whatever the rows hold.
ROWS_FREE = 10_000
MIN_ROW_BYTES = 24
# Set, it is every table's cap instead (a longer run than any default allows for; memory
# grows with it), read each time a table is read.
MAX_ROWS_ENV = "ASCEND_LAB_MAX_ROWS"
ROWS_HINT = f"set {MAX_ROWS_ENV} to allow more"


def row_cap(text_length: int, min_row_bytes: int = MIN_ROW_BYTES, most: int = MAX_ROWS) -> int:
    """The most rows a table file of ``text_length`` characters (or bytes) may hold:
    ``ASCEND_LAB_MAX_ROWS`` when set, else ``ROWS_FREE`` plus one per ``min_row_bytes``,
    at most ``most``."""
    chosen = settings.get(MAX_ROWS_ENV)
    if chosen is not None:
        return int(chosen)
    return min(most, ROWS_FREE + text_length // min_row_bytes)


def bounded_float(value: Any) -> Optional[float]:
    """``value`` as a float when it is a finite number no larger than
    :data:`MAX_MAGNITUDE`, else None (the caller refuses the row)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if math.isfinite(number) and -MAX_MAGNITUDE <= number <= MAX_MAGNITUDE:
        return number
    return None

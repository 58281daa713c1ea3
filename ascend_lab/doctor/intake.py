"""How much text the doctor examines, and saying so: the input tail cap and the line cap.

A log can be gigabytes and a line megabytes (progress bars, tensor dumps). The doctor keeps
the last ``ASCEND_LAB_DOCTOR_MAX_MB`` megabytes of any input (the CLI's file or stdin, the
magic's cell, text or exception) and cuts the middle out of lines longer than
``ASCEND_LAB_DOCTOR_MAX_LINE_CHARS`` characters. Each cut is reported in a note naming
the limit; nothing is dropped silently.
"""

import collections
import os
from dataclasses import dataclass
from typing import IO, Deque, List, Mapping, Optional, Tuple

from ascend_lab import settings
from ascend_lab.i18n import msg
from ascend_lab.parsers import limits

# registered in ascend_lab.settings (issue #25): the defaults are 20 MB and 100,000 characters
ENV_MAX_MB = "ASCEND_LAB_DOCTOR_MAX_MB"
ENV_MAX_LINE_CHARS = "ASCEND_LAB_DOCTOR_MAX_LINE_CHARS"
DEFAULT_MAX_MB = float(settings.setting(ENV_MAX_MB).default)
DEFAULT_MAX_LINE_CHARS = int(settings.setting(ENV_MAX_LINE_CHARS).default)
MIN_LINE_CHARS = 1_000  # evidence needs some context around a match
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Limits:
    max_bytes: int = int(DEFAULT_MAX_MB * 1e6)
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS


def _setting(env: Mapping[str, str], name: str, default: float, low: float) -> Tuple[float, str]:
    raw = env.get(name, "").strip()
    if not raw:
        return default, ""
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value >= low or value == float("inf"):  # also rejects NaN
        return default, msg("{}={!r} is not a number >= {:g}: used {:g}", name, raw, low, default)
    return value, ""


def limits_from_env(env: Optional[Mapping[str, str]] = None) -> Tuple[Limits, List[str]]:
    """The limits set in the environment, and a note for each value that is not usable."""
    env = os.environ if env is None else env
    mb, bad_mb = _setting(env, ENV_MAX_MB, DEFAULT_MAX_MB, 0.001)
    chars, bad_chars = _setting(env, ENV_MAX_LINE_CHARS, DEFAULT_MAX_LINE_CHARS, MIN_LINE_CHARS)
    notes = [n for n in (bad_mb, bad_chars) if n]
    return Limits(max_bytes=int(mb * 1e6), max_line_chars=int(chars)), notes


def _mb(n: int) -> str:
    return "%.1f MB" % (n / 1e6)


def tail_note(what: str, total: int, limit: int, setting: str) -> str:
    """The note for an input cut to its tail, naming the setting that sets the limit."""
    return msg("{} is {}: examined only its last {} ({})", what, _mb(total), _mb(limit), setting)


def _decode_tail(data: bytes, truncated: bool) -> str:
    if truncated:  # drop the partial first line
        cut = data.find(b"\n")
        if 0 <= cut < len(data) - 1:
            data = data[cut + 1 :]
    return data.decode("utf-8", errors="replace").replace("\x00", "")


def read_tail_file(path: str, limit: int) -> Tuple[str, int, bool]:
    """(text, total bytes, truncated) for the last ``limit`` bytes of a file."""
    data, size = limits.read_tail(path, limit)
    cut = size > limit
    return _decode_tail(data, cut), size, cut


def read_tail_stream(stream: IO[bytes], limit: int) -> Tuple[str, int, bool]:
    """Like :func:`read_tail_file` for a stream: keeps only the last ``limit`` bytes."""
    chunks: Deque[bytes] = collections.deque()
    kept = total = 0
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        chunks.append(chunk)
        kept += len(chunk)
        while kept - len(chunks[0]) >= limit:
            kept -= len(chunks.popleft())
    data = b"".join(chunks)
    truncated = len(data) > limit or total > len(data)
    if len(data) > limit:
        data = data[-limit:]
    return _decode_tail(data, truncated), total, truncated


def tail_of_text(text: str, limit: int) -> Tuple[str, int, bool]:
    """Like :func:`read_tail_file` for text already in memory (a cell, an exception).

    Sizes are UTF-8 bytes, so a cell and the same text in a file are cut alike.
    """
    if len(text) * 4 <= limit:  # a character is at most 4 bytes: nothing to cut
        return text, len(text.encode("utf-8", errors="surrogatepass")), False
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= limit:
        return text, len(data), False
    return _decode_tail(data[-limit:], True), len(data), True


def cut_long_lines(text: str, max_chars: int) -> Tuple[str, int]:
    """``text`` with the middle of each line longer than ``max_chars`` replaced by a marker.

    Returns (text, number of lines cut). The line count is unchanged, so evidence line
    numbers still point into the original text.
    """
    if len(text) <= max_chars:
        return text, 0
    long_lines: List[Tuple[int, int]] = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        stop = len(text) if end < 0 else end
        if stop - start > max_chars:
            long_lines.append((start, stop))
        start = stop + 1
    if not long_lines:
        return text, 0
    half = max_chars // 2
    parts: List[str] = []
    done = 0
    for start, stop in long_lines:
        dropped = stop - start - 2 * half
        parts.append(text[done : start + half])
        parts.append(f" [… {dropped} characters not examined …] ")
        done = stop - half
    parts.append(text[done:])
    return "".join(parts), len(long_lines)


def line_note(cut: int, max_chars: int) -> str:
    half = max_chars // 2
    if cut == 1:
        return msg(
            "{} line longer than {:,} characters ({}): examined only the first and last "
            "{:,} characters of it",
            cut,
            max_chars,
            ENV_MAX_LINE_CHARS,
            half,
        )
    return msg(
        "{} lines longer than {:,} characters ({}): examined only the first and last "
        "{:,} characters of each",
        cut,
        max_chars,
        ENV_MAX_LINE_CHARS,
        half,
    )

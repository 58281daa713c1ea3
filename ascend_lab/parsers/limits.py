"""Size limits of the graph parsers, and reads that respect them.

A dump or model file larger than any real one, or a line longer than any MindSpore prints,
is refused with a :class:`~ascend_lab.parsers.errors.GraphParseError` naming the limit and
the environment variable that raises it, before the parser spends time or memory on it.
Limits are read from the environment on each call, so they can be changed in a session.
"""

import os
from typing import Optional, Tuple

from ascend_lab import settings
from ascend_lab.parsers.errors import GraphParseError

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


def read_capped(path: str, env: str) -> bytes:
    """The bytes of ``path``, refusing a file over the limit ``env`` without reading it all."""
    cap = limit(env)
    with open(path, "rb") as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
        except OSError:
            size = 0
        if size > cap:
            raise too_large("the file", size, "bytes", env, path)
        data = fh.read(cap + 1)  # a file still growing (or a pipe) is capped all the same
    if len(data) > cap:
        raise too_large("the file", len(data), "bytes", env, path)
    return data


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
    wrong; its head may be gigabytes earlier). OSError as ``open`` raises it."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - cap))
        return f.read(cap), size

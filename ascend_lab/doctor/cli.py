"""``ascend-lab doctor [FILE|-] [--json] [--max-mb N] [--no-env]``.

Reads a log file (or stdin with ``-``), keeps only its last ``--max-mb`` megabytes, and
prints the diagnosis. With no input it checks the environment only. Exit status: 0 when
nothing was recognised, 1 when there are findings, 2 for unreadable input.
"""

import argparse
import collections
import os
import sys
from typing import IO, Any, Deque, Optional, Tuple

DEFAULT_MAX_MB = 20.0
_CHUNK = 1 << 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input",
        nargs="?",
        metavar="FILE",
        help="a log file to examine, or - for stdin (omit to check only the environment)",
    )
    parser.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    parser.add_argument(
        "--max-mb",
        type=float,
        default=DEFAULT_MAX_MB,
        metavar="N",
        help=f"examine only the last N MB of a large log (default {DEFAULT_MAX_MB:g})",
    )
    parser.add_argument(
        "--no-env", action="store_true", help="skip the machine checks (text matching only)"
    )


def _decode_tail(data: bytes, truncated: bool) -> str:
    if truncated:  # drop the partial first line
        cut = data.find(b"\n")
        if 0 <= cut < len(data) - 1:
            data = data[cut + 1 :]
    return data.decode("utf-8", errors="replace").replace("\x00", "")


def read_tail_file(path: str, limit: int) -> Tuple[str, int, bool]:
    """(text, total bytes, truncated) for the last ``limit`` bytes of a file."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        start = max(0, size - limit)
        f.seek(start)
        data = f.read(limit)
    return _decode_tail(data, start > 0), size, start > 0


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


def _mb(n: int) -> str:
    return "%.1f MB" % (n / 1e6)


def run(args: Any, stdin: Optional[IO[bytes]] = None, stdout: Optional[IO[str]] = None) -> int:
    from .diagnosis import diagnose

    out = stdout or sys.stdout
    if not args.max_mb or args.max_mb <= 0:
        print("ascend-lab doctor: --max-mb must be a positive number", file=sys.stderr)
        return 2
    limit = int(args.max_mb * 1e6)
    text = None
    source = "environment"
    notes = []
    if args.input is not None:
        try:
            if args.input == "-":
                stream = stdin or sys.stdin.buffer
                text, total, truncated = read_tail_stream(stream, limit)
                source = "stdin"
            else:
                if os.path.isdir(args.input):
                    raise IsADirectoryError("is a directory")
                text, total, truncated = read_tail_file(args.input, limit)
                source = "file " + args.input
        except OSError as exc:
            reason = exc.strerror or str(exc)
            print(f"ascend-lab doctor: cannot read {args.input}: {reason}", file=sys.stderr)
            return 2
        if truncated:
            notes.append(f"log is {_mb(total)}: examined only its last {_mb(limit)}")
        if not text.strip():
            notes.append("the input is empty")
    diag = diagnose(text, source=source, check_environment=not args.no_env, notes=notes)
    if args.json:
        out.write(diag.to_json() + "\n")
    else:
        out.write(diag.to_text())
    return 1 if diag.findings else 0

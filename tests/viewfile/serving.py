"""Shared helpers of the viewfile tests."""

import contextlib
import os
import subprocess
import sys
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit


@contextlib.contextmanager
def cli_serving(*args: str) -> Iterator[str]:
    """Run ``ascend-lab view ARGS --serve``; yield the URL it prints; stop it after."""
    cli = os.path.join(os.path.dirname(sys.executable), "ascend-lab")
    proc = subprocess.Popen(
        [cli, "view", *args, "--serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert "http://127.0.0.1:" in line, proc.stderr.read() if proc.poll() is not None else line  # type: ignore[union-attr]
        yield line.split("at ", 1)[1].split()[0]
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def at(url: str, path: str) -> str:
    """``path`` (``weight-stats?name=x``) of the server whose URL (with its ``?token=``)
    ``ascend-lab view --serve`` printed, with the token."""
    parts = urlsplit(url)
    target, _, query = path.partition("?")
    joined = "&".join(q for q in (query, parts.query) if q)
    return urlunsplit((parts.scheme, parts.netloc, "/" + target, joined, ""))

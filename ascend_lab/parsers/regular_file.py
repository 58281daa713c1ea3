"""Open a file the viewer reads only when it is a regular file, never through a symlink.

A FIFO, a device or a socket named ``x.ir`` or ``m.mindir`` would block a reader (or feed it
without end): :func:`open_regular` opens with ``O_NONBLOCK`` (so opening a FIFO returns at
once), checks ``S_ISREG`` on the open descriptor (no race between a check and the open) and
refuses anything else with :class:`NotARegularFile`. ``O_NOFOLLOW`` refuses a symlink in the
last component; callers that have resolved the path with ``realpath`` get a path without
links, so a link swapped in afterwards is refused too. ``dir_fd`` opens a name inside an
already opened folder (MindSpore's ``<name>_variables/data_N``), so no component is followed.

:func:`read_gated` is **the one gate** every reader of a file a user handed over goes
through (issue #37): a regular file (as above), inside the allowed root once links are
resolved (when the caller has a root: a server's, a profiler folder's, a bundle's), within
its byte cap (checked on the descriptor before reading, and again while reading: a file
still growing is capped all the same), read in chunks against a deadline. Its refusals
are :class:`FileRefused` (an ``OSError``), whose message names the path as the caller gave
it and never a byte of the file: a file outside the root is not opened at all.

A host that serves files (the Jupyter server's viewer routes) runs each request inside
:func:`confined`: every :func:`open_fd`, :func:`open_regular` and :func:`read_gated` in that
context refuses a path outside the server's root, and stops at the request's deadline
(:func:`check_deadline`, also called by the loops of the readers), whichever reader a path
reaches (a profiler folder's CSV through the graph route, a dump folder's ``.ir``, a
``.mindir``'s weights), without passing the root through every reader's arguments.
"""

import errno
import io
import os
import stat
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Optional, Tuple

from ascend_lab.errors import AscendLabError

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)


class NotARegularFile(AscendLabError, OSError):
    """The path is a FIFO, device, socket, folder or symlink, not a regular file."""


class FileRefused(AscendLabError, OSError):
    """:func:`read_gated` would not read the file: outside the allowed root, over its byte
    cap, or slower than its deadline. ``reason`` is one of ``outside``, ``too large``,
    ``timeout``; ``size`` is the size seen (for ``too large``), ``cap`` the cap."""

    def __init__(self, reason: str, message: str, path: str, size: int = 0, cap: int = 0):
        super().__init__(errno.EPERM if reason == "outside" else errno.EFBIG, message, path)
        self.reason = reason
        self.size = size
        self.cap = cap


# How long one gated read may take (a regular file on a stalled network mount).
READ_TIMEOUT_S = 60.0
_CHUNK = 1 << 20


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


# (real root or None, monotonic deadline or None) of the request being served
_CONFINED: "ContextVar[Tuple[Optional[str], Optional[float]]]" = ContextVar(
    "ascend_lab_confined", default=(None, None)
)


@contextmanager
def confined(root: Optional[str], seconds: Optional[float] = None) -> Iterator[None]:
    """Within the block, files are read only inside ``root`` and until ``seconds`` from
    now (see the module doc)."""
    deadline = time.monotonic() + seconds if seconds is not None else None
    token = _CONFINED.set((os.path.realpath(root) if root else None, deadline))
    try:
        yield
    finally:
        _CONFINED.reset(token)


def check_deadline(path: str = "") -> None:
    """:class:`FileRefused` (``timeout``) once the confined request's deadline has passed;
    cheap enough to call every few thousand rows of a loop."""
    deadline = _CONFINED.get()[1]
    if deadline is not None and time.monotonic() > deadline:
        raise FileRefused("timeout", "reading it took too long; stopped", path)


def open_fd(path: str, dir_fd: Optional[int] = None) -> int:
    """A read-only descriptor of the regular file ``path`` (see the module doc)."""
    root = _CONFINED.get()[0]
    if dir_fd is None and root is not None and not inside(path, root):
        raise FileRefused("outside", "outside the folder it may be read from; not read", path)
    try:
        fd = os.open(path, _FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise NotARegularFile(exc.errno, "a symbolic link, not read", path) from None
        if exc.errno == errno.ENXIO:  # a socket (or a FIFO with no writer on some systems)
            raise NotARegularFile(
                exc.errno, "a socket, not a regular file; not read", path
            ) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(0, f"{_kind(mode)}, not a regular file; not read", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str, dir_fd: Optional[int] = None) -> io.FileIO:
    """The regular file ``path`` opened for unbuffered binary reading (see the module
    doc)."""
    return io.FileIO(open_fd(path, dir_fd), "rb", closefd=True)


def open_folder(path: str, dir_fd: Optional[int] = None) -> int:
    """A descriptor of the folder ``path`` (not through a symlink), for ``dir_fd``."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    return os.open(path, flags | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)


def inside(path: str, root: str) -> bool:
    """True when ``path`` lies in ``root`` once both have their links resolved."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    try:
        return os.path.commonpath([real, top]) == top
    except ValueError:  # different drives (Windows)
        return False


def gate(path: str, root: Optional[str] = None) -> str:
    """The path to open for ``path``: links resolved, and inside ``root`` when one is given
    (else :class:`FileRefused`, before anything is opened)."""
    real = os.path.realpath(path)
    root = root if root is not None else _CONFINED.get()[0]
    if root is not None and not inside(real, root):
        raise FileRefused("outside", "outside the folder it may be read from; not read", path)
    return real


def read_gated(
    path: str,
    cap: int,
    root: Optional[str] = None,
    timeout: Optional[float] = None,
    dir_fd: Optional[int] = None,
) -> bytes:
    """The bytes of the regular file ``path``: see the module doc. ``cap`` is the most
    bytes it may hold; ``timeout`` (default :data:`READ_TIMEOUT_S`) the seconds the read
    may take; with ``dir_fd``, ``path`` is a name in that open folder (no root check: the
    folder was checked when it was opened)."""
    target = path if dir_fd is not None else gate(path, root)
    deadline = time.monotonic() + (READ_TIMEOUT_S if timeout is None else timeout)
    request_deadline = _CONFINED.get()[1]
    if request_deadline is not None:
        deadline = min(deadline, request_deadline)
    with open_regular(target, dir_fd) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > cap:
            raise _too_large(path, size, cap)
        parts = []
        got = 0
        while got <= cap:
            chunk = fh.read(min(_CHUNK, cap + 1 - got))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
            if time.monotonic() > deadline:
                raise FileRefused("timeout", "reading it took too long; not read", path)
    if got > cap:
        raise _too_large(path, got, cap)
    return b"".join(parts)


def _too_large(path: str, size: int, cap: int) -> FileRefused:
    return FileRefused(
        "too large", f"{size:,} bytes, over the limit of {cap:,} bytes", path, size, cap
    )


def read_tail_gated(path: str, cap: int, root: Optional[str] = None) -> Tuple[bytes, int]:
    """The last ``cap`` bytes of the regular file ``path`` and its whole size (a log's
    tail), through the same gate."""
    with open_regular(gate(path, root)) as fh:
        size = os.fstat(fh.fileno()).st_size
        fh.seek(max(0, size - cap))
        return fh.read(cap), size

"""Open a file the viewer reads only when it is a regular file, never through a symlink.

A FIFO, a device or a socket named ``x.ir`` or ``m.mindir`` would block a reader (or feed it
without end): :func:`open_regular` opens with ``O_NONBLOCK`` (so opening a FIFO returns at
once), checks ``S_ISREG`` on the open descriptor (no race between a check and the open) and
refuses anything else with :class:`NotARegularFile`. ``O_NOFOLLOW`` refuses a symlink in the
last component; callers that have resolved the path with ``realpath`` get a path without
links, so a link swapped in afterwards is refused too. ``dir_fd`` opens a name inside an
already opened folder (MindSpore's ``<name>_variables/data_N``), so no component is followed.
"""

import errno
import io
import os
import stat
from typing import Optional

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


def open_fd(path: str, dir_fd: Optional[int] = None) -> int:
    """A read-only descriptor of the regular file ``path`` (see the module doc)."""
    try:
        fd = os.open(path, _FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise NotARegularFile(exc.errno, "a symbolic link, not read", path) from None
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

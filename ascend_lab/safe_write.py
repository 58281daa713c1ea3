"""Write a file through an exclusive, unpredictable temporary file and one atomic rename.

``<target>.part`` is a predictable name: anyone who can write to the target's folder can
plant a symlink there and have the next run write through it. Here the temporary file is
created with :func:`tempfile.mkstemp` (``O_CREAT | O_EXCL``, a random name, mode 0600; an
existing file or link at that name is never opened), in the target's folder so that
:func:`os.replace` is atomic. ``os.replace`` swaps the directory entry: a symlink planted at
the target itself is replaced, not followed.

Usage::

    with atomic_output("/path/out.tar.gz") as f:   # f: a binary file object
        f.write(data)
    # on success: /path/out.tar.gz holds data; on an exception: nothing is left behind
"""

import os
import tempfile
from contextlib import contextmanager
from typing import IO, Iterator, Tuple

DEFAULT_MODE = 0o644


def exclusive_temp(target: str) -> Tuple[int, str]:
    """``(fd, path)`` of a new, exclusively created file beside ``target`` (mode 0600)."""
    folder, name = os.path.split(os.path.abspath(target))
    return tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)


@contextmanager
def atomic_output(target: str, mode: int = DEFAULT_MODE) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``target`` when the block ends without an exception."""
    target = os.path.abspath(target)
    fd, tmp = exclusive_temp(target)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fchmod(f.fileno(), mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_bytes(target: str, data: bytes, mode: int = DEFAULT_MODE) -> str:
    """Write ``data`` to ``target`` atomically (see :func:`atomic_output`); return the path."""
    with atomic_output(target, mode) as f:
        f.write(data)
    return os.path.abspath(target)

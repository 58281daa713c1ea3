"""Whose is a process on an NPU: from what a learner cannot forge, or unknown.

A process's environment (``JUPYTERHUB_USER``, …) is the learner's to set, so it never names
an owner. Two things do:

- **the server's process tree, as the hub started it.** The spawner hook notes each
  learner's server pid (and the kernel's start time of that pid, so a reused pid does not
  count) in the seat file. A process whose parent chain reaches that server is the learner's.
  A process that left the tree (double fork, ``setsid`` + reparent to init) is unknown.
- **the process's real uid**, when the spawner runs each learner as their own Unix user
  (``LocalProcessSpawner``, ``SystemdSpawner``): a uid other than the hub's own (and not
  root) whose user name holds a seat.

Everything else stays unknown (``None``): never guessed from the chip's seats.
"""

import os
import pwd
from typing import AbstractSet, Callable, Dict, Mapping, Optional, Tuple

from ascend_lab.hub.allocator import Assignment

# /proc/<pid>/stat is one line of a few hundred bytes; /proc/<pid>/status about 1.5 KiB.
MAX_STAT_BYTES = 4096
MAX_STATUS_BYTES = 16 * 1024
MAX_DEPTH = 128  # parent links followed at most (process trees are a few levels deep)

PidUser = Callable[[int], Optional[str]]


def _read(path: str, cap: int) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            return f.read(cap)
    except (OSError, ValueError):
        return None


def parse_stat(raw: bytes) -> Optional[Tuple[int, int]]:
    """``(ppid, starttime)`` from the text of ``/proc/<pid>/stat``, or ``None``.

    The command name (field 2) is in parentheses and may hold spaces and ``)``: the fields
    after it start after the *last* ``)``.
    """
    end = raw.rfind(b")")
    if end < 0:
        return None
    fields = raw[end + 1 :].split()
    # fields[0] is the state (field 3), ppid is field 4, starttime field 22
    if len(fields) < 20:
        return None
    try:
        return int(fields[1]), int(fields[19])
    except ValueError:
        return None


def stat_of(pid: int, proc: str = "/proc") -> Optional[Tuple[int, int]]:
    """``(ppid, starttime)`` of a live process, or ``None``."""
    raw = _read(f"{proc}/{int(pid)}/stat", MAX_STAT_BYTES)
    return parse_stat(raw) if raw is not None else None


def start_time_of(pid: int, proc: str = "/proc") -> Optional[int]:
    """The kernel's start time of ``pid`` (clock ticks since boot), or ``None``."""
    stat = stat_of(pid, proc)
    return stat[1] if stat is not None else None


def real_uid_of(pid: int, proc: str = "/proc") -> Optional[int]:
    """The real uid of ``pid`` (``Uid:`` in ``/proc/<pid>/status``), or ``None``."""
    raw = _read(f"{proc}/{int(pid)}/status", MAX_STATUS_BYTES)
    for line in (raw or b"").splitlines():
        if line.startswith(b"Uid:"):
            parts = line.split()
            try:
                return int(parts[1])
            except (IndexError, ValueError):
                return None
    return None


def _user_name(uid: int) -> Optional[str]:
    try:
        return pwd.getpwuid(uid).pw_name
    except (KeyError, OverflowError):
        return None


def process_owners(
    seats: Mapping[str, Assignment],
    proc: str = "/proc",
    shared_uids: Optional[AbstractSet[int]] = None,
    user_name: Callable[[int], Optional[str]] = _user_name,
) -> PidUser:
    """A ``pid -> owner`` function for one status answer (``None``: unknown).

    ``shared_uids`` are uids that never name an owner: the one the hub (and, on the
    one-server trial, every learner) runs as, and root. Default: this process's uid and 0.
    """
    shared = {0, os.getuid()} if shared_uids is None else shared_uids
    servers: Dict[int, Tuple[Optional[int], str]] = {}
    for key, seat in seats.items():
        if seat.server_pid is not None:
            servers[seat.server_pid] = (seat.server_started, key.split("/", 1)[0])
    learners = {key.split("/", 1)[0] for key in seats}

    def by_tree(pid: int) -> Optional[str]:
        current = pid
        for _ in range(MAX_DEPTH):
            stat = stat_of(current, proc)
            if stat is None:
                return None
            known = servers.get(current)
            if known is not None:
                started, user = known
                return user if started is None or started == stat[1] else None
            if stat[0] <= 1:
                return None  # reached init (or the kernel): outside every server
            current = stat[0]
        return None

    def by_uid(pid: int) -> Optional[str]:
        uid = real_uid_of(pid, proc)
        if uid is None or uid in shared:
            return None
        name = user_name(uid)
        return name if name in learners else None

    def owner(pid: int) -> Optional[str]:
        return by_tree(pid) or by_uid(pid)

    return owner

"""Which NPU is whose: a device allocator for a class on one Ascend server.

Pure logic over a JSON state file. Each learner's server gets one chip (a share of one:
``per_chip`` learners at most) when it starts and gives it back when it stops. The file is
rewritten atomically (temporary file + ``os.replace``) under an exclusive ``flock`` on a
side lock file, so concurrent spawns in one hub, and a hub restart, never lose or double a
seat. When no chip has a free seat the learner gets ``chip=None`` and a reason: the server
starts in CPU mode, it does not fail.

The file fails safe: a damaged one (truncated, not JSON, absurd values) is moved aside with
a log line and the seats start afresh, so one bad file never makes every spawn fail. Neither
the state file nor its lock is opened through a symbolic link (``O_NOFOLLOW``).
"""

import errno
import fcntl
import json
import logging
import math
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import (
    Any,
    ContextManager,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from ascend_lab.errors import AscendLabError

POLICIES = ("least-loaded", "fixed")
STATE_VERSION = 1
# A state file is a few hundred bytes per learner; 4 MiB is far beyond any class.
MAX_STATE_BYTES = 4 * 1024 * 1024

log = logging.getLogger("ascend_lab.hub.allocator")


class StateFileError(AscendLabError):
    """The state file exists but is not one this allocator wrote (the message says why)."""


@dataclass(frozen=True)
class Assignment:
    """The result of one spawn: a chip, or CPU mode and why."""

    key: str  # the user name, or "user/server" for a named server
    chip: Optional[int]  # the device id for ASCEND_RT_VISIBLE_DEVICES; None: CPU mode
    reason: str = ""  # why CPU mode (empty when a chip was given)
    since: float = 0.0  # when the seat was taken (time.time())
    # the learner's server as the hub started it: its pid and the start time the kernel gives
    # it (/proc/<pid>/stat field 22), so a reused pid is not taken for the server
    server_pid: Optional[int] = None
    server_started: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        """What the status service shows of the seat."""
        return {"chip": self.chip, "reason": self.reason, "since": self.since}

    def to_state(self) -> Dict[str, Any]:
        """What the state file keeps of the seat."""
        doc = self.to_dict()
        if self.server_pid is not None:
            doc["server_pid"] = self.server_pid
            doc["server_started"] = self.server_started
        return doc


class DeviceAllocator:
    """Seats on chips, ``per_chip`` learners per chip, kept in ``state_path``.

    ``policy="least-loaded"`` gives the chip with the fewest learners (lowest id on a tie);
    ``policy="fixed"`` gives the chip ``fixed_map[user]`` names, if it has a free seat.
    """

    def __init__(
        self,
        state_path: str,
        chips: Sequence[int],
        per_chip: int = 1,
        policy: str = "least-loaded",
        fixed_map: Optional[Mapping[str, int]] = None,
    ) -> None:
        if per_chip < 1:
            raise ValueError(f"per_chip must be at least 1, not {per_chip}")
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
        if policy == "fixed" and not fixed_map:
            raise ValueError("policy 'fixed' needs a fixed_map of user name -> chip id")
        unknown = sorted({c for c in (fixed_map or {}).values() if c not in set(chips)})
        if unknown:
            raise ValueError(f"fixed_map names chips {unknown} that are not in {sorted(chips)}")
        self.state_path = state_path
        self.chips = sorted(set(int(c) for c in chips))
        self.per_chip = per_chip
        self.policy = policy
        self.fixed_map = dict(fixed_map or {})

    # -- public API -------------------------------------------------------------------------

    def acquire(self, key: str) -> Assignment:
        """Give ``key`` a seat (the one it holds already, if any), or CPU mode and why."""
        with self._locked():
            seats = self._load()
            held = seats.get(key)
            if held is not None and held.chip in self.chips:
                return held  # a respawn keeps its seat; a CPU-mode learner tries again
            chip, reason = self._choose(key, seats)
            got = Assignment(key, chip, reason, time.time())
            seats[key] = got
            self._save(seats)
            return got

    def release(self, key: str) -> Optional[Assignment]:
        """Free ``key``'s seat; return what it held (``None`` if nothing)."""
        with self._locked():
            seats = self._load()
            held = seats.pop(key, None)
            if held is not None:
                self._save(seats)
            return held

    def record_server(self, key: str, pid: int, started: Optional[int]) -> bool:
        """Note the pid (and kernel start time) of ``key``'s server; ``False`` if no seat."""
        with self._locked():
            seats = self._load()
            held = seats.get(key)
            if held is None:
                return False
            seats[key] = replace(held, server_pid=int(pid), server_started=started)
            self._save(seats)
            return True

    def assignments(self) -> Dict[str, Assignment]:
        """Every current seat (CPU-mode learners included, with ``chip=None``)."""
        return read_seats(self.state_path)

    def load(self) -> Dict[int, int]:
        """Learners per chip, for every configured chip."""
        return _count(self.assignments().values(), self.chips)

    # -- choosing ---------------------------------------------------------------------------

    def _choose(self, key: str, seats: Dict[str, Assignment]) -> Tuple[Optional[int], str]:
        others = [a for k, a in seats.items() if k != key]
        count = _count(others, self.chips)
        if not self.chips:
            return None, "this server has no NPU configured for the class; CPU mode"
        if self.policy == "fixed":
            user = key.split("/", 1)[0]
            chip = self.fixed_map.get(user)
            if chip is None:
                return None, f"no chip is assigned to {user} in the class map; CPU mode"
            if count[chip] >= self.per_chip:
                return None, (
                    f"chip {chip} (yours in the class map) already has {count[chip]} "
                    f"learner(s), the most per chip; CPU mode"
                )
            return chip, ""
        free = [c for c in self.chips if count[c] < self.per_chip]
        if not free:
            return None, (
                f"all {len(self.chips)} NPU chip(s) already have {self.per_chip} learner(s) each, "
                f"the most per chip; CPU mode until a seat frees (restart your server then)"
            )
        return min(free, key=lambda c: (count[c], c)), ""

    # -- the state file ---------------------------------------------------------------------

    def _locked(self) -> "ContextManager[None]":
        return _locked(self.state_path, shared=False)

    def _load(self) -> Dict[str, Assignment]:
        """The seats, or none (and the damaged file moved aside, with a log line)."""
        try:
            return _read(self.state_path)
        except StateFileError as e:
            aside = f"{self.state_path}.damaged-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
            try:
                os.replace(self.state_path, aside)  # renames a link itself, never its target
                kept = f"moved aside to {aside}"
            except OSError as move_error:
                kept = f"could not be moved aside ({move_error.strerror})"
            log.warning("ascend-lab: %s; it %s and the seats start afresh", e, kept)
            return {}

    def _save(self, seats: Dict[str, Assignment]) -> None:
        doc = {
            "version": STATE_VERSION,
            "per_chip": self.per_chip,
            "chips": self.chips,
            "seats": {k: a.to_state() for k, a in sorted(seats.items())},
        }
        folder = os.path.dirname(os.path.abspath(self.state_path))
        fd, tmp = tempfile.mkstemp(prefix=".ascend-lab-seats.", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.state_path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


def read_seats(state_path: str) -> Dict[str, Assignment]:
    """Every seat in ``state_path`` (none if it does not exist yet), read under a shared lock."""
    with _locked(state_path, shared=True):
        return _read(state_path)


def _flags(*bits: int) -> int:
    """``os.open`` flags ORed together, never following a link (``O_NOFOLLOW``)."""
    out = os.O_NOFOLLOW
    for bit in bits:
        out |= bit
    return out


def _open_lock(path: str) -> int:
    """The lock file's descriptor, never through a link: a link in its place is removed (with a
    log line) and a fresh file made (``O_EXCL``: nothing else is created or followed)."""
    try:
        return os.open(path, _flags(os.O_RDWR, os.O_CREAT, os.O_CLOEXEC), 0o600)
    except OSError as e:
        if e.errno != errno.ELOOP:
            raise
    log.warning("ascend-lab: %s is a symbolic link; replaced by a plain lock file", path)
    os.unlink(path)  # removes the link itself
    return os.open(path, _flags(os.O_RDWR, os.O_CREAT, os.O_EXCL, os.O_CLOEXEC), 0o600)


@contextmanager
def _locked(state_path: str, shared: bool) -> Iterator[None]:
    folder = os.path.dirname(os.path.abspath(state_path))
    os.makedirs(folder, exist_ok=True)
    fd = _open_lock(state_path + ".lock")
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _read(state_path: str) -> Dict[str, Assignment]:
    try:
        fd = os.open(state_path, _flags(os.O_RDONLY, os.O_CLOEXEC))
    except FileNotFoundError:
        return {}
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise StateFileError(f"{state_path} is a symbolic link, not a seat file") from None
        raise
    with os.fdopen(fd, "rb") as f:
        raw = f.read(MAX_STATE_BYTES + 1)
    return parse_state(raw, state_path)


def _time(value: Any, where: str, key: str) -> float:
    """A seat's ``since`` as a float; ``StateFileError`` for anything else (a string, NaN, a
    400-digit integer: ``float()`` of it raises ``OverflowError``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number):
            return number
    raise StateFileError(f"{where}: seat {key!r} has since {repr(value)[:40]}, not a time")


def _small_int(value: Any) -> Optional[int]:
    """A pid-sized JSON integer, or ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63:
        return value
    return None


def parse_state(raw: bytes, where: str = "state file") -> Dict[str, Assignment]:
    """Seats from a state file's bytes; a clear ``StateFileError`` for anything else."""
    if len(raw) > MAX_STATE_BYTES:
        raise StateFileError(f"{where} is larger than {MAX_STATE_BYTES // 1024} KiB")
    if not raw.strip():
        return {}
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise StateFileError(f"{where} is not JSON ({e}); move it aside to start afresh") from None
    if not isinstance(doc, dict) or doc.get("version") != STATE_VERSION:
        raise StateFileError(f"{where} is not an ascend-lab seat file (version {STATE_VERSION})")
    seats = doc.get("seats")
    if not isinstance(seats, dict):
        raise StateFileError(f"{where} has no 'seats' object")
    out: Dict[str, Assignment] = {}
    for key, value in seats.items():
        if not isinstance(value, dict):
            raise StateFileError(f"{where}: seat {key!r} is not an object")
        chip = value.get("chip")
        if chip is not None and (not isinstance(chip, int) or isinstance(chip, bool)):
            raise StateFileError(f"{where}: seat {key!r} has chip {chip!r}, not an integer")
        pid = _small_int(value.get("server_pid"))
        out[str(key)] = Assignment(
            str(key),
            chip,
            str(value.get("reason", "")),
            _time(value.get("since", 0.0), where, key),
            pid,
            _small_int(value.get("server_started")) if pid is not None else None,
        )
    return out


def _count(seats: Iterable[Assignment], chips: List[int]) -> Dict[int, int]:
    count = {c: 0 for c in chips}
    for a in seats:
        if a.chip in count:
            count[a.chip] += 1
    return count

"""Which test ends this pytest worker's AKG build server? (a pytest plugin, tests/conftest.py)

MindSpore starts one AKG kernel-build server per process at the first fusion compile and
never another; ascend-lab then refuses fusion traces in that process
(:mod:`ascend_lab.capture.akg_server`), so every later fusion test of the worker fails. In
some CI runs the server of one worker ended mid-suite (MindSpore 2.10 ends it on SIGINT, on
end of input or on a FINISH line), and the run did not say by whom. This plugin checks the
servers after each test and, when one noted alive has ended, names the test it ended in and
how (exit code or signal, read by reaping the zombie MindSpore never reaps), in a file
(``$ASCEND_LAB_AKG_WATCH_LOG``, a fresh temporary file per run) and in the
terminal summary.

What ended it was MindSpore's own SIGPIPE handler: any broken pipe in the worker after a fusion
compile closed the server's pipes (:mod:`ascend_lab.capture.akg_server`). ascend_lab's traces
and the MindSpore kernel (after each cell) ignore SIGPIPE again; this plugin does the same
after each test, for the tests that compile with fusion through MindSpore directly. Apart from
that it changes no outcome."""

import os
import tempfile
import time
from typing import Dict, List

import psutil
import pytest

from ascend_lab.capture.akg_server import ignore_broken_pipes, live_servers

_alive: Dict[int, float] = {}  # pid -> start time
_ended: List[str] = []


LOG_ENV = "ASCEND_LAB_AKG_WATCH_LOG"


def _log_path() -> str:
    return os.environ.get(LOG_ENV, os.path.join(tempfile.gettempdir(), "ascend-lab-akg-watch.log"))


def pytest_configure(config):
    """One fresh log per run, made by the controller before xdist starts its workers (they
    inherit the variable)."""
    if not hasattr(config, "workerinput") and LOG_ENV not in os.environ:
        fd, path = tempfile.mkstemp(prefix="ascend-lab-akg-watch-", suffix=".log")
        os.close(fd)
        os.environ[LOG_ENV] = path


def _how_it_ended(pid: int) -> str:
    try:
        reaped, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return "already reaped"
    if not reaped:
        return "still running?"
    if os.WIFEXITED(status):
        return f"exit code {os.WEXITSTATUS(status)}"
    return f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "unknown"


def _has_ended(pid: int, started: float) -> bool:
    try:
        proc = psutil.Process(pid)
        return proc.create_time() != started or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


_pipes: Dict[int, Dict[int, str]] = {}  # server pid -> {our fd: "pipe:[inode]"} shared with it


def _fd_targets(pid: int) -> Dict[int, str]:
    """fd -> what it points at (``pipe:[123]``), of process ``pid`` (Linux /proc)."""
    folder = f"/proc/{pid}/fd"
    found: Dict[int, str] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        try:
            found[int(name)] = os.readlink(os.path.join(folder, name))
        except (OSError, ValueError):
            pass
    return found


def _shared_pipes(server: int) -> Dict[int, str]:
    """Our fds that point at a pipe the server also holds: the two ends MindSpore talks on."""
    theirs = {t for t in _fd_targets(server).values() if t.startswith("pipe:")}
    return {fd: t for fd, t in _fd_targets(os.getpid()).items() if t in theirs}


def _note(line: str) -> None:
    _ended.append(line)
    try:
        with open(_log_path(), "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except OSError:
        pass


def _check_pipes(item) -> None:
    """A pipe end to a live server that this process no longer holds was closed during
    ``item`` (the server then reads end of input and exits 0, later)."""
    mine = _fd_targets(os.getpid())
    for server, pipes in list(_pipes.items()):
        lost = {fd: t for fd, t in pipes.items() if mine.get(fd) != t}
        if lost:
            _note(
                f"{time.strftime('%H:%M:%S')} pid {os.getpid()}: its fds {sorted(lost)} to AKG "
                f"build server {server}'s pipes ({', '.join(sorted(set(lost.values())))}) were "
                f"closed or replaced during {item.nodeid}"
            )
            _pipes[server] = {fd: t for fd, t in pipes.items() if fd not in lost}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    yield
    ignore_broken_pipes()  # as the kernel does after each cell
    try:
        _check_pipes(item)
    except Exception:  # noqa: BLE001, S110 - a diagnostic must never fail a test run
        pass
    for pid, started in list(_alive.items()):
        if _has_ended(pid, started):
            del _alive[pid]
            line = (
                f"{time.strftime('%H:%M:%S')} pid {os.getpid()}: AKG build server {pid} ended "
                f"during {item.nodeid} ({_how_it_ended(pid)})"
            )
            _note(line)
            _pipes.pop(pid, None)
    for pid, started in live_servers().items():
        if pid not in _alive:
            _alive[pid] = started
            try:
                _pipes[pid] = _shared_pipes(pid)
            except Exception:  # noqa: BLE001 - a diagnostic must never fail a test run
                _pipes[pid] = {}


def pytest_terminal_summary(terminalreporter):
    lines = list(_ended)
    try:  # xdist workers write the file; the controller reads it
        with open(_log_path(), encoding="utf-8") as fh:
            lines += [ln.rstrip("\n") for ln in fh if ln.strip() and ln.rstrip("\n") not in lines]
    except OSError:
        pass
    if lines:
        terminalreporter.section("AKG build servers that ended during a test")
        for line in lines:
            terminalreporter.write_line(line)


def pytest_unconfigure(config):
    """The controller removes its run's log when nothing was noted in it: one empty file per
    pytest run otherwise piles up in the temporary folder."""
    if hasattr(config, "workerinput"):
        return
    path = _log_path()
    try:
        ours = os.path.basename(path).startswith("ascend-lab-akg-watch-")
        if ours and os.path.getsize(path) == 0:
            os.unlink(path)
    except OSError:
        pass

"""Is the AKG kernel-build server that MindSpore started in this process still alive?

MindSpore (2.x, CPU and GPU) builds fused kernels through a server process it starts once, at
the first graph-kernel fusion compile (``python .../kernel_build_server_akg.py <fd> <fd>``),
and talks to over two pipes for the life of the process. That server exits on end of input, on
an empty or ``FINISH`` line, or on Ctrl+C (SIGINT to the process group). MindSpore never
notices: the next fusion compile polls forever in ``AkgKernelBuilder::ParallelBuild`` for
answers that cannot come (seen on 2.10: a notebook cell, or a test, that never ends).

What ended it in our CI (and can in a learner's kernel) is MindSpore itself: when it starts
the server it installs a C handler for SIGPIPE in the whole process (``DuplexPipe``'s
``SignalHandler``), and that handler closes the server's pipes. So *any* broken pipe in the
process afterwards (a write to a subprocess that has exited, a socket whose peer has gone),
which in Python is only a ``BrokenPipeError``, also ends the server, with exit code 0.
:func:`ignore_broken_pipes` puts back Python's own setting (SIGPIPE ignored), under which a
broken pipe is only that ``BrokenPipeError``, and MindSpore's own writes to a dead server fail
with an error instead of a signal. It runs after every fusion compile we make and, in a
kernel, after every cell (the learner's own fusion compiles).

So after each fusion compile we note the server's pid (with its start time, so a reused pid is
not taken for it), and before the next one we check that it still runs. A dead server is
reported as a :class:`TraceError` saying to restart the kernel, instead of a hang.
"""

import os
import signal
import sys
import threading
from typing import Dict, Optional

import psutil

SERVER_SCRIPT = "kernel_build_server_akg"  # also matches kernel_build_server_akg_v2.py

_servers: Dict[int, float] = {}  # pid -> start time, of the servers seen alive in this process


def _is_server(proc: "psutil.Process") -> bool:
    try:
        return any(SERVER_SCRIPT in part for part in proc.cmdline()[:4])
    except (psutil.Error, OSError):  # gone, a zombie, or not ours to read
        return False


def live_servers() -> Dict[int, float]:
    """This process's live AKG build servers: pid -> start time."""
    found: Dict[int, float] = {}
    try:
        children = psutil.Process(os.getpid()).children()
    except psutil.Error:
        return found
    for child in children:
        if _is_server(child):
            try:
                found[child.pid] = child.create_time()
            except psutil.Error:
                pass
    return found


def ignore_broken_pipes() -> bool:
    """Ignore SIGPIPE again (Python's setting at start) once MindSpore is imported, so that a
    broken pipe anywhere in the process cannot end the AKG server through MindSpore's handler.

    Cheap (one system call), so it can run after every cell. Returns whether it ran: a signal
    disposition can only be set from the main thread, and without MindSpore there is nothing
    to undo."""
    if "mindspore" not in sys.modules or threading.current_thread() is not threading.main_thread():
        return False
    try:
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    except (ValueError, OSError, AttributeError):  # no SIGPIPE (Windows), or not allowed
        return False
    return True


def note_servers() -> None:
    """Remember this process's live AKG build servers (call after a fusion compile), and keep
    broken pipes from ending them (:func:`ignore_broken_pipes`)."""
    _servers.update(live_servers())
    ignore_broken_pipes()


def dead_server() -> Optional[int]:
    """The pid of a server noted alive that has exited since (a zombie counts), or None."""
    for pid, started in list(_servers.items()):
        try:
            proc = psutil.Process(pid)
            alive = proc.create_time() == started and proc.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            alive = False
        except psutil.Error:  # e.g. access denied: not known to be dead
            continue
        if not alive:
            return pid
    return None

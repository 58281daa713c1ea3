"""Is the AKG kernel-build server that MindSpore started in this process still alive?

MindSpore (2.x, CPU and GPU) builds fused kernels through a server process it starts once, at
the first graph-kernel fusion compile (``python .../kernel_build_server_akg.py <fd> <fd>``),
and talks to over two pipes for the life of the process. That server exits on end of input, on
an empty or ``FINISH`` line, or on Ctrl+C (SIGINT to the process group). MindSpore never
notices: the next fusion compile polls forever in ``AkgKernelBuilder::ParallelBuild`` for
answers that cannot come (seen on 2.10: a notebook cell, or a test, that never ends).

So after each fusion compile we note the server's pid (with its start time, so a reused pid is
not taken for it), and before the next one we check that it still runs. A dead server is
reported as a :class:`TraceError` saying to restart the kernel, instead of a hang.
"""

import os
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


def note_servers() -> None:
    """Remember this process's live AKG build servers (call after a fusion compile)."""
    _servers.update(live_servers())


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

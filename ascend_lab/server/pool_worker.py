"""One worker process of the viewer's pool (:mod:`.worker_pool`):
``python -m ascend_lab.server.pool_worker MEMORY_BYTES``.

The worker imports the readers once, limits its own address space to what it uses after
those imports plus ``MEMORY_BYTES`` (``resource.setrlimit(RLIMIT_AS)``; 0: no limit), says
it is ready, then runs jobs one at a time: one JSON line in on stdin (a row of
:data:`~ascend_lab.server.view_jobs.JOBS`, the path, its arguments, the server's
``ASCEND_LAB_*`` settings and its time limit), one answer out on stdout (a JSON header line
``{"status": …, "bytes": …, "retire": …}``, then the body's JSON text). Standard output is
kept for the answers: anything a reader prints goes to standard error.

The pool ends a worker that overruns by its PID; the worker also ends on its own when the
server is gone (its stdin closes, or its parent changes) and when a job's CPU time runs
past the time limit (``RLIMIT_CPU``: the kernel ends it, even inside C code). After a
``MemoryError`` it answers and retires (``retire``): a fresh worker replaces it.
"""

import importlib
import json
import os
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

# what a job needs, imported before the memory limit is set (the limit is for the job)
WARM_MODULES = (
    "ascend_lab.server.view_jobs",
    "ascend_lab.viewfile.sources",
    "ascend_lab.payload.view_input",
    "ascend_lab.parsers.ir.ir_text",
    "ascend_lab.parsers.mindir.mindir",
    "ascend_lab.parsers.profiler.profiler_files",
    "ascend_lab.viewfile.weight_stats",
    "numpy",
)
# the server's environment a job sees: its settings and its language
PASSED_ENV_PREFIXES = ("ASCEND_LAB_",)
PASSED_ENV_NAMES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# CPU seconds a job may use beyond its time limit before the kernel ends the worker
CPU_SLACK_S = 5


def passed_env(environ: Dict[str, str]) -> Dict[str, str]:
    """The part of ``environ`` a job runs with (the server sends it with every job, so a
    setting changed in the server applies to the next job)."""
    return {k: v for k, v in environ.items() if _passed(k)}


def _passed(name: str) -> bool:
    return name.startswith(PASSED_ENV_PREFIXES) or name in PASSED_ENV_NAMES


def _sync_env(env: Dict[str, str]) -> None:
    for name in list(os.environ):
        if _passed(name) and name not in env:
            del os.environ[name]
    os.environ.update(env)


def _vm_size() -> Optional[int]:
    """This process's address space in bytes (Linux), else None."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _limit_memory(extra: int) -> Optional[int]:
    """Cap the address space at what the worker uses now plus ``extra`` bytes."""
    if extra <= 0:
        return None
    import resource

    base = _vm_size()
    if base is None:
        return None
    limit = base + extra
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return limit


def _limit_cpu(seconds: float) -> None:
    """The kernel ends this process once its CPU time passes ``seconds`` more than now."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    now = used.ru_utime + used.ru_stime
    soft = int(now + seconds) + 1
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _watch_parent(parent: int) -> None:
    """End this process once the server that started it is gone."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _answer(job: Dict[str, Any]) -> Tuple[int, bytes, bool]:
    """``(status, body JSON bytes, retire)`` for one job line (a ``MemoryError`` passes)."""
    from ascend_lab.server.view_jobs import Where, run_job

    path, real_root, allow_hidden = job["where"]
    where = Where(str(path), str(real_root), bool(allow_hidden))
    seconds = float(job["seconds"])
    status, body = run_job(str(job["job"]), where, *job.get("args", ()), seconds=seconds)
    retire = body.get("reason") == "memory"  # its heap may be in pieces: start afresh
    return status, json.dumps(body).encode("utf-8"), retire


def _memory_answer(job: Dict[str, Any]) -> bytes:
    """The 413 body of ``job`` when it runs out of memory, made before it runs: once it has,
    even this message may not fit until the job's objects are gone."""
    from ascend_lab.server.view_jobs import memory_message

    name = os.path.basename(str(job["where"][0]))
    return json.dumps({"message": memory_message(name), "reason": "memory"}).encode("utf-8")


def _send(out: Any, data: bytes) -> bool:
    """Write ``data`` to the pool; False when the pool is gone (the server stopped)."""
    try:
        out.write(data)
        out.flush()
    except OSError:  # BrokenPipeError: nobody reads any more
        return False
    return True


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    extra = int(args[0]) if args else 0
    # stdin and stdout are the pool's: keep them, and point fds 0 and 1 elsewhere
    jobs_in = os.fdopen(os.dup(0), "rb")
    answers_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # the job that needs it answers why
            pass
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    limit = _limit_memory(extra)
    if not _send(answers_out, json.dumps({"ready": os.getpid(), "limit": limit}).encode() + b"\n"):
        return 0
    while True:
        line = jobs_in.readline()
        if not line:  # the pool closed our stdin: idle, or the server stopped
            return 0
        job = json.loads(line)
        _sync_env(job.get("env") or {})
        _limit_cpu(float(job["seconds"]) + CPU_SLACK_S)
        fallback = _memory_answer(job)
        try:
            status, body, retire = _answer(job)
        except MemoryError:  # escaped while the job's objects were still held: freed now
            status, body, retire = 413, fallback, True
        header = {"status": status, "bytes": len(body), "retire": retire}
        if not _send(answers_out, json.dumps(header).encode("ascii") + b"\n" + body) or retire:
            return 0


if __name__ == "__main__":
    sys.exit(main())

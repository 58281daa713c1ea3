"""The viewer's worker processes: the server's heavy work (reading and parsing a file into
a payload) runs in child processes that can be ended, so the server cannot be stuck
(issue #37: "work that overruns is ended and its worker returned; the pool never stays
exhausted").

- **Size**: ``ASCEND_LAB_VIEW_WORKERS`` workers (default 2), each driven by one daemon
  thread of the server; a request waits while all are busy, up to two more per worker,
  and beyond that is answered 503 at once.
- **Lazy**: nothing starts when the extension loads; a worker starts on the first request
  that needs it (about half a second: Python, the readers, numpy), and a worker idle for
  ``ASCEND_LAB_VIEW_WORKER_IDLE`` seconds (default 120) exits.
- **Time**: a job runs within ``ASCEND_LAB_VIEW_TIMEOUT`` seconds (default 120). The
  readers stop at that deadline where they can (the worker is kept); a job still running
  :data:`KILL_GRACE_S` later is ended by its worker's PID (``SIGKILL``) and answered 504,
  and a fresh worker is started in its place at once.
- **Memory**: each worker limits its own address space (``resource.setrlimit``) to what it
  uses once its readers are imported plus ``ASCEND_LAB_VIEW_WORKER_MEMORY`` (default
  1 GiB): a parse that would need more fails with ``MemoryError`` in the worker, which
  answers 413 and retires; a worker that dies instead is answered 400 and replaced.
- **Workers are processes started by ``subprocess``** (``python -m
  ascend_lab.server.pool_worker``: fork + exec, never a bare fork of the threaded server),
  in their own session, with the server's settings sent along with every job. They end
  with the server: it ends them by PID at exit, and a worker whose server is gone ends on
  its own (:mod:`.pool_worker`).

Answers are ``(HTTP status, JSON bytes)``; every error is ``{"message": …}`` (plus
``"reason"``: ``timeout``, ``memory``, ``busy`` or ``worker``), never a traceback, and never
text read from a file.
"""

import asyncio
import atexit
import collections
import json
import logging
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from typing import Any, Deque, Dict, List, Optional, Set, Tuple

from ascend_lab import settings
from ascend_lab.errors import AscendLabError
from ascend_lab.server.pool_worker import passed_env
from ascend_lab.server.view_jobs import (
    TIMEOUT_ENV,
    WORKER_MEMORY_ENV,
    Where,
    run_job,
    timeout_answer,
)

WORKERS_ENV = "ASCEND_LAB_VIEW_WORKERS"
IDLE_ENV = "ASCEND_LAB_VIEW_WORKER_IDLE"
# seconds past the time limit before a job's worker is ended (its readers may stop first)
KILL_GRACE_S = 1.0
# seconds a worker may take to start (Python and the readers' imports, on a busy machine)
START_TIMEOUT_S = 60.0
# requests that may wait for each worker before the pool answers 503
QUEUED_PER_WORKER = 2
_LINE_MAX = 4096  # a worker's header line
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

Answer = Tuple[int, bytes]


def _json(status: int, body: Dict[str, Any]) -> Answer:
    return status, json.dumps(body).encode("utf-8")


def _in_site_packages(folder: str) -> bool:
    import site

    sites = list(getattr(site, "getsitepackages", lambda: [])())
    sites.append(getattr(site, "getusersitepackages", lambda: "")())
    real = os.path.realpath(folder)
    return any(s and os.path.realpath(s) == real for s in sites)


class _Overran(AscendLabError):
    """The worker did not answer before the deadline."""


class _Gone(AscendLabError):
    """The worker's pipe closed: it ended."""


class WorkerProcess:
    """One running worker: its ``Popen``, its PID and the memory limit it started with."""

    LIVE: "Set[WorkerProcess]" = set()  # every worker not yet ended, for the server's exit

    def __init__(self, memory: int) -> None:
        env = dict(os.environ)
        if not _in_site_packages(_PACKAGE_PARENT):
            # a source checkout: the worker imports the same ascend_lab as the server (an
            # installed one is found anyway; site-packages first would shadow the stdlib)
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH", "")) if p
            )
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(name, "1")  # one job at a time: no BLAS threads and buffers
        started = time.monotonic()
        self.memory = memory
        self.proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            [sys.executable, "-m", "ascend_lab.server.pool_worker", str(memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            close_fds=True,
            start_new_session=True,  # a Ctrl-C in the server's terminal is the server's
        )
        self.pid = self.proc.pid
        WorkerProcess.LIVE.add(self)
        self._buffer = bytearray()
        try:
            ready = json.loads(self._line(started + START_TIMEOUT_S))
        except (_Overran, _Gone, ValueError):
            self.end()
            raise
        self.limit = ready.get("limit")
        self.start_seconds = time.monotonic() - started

    # -- the pipe
    def _fill(self, deadline: float) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Overran()
            if poller.poll(left * 1000):
                break
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise _Gone()
        self._buffer.extend(chunk)

    def _line(self, deadline: float) -> bytes:
        while b"\n" not in self._buffer:
            if len(self._buffer) > _LINE_MAX:
                raise _Gone()
            self._fill(deadline)
        end = self._buffer.index(b"\n")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def _exactly(self, size: int, deadline: float) -> bytes:
        while len(self._buffer) < size:
            self._fill(deadline)
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out

    def ask(self, line: bytes, deadline: float) -> Tuple[int, bytes, bool]:
        """Send one job line; ``(status, body, retire)`` by ``deadline``, else
        :class:`_Overran`; :class:`_Gone` when the worker ended."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise _Gone() from None
        header = json.loads(self._line(deadline))
        body = self._exactly(int(header["bytes"]), deadline)
        return int(header["status"]), body, bool(header.get("retire"))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def end(self) -> Optional[int]:
        """End the worker by its PID (``SIGKILL``) and reap it; its exit status."""
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        WorkerProcess.LIVE.discard(self)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # stuck in the kernel: reaped by a later poll
            code = None
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        return code

    def close(self) -> None:
        """Let an idle worker exit on its own (its stdin closes), ending it if it lingers."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.end()


class _Request:
    def __init__(self, job: str, where: Where, args: Tuple[Any, ...]) -> None:
        self.name = os.path.basename(where.path)
        self.job = job
        self.where = where
        self.args = args
        self.seconds = float(settings.get(TIMEOUT_ENV))
        self.line = json.dumps(
            {
                "job": job,
                "where": [where.path, where.real_root, where.allow_hidden],
                "args": list(args),
                "seconds": self.seconds,
                "env": passed_env(dict(os.environ)),
            }
        ).encode("utf-8")


class _Driver(threading.Thread):
    """One worker's daemon thread: takes a job, hands it to its process, waits for the
    answer until the deadline, ends and replaces the process when it overran or died."""

    def __init__(self, pool: "WorkerPool", index: int) -> None:
        super().__init__(name=f"ascend-lab-view-{index}", daemon=True)
        self.pool = pool
        self.process: Optional[WorkerProcess] = None
        self.inbox: queue.Queue = queue.Queue()  # of _Job

    def run(self) -> None:
        while True:
            try:
                job: Optional[_Job] = self.inbox.get(timeout=_idle_seconds())
            except queue.Empty:
                if self.process is not None and self.pool.still_idle(self):
                    self.pool.log.info("ascend-lab viewer: idle worker %d exits", self.process.pid)
                    self._let_go()
                continue
            while job is not None:
                job = self._do(job)

    def _do(self, job: "_Job") -> "Optional[_Job]":
        """Serve ``job``; the next job waiting, or None (this driver is idle then: it says
        so before it answers, so the request that follows finds its worker ready)."""
        future, request = job
        if not future.set_running_or_notify_cancel():
            return self.pool.next_job(self)
        try:
            answer, replace = self._serve(request)
        except Exception as exc:  # noqa: BLE001 - a bug here must not be a traceback
            self.pool.log.exception("ascend-lab viewer: the pool failed")
            process, self.process = self.process, None
            if process is not None:
                process.end()  # its pipe is in an unknown state
            failed = {
                "message": f"the viewer's worker pool failed ({type(exc).__name__}); "
                "see the server's log",
                "reason": "worker",
            }
            answer, replace = _json(503, failed), True
        if replace:  # answer first, then a fresh worker, so the next request finds one
            future.set_result(answer)
            self._start()
            return self.pool.next_job(self)
        following = self.pool.next_job(self)
        future.set_result(answer)
        return following

    def _let_go(self) -> None:
        """Close this driver's worker: it exits on its own (else it is ended)."""
        process, self.process = self.process, None
        if process is not None:
            process.close()

    def _start(self) -> Optional[Answer]:
        """Start this driver's worker; None, or the 503 when it would not start."""
        memory = int(settings.get(WORKER_MEMORY_ENV))
        try:
            self.process = WorkerProcess(memory)
        except (OSError, _Overran, _Gone, ValueError) as exc:
            self.process = None
            self.pool.log.error("ascend-lab viewer: a worker did not start (%r)", exc)
            return _json(
                503,
                {
                    "message": "the viewer's worker process did not start; see the server's log",
                    "reason": "worker",
                },
            )
        self.pool.log.info(
            "ascend-lab viewer: worker %d started in %.2f s (address space limit %s)",
            self.process.pid,
            self.process.start_seconds,
            "none" if not self.process.limit else f"{self.process.limit >> 20} MiB",
        )
        return None

    def _serve(self, request: _Request) -> Tuple[Answer, bool]:
        """The answer to ``request`` and whether the worker must be replaced."""
        if not hasattr(select, "poll"):  # Windows: no poll() on pipes; the old threads
            job, where, args = request.job, request.where, request.args
            status, body = run_job(job, where, *args, seconds=request.seconds)
            return _json(status, body), False
        memory = int(settings.get(WORKER_MEMORY_ENV))
        process = self.process
        if process is not None and (process.memory != memory or not process.alive()):
            self._let_go()  # the limit changed, or it ended since its last job
        if self.process is None:
            refused = self._start()
            if refused is not None:
                return refused, False
        process = self.process
        assert process is not None
        try:
            status, body, retire = process.ask(
                request.line, time.monotonic() + request.seconds + KILL_GRACE_S
            )
        except _Overran:
            self.process = None
            process.end()
            self.pool.log.warning(
                "ascend-lab viewer: ended worker %d, over its time limit of %g s (%s)",
                process.pid,
                request.seconds,
                TIMEOUT_ENV,
            )
            return _json(*timeout_answer(request.name, request.seconds)), True
        except (_Gone, ValueError, KeyError):
            self.process = None
            code = process.end()
            self.pool.log.warning("ascend-lab viewer: worker %d ended (exit %s)", process.pid, code)
            xcpu = getattr(signal, "SIGXCPU", None)
            if xcpu is not None and code == -xcpu:  # its CPU time ran out first
                return _json(*timeout_answer(request.name, request.seconds)), True
            return _json(
                400,
                {
                    "message": f"{request.name}: cannot be shown: the viewer's worker ended "
                    f"while reading it (exit status {code}); it may need more memory than "
                    f"the limit of {memory >> 20:,} MiB ({WORKER_MEMORY_ENV})",
                    "reason": "worker",
                },
            ), True
        if retire:
            self.process = None
            process.close()
        return (status, body), retire


def _idle_seconds() -> float:
    return float(settings.get(IDLE_ENV))


_Job = Tuple["Future[Answer]", _Request]


class WorkerPool:
    """The server's workers (module doc); one per server process: :data:`POOL`.

    A job goes to an idle driver whose worker is running (the one used last), else to any
    idle driver (it starts its worker), else it waits in line; a full line is a 503."""

    def __init__(self) -> None:
        self.drivers: List[_Driver] = []
        self.log: Any = logging.getLogger("ascend_lab.server")
        self._idle: List[_Driver] = []  # the one used last at the end
        self._waiting: Deque[_Job] = collections.deque()
        self._lock = threading.Lock()

    def _start_drivers(self) -> None:
        if not self.drivers:
            self.drivers = [_Driver(self, i) for i in range(int(settings.get(WORKERS_ENV)))]
            for driver in self.drivers:
                driver.start()
            self._idle = list(self.drivers)

    def submit(self, job: str, where: Where, *args: Any) -> "Future[Answer]":
        """A future of the answer to ``job`` (a row of ``view_jobs.JOBS``) for ``where``."""
        future: Future = Future()
        item = (future, _Request(job, where, args))
        with self._lock:
            self._start_drivers()
            warm = [d for d in self._idle if d.process is not None]
            idle = warm or self._idle
            driver = idle[-1] if idle else None
            if driver is not None:
                self._idle.remove(driver)
            elif len(self._waiting) < QUEUED_PER_WORKER * len(self.drivers):
                self._waiting.append(item)
                return future
            else:
                busy = {
                    "message": "the viewer is busy with other files; try again shortly",
                    "reason": "busy",
                }
                future.set_result(_json(503, busy))
                return future
        driver.inbox.put(item)
        return future

    def next_job(self, driver: _Driver) -> Optional[_Job]:
        """The next waiting job for ``driver``, or None (it is idle then)."""
        with self._lock:
            if self._waiting:
                return self._waiting.popleft()
            self._idle.append(driver)
            return None

    def still_idle(self, driver: _Driver) -> bool:
        """True when ``driver`` has no job coming (its worker may exit)."""
        with self._lock:
            return driver in self._idle and driver.inbox.empty()

    async def run(self, job: str, where: Where, *args: Any) -> Answer:
        """The answer to ``job`` for ``where``, without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(job, where, *args))

    def pids(self) -> List[int]:
        """The PIDs of the running workers."""
        return [d.process.pid for d in self.drivers if d.process is not None]

    def close(self) -> None:
        """End every worker (at the server's exit)."""
        for process in list(WorkerProcess.LIVE):
            process.end()


POOL = WorkerPool()
atexit.register(POOL.close)

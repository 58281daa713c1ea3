"""Run ``msrun`` (or any launcher of worker processes) from a notebook, and never wait on a
dead job.

What MindSpore's ``msrun --join=True`` does when a worker fails (read in
``mindspore/parallel/cluster/process_entity/_api.py``, 2.7 and 2.10, and reproduced on CPU):
it logs ``Worker process <pid> exit with exception``, kills the other workers, then waits
for its scheduler, which keeps waiting for the dead rank to register. So a job whose rank
failed in its first second holds the notebook until the caller's timeout. Each worker also
runs in its own session (``preexec_fn=os.setsid``): killing ``msrun`` on a timeout, as
``subprocess.run(timeout=...)`` does, leaves the workers (and the NPUs they hold) behind.

:func:`run_workers` watches the launcher's output and the workers' logs while it runs, shows
one progress line, and stops the whole tree (``SIGINT`` first, which ``msrun`` answers by
killing its workers and scheduler, then ``SIGKILL`` for whatever is left) when a worker has
failed and the launcher has not exited ``grace`` seconds later, or at the timeout. It imports
nothing of MindSpore.
"""

import os
import re
import signal
import subprocess
import tempfile
import time
from typing import Callable, Dict, List, Mapping, Optional, Sequence

import psutil

from ascend_lab import i18n
from ascend_lab.parsers import limits

# Every read of a log is capped: the tail is what says what went wrong.
TAIL_BYTES = 64 * 1024
# msrun's own line when a worker exits non-zero (2.3-2.10), and a Python traceback in a log.
LAUNCHER_SAW_FAILURE = re.compile(r"Worker process \d+ exit with exception")
WORKER_TRACEBACK = "Traceback (most recent call last)"

Progress = Callable[[float, Dict[str, str]], None]

RUNNING = i18n.N_("{}: running for {:.0f} s")
# the catalogue's messages take positional fields (its test formats them with numbers)
FAILED_EARLY = i18n.N_(
    "{} failed after {:.1f} s and {} had not stopped {:.0f} s later (its scheduler waits "
    "for the dead rank): ascend-lab stopped the job."
)
TIMED_OUT = i18n.N_("{} ran past {:.0f} s: ascend-lab stopped the job.")


class LaunchResult:
    """How a launched job ended: ``reason`` is ``"exited"``, ``"worker-failed"`` or
    ``"timeout"``; ``returncode`` is the launcher's (``None`` when it was stopped)."""

    def __init__(
        self,
        reason: str,
        returncode: Optional[int],
        seconds: float,
        output: str,
        logs: Dict[str, str],
        failed: Optional[str],
        message: str,
    ):
        self.reason = reason
        self.returncode = returncode
        self.seconds = seconds
        self.output = output  # the launcher's stdout and stderr (its tail)
        self.logs = logs  # worker log name -> its tail
        self.failed = failed  # the log that showed the failure first, if any
        self.message = message

    @property
    def ok(self) -> bool:
        return self.reason == "exited" and self.returncode == 0

    def __repr__(self) -> str:
        return (
            f"LaunchResult(reason={self.reason!r}, returncode={self.returncode!r}, "
            f"seconds={self.seconds:.1f}, failed={self.failed!r})"
        )


def read_tail(path: str, cap: int = TAIL_BYTES) -> str:
    """The last ``cap`` bytes of a file as text ('' if it cannot be read)."""
    try:
        data, _size = limits.read_tail(path, cap)
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def worker_logs(log_dir: str) -> Dict[str, str]:
    """``worker_*.log`` in ``log_dir`` (msrun's names), each by its tail."""
    try:
        names = sorted(
            n for n in os.listdir(log_dir) if n.startswith("worker_") and n.endswith(".log")
        )
    except OSError:
        return {}
    return {n: read_tail(os.path.join(log_dir, n)) for n in names}


def last_line(text: str, width: int = 100) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def failed_worker(output: str, logs: Mapping[str, str]) -> Optional[str]:
    """The worker log that shows a failure (a Python traceback); else ``"launcher"`` when
    only the launcher's output says a worker failed; else ``None``."""
    for name, text in logs.items():
        if WORKER_TRACEBACK in text:
            return name
    if LAUNCHER_SAW_FAILURE.search(output):
        return "launcher"
    return None


def _tree(pid: int) -> List[psutil.Process]:
    """Every live descendant of ``pid`` as a ``psutil.Process`` (workers in their own
    sessions included, found by their parent links)."""
    try:
        return list(psutil.Process(pid).children(recursive=True))
    except (psutil.Error, OSError):
        return []


def descendants(pid: int) -> List[int]:
    """The pids of every live descendant of ``pid``."""
    return [p.pid for p in _tree(pid)]


def _kill(procs: Sequence[psutil.Process]) -> None:
    """SIGKILL each process, unless its pid now names another process: psutil checks the
    start time (pids are reused quickly where pid_max is 32768)."""
    for p in procs:
        try:
            p.kill()
        except (psutil.Error, OSError):
            pass


def stop_tree(proc: "subprocess.Popen[bytes]", wait: float = 5.0) -> None:
    """SIGINT to the launcher (msrun then kills its workers and scheduler), then SIGKILL to
    every process of the tree still alive after ``wait`` seconds."""
    tree = _tree(proc.pid)  # before the launcher exits and its children are reparented
    try:
        os.kill(proc.pid, signal.SIGINT)  # our own child, not yet reaped: its pid is its own
    except OSError:
        pass
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    if proc.poll() is None:
        tree += _tree(proc.pid)
        proc.kill()
    _kill(tree)
    proc.wait()


def print_progress() -> Progress:
    """One progress line, redrawn in place in a notebook (an IPython display handle), or a
    printed line every 30 s elsewhere."""
    handle = None
    last_print = 0.0
    try:
        from IPython import get_ipython
        from IPython.display import display

        if get_ipython() is not None:
            handle = display("", display_id=True)
    except ImportError:
        handle = None

    def show(seconds: float, tails: Dict[str, str]) -> None:
        nonlocal last_print
        parts = [f"{name}: {last_line(text, 60)}" for name, text in tails.items()]
        line = " | ".join([i18n._(RUNNING).format("msrun", seconds)] + parts)
        if handle is not None:
            handle.update(line)
        elif seconds - last_print >= 30.0:
            last_print = seconds
            print(line, flush=True)

    return show


def run_workers(
    cmd: Sequence[str],
    log_dir: str,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    timeout: float = 300.0,
    grace: float = 10.0,
    poll: float = 0.5,
    progress: Optional[Progress] = None,
) -> LaunchResult:
    """Run ``cmd`` (a list, no shell) until it exits, a worker fails and the launcher is still
    running ``grace`` seconds later, or ``timeout``; see the module's docstring."""
    launcher = os.path.basename(cmd[0]) if cmd else "launcher"
    show = progress if progress is not None else print_progress()
    start = time.monotonic()
    failed_at = None  # type: Optional[float]
    failed = None  # type: Optional[str]
    reason = "exited"
    with tempfile.TemporaryDirectory(prefix="ascend-lab-launch-") as tmp:
        out_path = os.path.join(tmp, "launcher.out")
        with open(out_path, "ab") as out:  # O_APPEND: the launcher writes, we read the tail
            proc = subprocess.Popen(
                list(cmd), env=dict(env) if env is not None else None, cwd=cwd,
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        try:
            while proc.poll() is None:
                elapsed = time.monotonic() - start
                logs = worker_logs(log_dir)
                if failed is None:
                    failed = failed_worker(read_tail(out_path), logs)
                    if failed is not None:
                        failed_at = elapsed
                if failed_at is not None and elapsed - failed_at >= grace:
                    reason = "worker-failed"
                    stop_tree(proc)
                    break
                if elapsed >= timeout:
                    reason = "timeout"
                    stop_tree(proc)
                    break
                show(elapsed, logs)
                time.sleep(poll)
        except BaseException:  # KeyboardInterrupt in a notebook: leave no worker behind
            stop_tree(proc)
            raise
        seconds = time.monotonic() - start
        output = read_tail(out_path)
    logs = worker_logs(log_dir)
    if failed is None:
        failed = failed_worker(output, logs) if proc.returncode else None
    if reason == "worker-failed":
        message = i18n._(FAILED_EARLY).format(failed, failed_at or 0.0, launcher, grace)
    elif reason == "timeout":
        message = i18n._(TIMED_OUT).format(launcher, timeout)
    else:
        message = ""
    return LaunchResult(
        reason, proc.returncode if reason == "exited" else None, seconds, output, logs, failed,
        message,
    )  # fmt: skip

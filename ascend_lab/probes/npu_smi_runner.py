"""Run ``npu-smi`` safely: list argv, no shell, a timeout, a byte cap, the process group killed.

Every failure is returned as a short reason for the status ("npu-smi timed out after 5 s"),
never raised.
"""

import os
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ascend_lab.i18n import msg

# notebook images often leave /usr/local/sbin (where the driver puts npu-smi) off PATH
_EXTRA_DIRS = ("/usr/local/sbin", "/usr/local/bin")
# Real `npu-smi info` output is a few KiB even on 16-chip boards; 1 MiB is far beyond it.
MAX_OUTPUT = 1024 * 1024
_CHUNK = 64 * 1024


@dataclass
class RunResult:
    ok: bool
    stdout: str = ""
    reason: str = ""  # why not ok, for the status
    returncode: Optional[int] = None
    seconds: float = 0.0
    timed_out: bool = False
    stderr: str = ""  # what it printed on stderr (capped like stdout)


def find_npu_smi(path_env: Optional[str] = None) -> Optional[str]:
    """Absolute path of ``npu-smi`` on ``PATH`` (then /usr/local/sbin), or ``None``."""
    path = os.environ.get("PATH", "") if path_env is None else path_env
    dirs = [d for d in path.split(os.pathsep) if d]
    for extra in _EXTRA_DIRS:
        if extra not in dirs:
            dirs.append(extra)
    for d in dirs:
        candidate = os.path.join(d, "npu-smi")
        if os.path.isfile(candidate):
            return candidate
    found = shutil.which("npu-smi", path=os.pathsep.join(dirs))
    return found


def _kill_group(proc: "subprocess.Popen[bytes]") -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def run_npu_smi(
    executable: str, args: List[str], timeout: float = 5.0, max_bytes: int = MAX_OUTPUT
) -> RunResult:
    """Run ``[executable, *args]`` with ``timeout`` seconds; never raises."""
    return run_capped(executable, args, timeout, max_bytes)


def run_capped(
    executable: str,
    args: List[str],
    timeout: float,
    max_bytes: int = MAX_OUTPUT,
    env: Optional[Dict[str, str]] = None,
    label: str = "npu-smi",
) -> RunResult:
    """Run ``[executable, *args]`` in ``env`` (default: ours, in the C locale); never raises.

    stdout and stderr are read as they come, at most ``max_bytes`` each: a tool that floods
    its output is killed (with its whole process group) as soon as it passes the cap, so
    memory stays bounded whatever it prints. ``label`` names the tool in the reasons.
    """
    start = time.monotonic()
    if not os.path.exists(executable):
        return RunResult(False, reason=msg("{} not found at {}", label, executable))
    if os.path.isdir(executable) or not os.access(executable, os.X_OK):
        return RunResult(False, reason=msg("{} at {} is not executable", label, executable))
    try:
        proc = subprocess.Popen(
            [executable, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a kill reaches its children
            env=dict(os.environ if env is None else env, LC_ALL="C", LANG="C"),
        )
    except OSError as e:
        return RunResult(
            False,
            reason=msg(
                "{} at {} could not be started: {}",
                label,
                executable,
                e.strerror or e.__class__.__name__,
            ),
        )
    try:
        outcome, out, err = _read_capped(proc, start + timeout, max_bytes)
        if outcome == "done":
            try:
                proc.wait(timeout=max(0.0, start + timeout - time.monotonic()))
            except subprocess.TimeoutExpired:
                outcome = "timeout"  # closed its output but kept running
    finally:
        if proc.poll() is None:
            _kill_group(proc)
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    seconds = time.monotonic() - start
    if outcome == "timeout":
        return RunResult(
            False,
            reason=msg("{} timed out after {} s", label, f"{timeout:g}"),
            seconds=seconds,
            timed_out=True,
        )
    if outcome == "flood":
        return RunResult(
            False,
            reason=msg("{} printed more than {} KiB; stopped it", label, max_bytes // 1024),
            seconds=seconds,
        )
    text = out.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        first = first_line(err.decode("utf-8", errors="replace")) or first_line(text)
        reason = msg("{} exited with code {}", label, proc.returncode)
        if first:
            reason = msg("{}: {}", reason, first)
        return RunResult(
            False, text, reason, proc.returncode, seconds,
            stderr=err.decode("utf-8", errors="replace"),
        )  # fmt: skip
    return RunResult(True, text, "", proc.returncode, seconds)


def _read_capped(
    proc: "subprocess.Popen[bytes]", deadline: float, max_bytes: int
) -> Tuple[str, bytes, bytes]:
    """Read stdout and stderr until both close (``"done"``), the deadline passes
    (``"timeout"``) or either passes ``max_bytes`` (``"flood"``)."""
    chunks: Dict[int, List[bytes]] = {}
    sizes: Dict[int, int] = {}
    with selectors.DefaultSelector() as sel:
        for stream in (proc.stdout, proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ)
            chunks[stream.fileno()] = []
            sizes[stream.fileno()] = 0
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout", b"", b""
            for key, _ in sel.select(remaining):
                fd = key.fd
                try:
                    data = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not data:
                    sel.unregister(fd)
                    continue
                sizes[fd] += len(data)
                if sizes[fd] > max_bytes:
                    return "flood", b"", b""
                chunks[fd].append(data)
    assert proc.stdout is not None and proc.stderr is not None
    return (
        "done",
        b"".join(chunks[proc.stdout.fileno()]),
        b"".join(chunks[proc.stderr.fileno()]),
    )


def first_line(text: str) -> str:
    """The first line of ``text`` that is not blank, stripped, at most 200 characters."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return ""

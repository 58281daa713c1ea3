"""Run ``npu-smi`` safely: list argv, no shell, a timeout, the whole process group killed.

Every failure is returned as a short reason for the status ("npu-smi timed out after 5 s"),
never raised.
"""

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import List, Optional

# notebook images often leave /usr/local/sbin (where the driver puts npu-smi) off PATH
_EXTRA_DIRS = ("/usr/local/sbin", "/usr/local/bin")
_MAX_OUTPUT = 4 * 1024 * 1024


@dataclass
class RunResult:
    ok: bool
    stdout: str = ""
    reason: str = ""  # why not ok, for the status
    returncode: Optional[int] = None
    seconds: float = 0.0
    timed_out: bool = False


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


def run_npu_smi(executable: str, args: List[str], timeout: float = 5.0) -> RunResult:
    """Run ``[executable, *args]`` with ``timeout`` seconds; never raises."""
    start = time.monotonic()
    if not os.path.exists(executable):
        return RunResult(False, reason=f"npu-smi not found at {executable}")
    if os.path.isdir(executable) or not os.access(executable, os.X_OK):
        return RunResult(False, reason=f"npu-smi at {executable} is not executable")
    try:
        proc = subprocess.Popen(
            [executable, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # so a timeout can kill its children too
            env=dict(os.environ, LC_ALL="C", LANG="C"),
        )
    except OSError as e:
        return RunResult(
            False,
            reason=f"npu-smi at {executable} could not be started: "
            f"{e.strerror or e.__class__.__name__}",
        )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            proc.communicate(timeout=2)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass
        return RunResult(
            False,
            reason=f"npu-smi timed out after {timeout:g} s",
            seconds=time.monotonic() - start,
            timed_out=True,
        )
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    seconds = time.monotonic() - start
    text = out[:_MAX_OUTPUT].decode("utf-8", errors="replace")
    if proc.returncode != 0:
        first = _first_line(err.decode("utf-8", errors="replace")) or _first_line(text)
        reason = f"npu-smi exited with code {proc.returncode}"
        if first:
            reason += ": " + first
        return RunResult(False, text, reason, proc.returncode, seconds)
    return RunResult(True, text, "", proc.returncode, seconds)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return ""

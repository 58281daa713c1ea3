"""Run ``mindspore.run_check()`` in a subprocess, only when asked (it imports MindSpore)."""

import subprocess
import sys
import time
from typing import Optional

from ascend_lab.model.device_status import RunCheck

_CODE = "import mindspore\nmindspore.run_check()\n"


def run_check(timeout: float = 180.0, python: Optional[str] = None) -> RunCheck:
    """Run MindSpore's self-test in a fresh interpreter; never raises."""
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [python or sys.executable, "-c", _CODE],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return RunCheck(False, f"run_check timed out after {timeout:g} s", time.monotonic() - start)
    except OSError as e:
        return RunCheck(False, f"could not start Python: {e}", time.monotonic() - start)
    output = proc.stdout.decode("utf-8", errors="replace")[-8000:]
    ok = proc.returncode == 0 and "successfully" in output.lower()
    return RunCheck(ok, output.strip(), time.monotonic() - start)

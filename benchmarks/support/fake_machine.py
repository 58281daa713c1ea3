"""The fake Ascend machine of ``benchmarks/support/fakes`` in the shape server and browser
tests use: an
environment dict for a server process, and helpers over npu-smi's call log.
"""

import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional

from benchmarks.support.fakes import ascend_machine as fakes

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
INFO_910B3 = FIXTURES / "npu_smi" / "info_910b3_x8_npu-smi-25.2.0.txt"

# The one process row of the 910B3 fixture (its name column is blank).
_PROCESS_ROW = "| 2       0                 | 1333928       |                          |"


def info_with_process_name(name: str) -> str:
    """The 910B3 x8 output with ``name`` in the process-name column of its one process."""
    text = INFO_910B3.read_text(encoding="utf-8")
    assert _PROCESS_ROW in text
    prefix = _PROCESS_ROW[: _PROCESS_ROW.index("1333928") + len("1333928       |")]
    return text.replace(_PROCESS_ROW, prefix + " " + name.ljust(25) + "|")


def make_fake_machine(
    folder: Path, info_text: Optional[str] = None, hang: bool = False
) -> Dict[str, str]:
    """The shared fake Ascend machine (``benchmarks/support/fakes``) as the environment variables a
    server
    needs (``PATH``, ``ASCEND_LAB_ASCEND_ROOT``, ``PYTHONPATH`` with the pinned MindSpore
    first), plus ``CALLS``: the file each npu-smi call appends a line to, and ``SITE``: the
    folder pinning the MindSpore version (see :func:`apply`)."""
    machine = fakes.make_fake_machine(
        folder, info_text=info_text, behaviour="hang" if hang else "print", hang_seconds=600
    )
    open(machine.log, "a").close()
    assert machine.site is not None
    return {
        "PATH": machine.bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "ASCEND_LAB_ASCEND_ROOT": machine.root,
        "PYTHONPATH": _pythonpath(machine.site),
        "CALLS": machine.log,
        "SITE": machine.site,
    }


def cpu_machine_env(folder: Path) -> Dict[str, str]:
    """Environment for a machine with no npu-smi and no Ascend install (MindSpore pinned)."""
    empty = folder / "no-ascend"
    (empty / "bin").mkdir(parents=True, exist_ok=True)
    site = fakes.pin_mindspore(str(folder / "site"), fakes.PINNED_MINDSPORE)
    return {
        "PATH": str(empty / "bin")
        + os.pathsep
        + os.path.dirname(sys.executable)
        + os.pathsep
        + "/usr/bin:/bin",
        "ASCEND_LAB_ASCEND_ROOT": str(empty / "Ascend"),
        "PYTHONPATH": _pythonpath(site),
        "SITE": site,
    }


def _pythonpath(site: str) -> str:
    rest = os.environ.get("PYTHONPATH")
    return site + (os.pathsep + rest if rest else "")


def apply(env: Dict[str, str], monkeypatch: Any) -> Dict[str, str]:
    """Make this process (an in-process jupyter_server) see the machine ``env`` describes."""
    monkeypatch.setenv("PATH", env["PATH"])
    monkeypatch.setenv("ASCEND_LAB_ASCEND_ROOT", env["ASCEND_LAB_ASCEND_ROOT"])
    monkeypatch.syspath_prepend(env["SITE"])
    return env


def call_count(calls_file: str, subcommand: str = "info") -> int:
    """How many times npu-smi was run as plain ``npu-smi info`` (the table)."""
    lines = Path(calls_file).read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() == subcommand)

"""The fake Ascend machine of ``tests/fakes`` in the shape server and browser tests use: an
environment dict for a server process, and helpers over npu-smi's call log.
"""

import os
import sys
from pathlib import Path
from typing import Dict, Optional

from tests.fakes import ascend_machine as fakes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
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
    """The shared fake Ascend machine (``tests/fakes``) as the environment variables a server
    needs (``PATH``, ``ASCEND_LAB_ASCEND_ROOT``), plus ``CALLS``: the file each npu-smi call
    appends a line to."""
    machine = fakes.make_fake_machine(
        folder, info_text=info_text, behaviour="hang" if hang else "print", hang_seconds=120
    )
    open(machine.log, "a").close()
    return {
        "PATH": machine.bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "ASCEND_LAB_ASCEND_ROOT": machine.root,
        "CALLS": machine.log,
    }


def cpu_machine_env(folder: Path) -> Dict[str, str]:
    """Environment for a machine with no npu-smi and no Ascend install."""
    empty = folder / "no-ascend"
    (empty / "bin").mkdir(parents=True, exist_ok=True)
    return {
        "PATH": str(empty / "bin")
        + os.pathsep
        + os.path.dirname(sys.executable)
        + os.pathsep
        + "/usr/bin:/bin",
        "ASCEND_LAB_ASCEND_ROOT": str(empty / "Ascend"),
    }


def call_count(calls_file: str, subcommand: str = "info") -> int:
    """How many times npu-smi was run as plain ``npu-smi info`` (the table)."""
    lines = Path(calls_file).read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() == subcommand)

"""A fake Ascend machine for server and browser tests: an ``npu-smi`` on PATH that prints a
recorded output and logs each call, plus a copy of a recorded ``/usr/local/Ascend`` tree.
"""

import os
import shutil
import sys
from pathlib import Path
from typing import Dict, Optional

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INFO_910B3 = FIXTURES / "npu_smi" / "info_910b3_x8_npu-smi-25.2.0.txt"

# The one process row of the 910B3 fixture (its name column is blank).
_PROCESS_ROW = "| 2       0                 | 1333928       |                          |"

_SCRIPT = """#!{python}
# fake npu-smi written by tests/server/fake_machine.py
import sys, time
with open({calls!r}, "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
if {hang!r}:
    time.sleep(120)
args = sys.argv[1:]
if args[:1] == ["info"] and "-t" not in args:
    sys.stdout.write(open({info!r}, encoding="utf-8").read())
    sys.exit(0)
if "-t" in args:
    kind = args[args.index("-t") + 1]
    extra = {extra!r}
    if kind in extra:
        sys.stdout.write(open(extra[kind], encoding="utf-8").read())
        sys.exit(0)
if args[:1] == ["-v"]:
    sys.stdout.write("npu-smi version: 25.2.0\\n")
    sys.exit(0)
sys.stderr.write("fake npu-smi: unsupported arguments\\n")
sys.exit(2)
"""


def info_with_process_name(name: str) -> str:
    """The 910B3 x8 output with ``name`` in the process-name column of its one process."""
    text = INFO_910B3.read_text(encoding="utf-8")
    assert _PROCESS_ROW in text
    prefix = _PROCESS_ROW[: _PROCESS_ROW.index("1333928") + len("1333928       |")]
    return text.replace(_PROCESS_ROW, prefix + " " + name.ljust(25) + "|")


def make_fake_machine(
    folder: Path, info_text: Optional[str] = None, hang: bool = False
) -> Dict[str, str]:
    """Create ``folder/bin/npu-smi`` and ``folder/Ascend``; return environment variables
    (``PATH``, ``ASCEND_LAB_ASCEND_ROOT``) that make this process see an Ascend machine, and
    ``CALLS``: the file each npu-smi call appends a line to."""
    bindir = folder / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    info = folder / "npu_smi_info.txt"
    info.write_text(
        info_text if info_text is not None else INFO_910B3.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    calls = folder / "npu_smi_calls.log"
    calls.write_text("", encoding="utf-8")
    extra = {
        "board": str(FIXTURES / "npu_smi" / "board_npu0.txt"),
        "usages": str(FIXTURES / "npu_smi" / "usages_npu0.txt"),
        "health": str(FIXTURES / "npu_smi" / "health_npu0_chip0.txt"),
    }
    script = bindir / "npu-smi"
    script.write_text(
        _SCRIPT.format(
            python=sys.executable, calls=str(calls), hang=hang, info=str(info), extra=extra
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    root = folder / "Ascend"
    if not root.exists():
        shutil.copytree(str(FIXTURES / "ascend_tree"), str(root), symlinks=True)
    return {
        "PATH": str(bindir) + os.pathsep + os.environ.get("PATH", ""),
        "ASCEND_LAB_ASCEND_ROOT": str(root),
        "CALLS": str(calls),
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

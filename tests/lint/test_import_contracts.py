"""The import contracts of .importlinter (run by `make lint`) hold, and they can fail.

The failing cases plant an import in a temporary copy of the package (only its ``.py``
files) and run ``lint-imports`` on the copy with the same config.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(cwd: Path, pythonpath: Optional[Path] = None) -> Tuple[int, str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    proc = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=str(cwd),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode, proc.stdout + proc.stderr


def _only_python(folder: str, names: List[str]) -> List[str]:
    return [
        n
        for n in names
        if n == "__pycache__"
        or (not n.endswith(".py") and not os.path.isdir(os.path.join(folder, n)))
    ]


def copy_with(tmp_path: Path, rel: str, append: str) -> Path:
    """A copy of the package and its .importlinter with ``append`` added to ``rel``."""
    shutil.copytree(ROOT / "ascend_lab", tmp_path / "ascend_lab", ignore=_only_python)
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    target = tmp_path / "ascend_lab" / rel
    target.write_text(target.read_text(encoding="utf-8") + append, encoding="utf-8")
    return tmp_path


def test_the_real_tree_keeps_every_contract():
    code, out = lint_imports(ROOT)
    assert code == 0, out
    assert "0 broken" in out
    assert "Only the capture code imports MindSpore" in out


# (file planted in, import planted, the broken contract's line, the chain it prints)
PLANTED = [
    # MindSpore imported by a parser
    (
        "parsers/ir/ir_text.py",
        "import mindspore",
        "ascend_lab.parsers is not allowed to import mindspore",
        "ascend_lab.parsers.ir.ir_text -> mindspore",
    ),
    # the graph model reaching up into the payload (lazily: function-level imports count)
    (
        "model/graph.py",
        "from ascend_lab.payload import build",
        "ascend_lab.model is not allowed to import ascend_lab.payload",
        "ascend_lab.model.graph -> ascend_lab.payload.build",
    ),
    # a parser reaching up into an analysis (the stages' layers)
    (
        "parsers/npu_smi.py",
        "from ascend_lab.analysis import compat",
        "ascend_lab.parsers is not allowed to import ascend_lab.analysis",
        "ascend_lab.parsers.npu_smi -> ascend_lab.analysis.compat",
    ),
    # the renderer reaching into a capture (siblings below it, but not the other way)
    (
        "capture/profiler.py",
        "from ascend_lab.render import widgets",
        "ascend_lab.capture is not allowed to import ascend_lab.render",
        "ascend_lab.capture.profiler -> ascend_lab.render.widgets",
    ),
    # a device probe reaching up into the support bundle (a feature)
    (
        "probes/device.py",
        "from ascend_lab.report import bundle",
        "ascend_lab.probes is not allowed to import ascend_lab.report",
        "ascend_lab.probes.device -> ascend_lab.report.bundle",
    ),
    # the viewer dispatching a report bundle itself (wired in cli.py since issue #25)
    (
        "viewfile/cli.py",
        "from ascend_lab.report import view",
        "ascend_lab.viewfile is not allowed to import ascend_lab.report",
        "ascend_lab.viewfile.cli -> ascend_lab.report.view",
    ),
]


@pytest.mark.parametrize("rel, planted, broken, chain", PLANTED)
def test_a_planted_import_breaks_a_contract(tmp_path, rel, planted, broken, chain):
    copy = copy_with(tmp_path, rel, f"\n\ndef _planted():\n    {planted}\n")
    code, out = lint_imports(copy, copy)
    assert code != 0, out
    assert broken in out and chain in out, out

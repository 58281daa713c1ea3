"""Execute every course notebook top to bottom on CPU, in a read-only copy of notebooks/."""

import hashlib
import os
import shutil
import stat

import pytest

import ascend_lab
from tests.course.nbrun import EXPECTED, NOTEBOOKS, execute, output_text, tagged


def snapshot(folder):
    out = {}
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, folder)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def read_only_copy(tmp_path):
    copy = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"))
    for dirpath, _dirs, files in os.walk(copy):
        for name in files:
            os.chmod(os.path.join(dirpath, name), 0o444)
        os.chmod(dirpath, 0o550)
    return copy


@pytest.mark.mindspore
@pytest.mark.slow
@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs_top_to_bottom(name, tmp_path, monkeypatch):
    copy = read_only_copy(tmp_path)
    before = snapshot(str(copy))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # no __pycache__ next to course_nets
    try:
        nb = execute(str(copy / name))  # raises CellExecutionError on any error
    finally:
        for dirpath, _dirs, _files in os.walk(copy):
            os.chmod(dirpath, stat.S_IRWXU)
    # nothing was written into the notebooks folder (root ignores the read-only bits)
    assert snapshot(str(copy)) == before
    # the device was chosen automatically, with a note of what differs on CPU
    first = output_text([c for c in nb.cells if c.cell_type == "code"][0])
    if ascend_lab.status().mode == "ascend":
        assert "device: Ascend" in first
    else:
        assert "device: CPU" in first and "NOTE:" in first
    # every self-check passed with the notebook's default answers
    checks = tagged(nb, "self-check")
    assert len(checks) >= 2
    for cell in checks:
        assert "\u2713" in output_text(cell), cell.source

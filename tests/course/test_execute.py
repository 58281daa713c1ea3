"""Execute every course notebook top to bottom on CPU, in a read-only copy of notebooks/.

Each notebook runs twice in the same kernel, as a learner does (Run All, answer, Run All
again; a second run must not trip over the first one's state, issue #41):
- as shipped (the learner's placeholders): it completes and no check says ✓;
- then with the solutions from ascend_lab.exercises put into the exercise cells: every check
  says ✓ and none says ✗ or "not answered yet".
In both runs, every warning MindSpore prints is one the notebook explains (printed_warnings).
"""

import hashlib
import os
import shutil
import stat

import nbformat
import pytest

import ascend_lab
from benchmarks.support.nbrun import EXPECTED, NOTEBOOKS, execute_twice, output_text, tagged
from tests.course.printed_warnings import unexplained
from tests.course.solutions import markers, with_solutions


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
def test_notebook_runs_top_to_bottom_twice_in_one_kernel(name, tmp_path, monkeypatch):
    copy = read_only_copy(tmp_path)
    before = snapshot(str(copy))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # no __pycache__ next to course_nets
    path = str(copy / name)
    shipped = nbformat.read(path, as_version=4)
    solved = with_solutions(nbformat.read(path, as_version=4), name.split("_")[0])
    try:
        execute_twice(shipped, solved, path)  # raises CellExecutionError on any error
    finally:
        for dirpath, _dirs, _files in os.walk(copy):
            os.chmod(dirpath, stat.S_IRWXU)
    # nothing was written into the notebooks folder (root ignores the read-only bits)
    assert snapshot(str(copy)) == before
    for mode, nb in (("as shipped", shipped), ("with solutions", solved)):
        # the device was chosen automatically, with a note of what differs on CPU
        first = output_text([c for c in nb.cells if c.cell_type == "code"][0])
        if ascend_lab.status().mode == "ascend":
            assert "device: Ascend" in first, mode
        else:
            assert "device: CPU" in first and "NOTE:" in first, mode
        # the first output is the notebook's own, not IPython's "already loaded" note
        assert "already loaded" not in first, mode
        checks = [markers(output_text(cell)) for cell in tagged(nb, "self-check")]
        assert len(checks) >= 2
        if mode == "as shipped":
            # every check answered "not answered yet", none said ✓
            assert all(c == {"right": 0, "wrong": 0, "open": 1} for c in checks), checks
        else:
            assert all(c == {"right": 1, "wrong": 0, "open": 0} for c in checks), checks
        # every line MindSpore's loggers (or Python's warnings) print is explained where it
        # appears (tests/course/printed_warnings.py says where)
        silent = unexplained(name.split("_")[0], nb)
        assert silent == [], f"{name} {mode}: printed and not explained (cell, line): {silent}"

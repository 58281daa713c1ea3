"""The doctor on a graph compile failure: the analyze_fail file the traceback names (or
``--ir PATH``) is read, and the node where inference stopped is shown with its source line
and the command that draws it (issue #36).

Texts: MindSpore's docs (tests/fixtures/real/ir_pasted, their README) and the dev half of
tests/fixtures/real/analyze_fail. Where a test needs the traceback to name a file that is on
this machine, the real traceback's path is replaced by the copy's path (said at the line).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ascend_lab.doctor.compile_failure import (
    CompileDiagnosis,
    compile_failure_from,
    find_ir_paths,
)
from ascend_lab.doctor.magic import doctor_magic

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
PASTED = REAL / "ir_pasted"
TRACEBACK_18 = PASTED / "read_ir_md_ms18_bias_add_traceback.txt"
DAT_18 = PASTED / "read_ir_md_ms18_bias_add_analyze_fail_dat_vi_numbered.dat"
NAMED_18 = "/home/workspace/mindspore/rank_0/om/analyze_fail.dat"
REPO = Path(__file__).resolve().parent.parent.parent


def _run(*args):
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONPATH=path)
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", "--no-env", *args],
        capture_output=True,
        timeout=120,
        env=env,
    )


def test_the_paths_a_traceback_names():
    assert find_ir_paths(TRACEBACK_18.read_text()) == [NAMED_18]
    ms16 = (PASTED / "read_ir_md_ms16_traceback_vi_numbered.txt").read_text()
    assert find_ir_paths(ms16) == [NAMED_18]
    assert find_ir_paths("no such file named here") == []


def test_cli_with_ir_shows_the_node_its_source_line_and_the_view_command():
    r = _run(str(TRACEBACK_18), "--ir", str(DAT_18))
    out = r.stdout.decode("utf-8")
    assert r.returncode == 1, r.stderr.decode()
    assert f"Compile failure ({DAT_18}):" in out
    assert "Inference stopped at %2 (BiasAdd) in @construct.2" in out
    assert "Source: test.py:17: x = self.bias_add(x, self.bias)" in out
    assert f"See the graph: ascend-lab view {DAT_18}" in out
    assert not r.stderr


def test_cli_json_carries_the_compile_failure():
    r = _run(str(TRACEBACK_18), "--ir", str(DAT_18), "--json")
    cf = json.loads(r.stdout.decode("utf-8"))["compile_failure"]
    assert (cf["stop"]["node"], cf["stop"]["op"], cf["stop"]["source"]) == (
        "%2",
        "BiasAdd",
        "test.py:17",
    )
    assert cf["problem"] is None and cf["view"] == f"ascend-lab view {DAT_18}"


def test_a_named_file_that_is_not_here_says_how_to_give_it():
    cf = compile_failure_from(TRACEBACK_18.read_text())
    assert cf.path == NAMED_18 and cf.point is None
    assert "not on this machine" in cf.problem and "--ir PATH" in cf.problem


def test_the_file_the_traceback_names_is_read_when_it_is_here(tmp_path):
    copy = tmp_path / "rank_0" / "om" / "analyze_fail.dat"
    copy.parent.mkdir(parents=True)
    shutil.copy(DAT_18, copy)
    text = TRACEBACK_18.read_text().replace(NAMED_18, str(copy))  # the real path, moved here
    cf = compile_failure_from(text)
    assert cf.problem is None and cf.point.stop.op == "BiasAdd"


def test_a_23_file_shows_the_error_it_holds_and_the_users_line():
    path = REAL / "analyze_fail" / "dev" / "hqkate_magvit" / "analyze_fail.ir"
    cf = compile_failure_from("", str(path))
    lines = cf.lines()
    assert lines[1] == "  Inference stopped at %3 (call) in @↓mean_30"
    assert lines[2].startswith("  Source: /disk1/mindone/") and "math_func.py:8443" in lines[2]
    assert any(line.startswith("  Error: For 'ReduceMean', the second input") for line in lines)


def test_a_fifo_named_analyze_fail_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "analyze_fail.ir"
    os.mkfifo(fifo)
    cf = compile_failure_from("", str(fifo))
    assert cf.point is None and cf.problem.startswith("cannot read it")


def test_the_cell_magic_reads_the_file_and_escapes_it_in_html(tmp_path):
    copy = tmp_path / "analyze_fail.dat"
    shutil.copy(DAT_18, copy)
    text = TRACEBACK_18.read_text().replace(NAMED_18, str(copy))  # the real path, moved here
    diag = doctor_magic(None, "", text)
    assert isinstance(diag, CompileDiagnosis)
    page = diag._repr_html_()
    assert "Inference stopped at %2 (BiasAdd) in @construct.2" in page
    assert "<li>Source: test.py:17: x = self.bias_add(x, self.bias)</li>" in page
    assert diag.to_dict()["compile_failure"]["stop"]["mark"] == 1


@pytest.mark.parametrize("lang", ["zh"])
def test_the_section_is_translated(lang):
    diag = doctor_magic(None, f"--lang {lang}", TRACEBACK_18.read_text())
    assert "编译失败" in diag.to_text()

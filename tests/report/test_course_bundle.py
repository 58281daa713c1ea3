"""``ascend-lab report --course``: the course's net recorded into a labelled bundle, and the
bundle cells of notebooks 03, 05 and 10 rendering it (issue #39).

We have no NPU: the recording here runs on CPU with real MindSpore, through the same code an
NPU run takes (the device is chosen at run time), and must say everywhere that it is a CPU
recording. The NPU rendering is checked on the same bundle with its manifest rewritten to say
the trace ran on the Ascend backend (as test_npu_bundles does).
"""

import contextlib
import io
import json
import os
import re
import shutil
import time

import pytest

from ascend_lab.report import course_bundle_text
from ascend_lab.report.course import (
    RECORD_COMMAND,
    course_bundles,
    course_label,
    default_course_out,
    recorded_on,
)
from ascend_lab.report.npu import bundle_kernel_graphs, read_manifest

from .conftest import extract, manifest, run_cli
from .test_npu_bundles import FAKE, _rewrite_manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOKS = {
    "03": "03_graph_compilation.md",
    "05": "05_execution_on_device.md",
    "10": "10_day_one_on_ascend.md",
}
CPU_LABEL = "recorded on CPU: this is not an NPU run"
CELL = re.compile(r"```\{code-cell\}\n(.*?)```", re.S)


def bundle_cell(edition: str, nb: str) -> str:
    """The source of notebook ``nb``'s bundle cell (the one calling course_bundle_text)."""
    folder = os.path.join(ROOT, "notebooks", *([] if edition == "en" else ["zh"]), "src")
    with open(os.path.join(folder, NOTEBOOKS[nb]), encoding="utf-8") as f:
        cells = [c for c in CELL.findall(f.read()) if "course_bundle_text(" in c]
    assert len(cells) == 1, (edition, nb, len(cells))
    return cells[0]


def run_cell(source: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<bundle cell>", "exec"), namespace)  # noqa: S102 - our notebook
    return out.getvalue()


def test_without_a_bundle_each_cell_names_the_command_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for nb in NOTEBOOKS:
        text = course_bundle_text(nb, str(tmp_path / "bundles"))
        assert text.count("\n") == 0 and f"`{RECORD_COMMAND}`" in text
    with pytest.raises(ValueError):
        course_bundle_text("04", str(tmp_path))


def test_a_fake_ascend_machine_bundle_renders_as_cpu_in_every_notebook(tmp_path):
    # npu-smi of the fake machine lists 910B3 chips, but its trace ran on CPU
    shutil.copy(FAKE, tmp_path / "910b3-looks-real.tar.gz")
    assert recorded_on(read_manifest(FAKE)) == "cpu"
    texts = {nb: course_bundle_text(nb, str(tmp_path)) for nb in NOTEBOOKS}
    for nb, text in texts.items():
        assert CPU_LABEL in text.splitlines()[0], nb
        assert "recorded on an NPU" not in text
    assert "jit_level O0 (before fusion), kernels 3: Conv2D, BatchNorm, ReLU" in texts["03"]
    assert "O1 does not fuse on CPU" in texts["03"]
    assert "status: ascend mode, 8 NPU chip(s)" in texts["10"]


def test_the_label_and_the_default_file_name():
    status = {"mode": "ascend", "chips": [{"name": "910B3"}, {"name": "910B3"}]}
    versions = {"mindspore": "2.3.1", "cann": "8.0.RC2", "packages": {"ascend-lab": "0.1.0"}}
    npu = course_label(status, versions, "Ascend")
    assert npu["recorded_on"] == "ascend"
    assert npu["course"]["device"] == "Ascend" and npu["course"]["chip"] == "910B3"
    assert npu["course"]["versions"]["cann"] == "8.0.RC2"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", npu["course"]["date"])
    name = os.path.basename(default_course_out(npu))
    assert name == "ascend-910B3-ms2.3.1-{}.tar.gz".format(npu["course"]["date"].replace("-", ""))
    # an NPU machine whose MindSpore fell back to CPU: a CPU recording, named as one
    cpu = course_label(status, versions, "CPU")
    assert cpu["recorded_on"] == "cpu" and cpu["course"]["device"] == "CPU"
    assert os.path.basename(default_course_out(cpu)).startswith("cpu-ms2.3.1-")
    # in a source checkout the default is the course's bundles/ folder
    assert os.path.dirname(default_course_out(cpu)) == os.path.join(ROOT, "notebooks", "bundles")


@pytest.fixture(scope="module")
def cpu_bundle(tmp_path_factory):
    """One ``ascend-lab report --course`` run on this (CPU) machine: (folder, path, result)."""
    work = tmp_path_factory.mktemp("course")
    folder = work / "bundles"
    folder.mkdir()
    out = folder / "recorded-here.tar.gz"
    paths = [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))  # this checkout's code
    made = run_cli(["report", "--course", "--out", str(out)], env, str(work), timeout=600)
    return str(folder), str(out), made


@pytest.mark.mindspore
def test_course_records_a_cpu_bundle_labelled_as_cpu(cpu_bundle, tmp_path):
    folder, out, made = cpu_bundle
    assert made.returncode == 0, made.stderr
    # progress while it runs (stderr), then where it went and what it is
    for step in ("tracing the course's ConvBNReLU", "trace jit_level=O0: ok", "profile (3 steps)"):
        assert step in made.stderr, made.stderr
    assert "Recorded on CPU (not an NPU run" in made.stdout and out in made.stdout
    m = manifest(extract(out, str(tmp_path / "x")))
    assert m["recorded_on"] == "cpu" and m["trace_device"] == "CPU"
    course = m["course"]
    assert course["device"] == "CPU" and course["chip"] is None
    assert course["date"] == m["created"][:10]
    import importlib.metadata as metadata  # noqa: PLC0415 - Python >= 3.8

    assert course["versions"]["mindspore"] == metadata.version("mindspore")
    assert "Conv2d(3->16" in course["net"]
    ok = {e["item"] for e in m["entries"] if e["status"] == "ok"}
    for item in (
        "trace jit_level=O0",
        "trace jit_level=O1",
        "profile (3 steps)",
        "IR dumps, jit_level=O0",
        "IR dumps, jit_level=O1",
        "profile output",
    ):
        assert item in ok, item
    assert course_bundles(folder) == [(out, read_manifest(out))]


@pytest.mark.mindspore
@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_notebooks_bundle_cells_render_the_cpu_bundle(cpu_bundle, edition, monkeypatch):
    """Each notebook's own cell, run with this run's values, beside the recorded bundle."""
    from ascend_lab.report.bundle import read_bundle
    from ascend_lab.report.course import _bundle_profile

    folder, out, made = cpu_bundle
    assert made.returncode == 0, made.stderr
    monkeypatch.chdir(os.path.dirname(folder))  # the cells find ./bundles first
    monkeypatch.setenv("ASCEND_LAB_LANG", "en")  # the labels checked are the English ones
    graphs = bundle_kernel_graphs(out)
    profile = _bundle_profile(read_bundle(out))
    here = {
        "plain": graphs["O0"],  # 03: this run's kernel graph
        "measured": profile,  # 05: this run's profile
        "DEVICE": "CPU",
    }
    text = {nb: run_cell(bundle_cell(edition, nb), dict(here)) for nb in ("03", "05")}
    # 10: its jit_level table's rows, (level, compile s, step s, kernels)
    rows = [(lvl, 1.0, 0.001, [k.op for k in g.kernels]) for lvl, g in graphs.items()]
    text["10"] = run_cell(bundle_cell(edition, "10"), dict(here, measured=rows))
    name = os.path.basename(out)
    for nb, printed in text.items():
        assert printed.startswith(f"Bundle {name}: {CPU_LABEL} (MindSpore "), (nb, printed)
    assert "this run (CPU), kernels 3: Conv2D, BatchNorm, ReLU" in text["03"]
    assert "jit_level O1 (O1 does not fuse on CPU), kernels 3" in text["03"]
    conv = [ln for ln in text["05"].splitlines() if ln.startswith("Conv2D ")]
    assert len(conv) == 1 and len(conv[0].split()) == 5  # op, core, mean us, %, this run %
    assert "versions: MindSpore " in text["10"] and "status: cpu mode, 0 NPU chip(s)" in text["10"]
    assert "jit_level O0: bundle 3 (ok, " in text["10"] and "; this run 3 kernels" in text["10"]


@pytest.mark.mindspore
def test_only_the_trace_makes_a_bundle_an_npu_one(cpu_bundle, tmp_path):
    folder, out, made = cpu_bundle
    assert made.returncode == 0, made.stderr
    # a label saying "ascend" over a CPU trace still reads as CPU
    _rewrite_manifest(out, str(tmp_path / "claims.tar.gz"), recorded_on="ascend")
    assert CPU_LABEL in course_bundle_text("03", str(tmp_path))
    # a manifest whose trace ran on the Ascend backend is an NPU recording, listed first
    m = json.loads(json.dumps(read_manifest(out)))
    course = dict(m["course"], device="Ascend", chip="910B3")
    npu = str(tmp_path / "npu.tar.gz")
    _rewrite_manifest(out, npu, trace_device="Ascend", recorded_on="ascend", course=course)
    assert [p for p, _m in course_bundles(str(tmp_path))][0] == npu
    text = course_bundle_text("03", str(tmp_path))
    assert text.startswith("Bundle npu.tar.gz: recorded on an NPU (910B3), MindSpore ")
    assert "jit_level O1 (after fusion)" in text and CPU_LABEL not in text
    assert "(1 more bundle(s) in " in text


def test_a_bundle_missing_or_spoiling_its_parts_is_said_not_raised(tmp_path):
    from ascend_lab.report.bundle import Bundle, write_archive
    from ascend_lab.report.redact import Redactor

    (tmp_path / "empty").mkdir()
    (tmp_path / "bad").mkdir()
    bundle = Bundle(trace_device="CPU")
    bundle.record("IR dumps, jit_level=O0", "ok", path="trace/O0/dump")  # but none kept
    files = bundle.finish(Redactor(), True, 1 << 20, time.monotonic(), 60.0)
    write_archive(files, str(tmp_path / "empty" / "a.tar.gz"))
    assert "the bundle kept no kernel graph" in course_bundle_text("03", str(tmp_path / "empty"))
    assert "the bundle kept no profile" in course_bundle_text("05", str(tmp_path / "empty"))
    # a profile folder whose kernel table is not a profiler's: one line says why
    bundle.add_text("trace/profile/r_ascend_ms/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "x\n")
    files = bundle.finish(Redactor(), True, 1 << 20, time.monotonic(), 60.0)
    write_archive(files, str(tmp_path / "bad" / "a.tar.gz"))
    text = course_bundle_text("05", str(tmp_path / "bad"))
    assert CPU_LABEL in text and "could not read this bundle: " in text.splitlines()[-1]

"""Every committed bundle (tests/fixtures/bundles) replays; the fake one as its machine live."""

import glob
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from ascend_lab.report import doctor_from_bundle, status_from_bundle, traces_html
from ascend_lab.report.bundle import load_json, read_bundle

from .conftest import run_cli
from .test_report_fake_machine import doctor_verdicts, verdicts

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLES = os.path.join(os.path.dirname(HERE), "fixtures", "bundles")
ALL = sorted(glob.glob(os.path.join(BUNDLES, "*.tar.gz")))


def _recorder():
    spec = importlib.util.spec_from_file_location(
        "record_fake_bundle", os.path.join(BUNDLES, "record_fake_bundle.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fake_machine_bundle_is_committed():
    assert os.path.join(BUNDLES, "fake-910b3-x8.tar.gz") in ALL


@pytest.mark.parametrize("bundle", ALL, ids=os.path.basename)
def test_every_bundle_replays_status_doctor_and_traces(bundle, tmp_path):
    files = read_bundle(bundle)
    recorded = load_json(files, "status.json")
    status = status_from_bundle(bundle)
    assert status.mode == recorded["mode"] and status.reason == recorded["reason"]
    assert [c.to_dict()["name"] for c in status.chips] == [c["name"] for c in recorded["chips"]]
    diag = doctor_from_bundle(bundle)
    assert diag.checked[-1].startswith("Machine: recorded in")
    pages = traces_html(bundle, str(tmp_path / "pages"))
    assert os.path.basename(pages[0]) == "index.html"
    manifest = load_json(files, "manifest.json")
    assert manifest["schema"] == "ascend-lab.report/1" and manifest["entries"]


def test_fake_bundle_replays_as_the_fake_machine_does_live(tmp_path):
    bundle = os.path.join(BUNDLES, "fake-910b3-x8.tar.gz")
    _, env = _recorder().machine_env(str(tmp_path / "m"))
    live = json.loads(run_cli(["status", "--json", "--details"], env, str(tmp_path)).stdout)
    replayed = json.loads(
        run_cli(["status", "--json", "--from", bundle], env, str(tmp_path)).stdout
    )
    assert verdicts(replayed) == verdicts(live)
    live_doc = json.loads(run_cli(["doctor", "--json"], env, str(tmp_path)).stdout)
    replay_doc = json.loads(
        run_cli(["doctor", "--json", "--from", bundle], env, str(tmp_path)).stdout
    )
    assert doctor_verdicts(replay_doc) == doctor_verdicts(live_doc)


def test_fake_bundle_traces_open_as_standalone_viewer_pages(tmp_path):
    bundle = os.path.join(BUNDLES, "fake-910b3-x8.tar.gz")
    res = run_cli(["status", "--from", bundle], dict(os.environ), str(tmp_path))
    assert "8x910B3" in res.stdout
    out = tmp_path / "pages"
    view = subprocess.run(
        [sys.executable, "-m", "ascend_lab.report", "view", bundle, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert view.returncode == 0, view.stderr
    names = sorted(os.listdir(out))
    assert names == ["index.html", "mindir.html", "trace_O0.html", "trace_O1.html"]
    for name in ("trace_O0.html", "trace_O1.html"):
        page = (out / name).read_text()
        assert "Content-Security-Policy" in page and "ascend-lab.graph/1" in page
        assert "Conv2D" in page and "BatchNorm" in page and "ReLU" in page
    index = (out / "index.html").read_text()
    assert "trace_O0.html" in index and "Profile:" in index and "Conv2D" in index


def test_ascend_lab_view_opens_a_bundle(tmp_path):
    """`ascend-lab view BUNDLE -o DIR` writes the bundle's trace pages and an index."""
    bundle = os.path.join(BUNDLES, "fake-910b3-x8.tar.gz")
    out = tmp_path / "pages"
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "view", bundle, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert "index.html" in names and any(n.startswith("trace_O0") for n in names), names
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "trace_O0.html" in index
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not a tar")
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "view", str(bad), "-o", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2 and "not a readable ascend-lab report" in r.stderr

"""The IR fixtures are clean, and the recording script reproduces them with real MindSpore."""

import json
import subprocess
import sys

import pytest

from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.parsers.mindir.mindir import parse_mindir_file
from tests.support.ir_fixtures import FIXTURES, fixture

REPO = FIXTURES.parent.parent.parent
MS27 = FIXTURES.parent / "ir-2.7"  # the same recording run under MindSpore 2.7.0
SCRIPT = REPO / "scripts" / "record_ir_fixtures.py"


def test_fixtures_hold_no_machine_paths_and_stay_small():
    files = [p for p in FIXTURES.rglob("*") if p.is_file()]
    for p in files:
        if p.name == "README.md":
            continue
        data = p.read_bytes()
        for needle in (b"/tmp/", b"/work/", b"/root/", b"/home/", b"site-packages"):
            assert needle not in data, (p, needle)
    assert sum(p.stat().st_size for p in files) < 1_500_000
    listed = set()
    for manifest_path in FIXTURES.rglob("manifest.json"):
        manifest = json.loads(manifest_path.read_text())
        listed |= {manifest_path.parent / f for f in manifest["files"]}
    assert listed == {p for p in files if p.suffix in (".ir", ".mindir")}
    assert (FIXTURES / "README.md").is_file()


def _summary(g):
    return [(n.op, n.kind, n.scope, n.outputs, n.source, n.step) for n in g.nodes]


def test_mindspore_2_7_dumps_parse_to_the_same_kernel_graphs():
    """The parser reads MindSpore 2.7.0 dumps (tests/fixtures/ir-2.7) the same way."""
    old = parse_ir_file(next((MS27 / "conv").glob("graph_build_*.ir")))
    new = parse_ir_file(fixture("conv/graph_build_*.ir"))

    # MindSpore's own files change between releases; the user's lines must not.
    def user_lines(g):
        return [[s for s in n.source if s.startswith("<FIXTURES>")] for n in g.nodes]

    assert [x[:4] + x[5:] for x in _summary(old)] == [x[:4] + x[5:] for x in _summary(new)]
    assert user_lines(old) == user_lines(new)
    old_fused = parse_ir_file(next((MS27 / "lenet_fusion").glob("graph_build_*")))
    new_fused = parse_ir_file(fixture("lenet_fusion/graph_build_*.ir"))
    assert [n.op for n in old_fused.kernels] == [n.op for n in new_fused.kernels]
    assert "Fused_BiasAdd_ReLU_fusion" in {n.op for n in old_fused.kernels}
    for name in ("conv/conv.mindir", "control_flow/control_flow.mindir"):
        old_m = parse_mindir_file(MS27 / name)
        new_m = parse_mindir_file(FIXTURES / name)
        assert old_m.attrs["producer"] == "MindSpore 2.7.0"
        assert [(n.op, n.outputs) for n in old_m.kernels] == [
            (n.op, n.outputs) for n in new_m.kernels
        ]


@pytest.mark.mindspore
@pytest.mark.slow
def test_recording_script_reproduces_the_conv_fixtures(tmp_path):
    out = tmp_path / "ir"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--case", "conv", "--out", str(out)],
        cwd=str(tmp_path),
        check=True,
        timeout=600,
        capture_output=True,
    )
    fresh = parse_ir_file(next((out / "conv").glob("graph_build_*.ir")))
    kept = parse_ir_file(fixture("conv/graph_build_*.ir"))

    assert _summary(fresh) == _summary(kept)
    assert not (tmp_path / "akg_kernel_meta").exists()
    mindir = parse_mindir_file(out / "conv" / "conv.mindir")
    assert [n.op for n in mindir.kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    text = next((out / "conv").glob("graph_build_*.ir")).read_text()
    assert "<FIXTURES>/nets.py:" in text and str(tmp_path) not in text
    assert not list(tmp_path.glob("*.ir"))  # nothing dumped outside the temp dump folder

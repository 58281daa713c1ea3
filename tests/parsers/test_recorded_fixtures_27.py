"""The parsers read both dump dialects: MindSpore 2.10 (tests/fixtures/ir) and 2.7
(tests/fixtures/ir-2.7, recorded on Python 3.9 as on the Ascend images), with no MindSpore.

The two recordings differ in pass numbers, in the lines MindSpore prints for its own files and
in some primitive attributes; the graphs the user sees (ops, scopes, shapes, the user's source
lines, fused kernels) must be the same. The Python 3.8 leg of `make test` runs these with
no MindSpore installed.
"""

import json
from pathlib import Path

import pytest

from ascend_lab.model.graph import TensorType
from ascend_lab.parsers.ir.ir_text import parse_ir_file, read_ir_counts, read_ir_header
from ascend_lab.parsers.mindir.mindir import parse_mindir_file
from tests.support.ir_fixtures import source_line

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
DIALECTS = {"2.10.0": ROOT / "ir", "2.7.0": ROOT / "ir-2.7"}
# What differs between the recordings, written down from the files.
GRAPH_BUILD = {"2.10.0": "graph_build_0_0094.ir", "2.7.0": "graph_build_0_0090.ir"}
CONV_PY_LINES = {"2.10.0": ["372", "373"], "2.7.0": ["365", "366"]}
BIAS_ADD_FEATURE_MAP_INPUTS = {"2.10.0": "(0, 2)", "2.7.0": "(0)"}


@pytest.fixture(params=sorted(DIALECTS), ids=lambda v: f"ms{v}")
def dialect(request):
    return request.param


def one(version: str, pattern: str) -> Path:
    found = sorted(DIALECTS[version].glob(pattern))
    assert len(found) == 1, (version, pattern, found)
    return found[0]


def test_the_2_7_recording_is_small_clean_and_listed():
    folder = DIALECTS["2.7.0"]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["mindspore"] == "2.7.0" and manifest["python"].startswith("3.9.")
    files = {p for p in folder.rglob("*") if p.is_file()}
    assert {folder / f for f in manifest["files"]} == {
        p for p in files if p.suffix in (".ir", ".mindir")
    }
    assert sum(p.stat().st_size for p in files) < 400_000
    for p in files:
        data = p.read_bytes()
        for needle in (b"/tmp/", b"/work/", b"/root/", b"/home/", b"site-packages/"):
            assert needle not in data, (p, needle)


def test_conv_kernel_graph(dialect):
    path = one(dialect, "conv/graph_build_*.ir")
    assert path.name == GRAPH_BUILD[dialect]
    g = parse_ir_file(path)
    assert g.name == "kernel_graph0"
    assert [k.op for k in g.kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    assert [k.step for k in g.kernels] == [0, 1, 2, 3]
    assert read_ir_header(path.read_text())["cnodes"] == 16
    assert len([n for n in g.nodes if n.kind == "op"]) == 16
    (conv,) = [n for n in g.nodes if n.op == "Conv2D"]
    assert (conv.name, conv.scope) == ("Default/conv-Conv2d/Conv2D-op0", "Default/conv-Conv2d")
    assert conv.outputs == [TensorType("Float32", (1, 8, 16, 16), "Float32", "DefaultFormat")]
    assert conv.inputs[0] == "%para7_x"
    # the user's lines are the same in both; MindSpore's own lines moved between releases
    assert conv.source[:2] == ["<FIXTURES>/nets.py:19", "<FIXTURES>/nets.py:20"]
    assert "self.conv(x)" in source_line(conv.source[1])
    assert [s.rpartition(":")[2] for s in conv.source[2:]] == CONV_PY_LINES[dialect]
    (bias_add,) = [n for n in g.nodes if n.op == "BiasAdd"]
    assert bias_add.attrs["IsFeatureMapInputList"] == BIAS_ADD_FEATURE_MAP_INPUTS[dialect]
    assert sorted(n.name for n in g.parameters) == [
        "bn.beta",
        "bn.gamma",
        "bn.moving_mean",
        "bn.moving_variance",
        "conv.bias",
        "conv.weight",
        "x",
    ]
    assert {n.op for n in g.nodes if n.bookkeeping} == {
        "Depend",
        "Load",
        "MakeTuple",
        "Return",
        "TupleGetItem",
        "UpdateState",
    }


def test_conv_frontend_and_backend_passes(dialect):
    boot = parse_ir_file(one(dialect, "conv/00_bootstrap_*.ir"))
    assert [n.op for n in boot.nodes if n.kind != "constant"] == [
        "Parameter",
        "resolve",
        "call",
        "Return",
    ]
    typed = parse_ir_file(one(dialect, "conv/01_type_inference_*.ir"))
    assert len(typed.subgraphs) == 17
    convs = [n for sub in typed.subgraphs.values() for n in sub.nodes if n.op == "Conv2D"]
    assert convs and convs[0].outputs[0].shape == (1, 8, 16, 16)
    selected = parse_ir_file(one(dialect, "conv/hwopt_comm_after_kernel_select_*.ir"))
    assert {t.format for n in selected.kernels for t in n.outputs} == {"DefaultFormat"}
    before = parse_ir_file(one(dialect, "conv/opt_pass_*opt_a*.ir"))
    assert all(t.format is None for n in before.nodes for t in n.outputs)


def test_fused_lenet_kernel_graph(dialect):
    fused = parse_ir_file(one(dialect, "lenet_fusion/graph_build_*.ir"))
    plain = parse_ir_file(one(dialect, "lenet/graph_build_*.ir"))
    assert [k.op for k in fused.kernels] == [
        "Conv2D",
        "Fused_ReLU",
        "MaxPool",
        "Conv2D",
        "Fused_ReLU",
        "MaxPool",
        "Flatten",
        "MatMul",
        "Fused_BiasAdd_ReLU_fusion",
        "MatMul",
        "Fused_BiasAdd_ReLU_fusion",
        "MatMul",
        "Fused_BiasAdd",
    ]
    assert (len(fused.kernels), len(plain.kernels)) == (13, 15)
    assert sum(k.op == "BiasAdd" for k in plain.kernels) == 3
    infos = sorted(sub.attrs["info_name"].rsplit("_", 1)[0] for sub in fused.subgraphs.values())
    assert infos == [
        "Fused_BiasAdd",
        "Fused_BiasAdd_ReLU_fusion",
        "Fused_BiasAdd_ReLU_fusion",
        "Fused_ReLU",
        "Fused_ReLU",
    ]
    call = next(n for n in fused.nodes if n.op == "Fused_BiasAdd_ReLU_fusion")
    sub = fused.subgraphs[call.subgraph]
    assert [n.op for n in sub.nodes if n.kind == "op"] == ["Add", "Maximum", "Return"]
    stages = sorted(one(dialect, "lenet_fusion/graph_build_*.ir").parent.rglob("graph_kernel/*.ir"))
    assert len(stages) == 3
    assert all(parse_ir_file(p).name.startswith("kernel_graph") for p in stages)


def test_control_flow_pass(dialect):
    g = parse_ir_file(one(dialect, "control_flow/opt_pass_*opt_a*.ir"))
    ops = {n.op for sub in [g, *g.subgraphs.values()] for n in sub.nodes}
    assert {"Switch", "Greater", "SumExt", "ReLU", "Add", "call"} <= ops


def test_mindir_files(dialect):
    conv = parse_mindir_file(DIALECTS[dialect] / "conv" / "conv.mindir")
    assert conv.attrs["producer"] == f"MindSpore {dialect}"
    assert [n.op for n in conv.kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    flow = parse_mindir_file(DIALECTS[dialect] / "control_flow" / "control_flow.mindir")
    assert flow.attrs["producer"] == f"MindSpore {dialect}"
    assert [n.op for n in flow.kernels] == [
        "SumExt",
        "Greater",
        "Partial",
        "Partial",
        "Switch",
        "call",
        "ReLU",
        "Add",
        "ReLU",
        "Add",
        "ReLU",
        "Add",
    ]
    assert len(flow.subgraphs) == 2


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_byte_counts_agree_with_the_header_scan_on_every_recorded_dump(dialect):
    """read_ir_counts (byte searches, used to list hundreds of dumps) answers what the
    regex header scan answers, on every dump MindSpore wrote."""
    paths = sorted(DIALECTS[dialect].rglob("*.ir"))
    assert len(paths) >= 10
    for path in paths:
        data = path.read_bytes()
        header = read_ir_header(data.decode("utf-8"))
        counts = read_ir_counts(data)
        assert counts == {k: header[k] for k in ("entry", "nodes", "cnodes")}, path.name

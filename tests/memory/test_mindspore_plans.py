"""Memory plans of real MindSpore kernel graphs (CPU), checked against MindSpore's own dump.

One subprocess compiles every net with IR dumps on (module-scoped: ~20 s in all, most of it
ResNet-50); the tests parse the final kernel graph ``graph_build_*.ir`` and compare the
planned tensor sizes with the byte sizes MindSpore lists in
``actor_set/0_actor_set_pipeline_kernel_graph_*.ir``.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict

import jsonschema
import pytest

from ascend_lab.analysis.actor_set import parse_actor_set_sizes, size_mismatches
from ascend_lab.analysis.lifetimes import lifetimes
from ascend_lab.memory import compare_plans, plan_graph, validate
from ascend_lab.model.graph import Graph
from ascend_lab.parsers.ir.ir_text import parse_ir_file

HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parents[1] / "ascend_lab" / "payload" / "graph.schema.json"
CASES = [
    "conv",
    "conv_dynamic",
    "lenet",
    "lenet_b32",
    "lenet_fusion",
    "encoder",
    "resnet50_compiled",
]

pytestmark = pytest.mark.mindspore


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Dict[str, Path]:
    out = tmp_path_factory.mktemp("memory_dumps")
    proc = subprocess.run(
        [sys.executable, str(HERE / "dump_nets.py"), str(out)] + CASES,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {case: out / case for case in CASES}


def kernel_graph(folder: Path) -> Graph:
    (path,) = sorted(folder.glob("graph_build_*.ir"))
    return parse_ir_file(path)


def actor_text(folder: Path) -> str:
    (path,) = sorted(folder.glob("actor_set/0_actor_set_pipeline_kernel_graph_*.ir"))
    return path.read_text()


@pytest.fixture(scope="module")
def graphs(dumps) -> Dict[str, Graph]:
    return {case: kernel_graph(folder) for case, folder in dumps.items()}


@pytest.mark.parametrize("case", ["conv", "lenet", "lenet_fusion", "encoder", "resnet50_compiled"])
def test_sizes_and_order_match_mindspore_actor_set(case, dumps, graphs):
    graph = graphs[case]
    text = actor_text(dumps[case])
    assert size_mismatches(graph, text) == []
    # Same kernels (the actor listing follows the runtime's dataflow order, not the graph's).
    names = [k.name for k in parse_actor_set_sizes(text)]
    assert sorted(names) == sorted(k.name for k in graph.kernels)
    plan = plan_graph(graph)
    assert validate(plan) == []
    # Every planned tensor is a kernel output the runtime really allocates, same size.
    sizes = {k.name: k.outputs for k in parse_actor_set_sizes(text)}
    for t in plan.tensors:
        node = graph.node(t.node)
        index = int(t.id.rsplit(":", 1)[1])
        assert sizes[node.name][index] == t.nbytes
        assert t.size % 512 == 0 and t.size - 512 < t.nbytes <= t.size


def test_conv_bn_relu_plan_exact_numbers(graphs):
    plan = plan_graph(graphs["conv"])
    p = plan.problem
    ops = [(t.op, t.nbytes, t.start, t.end) for t in p.tensors]
    # Conv2D -> BiasAdd -> BatchNorm (inference: 5 outputs, the 4 statistics unread) -> ReLU
    assert ops == [
        ("Conv2D", 8192, 0, 1),
        ("BiasAdd", 8192, 1, 2),
        ("BatchNorm", 8192, 2, 3),
        ("BatchNorm", 32, 2, 2),
        ("BatchNorm", 32, 2, 2),
        ("BatchNorm", 32, 2, 2),
        ("BatchNorm", 32, 2, 2),
    ]
    assert plan.lower_bound == plan.peak == 8192 * 2 + 4 * 512
    assert plan.no_reuse == 3 * 8192 + 4 * 512
    # x (3072 B), 6 parameters (864 B weight, five 32 B vectors), the ReLU output (8192 B)
    assert sorted((q.kind, q.nbytes) for q in p.persistent) == sorted(
        [("input", 3072), ("parameter", 864)] + [("parameter", 32)] * 5 + [("output", 8192)]
    )
    assert p.persistent_bytes == 3072 + 1024 + 5 * 512 + 8192
    assert p.excluded == [] and p.steps == 4


def test_fusion_removes_tensors_and_says_what_it_saved(graphs):
    off = plan_graph(graphs["lenet"])
    on = plan_graph(graphs["lenet_fusion"])
    assert len(on.tensors) < len(off.tensors)
    assert on.problem.steps < off.problem.steps
    assert on.problem.fused_internal_tensors >= 2
    assert on.problem.fused_internal_bytes > 0
    assert off.problem.fused_internal_tensors == 0
    assert any(t.op == "Fused_BiasAdd_ReLU_fusion" for t in on.tensors)
    assert on.no_reuse < off.no_reuse
    table = compare_plans(off, on, ("fusion off", "fusion on"))
    rows = table.to_dict()
    assert rows[0]["tensors"] == len(off.tensors) and rows[1]["tensors"] == len(on.tensors)
    assert "intermediate tensor(s)" in table.text()
    assert "fusion on" in table._repr_html_()


def test_batch_32_scales_every_activation(graphs):
    b1 = plan_graph(graphs["lenet"])
    b32 = plan_graph(graphs["lenet_b32"])
    assert [t.op for t in b32.tensors] == [t.op for t in b1.tensors]
    assert [t.nbytes for t in b32.tensors] == [32 * t.nbytes for t in b1.tensors]
    assert [(t.start, t.end) for t in b32.tensors] == [(t.start, t.end) for t in b1.tensors]
    assert 20 * b1.peak < b32.peak <= 32 * b1.peak  # alignment padding shrinks relatively
    table = compare_plans(b1, b32, ("batch 1", "batch 32"))
    assert "(x" in table.notes[0] and table.to_dict()[1]["peak"] == b32.peak


def test_dynamic_shapes_are_excluded_and_explained(graphs):
    static = plan_graph(graphs["conv"])
    dynamic = plan_graph(graphs["conv_dynamic"])
    reasons = [e.reason for e in dynamic.problem.excluded]
    assert len(reasons) == 4 and all(r.startswith("dynamic shape [-1, 8, 16, 16]") for r in reasons)
    assert [t.nbytes for t in dynamic.tensors] == [32, 32, 32, 32]  # only the static outputs
    assert any("SOMAS needs static shapes" in n for n in dynamic.notes)
    table = compare_plans(static, dynamic, ("static", "dynamic batch"))
    assert "needs static shapes" in table.text()
    assert table.to_dict()[1]["excluded"] == 4


@pytest.mark.slow
def test_resnet50_plan_is_close_to_the_lower_bound(graphs):
    plan = plan_graph(graphs["resnet50_compiled"])
    assert len(plan.tensors) > 300
    assert validate(plan) == []
    assert plan.ratio is not None and plan.ratio <= 1.05
    assert plan.no_reuse > 10 * plan.peak  # reuse matters: ~150 MB vs ~10 MB
    # parameters: ~25.6 M float32 values
    params = sum(q.nbytes or 0 for q in plan.problem.persistent if q.kind == "parameter")
    assert 25_000_000 * 4 < params < 26_000_000 * 4
    data = plan.to_payload("after")
    schema = json.loads(SCHEMA.read_text())
    doc = {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": "resnet50"},
        "graphs": {"after": graphs["resnet50_compiled"].to_dict()},
        "views": {"main": "after"},
        "memory": data,
    }
    jsonschema.validate(doc, schema)


def test_encoder_block_plan(graphs):
    graph = graphs["encoder"]
    plan = plan_graph(graph)
    assert validate(plan) == []
    assert plan.ratio is not None and plan.ratio <= 1.05
    p = lifetimes(graph)
    assert p.shared > 0  # reshapes of the attention heads share memory
    assert plan.lower_bound == max(plan.live_bytes)

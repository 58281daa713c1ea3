"""The adapter as Model Explorer loads it (in process), its node data checked against Model
Explorer's own node_data_builder classes, and show()'s config."""

import dataclasses
import json
import urllib.parse

import dacite
import pytest
from model_explorer import node_data_builder as ndb

from ascend_lab.model_explorer import ADAPTER_ID, node_data
from ascend_lab.model_explorer.main import MindSporeAdapter, load_payload
from ascend_lab.model_explorer.notebook import model_explorer_config
from tests.support.ir_fixtures import FIXTURES

FUSION = FIXTURES / "lenet_fusion"
PROFILED = FIXTURES.parent / "profile" / "lenet-profile-payload.json"


def test_the_adapter_registers_and_converts_each_kind():
    from model_explorer.extension_class_processor import ExtensionClassProcessor

    registry = ExtensionClassProcessor.get_registry()
    entry = registry["ascend_lab.model_explorer.main.MindSporeAdapter"]
    assert entry["type"] == "adapter" and entry["metadata"].id == ADAPTER_ID
    for path, graphs in (
        (FIXTURES / "lenet" / "lenet.mindir", 1),
        (FIXTURES / "lenet" / "graph_build_0_0094.ir", 1),
        (FUSION / "*.ir", 8),  # the folder: final graph + 7 changed passes
        (PROFILED, 1),
    ):
        result = MindSporeAdapter().convert(str(path), {})
        assert len(result["graphs"]) == graphs, path
        as_json = json.loads(json.dumps(dataclasses.asdict(result["graphs"][0])))
        assert as_json["nodes"] and as_json["nodes"][0]["id"]


def test_a_path_ascend_lab_cannot_show_is_one_line_for_model_explorer(tmp_path):
    bad = tmp_path / "cut.mindir"
    bad.write_bytes((FIXTURES / "lenet" / "lenet.mindir").read_bytes()[:300])
    with pytest.raises(ValueError, match="corrupt or truncated MindIR"):
        MindSporeAdapter().convert(str(bad), {})


def _as_model_node_data(data):
    """Model Explorer's own classes read it (what its UI and --node_data_paths load)."""
    graphs = {
        k: dacite.from_dict(ndb.GraphNodeData, v, config=dacite.Config(check_types=False))
        for k, v in data.items()
    }
    return ndb.ModelNodeData(graphsData=graphs)


def test_kernel_time_from_a_profile_is_model_explorer_node_data(tmp_path):
    payload = load_payload(str(PROFILED))
    data = node_data.kernel_time(payload)
    model = _as_model_node_data(data)
    results = model.graphsData["LeNet5"].results
    conv = next(k for k in payload["profile"]["kernels"] if k["op_type"] == "Conv2D")
    assert results[conv["node"]].value == pytest.approx(conv["total_us"])
    graph = MindSporeAdapter().convert(str(PROFILED), {})["graphs"][0]
    assert set(results) <= {n.id for n in graph.nodes}
    path = node_data.save(data, str(tmp_path / "kernel_time.json"))
    with open(path, encoding="utf-8") as f:
        assert _as_model_node_data(json.load(f)) == model


def test_memory_plan_sizes_and_lifetimes_land_on_fused_layers():
    payload = load_payload(str(FUSION))
    sizes = node_data.tensor_bytes(payload)["lenet_fusion"]["results"]
    lifetimes = node_data.tensor_lifetime(payload)["lenet_fusion"]["results"]
    tensors = {t["node"]: t for t in payload["memory"]["tensors"]}
    assert sizes["%1"]["value"] == tensors["%1"]["size"]
    # the fused ReLU's output is on the op of its layer
    assert sizes["%2/%0"]["value"] == tensors["%2"]["size"]
    assert lifetimes["%7"]["value"] == tensors["%7"]["end"] - tensors["%7"]["start"]


def test_changes_and_relative_error():
    from ascend_lab.comparison import compare

    a = load_payload(str(FIXTURES / "lenet"))
    b = load_payload(str(FUSION))
    cmp_payload = compare(a, b, titles=("lenet", "lenet_fusion")).to_payload()
    data = node_data.node_data_for(cmp_payload)
    added = data["changes_b"]["lenet_fusion"]["results"]
    assert added and {r["value"] for r in added.values()} <= {1, 3}
    _as_model_node_data(data["changes_a"])
    payload = dict(a, numerics={"nodes": {"%1": {"max_rel": 0.25}}})
    errors = node_data.relative_error(payload)["lenet"]["results"]
    assert errors == {"%1": {"value": 0.25}}


def test_show_config_opens_the_saved_payload_through_the_adapter(tmp_path):
    config = model_explorer_config(load_payload(str(PROFILED)), folder=str(tmp_path))
    data = json.loads(urllib.parse.unquote(config.to_url_param_value()))
    model = data["models"][0]
    assert model["adapterId"] == ADAPTER_ID and model["url"].endswith("LeNet5.json")
    assert len(data["nodeData"]) == 1  # the profile's kernel time
    assert MindSporeAdapter().convert(model["url"], {})["graphs"][0].id == "LeNet5"


def test_an_analyze_fail_opens_on_its_failing_node():
    path = FIXTURES.parent / "real" / "analyze_fail" / "heldout" / "forcekeng_transx"
    payload = load_payload(str(path / "analyze_fail.dat"))
    graph = MindSporeAdapter().convert(str(path / "analyze_fail.dat"), {})["graphs"][0]
    assert graph.groupNodeAttributes[""]["note"].startswith("Compile failure: inference stopped")
    failing = next(n for n in graph.nodes if n.id == payload["meta"]["select"])
    assert failing.style.borderColor and failing.label == "_check_batch_size"


SHOW = """
import json, sys, time
from ascend_lab.model_explorer import show
with open(sys.argv[1], encoding="utf-8") as f:
    frame = show(json.load(f))
print("IFRAME", frame.src, flush=True)
time.sleep(120)
"""


def test_show_serves_the_trace_and_its_node_data_on_localhost(tmp_path):
    """show() as a notebook calls it (in a child process, stopped by its PID): the IFrame's
    URL is Model Explorer on 127.0.0.1 with the payload and the kernel time."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    proc = subprocess.Popen(
        [sys.executable, "-c", SHOW, str(PROFILED)], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        lines = []
        while not lines or not lines[-1].startswith("IFRAME "):  # Model Explorer prints too
            line = proc.stdout.readline()
            assert line, lines
            lines.append(line)
        url = lines[-1].split(" ", 1)[1].strip()
        assert url.startswith("http://127.0.0.1:"), url
        origin = url.split("/?", 1)[0]
        with urllib.request.urlopen(origin + "/check_health", timeout=10) as r:
            assert r.read() == b"model_explorer_ok"
        with urllib.request.urlopen(origin + "/api/v1/load_node_data?node_data_index=0") as r:
            content = json.loads(json.load(r)["content"])
        assert content["LeNet5"]["name"] == "kernel time (µs)"
        data = json.loads(urllib.parse.unquote(url.split("data=", 1)[1]))
        assert data["models"][0]["adapterId"] == ADAPTER_ID
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(10)

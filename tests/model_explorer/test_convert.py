"""The pure converter: payload -> Model Explorer graph dicts (no Model Explorer needed)."""

from ascend_lab.model_explorer.convert import graph_dicts, namespace_of, tensor_shape
from ascend_lab.results.trace import Trace
from ascend_lab.viewfile import payload_for_path
from tests.model_explorer.expected import counts
from tests.support.ir_fixtures import FIXTURES

FUSION = FIXTURES / "lenet_fusion"


def _layers(graph):
    paths = {}
    for node in graph["nodes"]:
        parts = node["namespace"].split("/") if node["namespace"] else []
        for i in range(1, len(parts) + 1):
            paths["/".join(parts[:i])] = paths.get("/".join(parts[:i]), 0) + 1
    return {p for p, n in paths.items() if n >= 2}


def test_a_dump_folder_is_the_final_graph_then_its_passes_in_order():
    payload = payload_for_path(str(FUSION))
    graphs = graph_dicts(payload)
    changed = [p["name"].rsplit("/", 1)[-1] for p in payload["passes"] if p.get("graph")]
    assert graphs[0]["id"] == "lenet_fusion"
    assert [g["id"].split(" ", 2)[2] for g in graphs[1:]] == changed
    assert len({g["id"] for g in graphs}) == len(graphs)


def test_counts_match_ascend_labs_own_model_and_fused_kernels_are_layers():
    graph = graph_dicts(payload_for_path(str(FUSION)))[0]
    nodes, layers = counts(Trace.from_dump_folder(str(FUSION)).graph)
    assert len(graph["nodes"]) == nodes and len(_layers(graph)) == layers
    fused = [n for n in graph["nodes"] if n["namespace"].startswith("Fused_BiasAdd_ReLU_fusion")]
    # the fused kernel %12 holds the two ops it replaced (BiasAdd expanded to Add, ReLU to Maximum)
    assert sorted(n["label"] for n in fused if n["namespace"].endswith("%12")) == ["Add", "Maximum"]
    assert graph["groupNodeAttributes"]["Fused_BiasAdd_ReLU_fusion %12"]["replaces"] == (
        "BiasAdd, ReLU"
    )


def test_edges_bridge_bookkeeping_and_carry_shapes():
    graph = graph_dicts(payload_for_path(str(FIXTURES / "lenet")))[0]
    ids = {n["id"] for n in graph["nodes"]}
    labels = {n["label"] for n in graph["nodes"]}
    assert not labels & {"Load", "UpdateState", "Depend", "MakeTuple", "Return", "Constant"}
    for node in graph["nodes"]:
        for edge in node["incomingEdges"]:
            assert edge["sourceNodeId"] in ids
    conv = next(n for n in graph["nodes"] if n["label"] == "Conv2D")
    sources = {e["sourceNodeId"] for e in conv["incomingEdges"]}
    assert "%para5_conv1.weight" in sources  # through its Load
    shapes = [a["value"] for a in conv["outputsMetadata"][0]["attrs"] if a["key"] == "tensor_shape"]
    assert shapes == ["float32[1,6,28,28]"]
    attrs = {a["key"]: a["value"] for a in conv["attrs"]}
    assert "nets.py:37" in attrs["source"] and attrs["mindspore_name"].endswith("Conv2D-op0")
    weight = next(n for n in graph["nodes"] if n["id"] == "%para5_conv1.weight")
    assert weight["namespace"] == "conv1-Conv2d"  # beside its user


def test_repeated_blocks_keep_their_names():
    assert namespace_of({"scope": "Default/layer1-SequentialCell/0-Bottleneck/conv1-Conv2d"}) == (
        "layer1-SequentialCell/0-Bottleneck/conv1-Conv2d"
    )
    # the scope repair's answer wins over MindSpore's name
    node = {"scope": "Default/blocks/0-Block/attn", "repaired_scope": "Default/blocks/7-Block/attn"}
    assert namespace_of(node) == "blocks/7-Block/attn"
    assert tensor_shape({"dtype": "Float16", "shape": [2, -1]}) == "float16[2,-1]"
    assert tensor_shape({"dtype": None, "shape": None}) == "?[?]"

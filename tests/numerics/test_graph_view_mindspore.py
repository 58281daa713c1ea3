"""The payload's numerics section on a real trace: nodes carry their Cell's error, the first
divergence names a node inside the planted Cell, the payload validates (schema and checks)."""

import copy

import mindspore as ms
import pytest

import ascend_lab
from ascend_lab.model.numeric_records import op_path
from ascend_lab.payload import PayloadError, check_payload
from ascend_lab.payload.validate import validate_payload
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


@pytest.fixture(scope="module")
def traced():
    net = nets.Stack()
    net.set_train(False)
    x = nets.inputs()
    trace = ascend_lab.trace(net, ms.Tensor(x), run=False)
    other = nets.twin(net, lambda: nets.Stack(residual_at=2))
    return trace, ascend_lab.compare_numerics(net, other, x)


def test_nodes_are_coloured_by_their_cells_error(traced):
    trace, result = traced
    payload = result.to_payload(trace)
    validate_payload(payload)
    section = payload["numerics"]
    nodes = {n["id"]: n for n in payload["graphs"][section["graph"]]["nodes"]}
    first = nodes[section["first_divergence"]]
    # MindSpore names the Add of every block's construct under the first block (0-Residual);
    # the scope repair draws it in its own block, and so does the numerics section
    drawn = first.get("repaired_scope") or first["scope"]
    assert drawn.startswith("Default/blocks-CellList/2-Residual"), (drawn, first["op"])
    assert section["nodes"][first["id"]]["first"] and section["first_cell"] == "blocks.2"
    clean = [e for e in section["nodes"].values() if e["cell"].startswith("blocks.0")]
    assert clean and all(e["max_rel"] == 0.0 and not e["diverged"] for e in clean)
    inside = [nid for nid, e in section["nodes"].items() if e["cell"] == "blocks.2.mlp.0"]
    assert inside and all(
        nodes[nid]["scope"].startswith(
            "Default/blocks-CellList/2-Residual/mlp-SequentialCell/0-Dense"
        )
        for nid in inside
    )
    entry = section["nodes"][first["id"]]
    assert entry["a"][0]["shape"] == [4, 16] and entry["b"][0]["dtype"] == "Float32"


def test_bad_sections_are_refused(traced):
    trace, result = traced
    payload = result.to_payload(trace)
    bad = copy.deepcopy(payload)
    bad["numerics"]["first_divergence"] = "no-such-node"
    with pytest.raises(PayloadError, match="numerics.first_divergence"):
        check_payload(bad)
    bad = copy.deepcopy(payload)
    bad["numerics"]["nodes"]["ghost"] = {"cell": "x", "max_rel": 0, "diverged": False}
    with pytest.raises(PayloadError, match="'ghost' is not a node"):
        check_payload(bad)
    bad = copy.deepcopy(payload)
    nid = next(iter(bad["numerics"]["nodes"]))
    bad["numerics"]["nodes"][nid]["max_rel"] = "0.5"
    with pytest.raises(PayloadError, match="numbers are needed"):
        check_payload(bad)


def test_op_records_colour_the_kernel_of_their_name():
    # capture="dump": each compared op is the traced kernel of the same full name
    net = nets.InlineSoftmax()
    net.set_train(False)
    other = nets.twin(net, lambda: nets.InlineSoftmax(half=True))
    x = nets.inputs()
    trace = ascend_lab.trace(net, ms.Tensor(x), run=False)
    result = ascend_lab.compare_numerics(net, other, x, capture="dump")
    payload = result.to_payload(trace)
    validate_payload(payload)
    section = payload["numerics"]
    nodes = {n["id"]: n for n in payload["graphs"][section["graph"]]["nodes"]}
    first = nodes[section["first_divergence"]]
    assert first["op"] == "Softmax" and first["name"] == "Default/head-ScoreHead/Softmax-op0"
    assert section["first_cell"] == "head/Softmax"
    entries = section["nodes"]
    assert len(entries) == len(result.pairs)
    # each entry on the kernel of its op path (its -opN may differ: this process compiled
    # the Stack before, the dump's child process nothing)
    by_label = {p.label: p.a.path for p in result.pairs}
    for node_id, entry in entries.items():
        node = nodes[node_id]
        assert op_path(node["name"])[0] == by_label[entry["cell"]], (node["name"], entry["cell"])

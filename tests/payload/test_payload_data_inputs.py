"""The payload lists each node's data inputs where they are not all its inputs (issue #25)."""

import copy
from pathlib import Path

import pytest

from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.payload.build import graph_data
from ascend_lab.payload.validate import PayloadError, check_payload, validate_payload

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ir"
KERNEL_GRAPH = FIXTURES / "lenet" / "graph_build_0_0094.ir"
FRONTEND = FIXTURES / "lenet" / "opt_pass_2_opt_a_0016.ir"


@pytest.mark.parametrize("path", [KERNEL_GRAPH, FRONTEND], ids=["kernel", "opt_pass"])
def test_bookkeeping_nodes_list_their_data_inputs(path):
    graph = parse_ir_file(str(path))
    data = graph_data(graph)
    assert data["data_inputs_listed"] is True
    listed = {n["id"]: n for n in data["nodes"] if "data_inputs" in n}
    for node, out in zip(graph.nodes, data["nodes"]):
        if node.op in ("Depend", "Load", "TupleGetItem") and len(node.inputs) > 1:
            assert out["data_inputs"] == node.inputs[:1]
        elif node.op == "UpdateState":
            assert out["data_inputs"] == []
        else:  # kernels, MakeTuple, Return, values: all inputs carry data, nothing written
            assert node.id not in listed
    assert listed, f"{path.name} has Depend/UpdateState nodes"


def _payload():
    graph = parse_ir_file(str(KERNEL_GRAPH))
    return {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": "lenet"},
        "graphs": {"main": graph_data(graph)},
        "views": {"main": "main"},
    }


def test_a_payload_with_data_inputs_is_valid():
    payload = _payload()
    validate_payload(payload)
    check_payload(payload)


def test_data_inputs_must_be_inputs_of_the_node():
    payload = _payload()
    nodes = payload["graphs"]["main"]["nodes"]
    at = next(i for i, n in enumerate(nodes) if n.get("data_inputs"))
    bad = copy.deepcopy(payload)
    bad["graphs"]["main"]["nodes"][at]["data_inputs"] = ["%not_an_input"]
    with pytest.raises(PayloadError, match=r"data_inputs must be a list of ids of its inputs"):
        check_payload(bad)
    bad["graphs"]["main"]["nodes"][at]["data_inputs"] = [3]
    with pytest.raises(PayloadError):
        validate_payload(bad)

"""The one op-semantics table (ascend_lab.model.ops) and the analyses that read it."""

import re
from pathlib import Path

from ascend_lab.analysis.lifetimes import kernel_op
from ascend_lab.analysis.scopes import data_neighbours
from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.model.nx import to_networkx
from ascend_lab.model.ops import BOOKKEEPING_OPS, data_inputs, fused_kernel_name
from ascend_lab.parsers.ir.ir_text import parse_ir_text

FIXTURE = Path(__file__).parent.parent / "fixtures/ir/lenet_fusion/graph_build_0_0164.ir"


def test_data_inputs_of_each_bookkeeping_op():
    ins = ["%1", "%2", "%3"]
    assert data_inputs("Load", ins) == ["%1"]
    assert data_inputs("Depend", ins) == ["%1"]
    assert data_inputs("TupleGetItem", ins) == ["%1"]
    assert data_inputs("UpdateState", ins) == []
    assert data_inputs("MakeTuple", ins) == ins
    assert data_inputs("MakeTupleV2", ins) == ins
    assert data_inputs("Return", ins[:1]) == ["%1"]
    assert data_inputs("Conv2D", ins) == ins
    assert data_inputs("Depend", []) == []
    assert BOOKKEEPING_OPS >= {"Load", "UpdateState", "Depend", "MakeTuple", "TupleGetItem"}


def test_recorded_fused_names_lose_their_hash():
    text = FIXTURE.read_text()
    names = re.findall(r"info_name: (\S+)", text)
    assert names, "the fixture has fused kernels"
    for name in names:
        short = fused_kernel_name(name)
        assert short.startswith("Fused_") and not short[-1].isdigit(), (name, short)
    # counters are not hashes
    assert fused_kernel_name("_anonymous__333") == "_anonymous__333"
    assert fused_kernel_name("Fused_Add_1") == "Fused_Add_1"


def test_parser_and_memory_tables_name_a_fused_kernel_alike():
    # a 6-digit tail: the parser and the memory tables once used different rules (6+ vs 7+)
    text = FIXTURE.read_text().replace("Fused_BiasAdd_3628424839231539743", "Fused_BiasAdd_362842")
    graph = parse_ir_text(text)
    calls = [n for n in graph.nodes if n.kind == "call" and n.subgraph]
    assert calls
    for node in calls:
        assert kernel_op(node, graph) == node.op
    assert "Fused_BiasAdd" in {n.op for n in calls}


def _chain_graph() -> Graph:
    # %1 = Conv2D(x, w); %2 = UpdateState(U, %1); %3 = Depend(%1, %2); %4 = ReLU(%3)
    # %5 = MakeTuple(%4, %1); %6 = TupleGetItem(%5, 0); %7 = Add(%6, %3)
    t = [TensorType("Float32", (1, 4))]
    return Graph(
        "g",
        [
            Node("x", "x", kind="input", outputs=t),
            Node("w", "w", kind="parameter", outputs=t),
            Node("%1", "Conv2D", inputs=["x", "w"], outputs=t),
            Node("%2", "UpdateState", inputs=["U", "%1"]),
            Node("%3", "Depend", inputs=["%1", "%2"], outputs=t),
            Node("%4", "ReLU", inputs=["%3"], outputs=t),
            Node("%5", "MakeTuple", inputs=["%4", "%1"]),
            Node("%6", "TupleGetItem", inputs=["%5", "0"]),
            Node("%7", "Add", inputs=["%6", "%3"], outputs=t),
        ],
    )


def test_networkx_and_scope_repair_bridge_the_same_data_inputs():
    graph = _chain_graph()
    g = to_networkx(graph, include_bookkeeping=False)
    kernels = {n.id for n in graph.kernels}
    nx_preds = {k: sorted(p for p in g.predecessors(k) if p in kernels) for k in kernels}
    preds, _ = data_neighbours(graph)
    assert {k: sorted(v) for k, v in preds.items()} == nx_preds
    assert nx_preds["%4"] == ["%1"]  # through Depend's data input, not UpdateState
    assert nx_preds["%7"] == ["%1", "%4"]  # through TupleGetItem and MakeTuple

"""Twin branches that only a constant tells apart (a Split's outputs 0 and 1, as
nn.MultiheadAttention's q, k, v) pair each with its own twin (tests/fixtures/ir/twin_branches).
Before, both branches stayed unpaired, even against the same graph."""

import os

from ascend_lab.analysis.align import align_graphs
from ascend_lab.parsers.ir.ir_text import parse_ir_file

FIXTURE = os.path.join(
    os.path.dirname(__file__), "..", "fixtures", "ir", "twin_branches", "graph_build_0_0094.ir"
)


def test_a_graph_with_twin_branches_aligns_with_itself_node_for_node():
    a, b = parse_ir_file(FIXTURE), parse_ir_file(FIXTURE)
    alignment = align_graphs(a, b)
    assert alignment.removed == [] and alignment.added == []
    pairs = {m.a: m.b for m in alignment.matches}
    ops = {n.id: n.op for n in a.nodes}
    twins = [n for n in ops if ops[n] in ("TupleGetItem", "MatMul", "Add")]
    assert len(twins) == 6
    for nid in twins:
        assert pairs[(nid,)] == (nid,), nid

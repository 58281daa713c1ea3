"""Tensor constants that MindSpore prints by value over several lines (numpy's layout).

A net with a small constant (a 4 x 4 weight, a 16-value vector, a 2 x 2 x 3 table) gets it
printed in full inside the node line: a 2-D or 3-D value starts on the line after ``value=``,
a 1-D one wraps onto lines that start with spaces. The parser refused such a dump
("unbalanced parentheses"), so ``ascend_lab.trace`` failed on any net with one. The recorded
dump is tests/fixtures/ir/tensor_constants (its README has the net).
"""

import os

from ascend_lab.parsers.ir import ir_text, ir_values
from ascend_lab.parsers.ir.ir_text import parse_ir_file, parse_ir_text, unread_lines

FIXTURE = os.path.join(
    os.path.dirname(__file__), "..", "fixtures", "ir", "tensor_constants", "graph_build_0_0094.ir"
)


def test_the_recorded_kernel_graph_with_multi_line_constants_parses():
    graph = parse_ir_file(FIXTURE)
    kernels = [(n.op, n.name) for n in graph.kernels]
    assert kernels == [
        ("MatMul", "Expand/_MatMulExt/MatMul-op0"),
        ("StridedSlice", "Default/StridedSlice-op0"),
        ("Add", "Default/Add-op0"),
        ("StridedSlice", "Default/StridedSlice-op1"),
        ("Reshape", "Default/Reshape-op0"),
        ("Mul", "Default/Mul-op0"),
    ]
    by_id = {n.id: n for n in graph.nodes}
    matmul, mul = graph.kernels[0], graph.kernels[5]
    assert matmul.inputs[0] == "%para1_x"
    weight = by_id[matmul.inputs[1]].attrs["value"]  # the 2-D value, its rows joined
    assert weight.startswith("Tensor(shape=[4, 4], dtype=Float32, value= [[ 0.00000000e+00")
    assert weight.endswith("2.14285707e+00]])")
    vector = by_id[graph.kernels[1].inputs[0]].attrs["value"]  # the wrapped 1-D value
    assert "2.33333325e+00" in vector and vector.endswith("5.00000000e+00])")
    table = by_id[mul.inputs[1]].attrs["value"]  # the 3-D value
    assert table.endswith("1.10000000e+01]]])")
    # The lines after each value are read as that node's own lines again.
    assert [str(t.shape) for t in mul.outputs] == ["(2, 2, 3)"]
    assert matmul.source and graph.kernels[2].inputs == ["%0", "%1"]


def _graph(*node_lines: str) -> str:
    """A dump (with its entry header: text without one is read as a paste, see ir_paste)."""
    head = ["# IR entry: @g", "", "subgraph @g(%para1_x) {"]
    return "\n".join([*head, *node_lines, "  Return(%0)", "}", ""])


def test_a_wrapped_value_whose_lines_start_with_six_spaces_is_not_taken_for_node_lines():
    # numpy pads ints to one width: a wrapped line can start with as many spaces as a
    # node's own ": types" / "# ..." lines, but holds neither
    text = _graph(
        "  %0(x) = PrimFunc_Add(%para1_x, Tensor(shape=[30], dtype=Int64, value=[     1      2",
        "      3      4 100000]))",
        "      : (<Tensor[Int64], (30)>) -> (<Tensor[Int64], (30)>)",
        "      # Fullname with scope: (Default/Add-op0)",
    )
    (node,) = parse_ir_text(text).kernels
    assert (node.op, node.name) == ("Add", "Default/Add-op0")
    assert [str(t.shape) for t in node.outputs] == ["(30,)"]


def test_a_value_that_never_closes_is_flagged_not_a_swallowed_file():
    rows = ["[[ 1.  2.]"] + [" [ 3.  4.]"] * 50  # no closing brackets anywhere
    text = _graph("  %0(x) = PrimFunc_Mul(%para1_x, Tensor(shape=[51, 2], value=", *rows)
    g = parse_ir_text(text)
    # the node line is flagged with its line number; the rest of the graph is drawn
    assert unread_lines(g)[0].startswith("4: unbalanced parentheses in node arguments: %0(x)")
    assert [n.op for n in g.nodes] == ["Parameter", "Return"]


def test_joining_stops_at_its_line_limit(monkeypatch):
    monkeypatch.setattr(ir_values, "_VALUE_LINES_MAX", 3)
    rows = ["[[ 1.  2.]"] + [" [ 3.  4.]"] * 5 + [" [ 5.  6.]]))"]
    text = _graph("  %0(x) = PrimFunc_Mul(%para1_x, Tensor(shape=[7, 2], value=", *rows)
    assert "unbalanced parentheses" in parse_ir_text(text).attrs[ir_text.UNREAD_ATTR]
    monkeypatch.setattr(ir_values, "_VALUE_LINES_MAX", 4096)
    assert [n.op for n in parse_ir_text(text).kernels] == ["Mul"]

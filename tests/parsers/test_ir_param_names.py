"""Parameters whose names hold spaces, brackets, a comma or a colon.

``Parameter(..., name="w (copy) [1], {x}: y")`` is printed as it is, both in the parameter
line and in the arguments of the node that reads it. The parser refused the parameter line
("cannot read parameter line"), so ``ascend_lab.trace`` failed on such a net. The recorded
dumps are tests/fixtures/ir/param_names (its README has the net).
"""

import os

from ascend_lab.parsers.ir.ir_text import parse_ir_file

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ir", "param_names")
ODD = "%para2_w (copy) [1], {x}: y"


def test_the_kernel_graph_reads_an_odd_name_and_the_load_of_it():
    graph = parse_ir_file(os.path.join(FIXTURES, "graph_build_0_0094.ir"))
    params = [
        (n.id, n.name, n.kind, [str(t.shape) for t in n.outputs])
        for n in graph.nodes
        if n.op == "Parameter"
    ]
    assert params == [
        ("%para1_中文参数", "中文参数", "parameter", ["(4,)"]),
        (ODD, "w (copy) [1], {x}: y", "parameter", ["(4, 4)"]),
        ("%para3_x", "x", "input", ["(2, 4)"]),
    ]
    (load,) = [n for n in graph.nodes if n.op == "Load" and ODD in n.inputs]
    assert len(load.inputs) == 2  # the parameter and the monad, not the name's pieces
    (matmul,) = [n for n in graph.kernels if n.op == "MatMul"]
    assert matmul.inputs[:2] == ["%para3_x", load.id]


def test_a_frontend_dump_reads_the_odd_name():
    graph = parse_ir_file(os.path.join(FIXTURES, "01_type_inference_0001.ir"))
    assert ODD in {n.id for n in graph.nodes if n.op == "Parameter"}

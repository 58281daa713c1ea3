"""analyze_fail files read and drawn (issue #36): the node where inference stopped is marked,
with its source line, in every form MindSpore printed; odd lines are flagged, not fatal.

Material: the dev half of tests/fixtures/real/analyze_fail (users' committed files; the
held-out half is measured once, never read by tests written against it) and the docs'
pasted examples in tests/fixtures/real/ir_pasted (see their READMEs).
"""

import json
from pathlib import Path

import pytest

from ascend_lab.parsers.ir.analyze_fail import (
    caught_exception,
    failing_graph,
    failure_point,
    is_framework_source,
)
from ascend_lab.parsers.ir.ir_text import (
    MARK_ATTR,
    NOTES_ATTR,
    UNREAD_ATTR,
    parse_ir_file,
    parse_ir_text,
    unread_lines,
)
from ascend_lab.viewfile.sources import payload_for_path
from tests.parsers.measure_ir_real import source_file

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
MANIFEST = json.loads((REAL / "analyze_fail" / "manifest.json").read_text())
DEV = [c for c in MANIFEST["cases"] if c["half"] == "dev"]
PASTED = REAL / "ir_pasted"


def _node_id(printed: str) -> str:
    """``%3(CNode_137) = ...`` / ``%1 = ...`` -> ``%3`` / ``%1``."""
    return printed.split("(")[0].split(" ")[0].strip()


@pytest.mark.parametrize("case", DEV, ids=[c["id"] for c in DEV])
def test_every_dev_file_is_drawn_with_the_stop_node_selected(case):
    path = REAL / "analyze_fail" / case["file"]
    payload = payload_for_path(str(path))
    main = payload["graphs"][payload["views"]["main"]]
    want = _node_id(case["failure"]["node"])
    assert payload["meta"]["select"] == want
    assert any(n["id"] == want and n["attrs"].get(MARK_ATTR) for n in main["nodes"])
    # the first note says where it stopped, with the source line the manifest recorded
    note = payload["meta"]["notes"][0]
    assert note.startswith(f"Compile failure: inference stopped at {want} (")
    source = source_file(case["failure"]["source_line"])  # "#  In file" in 1.0/1.1
    if source:
        assert source in note


def test_the_1x_dat_of_the_docs_names_the_call_with_one_argument_too_many():
    g = parse_ir_file(PASTED / "read_ir_md_ms16_analyze_fail_dat_vi_numbered.dat")
    point = failure_point(g)
    stop = point.stop
    assert (stop.graph, stop.node_id, stop.op, stop.mark) == (
        "construct.3",
        "%3",
        "call @func.18",
        1,
    )
    assert (stop.source, stop.code) == ("test.py:25", "c = self.mul(b, self.func(a, a, b))")
    assert point.user is stop
    # the graph drawn is the one that holds it, and the call has its three inputs
    shown = failing_graph(g, point)
    assert shown.name == "construct.3" and "construct_wrapper.0" in shown.subgraphs
    assert shown.node("%3").inputs == ["%1", "%1", "%2"]
    assert [n.op for n in shown.nodes if n.kind == "op"] == ["Sub", "Add", "Mul", "Return"]


def test_the_18_dat_reads_weights_free_variables_and_types():
    g = parse_ir_file(PASTED / "read_ir_md_ms18_bias_add_analyze_fail_dat_vi_numbered.dat")
    weights = [(n.name, n.outputs[0].shape) for n in g.nodes if n.kind == "parameter"]
    assert weights == [("bias", (4,)), ("weight", (32, 8))]
    inner = g.subgraphs["construct.2"]
    # fg_2[fg_1] reads its parent's weights: free variables named as the parent names them
    free = {n.id: n.name for n in inner.nodes if n.op == "FreeVariable"}
    assert free == {"%para3": "weight", "%para2": "bias"}
    bias_add = inner.node("%2")
    assert bias_add.op == "BiasAdd" and bias_add.attrs[MARK_ATTR] == "1"
    assert [(t.dtype, t.shape) for t in bias_add.input_types] == [
        ("Float32", (3, 8)),
        ("Float32", (4,)),
    ]
    assert failure_point(g).stop.code == "x = self.bias_add(x, self.bias)"


def test_a_2x_stop_inside_mindspore_also_names_the_users_line():
    g = parse_ir_file(PASTED / "mindir_md_analyze_fail_bias_add_vi_numbered.ir")
    point = failure_point(g)
    assert point.stop.graph == "bias_add_14" and is_framework_source(point.stop.source)
    assert (point.user.source, point.user.code) == ("t2.py:16", "x = ops.bias_add(x, self.bias)")
    assert [f.mark for f in point.frames] == [0, 1, 2]


def test_a_graph_printed_twice_the_same_is_drawn_once_and_noted():
    block = "subgraph @g(%para1_x) {\n  %0(y) = Neg(%para1_x)\n  Return(%0)\n}\n"
    g = parse_ir_text("# IR entry: @g\n\n" + block + "\n" + block, "twice.ir")
    assert not g.subgraphs and [n.op for n in g.nodes] == ["Parameter", "Neg", "Return"]
    assert g.attrs[NOTES_ATTR] == "@g is printed again at line 8, the same as at line 3: drawn once"


def test_a_graph_printed_twice_differently_keeps_both():
    text = (
        "# IR entry: @g\n\nsubgraph @g() {\n  Return(I64(1))\n}\n"
        "subgraph @g(%para1_x) {\n#------------------------> 1\n  %0(y) = Neg(%para1_x)\n"
        "  Return(%0)\n}\n"
    )
    g = parse_ir_text(text)
    assert list(g.subgraphs) == ["g~2"]
    assert "drawn as @g~2" in g.attrs[NOTES_ATTR]
    assert failure_point(g).stop.graph == "g~2"


def test_one_odd_line_in_a_real_file_is_flagged_and_the_rest_drawn():
    case = DEV[0]
    lines = (REAL / "analyze_fail" / case["file"]).read_text(encoding="utf-8").split("\n")
    at = case["failure"]["node_line"] + 3  # inside the graph, after the stop node
    odd = lines[:at] + ["  %999(x) = Odd(%1, ((((", "      : (<Int64>)"] + lines[at:]
    whole = parse_ir_text("\n".join(lines))
    g = parse_ir_text("\n".join(odd), "odd.ir")
    assert unread_lines(g)[0].startswith(f"{at + 1}: unbalanced parentheses")
    assert len(g.nodes) == len(whole.nodes)
    assert failure_point(g).stop.node_id == _node_id(case["failure"]["node"])


def test_operators_with_bracketed_attributes_and_fstrings_are_read():
    text = (
        "# IR entry: @g\nsubgraph @g(%para1_x) {\n"
        '  %0(o) = S_Prim_Cast[output_names: ["output"], SrcT: I32, DstT: F32](%para1_x, F32)\n'
        "  %1(p) = PyInterpret[side_effect_io: Bool(1)]"
        "(Script['f\"For 'sum', got{type(input)}\"'], %0)\n"
        "  Return(%1)\n}\n"
    )
    g = parse_ir_text(text)
    assert [n.op for n in g.nodes if n.kind == "op"] == ["S_Prim_Cast", "PyInterpret", "Return"]
    assert UNREAD_ATTR not in g.attrs


def test_caught_exception_is_the_error_block_of_a_23_file():
    text = (REAL / "analyze_fail" / "dev" / "hqkate_magvit" / "analyze_fail.ir").read_text()
    assert caught_exception(text) == (
        "For 'ReduceMean', the second input type should be tensor or scalar, but got invalid "
        "abstract type:AbstractKeywordArg."
    )
    assert caught_exception("# IR entry: @g\n") is None

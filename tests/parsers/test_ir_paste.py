"""IR text pasted into MindSpore's own tutorials (tests/fixtures/real/ir_pasted/, verbatim;
provenance in tests/fixtures/real/README.md): ``vi`` line numbers, ``...`` elisions, no
``# IR entry`` header. Each is drawn with what it holds, marked partial."""

from pathlib import Path

import pytest

from ascend_lab.cli import main
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.ir.ir_paste import PARTIAL_ATTR, clean_pasted_ir, has_entry_header
from ascend_lab.parsers.ir.ir_text import parse_ir_file, parse_ir_text
from ascend_lab.payload import validate_payload
from ascend_lab.viewfile import payload_for_path
from tests.support.ir_fixtures import fixture, parsed_as_data

PASTED = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "ir_pasted"
ALL = sorted(PASTED.glob("*.ir"))


def _ops(g):
    return [n.op for n in g.nodes if n.kind in ("op", "call")]


def test_vi_numbered_execute_ir_is_the_dump_without_its_numbers():
    path = PASTED / "mindir_md_execute_vi_numbered.ir"
    g = parse_ir_file(path)
    assert g.name == "19_1___main___Net_construct_304"
    assert _ops(g) == ["Sub", "Add", "Cast", "Partial", "Partial", "Switch", "call", "Return"]
    assert len(g.subgraphs) == 2
    assert "133 editor line numbers removed" in g.attrs[PARTIAL_ATTR]
    # the same text with the numbers removed by hand is a plain dump: the same graph
    by_hand = "\n".join(line[4:] for line in path.read_text().split("\n"))
    assert has_entry_header(by_hand)
    plain = parse_ir_text(by_hand, str(path))
    assert PARTIAL_ATTR not in plain.attrs
    g.attrs.pop(PARTIAL_ATTR)
    assert parsed_as_data(g) == parsed_as_data(plain)


def test_bare_node_lines_with_elisions_become_one_graph():
    g = parse_ir_file(PASTED / "recompute_md_validate_elided.ir")
    assert _ops(g) == ["RealDiv", "BatchMatMul", "BatchMatMul", "Return"]
    div, mm, grad = [n for n in g.nodes if n.kind == "op" and n.op != "Return"]
    assert (div.id, mm.id, grad.id) == ("%38", "%41", "%291")
    assert mm.inputs[0] == "%38" and grad.inputs[0] == "%38"
    assert grad.outputs[0].shape == (8, 16, 32, 128)
    note = g.attrs[PARTIAL_ATTR]
    assert "2 '...' lines" in note and "no '# IR entry' header" in note


def test_a_page_wrapped_node_line_is_joined():
    g = parse_ir_file(PASTED / "dump_md_trace_code_elided.ir")
    (conv,) = [n for n in g.nodes if n.op == "Conv2D"]
    assert conv.inputs == ["%17", "%19"]
    assert conv.outputs[0].shape == (32, 384, 13, 13)
    assert "2 wrapped lines joined" in g.attrs[PARTIAL_ATTR]


def test_subgraphs_without_a_header_show_the_last_one():
    g = parse_ir_file(PASTED / "graph_optimization_md_no_header.ir")
    assert g.name == "f1" and list(g.subgraphs) == ["f2"]
    assert [n.subgraph for n in g.nodes if n.op == "call"] == ["f2", "f2"]
    assert "@f1 (the last graph)" in g.attrs[PARTIAL_ATTR]


def test_analyze_fail_printing_a_graph_twice_keeps_both():
    g = parse_ir_file(PASTED / "mindir_md_analyze_fail_vi_numbered.ir")
    assert g.name == "__main___Net_construct_11"
    assert list(g.subgraphs) == ["__main___Net_construct_11~2"]
    assert "printed twice" in g.attrs[PARTIAL_ATTR]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_paste_is_viewed_with_a_partial_banner(path, tmp_path, capsys):
    payload = payload_for_path(str(path))
    validate_payload(payload)
    assert payload["meta"]["title"] == path.name
    # the partial banner; an analyze_fail paste also says where inference stopped (#36)
    notes = payload["meta"]["notes"]
    assert [n for n in notes if n.startswith("partial IR (pasted text): ")]
    out = tmp_path / "page.html"
    assert main(["view", str(path), "-o", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err and out.stat().st_size > 0


def test_real_dumps_are_not_touched():
    path = fixture("lenet/graph_build_*.ir")
    text = path.read_text()
    assert has_entry_header(text)
    assert PARTIAL_ATTR not in parse_ir_text(text).attrs
    assert "notes" not in payload_for_path(str(path))["meta"]


def test_meta_notes_must_be_strings():
    payload = payload_for_path(str(PASTED / "recompute_md_validate_elided.ir"))
    payload["meta"]["notes"] = [3]
    with pytest.raises(ValueError, match="meta.notes"):
        validate_payload(payload)


@pytest.mark.parametrize("text", ["", "hello\nworld\n", "  1 hello\n  2 world\n", "...\n"])
def test_text_that_is_not_ir_is_still_refused(text):
    with pytest.raises(GraphParseError, match="not a MindSpore IR dump"):
        parse_ir_text(text, "bad.ir")


def test_numbers_that_do_not_grow_are_not_line_numbers():
    text = "  %3 = Add(%1, %2)\n  2 x\n  1 y\n"
    cleaned, notes = clean_pasted_ir(text)
    assert not any("line numbers" in n for n in notes)
    assert "  2 x" in cleaned and "  1 y" in cleaned


def test_a_paste_that_stops_inside_a_graph_is_closed():
    text = "subgraph @g(%para1_x) {\n  %0(a) = Neg(%para1_x)\n      : (<Float32>) -> (<Float32>)\n"
    g = parse_ir_text(text)
    assert g.name == "g" and _ops(g) == ["Neg"]
    assert "ends inside a graph" in g.attrs[PARTIAL_ATTR]

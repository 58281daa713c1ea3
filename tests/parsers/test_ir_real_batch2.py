"""Real IR text of every form MindSpore printed, read and drawn (issue #36): the second batch
of users' committed ``analyze_fail`` files and the documentation's IR text of r1.2 to master.

The manifests' ``expect`` (graph and node ranges, flagged lines, the stop node) were read off
each text with regexes independent of the reader, before the reader was run on them (see
tests/fixtures/real/ir_docs/README.md). Only the dev halves are read here; the held-out
halves are measured once with tests/parsers/measure_ir_real.py.
"""

import hashlib
import json
from pathlib import Path

import pytest

from ascend_lab.parsers.ir.analyze_fail import failure_point
from ascend_lab.parsers.ir.ir_paste import PARTIAL_ATTR
from ascend_lab.parsers.ir.ir_text import NOTES_ATTR, parse_ir_text, unread_lines
from tests.parsers.measure_ir_real import REAL, cases, measure, source_file

ALL = cases(batch=2)
DEV = [(kind, case) for kind, case in ALL if case["half"] == "dev"]


def _half(case_id: str) -> str:
    return "dev" if int(hashlib.sha1(case_id.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


@pytest.mark.parametrize("kind,case", DEV, ids=[f"{kind}/{case['id']}" for kind, case in DEV])
def test_every_dev_text_is_drawn_as_its_text_says(kind, case):
    verdict, seen = measure(case)
    assert verdict == "right", seen


@pytest.mark.parametrize("kind,case", ALL, ids=[f"{kind}/{case['id']}" for kind, case in ALL])
def test_each_text_is_verbatim_in_its_half(kind, case):
    data = case["path"].read_bytes()
    # a text seen before its half was computed is dev by collection (`split`), never held out
    assert case["half"] == case.get("split", _half(case["id"]))
    assert case["file"].startswith(case["half"] + "/")
    assert len(data) == case["bytes"]
    if kind == "analyze_fail":  # the whole file: its git blob id is the source's
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        assert blob == case["source"]["blob"]


def test_every_file_of_the_folders_is_in_a_manifest():
    listed = {str(case["path"]) for _, case in cases(batch=None)}
    on_disk = {
        str(p)
        for folder in ("analyze_fail", "ir_docs")
        for half in ("dev", "heldout")
        for p in (REAL / folder / half).rglob("*")
        if p.is_file()
    }
    assert on_disk == listed


@pytest.mark.parametrize(
    "line,name",
    [
        ("# In file /a/b/ops.py:418/    x = f(/", "ops.py"),
        ("#  In file /data/x/conv.py(262)/        if self.has_bias:/", "conv.py"),
        ("# In file D:\\envs\\lib\\basic.py:794, 12~39/        x = m(x)/", "basic.py"),
        ("# scope: (Default)", None),
    ],
)
def test_the_measures_source_file_reads_every_in_file_form(line, name):
    assert source_file(line) == name


def test_the_manifests_say_how_they_split():
    for folder in ("analyze_fail", "ir_docs"):
        manifest = json.loads((REAL / folder / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["half_rule"] == "sha1(id) as an integer: even -> dev, odd -> heldout"
    assert Path(REAL / "ir_docs" / "README.md").is_file()


# ---------------------------------------------------------------- the forms, by grammar

_HEADER_1_11 = (
    "# 1.This file shows the parsed IR info when graph evaluating failed to help find the "
    "problem.\n"
    "subgraph attr:\n"
    "subgraph @g.1(\n"
    "        %para1_x : <Tensor[Float32], (3, 32)>\n"
    "        , %para2_w : <Ref[Tensor(F32)], (32, 8)>  :  has_default\n"
    "    ) {\n"
    "#------------------------> 0\n"
    "  %1(x) = DoSignaturePrimitive::S-Prim-MatMul{prim_type=1}[transpose_a=Bool(0)]"
    "(%para1_x, %para2_w)\n"
    "      :(<Tensor[Float32], (3, 32)>, <Ref[Tensor(F32)], (32, 8)>) "
    "-> (<Tensor[Float32], (3, 8)>)\n"
    "      #scope: Default\n"
    "      # In file t.py:15/        x = self.matmul(x, self.w)/\n"
    "  Primitive::Return{prim_type=1}(%1)\n"
    "      :(<Tensor[Float32], (3, 8)>)\n"
    "}\n"
)


def test_a_block_header_over_several_lines_and_the_1_11_node_forms_are_read():
    g = parse_ir_text(_HEADER_1_11)
    params = [(n.id, n.outputs[0].dtype, n.outputs[0].shape) for n in g.nodes if n.kind == "input"]
    assert params == [("%para1_x", "Float32", (3, 32)), ("%para2_w", "Float32", (32, 8))]
    mm = g.node("%1")
    assert (mm.op, mm.inputs, mm.outputs[0].shape) == ("MatMul", ["%para1_x", "%para2_w"], (3, 8))
    assert [n.op for n in g.nodes if n.kind == "op"] == ["MatMul", "Return"]
    assert not unread_lines(g)
    assert failure_point(g).stop.code == "x = self.matmul(x, self.w)"


def test_a_broken_multiline_header_is_flagged_and_the_rest_drawn():
    broken = _HEADER_1_11.replace("    ) {\n", "    oops\n", 1)
    good = "subgraph @h() {\n  %0(y) = Neg(I64(1))\n  Return(%0)\n}\n"
    g = parse_ir_text("# IR entry: @h\n" + broken + good)
    assert [n.op for n in g.nodes if n.kind == "op"] == ["Neg", "Return"]
    assert any("cannot read subgraph header" in line for line in unread_lines(g))


def test_a_block_printed_deeper_with_comments_of_its_own_is_read():
    text = (
        "# Params:\n%para1_a: <Tensor[Float32], ()>\n\n"
        "subgraph @f1() {\n"
        "    # First-time inlining\n"
        "    %0 = PrimFunc_Mul(%para1_a, Float32(0.5))  # repeated\n"
        "        : (<Tensor[Float32], ()>, <Float32, NoShape>) -> (<Tensor[Float32], ()>)\n"
        "    Return(%0)\n"
        "}\n"
    )
    g = parse_ir_text(text)
    assert [n.op for n in g.nodes if n.kind == "op"] == ["Mul", "Return"]
    assert g.node("%0").outputs[0].dtype == "Float32" and not unread_lines(g)


def test_the_1_0_dat_names_the_source_after_two_spaces():
    text = (
        "# [No.1] construct.2 @ctx.addr=0x55\n"
        "#  In file /a/conv.py(260)/    def construct(self, x):/\n"
        "funcgraph fg_2(\n"
        "        %para1 : Tensor(F32)[1, 3]    # x\n"
        "    ) {\n\n"
        "#------------------------> 0\n"
        "    %1 = DoSignaturePrimitive::S-Prim-Neg(%para1)    #(Tensor(F32)[1, 3]) "
        "#scope: Default\n"
        "      #  In file /a/conv.py(261)/        y = self.neg(x)/\n"
        "    Primitive::return(%1)    #(Undefined) #scope: Default\n"
        "}\n"
    )
    g = parse_ir_text(text, "analyze_fail.dat")
    stop = failure_point(g).stop
    assert (stop.node_id, stop.source, stop.code) == ("%1", "/a/conv.py:261", "y = self.neg(x)")


def test_a_parameter_listed_twice_an_op_with_attribute_groups_and_a_1_2_return():
    text = (
        "# IR entry: @g\n"
        "subgraph @g parent: [subgraph @f](%para0_fn, %para0_fn) {\n"
        "  %0(o) = HyperMapPy_hyper_map[_ones_like]{fn_leaf: M{(Tensor), (Number)}}(%para0_fn)\n"
        "  return(%0)\n"
        "}\n"
    )
    g = parse_ir_text(text)
    assert [n.id for n in g.nodes if n.kind == "input"] == ["%para0_fn"]
    assert [(n.op, n.inputs) for n in g.nodes if n.kind == "op"] == [
        ("HyperMapPy_hyper_map", ["%para0_fn"]),
        ("Return", ["%0"]),
    ]
    assert not unread_lines(g) and "lists %para0_fn twice" in g.attrs[NOTES_ATTR]


def test_the_1_x_entry_header_and_its_x_joined_types_are_read():
    text = (
        "#IR entry      : @w.21\n#attrs         :\n#Total params  : 1\n\n"
        "%para1_x : <Tensor[Float32]x(2, 3)>\n\n#Total subgraph : 1\n\n"
        "subgraph attr:\nUndeterminate : 0\n"
        "subgraph @w.21(%para2_x) {\n"
        "  %0(a) = Neg(%para2_x) {instance name: neg} primitive_attrs: {output_names: [output]}\n"
        "      : (<Tensor[Float32]x(2, 3)>) -> (<Tensor[Float32]x(2, 3)>)\n"
        "      # In file train.py(34)/        a = self.neg(x)/\n"
        "  return(%0)\n}\n"
    )
    g = parse_ir_text(text)
    assert g.name == "w.21" and PARTIAL_ATTR not in g.attrs and not unread_lines(g)
    neg = g.node("%0")
    assert (neg.op, neg.outputs[0].dtype, neg.outputs[0].shape) == ("Neg", "Float32", (2, 3))


def test_a_dump_pasted_with_every_line_indented_is_read_as_the_dump():
    dump = (
        "# Params:\n%para1_x: <Tensor[Float32], ()>\n\n"
        "subgraph @f() {\n"
        "%0(a) = PrimFunc_Neg(%para1_x)\n"
        "    : (<Tensor[Float32], ()>) -> (<Tensor[Float32], ()>)\n"
        "Return(%0)\n"
        "    : (<Tensor[Float32], ()>)\n"
        "}\n"
    )
    g = parse_ir_text("\n".join("    " + line if line else "" for line in dump.split("\n")))
    assert [n.op for n in g.nodes if n.kind == "op"] == ["Neg", "Return"]
    assert g.node("%0").outputs[0].dtype == "Float32" and not unread_lines(g)
    assert "every line indented 4 spaces" in g.attrs[PARTIAL_ATTR]

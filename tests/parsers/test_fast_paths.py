"""The str-method fast paths of the parser and the pass diff give what the regular
expressions they stand for give (issue #27: written for speed, checked for sameness)."""

import glob
import os
import re

from ascend_lab.parsers.ir.ir_text import _LineFinder, parse_ir_text
from ascend_lab.parsers.ir.ir_values import (
    _CACHE_MAX_CHARS,
    _first_types,
    _match_close,
    _parse_types_line,
    _slot_type,
    parse_type,
    split_top,
)
from ascend_lab.parsers.ir.timeline import _OPNUM_RE, _without_op_number


def test_op_number_is_cut_like_the_regex():
    names = ["a/b-op12", "a/b-op", "a-op12-op3", "x-op1\n", "x-op\u0661\u0662", "x-op\u00b2"]
    names += ["-op1", "op1", "a-op1x", "Default/x-op0/y", "", "Default/Add-op"]
    for name in names:
        assert _without_op_number(name) == _OPNUM_RE.sub("", name), name


def _reference_close(text, start):
    depth, quote = 0, False
    for m in re.finditer(r"[()\[\]{}\"',]", text[start:]):
        at, ch = m.start() + start, m.group()
        if quote:
            quote = not (ch == '"' and text[at - 1] != "\\")
            continue
        if ch == '"':
            quote = True
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch in ")]}":
            return at + 1
    return -1


def test_brackets_and_quotes():
    assert split_top('a, (b, c), "d, e", [f, {g, h}]') == ["a", "(b, c)", '"d, e"', "[f, {g, h}]"]
    assert split_top('x, "a\\", b", y') == ["x", '"a\\", b"', "y"]
    for text in ["(a, (b)), c", "((", "(a]", '("(", x)', ")(", "a, (b, [c, d]), e"]:
        for start in range(len(text)):
            assert _match_close(text, start) == _reference_close(text, start), (text, start)


def test_line_finder_answers_like_list_index():
    lines = ["a", "}", "b", "c", "}", "d"]
    finder = _LineFinder(lines, "}")
    assert [finder.find(i) for i in range(len(lines))] == [1, 1, 4, 4, 4, -1]


def _reference_first_types(body):
    """What a node's first type line gave before those were cached (issue #27)."""
    ins, outs = _parse_types_line(body)
    inputs = [_slot_type(t) for t in ins]
    return inputs, [t for text in (ins if outs is None else outs) for t in parse_type(text)]


IR_FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ir")


def test_first_type_lines_read_like_before_and_each_node_gets_its_own_lists():
    bodies = set()
    for path in glob.glob(os.path.join(IR_FIXTURES, "**", "*.ir"), recursive=True):
        with open(path, encoding="utf-8") as f:
            bodies.update(line.strip()[2:] for line in f if line.strip().startswith(": "))
    long_tuple = "(" + ", ".join(["<Tensor[Float32], (1, 2)>"] * 60) + ") -> (<Bool, ()>)"
    assert len(long_tuple) > _CACHE_MAX_CHARS  # read without the cache
    bodies.update([long_tuple, "(<Tuple[Float32*2], TupleShape((1), (2))>)", "()", ""])
    assert len(bodies) > 100
    for body in sorted(bodies):
        inputs, outputs = _first_types(body)
        assert (list(inputs), list(outputs)) == _reference_first_types(body), body
    text = (
        "# IR entry: @g\nsubgraph @g(%para1_x) {\n"
        "  %0(a) = Abs(%para1_x)\n      : (<Tensor[Float32], (2)>) -> (<Tensor[Float32], (2)>)\n"
        "  %1(b) = Abs(%0)\n      : (<Tensor[Float32], (2)>) -> (<Tensor[Float32], (2)>)\n"
        "  Return(%1)\n}\n"
    )
    a, b = [n for n in parse_ir_text(text).nodes if n.op == "Abs"]
    assert a.outputs == b.outputs and a.outputs is not b.outputs
    assert a.input_types is not b.input_types

"""The str-method fast paths of the parser and the pass diff give what the regular
expressions they stand for give (issue #27: written for speed, checked for sameness)."""

import re

from ascend_lab.parsers.ir_text import _LineFinder, _match_close, split_top
from ascend_lab.parsers.timeline import _OPNUM_RE, _without_op_number


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

"""The line-based loop-body scan that replaced the backtracking ``asnumpy-in-loop`` regex."""

import re

import pytest

from ascend_lab.doctor.knowledge import load_entries
from ascend_lab.doctor.loops import LoopBodyPattern
from ascend_lab.doctor.match import match_entry

ASNUMPY = LoopBodyPattern(re.compile(r"\.asnumpy\(\)"))


def _line(text, m):
    return text.count("\n", 0, m.start()) + 1


INSIDE = [
    ("for x in ds:\n    l = f(x)\n    out.append(l.asnumpy())\n", 3),
    ("while True:\n\n    v = loss.asnumpy()\n", 3),  # a blank line does not end the body
    ("for a in b:\n    for x in ds:\n        y = x.asnumpy()\n", 3),
    ("for x in ds:  # train\n    y = x.asnumpy()\n", 2),
    ("async for x in ds:\n    y = x.asnumpy()\n", 2),
    ("for (x, y) in ds:\n\ty = x.asnumpy()\n", 2),  # tab indent
    ("def f():\n    for x in ds:\n# a comment at column 0\n        y = x.asnumpy()\n", 4),
    ("for x in ds:\r\n    y = x.asnumpy()\r\n", 2),  # Windows line ends
    ("for x in ds:\n" + "    y = f(x)\n" * 500 + "    z = y.asnumpy()\n", 502),  # long bodies
]
OUTSIDE = [
    "for epoch in range(10):\n    train_one_epoch(net)\nprint(loss.asnumpy())\n",
    "for x in ds:\n    y = f(x)\nelse:\n    z = y.asnumpy()\n",  # for-else runs once
    "for i in range(int(n.asnumpy())):\n    pass\n",  # the header is evaluated once
    "information: see below\n    v = x.asnumpy()\n",  # 'for' must be the keyword
    "formula = 1\nwhile_x = 2:\n    v = x.asnumpy()\n",
    "    for x in ds:\n        y = f(x)\n    v = y.asnumpy()\n",  # dedent to the header's level
    "for x in ds: y = f(x)\nv = y.asnumpy()\n",  # a one-line loop has no indented body
    "x.asnumpy()",
    "",
]


@pytest.mark.parametrize("text,line", INSIDE)
def test_asnumpy_inside_a_loop_body_is_found_on_its_line(text, line):
    m = ASNUMPY.search(text)
    assert m is not None
    assert m.group(0) == ".asnumpy()" and _line(text, m) == line


@pytest.mark.parametrize("text", OUTSIDE)
def test_asnumpy_outside_a_loop_body_is_not_found(text):
    assert ASNUMPY.search(text) is None


def test_the_knowledge_base_rule_is_the_line_scan():
    entry = next(e for e in load_entries() if e.id == "asnumpy-in-loop")
    assert [type(p) for p in entry.patterns] == [LoopBodyPattern]
    assert entry.needles == (((".asnumpy()",), False),)
    text = "for s, b in enumerate(ds):\n    loss = step(b)\n    h.append(loss.asnumpy())\n"
    m = match_entry(entry, text)
    assert m is not None and m.evidence == ((3, "h.append(loss.asnumpy())"),)


def test_line_regex_groups_are_visible_to_the_matcher():
    pattern = LoopBodyPattern(re.compile(r"print\((?P<op>\w+)\)"))
    assert "op" in pattern.groupindex
    m = pattern.search("while go:\n    print(loss)\n")
    assert m is not None and m.group("op") == "loss"

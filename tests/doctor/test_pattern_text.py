"""Reading regex sources: the pre-check literal and the linear-time rules the loader enforces."""

import re

import pytest

from ascend_lab.doctor.knowledge import KnowledgeBaseError, parse_entries, read_knowledge
from ascend_lab.doctor.pattern_text import (
    backtracking_risks,
    required_literal,
    required_literals,
)

# The rule the knowledge base shipped before: exponential on an ordinary training loop.
OLD_ASNUMPY = (
    r"(?m)^(?P<indent>[ \t]*)(?:for|while)\b[^\n]*:[ \t]*(?:#[^\n]*)?\n"
    r"(?:(?P=indent)[ \t]+[^\n]*\n|[ \t]*\n){0,40}?(?P=indent)[ \t]+[^\n]*\.asnumpy\(\)"
)


def _doc():
    return read_knowledge()


@pytest.mark.parametrize(
    "source,expected",
    [
        (r"because the device is used\. ret is -8020", "because the device is used. ret is -8020"),
        (r"For '(?P<op>\w+)', \w+\.shape and \w+\.shape need", ".shape and "),  # first of equals
        (r"Total stream number[^\n]{0,200}?exceeds the limit of", "exceeds the limit of"),
        (r"abcd?efgh", "efgh"),  # an optional character is not required
        (r"abc+defg", "defg"),  # a repeated one ends the run after its first copy
        (r"xyz{2}w", "xyz"),
        (r"ab\n\tcd", "ab\n\tcd"),
        (r"[abc]xyz[^q]", "xyz"),
        (r"[]x]abc", "abc"),  # ']' first in a class is a member
        (r"\d{3}-\d{4}", None),
        (r"x|yyyyy", None),  # top-level alternation: nothing is required
        (r"(?x)a b c d", None),  # verbose: spaces do not count
        (r"(?:foo|bar)baz?", None),
    ],
)
def test_required_literal(source, expected):
    found = required_literal(re.compile(source))
    assert found == (None if expected is None else (expected, False))


@pytest.mark.parametrize(
    "source,expected",
    [
        (r"alpha beta|gamma delta", ("alpha beta", "gamma delta")),
        (r"(?i)Out Of Memory|OOM when|no memory", ("out of memory", "oom when", "no memory")),
        (r"x|yyyyy", None),  # a branch without a literal long enough: no pre-check
        (r"(?:f|b)a|quuxx", None),  # the first branch's literals are too short
        (r"(?:foo|bar)ba|quuxx", ("fooba", "barba", "quuxx")),  # a run times a group
        (r"\bEZ(?:9999|1001)(?: |:)", ("EZ9999 ", "EZ9999:", "EZ1001 ", "EZ1001:")),
        (r"(?:EZ|EE)[0-9]{4}", None),  # "EZ" and "EE" are too short
        (r"xy(?:abcd|ef)?zz", None),  # an optional group requires nothing
        (r"(?:ab(?:cdef|ghij))+ q", ("abcdef", "abghij")),  # nested, repeated at least once
        (r"(?:\d+(?:abcd|efgh))", ("abcd", "efgh")),  # a group of literal text inside a group
        (r"one two three", ("one two three",)),  # no alternation: its one literal
    ],
)
def test_required_literals_of_an_alternation(source, expected):
    found = required_literals(re.compile(source))
    if expected is None:
        assert found is None
    else:
        assert found == (expected, bool(re.compile(source).flags & re.IGNORECASE))


def test_a_scoped_ignorecase_group_lowers_the_literals():
    assert required_literals(re.compile(r"(?i:Tiling Failed)|EZ9999")) == (
        ("tiling failed", "ez9999"),
        True,
    )


def test_required_literals_never_claim_text_a_match_lacks():
    """Each match contains one of the literals: checked on generated matches."""
    cases = {
        r"(?:\bEZ(?:9999|1001)(?:: ?\[PID|:| )|\(EZ(?:9999|1001)\): )x": [
            "EZ1001 x",
            "(EZ9999): x",
        ],
        r"a(?:(?:bcd|efg)h|ijkl)+m": ["abcdhijklm", "aijklm", "aefghm"],
        r"(?i:Out Of)\s+MEMORY": ["oUT of  MEMORY"],
    }
    for source, texts in cases.items():
        pattern = re.compile(source)
        literals, ignorecase = required_literals(pattern) or ((), False)
        assert literals, source
        for text in texts:
            assert pattern.fullmatch(text), (source, text)
            hay = text.lower() if ignorecase else text
            assert any(lit in hay for lit in literals), (source, literals, text)


def test_required_literal_ignorecase_is_lowered():
    assert required_literal(re.compile(r"(?i)Gradient Overflow")) == ("gradient overflow", True)
    assert required_literal(re.compile(r"Loss NaN", re.IGNORECASE)) == ("loss nan", True)


def test_required_literal_never_claims_text_a_match_lacks():
    """Each literal must occur in every match: checked on generated matches."""
    cases = {
        r"ab?c{0,2}de+f(?:gh)*ij": ["adefij", "abccdeeefghghij"],
        r"x[yz]{1,3}\.w\\v": ["xy.w\\v", "xzzz.w\\v"],
        r"(?i)MiXeD\s+case!": ["mixed   CASE!"],
    }
    for source, texts in cases.items():
        pattern = re.compile(source)
        literal, ignorecase = required_literal(pattern) or ("", False)
        for text in texts:
            assert pattern.fullmatch(text), (source, text)
            assert literal in (text.lower() if ignorecase else text), (source, literal)


@pytest.mark.parametrize(
    "source,risk",
    [
        (OLD_ASNUMPY, "back-reference"),
        (OLD_ASNUMPY, "repeat inside a repeat"),
        (r"(a+)+b", "repeat inside a repeat"),
        (r"(?:\w+\s?)*$", "repeat inside a repeat"),
        (r"errNo[^\n]*is invalid", r"unbounded repeat of [^\n]"),
        (r"version \S+ and", r"unbounded repeat of \S"),
        (r"a.*b", "unbounded repeat of ."),
        (r"x.{0,5000}", "up to 5000"),
        (r"(a)\1", "back-reference"),
        (r"(?(1)a|b)", "not a construct"),
        (r"`([^`]+)`", r"unbounded repeat of [^`]"),
    ],
)
def test_backtracking_risks_are_named(source, risk):
    assert any(risk in r for r in backtracking_risks(source)), backtracking_risks(source)


@pytest.mark.parametrize(
    "source",
    [
        r"\bEI0006\b",
        r"[^\n]{0,80}Permission denied",
        r"(?:ab){2,}",
        r"For '(?P<op>\w+)'",
        r"a\s*=\s*1",
    ],
)
def test_linear_patterns_pass(source):
    assert backtracking_risks(source) == []


def test_every_shipped_pattern_is_linear_by_the_rules():
    sources = []
    for item in _doc()["entries"]:
        for spec in item["patterns"]:
            sources.append(spec["in_loop_body"] if isinstance(spec, dict) else spec)
    assert len(sources) >= 60
    assert {s: backtracking_risks(s) for s in sources if backtracking_risks(s)} == {}


def test_loader_refuses_a_backtracking_pattern():
    doc = _doc()
    doc["entries"][0]["patterns"] = [OLD_ASNUMPY]
    with pytest.raises(KnowledgeBaseError, match="can backtrack on long input: .*back-reference"):
        parse_entries(doc)
    doc["entries"][0]["patterns"] = [{"in_loop_body": r"(x+)+\.asnumpy"}]
    with pytest.raises(KnowledgeBaseError, match="repeat inside a repeat"):
        parse_entries(doc)


def test_loader_refuses_a_malformed_pattern_object():
    doc = _doc()
    doc["entries"][0]["patterns"] = [{"in_a_loop": "x"}]
    with pytest.raises(KnowledgeBaseError, match="in_loop_body"):
        parse_entries(doc)
    doc["entries"][0]["patterns"] = []
    with pytest.raises(KnowledgeBaseError, match="patterns must be a non-empty list"):
        parse_entries(doc)


def test_every_regex_in_the_doctor_modules_is_linear_by_the_rules():
    import importlib
    import pkgutil

    import ascend_lab.doctor as package

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module("ascend_lab.doctor." + info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found[f"{info.name}.{name}"] = backtracking_risks(value.pattern)
    assert {"magic._ANSI", "render._CODE"} <= set(found)
    assert {name: risks for name, risks in found.items() if risks} == {}

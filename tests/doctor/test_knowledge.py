"""The knowledge base: every entry has real error texts, and each is recognised."""

import re

import pytest

from ascend_lab.doctor.knowledge import (
    CONFIRM_CHECKS,
    KnowledgeBaseError,
    load_entries,
    parse_entries,
    read_knowledge,
)
from ascend_lab.doctor.match import match_entry, match_text

ENTRIES = load_entries()
EXAMPLES = [(e.id, i, text) for e in ENTRIES for i, text in enumerate(e.examples)]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _doc():
    return read_knowledge()


@pytest.mark.sweep
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_entry_is_complete(entry):
    assert entry.examples, "every entry needs at least one real error text"
    assert entry.fix and all(step.strip() for step in entry.fix)
    assert entry.cause.strip() and entry.explanation.strip() and entry.title.strip()
    assert CJK.search(entry.term), "term must carry the Chinese term: " + entry.term
    assert entry.kind in ("error", "pitfall")
    assert entry.confirm is None or entry.confirm in CONFIRM_CHECKS


@pytest.mark.sweep
@pytest.mark.parametrize("entry_id,index,text", EXAMPLES, ids=[f"{e}-{i}" for e, i, _ in EXAMPLES])
def test_example_is_recognised_and_ranked_first(entry_id, index, text):
    entry = next(e for e in ENTRIES if e.id == entry_id)
    m = match_entry(entry, text)
    assert m is not None, f"{entry_id} does not match its own example {index}"
    assert m.evidence_line and m.evidence_line.strip("…") in text
    ranked = match_text(text)
    assert ranked[0].entry.id == entry_id, [r.entry.id for r in ranked]


def test_entry_without_examples_is_rejected():
    doc = _doc()
    doc["entries"][0]["examples"] = []
    with pytest.raises(KnowledgeBaseError, match="examples"):
        parse_entries(doc)


def test_bad_regex_and_duplicate_ids_are_rejected():
    doc = _doc()
    doc["entries"][0]["patterns"] = ["(unclosed"]
    with pytest.raises(KnowledgeBaseError, match="bad pattern"):
        parse_entries(doc)
    doc = _doc()
    doc["entries"].append(dict(doc["entries"][0]))
    with pytest.raises(KnowledgeBaseError, match="twice"):
        parse_entries(doc)
    doc = _doc()
    doc["entries"][0]["confirm"] = "astrology"
    with pytest.raises(KnowledgeBaseError, match="confirm"):
        parse_entries(doc)


def test_covers_what_issue_7_lists():
    ids = {e.id for e in ENTRIES}
    wanted = {
        "version-mismatch", "device-busy", "device-permission", "device-not-visible",
        "operator-unsupported", "op-compile-failed", "op-compile-response-empty",
        "hccl-connect-timeout", "hccl-exec-timeout", "device-oom", "stream-limit",
        "device-id-out-of-range", "set-env-not-sourced", "graph-tensor-condition",
        "graph-unsupported-syntax", "shape-broadcast", "shape-matmul",
        "dynamic-shape-recompile", "asnumpy-in-loop", "pynative-in-production", "amp-overflow",
    }  # fmt: skip
    assert wanted <= ids, wanted - ids
    fixes = {e.id: " ".join(e.fix) for e in ENTRIES}
    assert "HCCL_CONNECT_TIMEOUT" in fixes["hccl-connect-timeout"]
    assert "HCCL_EXEC_TIMEOUT" in fixes["hccl-exec-timeout"]
    assert "set_env.sh" in fixes["set-env-not-sourced"]
    assert "HwHiAiUser" in fixes["device-permission"]


def test_pre_check_literals_never_hide_a_match():
    """The fast pre-check must agree with the regex on every example and fixture."""
    import glob
    import os

    texts = [t for e in ENTRIES for t in e.examples]
    here = os.path.join(os.path.dirname(__file__), "fixtures")
    for path in glob.glob(os.path.join(here, "*.txt")):
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    checked = 0
    for entry in ENTRIES:
        assert len(entry.needles) == len(entry.patterns)
        for pattern, needle in zip(entry.patterns, entry.needles):
            for text in texts:
                if pattern.search(text) and needle is not None:
                    literals, ignorecase = needle
                    hay = text.lower() if ignorecase else text
                    assert any(lit in hay for lit in literals), (entry.id, literals)
                    checked += 1
    assert checked >= len(ENTRIES)


def test_required_literal_extraction():
    from ascend_lab.doctor.pattern_text import required_literal

    assert required_literal(re.compile(r"\bEI0006\b")) == ("EI0006", False)
    assert required_literal(re.compile(r"(?i)gradient overflow")) == ("gradient overflow", True)
    assert required_literal(re.compile(r"lib(?:a|b)\.so: cannot open")) == (
        ".so: cannot open",
        False,
    )
    assert required_literal(re.compile(r"(?:foo|bar)baz?")) is None  # 'ba' is too short
    assert required_literal(re.compile(r"x|yyyyy")) is None  # top-level alternation


PATTERNS = [(e, i) for e in ENTRIES for i in range(len(e.patterns))]


@pytest.mark.sweep
@pytest.mark.parametrize("entry,index", PATTERNS, ids=[f"{e.id}-p{i}" for e, i in PATTERNS])
def test_every_pattern_is_exercised_by_an_example(entry, index):
    pattern = entry.patterns[index]
    assert any(pattern.search(text) for text in entry.examples), pattern.pattern


def test_every_entry_says_where_its_examples_come_from():
    for item in _doc()["entries"]:
        assert item.get("sources"), item["id"]
        assert all(isinstance(s, str) and s.strip() for s in item["sources"])

"""The fresh batches (tests/fixtures/real/fresh; batches 4, 5 and 6 moved to the corpus's dev)
are well formed and really fresh: every case has its file, its provenance and an expectation
in the closed vocabulary; no thread or page of them is named anywhere else under
tests/fixtures/real or twice in the folder, and no text is a near copy of a corpus text or of
a text of another batch. Nothing here runs the doctor on these texts: the integrator measures
each batch (measure_corpus.py --fresh --batch N)."""

import json
import re
from pathlib import Path
from typing import Dict, Set, Tuple

import pytest

from tests.doctor.heldout_guard import _windows
from tests.doctor.test_corpus_manifest import KINDS, REAL, TOPICS, check_labels

FRESH = REAL / "fresh"
# The floors each batch reached (see the README), per batch: (texts, sources, printed by
# MindSpore). Batch 4: the brief asked for 40 texts from 15 sources and it reached 41 from 21
# sources, 6 printed by MindSpore. Batch 5: the brief asked for 30 texts from 12 sources and it
# reached 33 from 19 sources, 5 printed by MindSpore.
# Batches 4 and 5 moved to ../corpus/dev after their measures. Batch 6: the brief asked for 35
# texts from 15 sources and it reached 37 from 25 sources, 3 printed by MindSpore; it moved to
# ../corpus/dev after its 'before' count at aa58238. Batch 7: the brief asked for 35 texts from
# 15 sources and it reached 30 from 17 sources, 7 printed by MindSpore (short of 35 texts at the
# deadline); it moved to ../corpus/dev after its 'before' count at af24be2. Batch 8: the brief
# asked for 35 texts from 15 sources, 8 printed by MindSpore, and it reached 33 from 17
# sources, 3 printed by MindSpore (the free MindSpore threads were used up).
FLOORS: Dict[int, Tuple[int, int, int]] = {8: (33, 17, 3)}
_THREAD = re.compile(r"github\.com/([^/\s]+/[^/\s#]+)/(?:issues|pull|discussions)/(\d+)")
_SCHEME = re.compile(r"^https?://(?:www\.)?", re.IGNORECASE)


def manifest():
    return json.loads((FRESH / "manifest.json").read_text(encoding="utf-8"))


def cases():
    return manifest()["cases"]


def batch_of(case, data=None):
    """A case's batch: its own 'batch', else the manifest's (batch 4's cases carry none)."""
    return case.get("batch", (data or manifest()).get("batch"))


def thread_key(url):
    """A GitHub thread as (owner/name, number); any other page as its address without scheme,
    'www.', query or fragment, so the same page is one key however it was linked."""
    found = _THREAD.search(url)
    if found:
        return (found.group(1).lower(), int(found.group(2)))
    return _SCHEME.sub("", url.split("#", 1)[0].split("?", 1)[0]).rstrip("/").lower()


def test_the_manifest_says_what_the_batch_is():
    data = manifest()
    assert data["format"] == "ascend-lab.real-error-corpus/1"
    assert "measured once" in data["half_rule"]
    assert data["collected"].strip()
    readme = (FRESH / "README.md").read_text(encoding="utf-8").lower()
    assert "measured once" in readme and "--fresh" in readme


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_case(case):
    topics = set(json.loads(TOPICS.read_text(encoding="utf-8"))["topics"])
    assert case["half"] == "fresh"
    assert case["file"] == f"{case['id']}.txt"
    raw = (FRESH / case["file"]).read_bytes()
    assert raw.strip() and raw.endswith(b"\n")
    raw.decode("utf-8")
    source = case["source"]
    assert source["kind"] in KINDS and source["kind"] in ("issue", "page")
    assert source.get("repo") and source["url"].startswith("https://")
    if source["kind"] == "issue":
        assert isinstance(source.get("thread"), int)
        assert thread_key(source["url"]) == (source["repo"].lower(), source["thread"])
    else:  # a web page: the site is its repo, the address names it, there is no thread
        assert "thread" not in source and not _THREAD.search(source["url"])
        assert thread_key(source["url"]).split("/", 1)[0] == source["repo"].lower()
    check_labels(case, topics)
    assert case["cause_from"] in ("thread", "message")
    assert isinstance(case["printed_by_mindspore"], bool)


def test_every_file_is_listed_and_ids_are_unique():
    ids = [c["id"] for c in cases()]
    assert len(ids) == len(set(ids))
    assert {p.name for p in FRESH.glob("*.txt")} == {c["file"] for c in cases()}


def test_every_case_belongs_to_a_known_batch():
    data = manifest()
    assert {batch_of(c, data) for c in data["cases"]} <= set(FLOORS)


@pytest.mark.parametrize("batch", sorted(FLOORS))
def test_enough_texts_from_enough_sources(batch):
    data = manifest()
    mine = [c for c in data["cases"] if batch_of(c, data) == batch]
    min_cases, min_sources, min_mindspore = FLOORS[batch]
    assert len(mine) >= min_cases
    assert len({c["source"]["repo"] for c in mine}) >= min_sources
    assert sum(c["printed_by_mindspore"] for c in mine) >= min_mindspore


def _known_threads():
    """Every GitHub thread and web page named anywhere in the other real-error material (never
    printed)."""
    keys: Set[object] = set()
    for path in REAL.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".md") and FRESH not in path.parents:
            keys.update(thread_key(u) for u in _urls(path))
    return keys


def _urls(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    return re.findall(r"https?://[^\s)\"'>`|\]]+", text)


def test_no_thread_is_already_in_the_real_material():
    known = _known_threads()
    shared = [c["id"] for c in cases() if thread_key(c["source"]["url"]) in known]
    assert not shared, f"{len(shared)} fresh case(s) come from a thread or page already used"


def test_no_thread_is_used_by_two_batches():
    """Within the folder a thread may give several texts of one batch, never texts of two
    batches (a later batch skips what an earlier one took). Prints no id."""
    data = manifest()
    batches_of: Dict[object, Set[object]] = {}
    for case in data["cases"]:
        batches_of.setdefault(thread_key(case["source"]["url"]), set()).add(batch_of(case, data))
    shared = sum(len(b) > 1 for b in batches_of.values())
    assert shared == 0, f"{shared} thread(s) or page(s) give texts to two fresh batches"


def test_no_text_is_a_near_copy_of_a_corpus_text():
    """Half of the shorter text's 48-character runs in the other = a near copy (the rule of
    heldout_guard.overlaps_heldout), against every corpus half and errors/. Prints no text."""
    theirs = [
        _windows(p.read_text(encoding="utf-8", errors="replace"))
        for p in sorted((REAL / "corpus").glob("*/*.txt")) + sorted((REAL / "errors").glob("*.txt"))
    ]
    near = 0
    for case in cases():
        mine = _windows((FRESH / case["file"]).read_text(encoding="utf-8"))
        near += any(t and len(mine & t) >= 0.5 * min(len(mine), len(t)) for t in theirs)
    assert near == 0, f"{near} fresh text(s) are near copies of corpus texts"


def test_no_text_is_a_near_copy_of_a_text_of_another_batch():
    """The same rule between the fresh batches, so a later batch measures something new. Prints
    no text and no id."""
    data = manifest()
    runs = [
        (batch_of(c, data), _windows((FRESH / c["file"]).read_text(encoding="utf-8")))
        for c in data["cases"]
    ]
    near = 0
    for i, (batch, mine) in enumerate(runs):
        for other, theirs in runs[i + 1 :]:
            if other != batch and mine and theirs:
                near += len(mine & theirs) >= 0.5 * min(len(mine), len(theirs))
    assert near == 0, f"{near} pair(s) of texts of two fresh batches are near copies"


def test_the_fresh_report_prints_counts_only(capsys):
    """measure_corpus.py --fresh prints no id, text or answer: checked on made-up rows, so this
    test runs nothing on the fresh texts."""
    from tests.doctor.measure_corpus import load_fresh, report

    assert all(Path(c["file"]).is_file() for c in load_fresh())
    made_up = [
        (
            {
                "id": "secret_case_one",
                "source": {"kind": "issue"},
                "stack": "mindspore",
                "cause_from": "thread",
                "expect": ["oom-device"],
            },
            "wrong",
            "answer_shown_one",
        ),
        (
            {
                "id": "secret_case_two",
                "source": {"kind": "issue"},
                "stack": "cann",
                "cause_from": "message",
                "expect": ["aicore-error"],
            },
            "traceback",
            None,
        ),
        (
            {
                "id": "secret_case_three",
                "source": {"kind": "issue"},
                "stack": "cann",
                "cause_from": "message",
                "expect": ["dist-init"],
            },
            "unrecognised",
            None,
        ),
    ]
    report("now", made_up, "fresh")
    out = capsys.readouterr().out
    assert "0 of 3 right, 1 wrong" in out and "1 unrecognised, 1 tracebacks" in out
    assert "per cause_from: message 0/2, thread 0/1 (1 wrong)" in out
    for secret in ("secret_case", "answer_shown", "oom-device", "aicore-error", "dist-init"):
        assert secret not in out

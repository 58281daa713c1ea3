"""The real-error corpus (tests/fixtures/real/corpus) is well formed: every case has its file,
its provenance, a half given by the recorded rule and an expectation in the closed vocabulary."""

import hashlib
import json
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
CORPUS = REAL / "corpus"
TOPICS = Path(__file__).resolve().parents[2] / "ascend_lab" / "doctor" / "topics.json"
PREFIXES = ("code:", "family:", "topic-missing:")
KINDS = {"issue", "doc", "repo-file", "page"}
STACKS = {"mindspore", "torch_npu", "vllm-ascend", "mindspeed", "cann", "hccl", "npu-smi", "other"}


def manifest():
    return json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))


def cases():
    return manifest()["cases"]


def half_of(case_id):
    """The recorded rule (README.md): sha1 of the id as an integer, even -> dev, odd -> heldout."""
    return "dev" if int(hashlib.sha1(case_id.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def test_the_half_rule_is_the_one_recorded():
    assert "even -> dev" in manifest()["half_rule"]
    assert "sha1" in (CORPUS / "README.md").read_text(encoding="utf-8")


def expected_half(case):
    """The sha1 rule, except for texts collected while rules were being written: those are
    dev by collection (``"split": "dev"`` with the date they were collected), whatever their
    hash says. A split can only make a case dev: the held-out half stays unseen material."""
    if "split" in case:
        assert case["split"] == "dev", "a recorded split can only be dev"
        assert case.get("collected", "").strip(), "a dev-by-collection case says when"
        return "dev"
    return half_of(case["id"])


def check_labels(case, topics):
    """The labels every real-error case carries: its stack, why, and accepted answers in the
    closed vocabulary (``topics``) or with a code / family / topic-missing prefix."""
    assert case["stack"] in STACKS
    assert case["why"].strip()
    assert case["expect"], "no accepted answer"
    for answer in case["expect"]:
        assert answer in topics or answer.startswith(PREFIXES), answer


@pytest.mark.sweep
@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_case(case):
    topics = set(json.loads(TOPICS.read_text(encoding="utf-8"))["topics"])
    assert case["half"] == expected_half(case)
    assert case["file"] == f"{case['half']}/{case['id']}.txt"
    text = (CORPUS / case["file"]).read_text(encoding="utf-8")
    assert text.strip(), "empty text"
    source = case["source"]
    assert source["kind"] in KINDS
    assert source.get("repo") and source.get("url", "").startswith("https://")
    if source["kind"] == "doc":
        assert source.get("commit") and source.get("path") and source.get("lines")
    if source["kind"] == "issue":
        assert isinstance(source.get("thread"), int)
    if source["kind"] == "repo-file":
        assert source.get("path") and len(source.get("commit", "")) == 40
    check_labels(case, topics)


def test_ids_and_texts_are_unique():
    ids = [c["id"] for c in cases()]
    assert len(ids) == len(set(ids))
    texts = [(CORPUS / c["file"]).read_bytes() for c in cases()]
    texts += [p.read_bytes() for p in sorted((REAL / "errors").glob("*.txt"))]
    assert len(texts) == len(set(texts)), "the same text twice"


def test_every_file_is_in_the_manifest():
    listed = {c["file"] for c in cases()}
    on_disk = {f"{p.parent.name}/{p.name}" for p in CORPUS.glob("*/*.txt")}
    assert on_disk == listed


ANALYZE_FAIL = REAL / "analyze_fail"


def test_analyze_fail_files_have_provenance_and_a_half():
    listed = json.loads((ANALYZE_FAIL / "manifest.json").read_text(encoding="utf-8"))["cases"]
    assert len(listed) >= 10
    for case in listed:
        assert case["half"] == half_of(case["id"])
        data = (ANALYZE_FAIL / case["file"]).read_bytes()
        assert len(data) == case["bytes"]
        assert case["file"].endswith(("analyze_fail.ir", "analyze_fail.dat"))
        source = case["source"]
        assert source["repo"] and len(source["commit"]) == 40 and source["path"]
        # git's blob id of the bytes: the file is the one committed at the source
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        assert blob == source["blob"]
        lines = data.decode("utf-8", "replace").split("\n")
        assert lines[case["failure"]["marker_line"] - 1].startswith("#------------------------>")
    on_disk = {str(p.relative_to(ANALYZE_FAIL)) for p in ANALYZE_FAIL.glob("*/*/analyze_fail.*")}
    assert on_disk == {c["file"] for c in listed}


def test_enough_real_texts_from_enough_sources():
    """Issue #36: at least 150 real error texts (with ../errors) from at least 15 sources."""
    errors = sorted((REAL / "errors").glob("*.txt"))
    assert len(cases()) + len(errors) >= 150
    assert len({c["source"]["repo"] for c in cases()}) >= 15


def test_a_pending_case_is_dev_and_says_why():
    # 'pending': a dev case the doctor does not read right yet (test_composites expects it to
    # fail, strictly); a held-out case is never marked, it is only measured
    pending = [c for c in manifest()["cases"] if "pending" in c]
    for case in pending:
        assert case["half"] == "dev", case["id"]
        assert len(case["pending"].strip()) > 20, case["id"]
    assert len(pending) <= 50, "more dev cases unread than the corpus README accounts for"

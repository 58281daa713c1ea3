"""MindSpore's own messages (#36), read from MindSpore's source by
scripts/mindspore_message_table.py: every template the review maps to a topic is read with that
topic once its {} hold names, numbers and shapes, no mapping is left without a template, and the
patterns the review added to the rules claim no template it left unmapped."""

import importlib.util
import re
from pathlib import Path

import pytest

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics, load_entries

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "mindspore_message_table", ROOT / "scripts" / "mindspore_message_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
ROWS = SCRIPT.read_table()


def _mapped():
    out = []
    for row in ROWS:
        for area, pattern, topic in SCRIPT.MAPPED:
            if area == row["area"] and re.search(pattern, row["template"]):
                out.append((row["area"], topic, row))
                break
    return out


MAPPED_ROWS = _mapped()


def test_the_table_records_where_it_was_read():
    import json

    data = json.loads(Path(SCRIPT.TABLE).read_text(encoding="utf-8"))
    assert data["snapshots"], "no snapshot recorded"
    for snap in data["snapshots"]:
        assert re.fullmatch(r"[0-9a-f]{40}", snap["commit"]), snap
        assert snap["repo"] and snap["version"] and snap["date"]
    areas = {name for name, _ in SCRIPT.AREAS}
    for row in ROWS:
        assert row["area"] in areas, row
        assert "{}" in row["template"] or re.search(r"[A-Za-z]{3}", row["template"])
        assert all(0 <= i < len(data["snapshots"]) for i in row["seen"]), row


def test_every_mapping_names_a_known_topic_and_finds_a_template():
    topics = known_topics()
    for area, pattern, topic in SCRIPT.MAPPED:
        assert topic in topics, topic
        assert any(r["area"] == area and re.search(pattern, r["template"]) for r in ROWS), (
            f"mapping {area} {pattern!r} matches no template"
        )


def test_fill_puts_a_value_of_the_announced_kind():
    assert SCRIPT.fill("Total stream number {} exceeds the limit of {}.") == (
        "Total stream number 1024 exceeds the limit of 1024."
    )
    assert "Ascend" in SCRIPT.fill("type name in address:{}, type name in context:{}")
    assert "[32, 3, 224, 224]" in SCRIPT.fill("expected shape for this column is:{}")
    assert SCRIPT.fill("For '{}', the type of 'x' must be Tensor, but got {}.").startswith(
        "For 'Conv2D',"
    )


def test_a_message_carries_the_exception_kind_mindspore_raises():
    row = {"kind": "ValueError", "template": "For '{}', 'x' must be positive, but got {}."}
    assert SCRIPT.message(row).startswith("ValueError: For 'Conv2D',")
    assert SCRIPT.message(dict(row, kind="ERROR log")).startswith("RuntimeError: ")


@pytest.mark.sweep
@pytest.mark.parametrize(
    "area, topic, row",
    MAPPED_ROWS,
    ids=lambda v: str(v.get("template") if isinstance(v, dict) else v)[:60],
)
def test_a_mapped_template_is_read_with_its_topic(area, topic, row):
    text = SCRIPT.message(row)
    diag = diagnose(text)
    assert diag.findings, f"nothing recognised in {text!r}"
    assert diag.findings[0].topics[:1] == (topic,), (text, diag.findings[0].entry.id)


def test_the_patterns_this_review_added_claim_no_unmapped_template():
    import json

    data = json.loads(Path(SCRIPT.MAP_FILE).read_text(encoding="utf-8"))
    entries = {e.id: e for e in load_entries()}
    added = []
    for rule, patterns in data["rules"].items():
        assert rule in entries, rule
        for p in patterns:
            assert p in entries[rule].raw_patterns, (rule, p)
            added.append((rule, re.compile(p)))
    mapped = {id(row) for _, _, row in MAPPED_ROWS}
    claimed = []
    for row in ROWS:
        if id(row) in mapped:
            continue
        text = SCRIPT.message(row)
        claimed += [(rule, row["template"]) for rule, rx in added if rx.search(text)]
    assert not claimed, claimed[:10]

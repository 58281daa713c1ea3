"""CANN's own error-log messages (#36), read from CANN's public source by
scripts/cann_message_table.py: every template the review maps to a topic is read with that topic
once its printf slots hold values and it is printed as its module's plog line; the patterns the
review added claim no template it left unmapped."""

import json
import re
import sys
from pathlib import Path

import pytest

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics, load_entries

ROOT = Path(__file__).resolve().parents[2]


sys.path.insert(0, str(ROOT / "scripts"))
import cann_message_table as SCRIPT  # noqa: E402 - the script, not a package

ROWS = SCRIPT.read_table()
MAPPING = SCRIPT.read_map()
MAPPED_ROWS = [(r, t) for r in ROWS for t in [SCRIPT.topic_of(r, MAPPING)] if t]
MAP_DATA = json.loads(Path(SCRIPT.MAP_FILE).read_text(encoding="utf-8"))


def test_the_table_records_where_it_was_read():
    data = json.loads(Path(SCRIPT.TABLE).read_text(encoding="utf-8"))
    repos = {s["repo"] for s in data["snapshots"]}
    assert repos == {"hicann/runtime", "hicann/ge", "hicann/hccl", "hicann/driver"}
    for snap in data["snapshots"]:
        assert re.fullmatch(r"[0-9a-f]{40}", snap["commit"]), snap
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", snap["date"]), snap
    modules = {m for m, *_ in SCRIPT.SOURCES}
    areas = {name for name, _ in SCRIPT.AREAS} | {"other"}
    for row in ROWS:
        assert row["module"] in modules and row["area"] in areas, row
        assert 0 <= row["snapshot"] < len(data["snapshots"]), row
    assert len(ROWS) > 10000  # thousands of internal checks are kept as facts


def test_every_mapping_names_a_known_topic_and_finds_a_template():
    topics = known_topics()
    for m in MAPPING:
        assert m["topic"] in topics, m
        assert m["module"] in SCRIPT.PREFIX, m
        assert any(SCRIPT.topic_of(r, [m]) for r in ROWS), f"mapping matches no template: {m}"


def test_fill_puts_a_value_of_each_conversion():
    assert SCRIPT.fill("size=%zu, device_id=%u, ret=%#x, name=%s.") == (
        "size=1024, device_id=0, ret=0x400, name=Conv2D_1."
    )
    assert SCRIPT.fill("file %s, 100%%") == (
        "file /usr/local/Ascend/ascend-toolkit/latest/lib64, 100%"
    )
    assert SCRIPT.fill("len %" + "llu ok") == "len 1024 ok"


def test_format_string_joins_adjacent_literals_and_pri_macros():
    args = ' "E19999", "size=%" PRIu64 " bytes, " "dev=%d", size, dev'
    assert SCRIPT.format_string(args) == "size=%llu bytes, dev=%d"
    assert SCRIPT.format_string(" ret, x") is None


def test_a_log_line_carries_its_modules_plog_prefix():
    row = {"module": "HCCL", "file": "src/a/b/link.cc", "template": "link %s down"}
    assert SCRIPT.log_line(row).startswith("[ERROR] HCCL(12345,python):")
    assert "[link.cc:123]" in SCRIPT.log_line(row)


@pytest.mark.sweep
@pytest.mark.parametrize(
    "row, topic",
    MAPPED_ROWS,
    ids=lambda v: str(v.get("template") if isinstance(v, dict) else v)[:60],
)
def test_a_mapped_template_is_read_with_its_topic(row, topic):
    text = SCRIPT.log_line(row)
    diag = diagnose(text)
    assert diag.findings, f"nothing recognised in {text!r}"
    first = diag.findings[0]
    assert first.topics[:1] == (topic,), (text, getattr(first.entry, "id", None))


def test_the_patterns_this_review_added_claim_no_unmapped_template():
    entries = {e.id: e for e in load_entries()}
    added = []
    for rule, patterns in MAP_DATA["rules"].items():
        assert rule in entries, rule
        for p in patterns:
            assert p in entries[rule].raw_patterns, (rule, p)
            added.append((rule, re.compile(p)))
    claimed = []
    for row in ROWS:
        if SCRIPT.topic_of(row, MAPPING):
            continue
        line = SCRIPT.log_line(row)
        claimed += [(rule, row["template"]) for rule, rx in added if rx.search(line)]
    assert not claimed, claimed[:10]

"""The messages of CANN's open operators (#36), read from their source by
scripts/cann_op_message_table.py: every template the grammar review maps to a topic is read with
that topic once its printf slots hold values and it is printed under 'EZ9999: Inner Error!' as
CANN's error manager prints it; the patterns the review added claim no template it left
unmapped."""

import json
import re
import sys
from pathlib import Path

import pytest

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics, load_entries

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import cann_op_message_table as SCRIPT  # noqa: E402 - the script, not a package

ROWS, MAPPING = SCRIPT.read_table(), SCRIPT.read_map()
MAP_DATA = json.loads(Path(SCRIPT.MAP_FILE).read_text(encoding="utf-8"))
MAPPED_ROWS = [(r, t) for r in ROWS for t in [SCRIPT.topic_of(r, MAPPING)] if t]
# The test reads every 3rd mapped template (about 2,500, in 8 tests of about 2 s): the grammar
# rules are shared by thousands of templates, so a third of them guards every rule; the
# script's own run (`python scripts/cann_op_message_table.py`) reads all of them (7,393).
STRIDE = 3
CHUNKS = 8


def test_the_table_records_where_it_was_read():
    data = json.loads(Path(SCRIPT.TABLE).read_text(encoding="utf-8"))
    repos = [s["repo"] for s in data["snapshots"]]
    assert repos == [name.replace("+", "/") for name in SCRIPT.REPOS]
    for snap in data["snapshots"]:
        assert re.fullmatch(r"[0-9a-f]{40}", snap["commit"]), snap
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", snap["date"]), snap
    stages = {name for name, _ in SCRIPT.STAGES} | {"host"}
    for row in ROWS:
        assert row["stage"] in stages, row
        assert 0 <= row["snapshot"] < len(repos), row
    assert len(ROWS) > 10000


def test_every_mapping_names_a_known_topic_and_finds_a_template():
    topics = known_topics()
    for m in MAPPING:
        assert m["topic"] in topics, m
        assert any(SCRIPT.topic_of(r, [m]) for r in ROWS), f"mapping matches no template: {m}"


def test_the_review_maps_most_templates_that_say_what_was_wrong():
    assert len(MAPPED_ROWS) > len(ROWS) / 2
    assert sum(t == "comm-memory" for _r, t in MAPPED_ROWS) >= 2


def test_the_op_name_literal_before_the_message_is_skipped():
    assert SCRIPT.op_format(' "FlashAttention", "x must be %d", n') == "x must be %d"
    assert SCRIPT.op_format(' context, "x must be " "%d", n') == "x must be %d"
    assert SCRIPT.stage_of("norm/a/op_host/op_api/aclnn_a.cpp") == "aclnn"
    assert SCRIPT.stage_of("mc2/a/op_host/op_tiling/a_tiling.cpp") == "tiling"
    assert SCRIPT.stage_of("nn/a/op_host/a_infershape.cpp") == "infershape"


@pytest.mark.sweep
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_the_mapped_templates_are_read_with_their_topic(chunk):
    wrong = []
    for row, topic in MAPPED_ROWS[::STRIDE][chunk::CHUNKS]:
        diag = diagnose(SCRIPT.ez_text(row), check_environment=False)
        first = diag.findings[0].topics[:1] if diag.findings else ()
        if first != (topic,):
            wrong.append((row["template"], topic, first))
    assert not wrong, wrong[:10]


def test_the_patterns_this_review_added_claim_no_unmapped_template():
    entries = {e.id: e for e in load_entries()}
    added = [(rule, p) for rule, patterns in MAP_DATA["rules"].items() for p in patterns]
    assert all(p in entries[rule].raw_patterns for rule, p in added), added
    unmapped = [SCRIPT.ez_text(r) for r in ROWS if not SCRIPT.topic_of(r, MAPPING)]
    claimed = [(rule, t) for rule, p in added for t in unmapped if re.search(p, t)]
    assert not claimed, claimed[:10]

"""Pass snapshots of a real compile (a two-layer decoder on CPU, dumps kept): blocks shared
between consecutive dumps are parsed once, with the same graphs as parsed alone, and
passes that differ only in how MindSpore printed them are not reported as changes."""

import re
import shutil

import pytest

from ascend_lab.parsers.ir.ir_text import BlockMemo, parse_ir_text
from ascend_lab.parsers.ir.timeline import PassTimeline
from tests.support.ir_fixtures import parsed_as_data

pytestmark = pytest.mark.mindspore

# What a dump prints about a node's name but not about the graph: "Fullname with scope"
# (most dumps) or "Scope" (opt_pass_* dumps), and addresses. Graph attribute lines that
# passes set (has_shard, auto_parallel_finish_pre_action, ...) are allowed to differ below.
_PRINTING = re.compile(r"^\s+# (?:Fullname with scope|Scope): .*$|0x[0-9a-f]+", re.M)


@pytest.fixture(scope="module")
def decoder_dumps():
    import ascend_lab
    from benchmarks.support.nets import Decoder, decoder_tokens

    net = Decoder(layers=2)
    net.set_train(False)
    tr = ascend_lab.trace(net, decoder_tokens(), run=False, keep_dumps=True)
    yield tr
    shutil.rmtree(tr.capture.workdir, ignore_errors=True)


def test_every_pass_parsed_with_shared_blocks_equals_its_own_parse(decoder_dumps):
    timeline = PassTimeline(decoder_dumps.dump_dir)
    memo = BlockMemo()
    parsed = 0
    for snap in timeline:
        if timeline.same_as(snap.index) != snap.index:
            continue
        text = timeline.text(snap.index)
        shared = parse_ir_text(text, snap.path, memo)
        assert parsed_as_data(shared) == parsed_as_data(parse_ir_text(text, snap.path)), snap.name
        parsed += 1
    assert parsed > 10
    # frontend dumps print the same closures pass after pass
    assert memo.hits > memo.misses / 4, (memo.hits, memo.misses)


def test_passes_that_only_print_differently_are_unchanged(decoder_dumps):
    timeline = PassTimeline(decoder_dumps.dump_dir)
    changed = [s for s in timeline if s.changed]
    pairs = 0
    for before, after in zip(changed, changed[1:]):
        if after.node_count != before.node_count:
            continue
        old = set(_PRINTING.sub("", timeline.text(before.index)).splitlines())
        new = set(_PRINTING.sub("", timeline.text(after.index)).splitlines())
        # only graph attribute lines ("key: value" outside blocks) may differ
        if not all(re.match(r"^\w+: \S+$", ln) for ln in old ^ new):
            continue
        pairs += 1
        diff = timeline.diff(after.index)
        assert not diff.changed, (after.name, len(diff.added), len(diff.removed))
    # MindSpore 2.7 and 2.10 print opt_pass_* dumps with "Scope:" lines between the others
    assert pairs >= 2


def test_diffs_answered_from_known_passes_equal_the_parsed_graphs_diffs(decoder_dumps):
    # issue #27: a dump identical to an earlier pass's (not the one before) is not parsed;
    # every diff still equals the one of the two passes' own parses
    from ascend_lab.parsers.ir.timeline import diff_graphs

    parsed = []

    def parse(text, path):
        parsed.append(path)
        return parse_ir_text(text, path)

    timeline = PassTimeline(decoder_dumps.dump_dir, parse=parse)
    diffs = [timeline.diff(snap.index) for snap in timeline]
    distinct = {timeline.same_as(s.index) for s in timeline}
    assert len(set(parsed)) < len(distinct)  # some pass's dump was known, not parsed
    graphs = {}
    for snap in timeline:
        first = timeline.same_as(snap.index)
        if first not in graphs:
            graphs[first] = parse_ir_text(timeline.text(first), timeline[first].path)
    for index in range(1, len(timeline)):
        before = graphs[timeline.same_as(index - 1)]
        after = graphs[timeline.same_as(index)]
        assert diffs[index] == diff_graphs(before, after), timeline[index].name

"""Scope repair's "most ops of this kind in another instance" (issue #27: each counter's two
largest counts are found once, not scanned again for every op) against its definition."""

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from ascend_lab.analysis.scopes import _most_elsewhere

instances = st.sampled_from(["0-Block", "1-Block", "2-Block", "3-Block", "norm"])
counters = st.dictionaries(instances, st.integers(min_value=1, max_value=5), min_size=1)


@given(counters, st.data())
def test_the_largest_count_of_another_instance(counts, data):
    held = ("family", ("attn",), "MatMul")
    table = {held: Counter(counts)}
    tops: dict = {}
    for mine in data.draw(st.lists(st.sampled_from(sorted(counts)), min_size=1, max_size=6)):
        expected = max((v for k, v in counts.items() if k != mine), default=0)
        assert _most_elsewhere(table, held, mine, tops) == expected


def test_ties_count_for_every_instance_but_the_one_asking():
    table = {"k": Counter({"0-Block": 3, "1-Block": 3, "2-Block": 1})}
    tops: dict = {}
    assert _most_elsewhere(table, "k", "0-Block", tops) == 3
    assert _most_elsewhere(table, "k", "1-Block", tops) == 3
    assert _most_elsewhere(table, "k", "2-Block", tops) == 3
    single = {"k": Counter({"0-Block": 2})}
    assert _most_elsewhere(single, "k", "0-Block", {}) == 0

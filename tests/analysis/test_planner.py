"""The offset planner: properties over random lifetimes, exact small cases, the payload."""

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_lab.analysis.lifetimes import problem_from_intervals
from ascend_lab.analysis.planner import MemoryPlan
from ascend_lab.memory import STRATEGIES, plan, plan_best, plan_graph, validate
from tests.memory.graphs import chain

SCHEMA = Path(__file__).resolve().parents[2] / "ascend_lab" / "payload" / "graph.schema.json"

intervals = st.lists(
    st.tuples(st.integers(1, 5000), st.integers(0, 30), st.integers(0, 12)).map(
        lambda x: (x[0], x[1], x[1] + x[2])
    ),
    min_size=0,
    max_size=60,
)


def brute_force_overlaps(p: MemoryPlan):
    """Pairs of tensors that overlap both in time and in address (independent of validate)."""
    ts = p.problem.tensors
    bad = []
    for i, a in enumerate(ts):
        for b in ts[i + 1 :]:
            if a.start <= b.end and b.start <= a.end:
                oa, ob = p.offsets[a.id], p.offsets[b.id]
                if oa < ob + b.size and ob < oa + a.size:
                    bad.append((a.id, b.id))
    return bad


@settings(max_examples=150, deadline=None)
@given(intervals, st.sampled_from([1, 32, 512]))
def test_every_strategy_gives_a_valid_plan(iv, alignment):
    problem = problem_from_intervals(iv, alignment=alignment)
    best = plan_best(problem)
    total = sum(t.size for t in problem.tensors)
    for name in ["no-reuse"] + list(STRATEGIES):
        p = plan(problem, name)
        assert brute_force_overlaps(p) == []
        assert validate(p) == []
        assert all(off % alignment == 0 for off in p.offsets.values())
        assert p.peak >= p.lower_bound
        assert p.no_reuse == total
        assert p.peak <= total
        assert best.peak <= p.peak
        assert best.strategies[name] == p.peak
    assert best.peak >= best.lower_bound
    assert best.no_reuse == total
    assert plan(problem, "no-reuse").peak == total
    assert validate(best) == []


@settings(max_examples=100, deadline=None)
@given(intervals)
def test_lower_bound_is_the_max_live_bytes(iv):
    problem = problem_from_intervals(iv, alignment=1)
    best = plan_best(problem)
    live = [
        sum(size for size, s, e in iv if s <= step <= e)
        for step in range(max((e for _, _, e in iv), default=-1) + 1)
    ]
    assert best.live_bytes == live
    assert best.lower_bound == max(live, default=0)


def test_disjoint_lifetimes_reuse_one_block():
    problem = problem_from_intervals([(1000, 0, 0), (1000, 1, 1), (1000, 2, 2)], alignment=512)
    best = plan_best(problem)
    assert best.peak == 1024 == best.lower_bound
    assert set(best.offsets.values()) == {0}
    assert best.no_reuse == 3072
    assert best.ratio == 1.0


def test_best_fit_uses_the_tightest_gap():
    # a [0,100) and c [300,400) live through step 0..2; b [100,300) frees at step 0.
    # At step 1, a 100-byte tensor fits in b's old 200-byte hole; best fit picks it.
    problem = problem_from_intervals(
        [(100, 0, 2), (200, 0, 0), (100, 0, 2), (100, 1, 2), (250, 1, 1)], alignment=1
    )
    for name in STRATEGIES:
        assert validate(plan(problem, name)) == [], name
    best = plan_best(problem)
    assert best.peak == best.lower_bound == 550


def test_unknown_strategy_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown strategy 'magic'.*greedy-size-best-fit"):
        plan(problem_from_intervals([(1, 0, 0)]), "magic")
    with pytest.raises(TypeError, match="expects an ascend_lab.model.graph.Graph"):
        plan_graph("not a graph")  # type: ignore[arg-type]


def test_payload_matches_the_schema_and_the_plan():
    g = chain([(1, 8, 16, 16), (1, 16, 16, 16), (1, 8, 16, 16), (1, 4, 16, 16)])
    p = plan_graph(g)
    data = p.to_payload("main")
    schema = json.loads(SCHEMA.read_text())
    memory_schema = dict(schema["$defs"]["memory"])
    memory_schema["$defs"] = schema["$defs"]
    jsonschema.validate(data, memory_schema)
    doc = {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": "t"},
        "graphs": {"main": g.to_dict()},
        "views": {"main": "main"},
        "memory": data,
    }
    jsonschema.validate(doc, schema)
    assert data["peak"] == p.peak and data["lower_bound"] == p.lower_bound
    assert data["no_reuse"] == 8192 + 16384 + 8192
    assert [t["id"] for t in data["tensors"]] == ["%0:0", "%1:0", "%2:0"]
    assert [(t["start"], t["end"]) for t in data["tensors"]] == [(0, 1), (1, 2), (2, 3)]
    assert data["steps"] == 4 and len(data["live_bytes"]) == 4
    assert data["strategy"] in data["strategies"]
    assert {q["kind"] for q in data["persistent"]} == {"input", "output"}
    assert data["persistent_bytes"] == 8192 + 4096
    json.dumps(data)  # plain JSON


def test_summary_and_html_escape_model_strings():
    g = chain([(4,), (4,), (4,)])
    g.name = "<script>alert(1)</script>"
    p = plan_graph(g, alignment=1)
    html_text = p._repr_html_()
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text
    text = p.summary()
    assert "peak / lower bound" in text and "1.000" in text
    assert "greedy-size-best-fit" in text


def test_a_plan_that_saves_nothing_says_why():
    from ascend_lab.analysis.planner import NOTHING_TO_REUSE

    # every tensor alive at step 1 (Conv2D -> BatchNorm -> ReLU): no plan can save anything
    overlapping = plan_best(problem_from_intervals([(1024, 0, 1), (1024, 1, 2)], alignment=512))
    assert overlapping.saved == 0
    assert "Nothing to reuse here" in overlapping.summary()
    assert "Nothing to reuse here" in overlapping._repr_html_()
    disjoint = plan_best(problem_from_intervals([(1000, 0, 0), (1000, 2, 2)], alignment=512))
    assert disjoint.saved > 0 and NOTHING_TO_REUSE not in disjoint.all_notes()

"""The anywidget classes: payload traitlet, view, pass requests, error messages."""

import os
import re

import pytest

from ascend_lab import render as widgets
from ascend_lab.model.graph import Graph
from ascend_lab.payload import PayloadError, validate_payload
from ascend_lab.render import assets
from benchmarks.support.payloads import course_graphs, course_payload


class FakeTrace:
    """What show_trace needs from a Trace: to_payload(passes=, memory=) and snapshot(i)."""

    def __init__(self):
        self.calls = []

    def to_payload(self, passes="changed", memory=True):
        self.calls.append((passes, memory))
        return course_payload()

    def snapshot(self, index):
        if index == 99:
            raise IndexError("no pass 99")
        return course_graphs()["before"]

    def diff(self, index):
        from ascend_lab.parsers.ir.timeline import PassDiff

        return PassDiff(added=["1"], removed=["Default/Load"], modified=["2"])


def test_bundle_is_built():
    # `jlpm build:viewer` must have run (the package build does it)
    assert os.path.getsize(assets.bundle_path("viewer.js")) > 10000
    assert os.path.getsize(assets.bundle_path("standalone.js")) > 10000


@pytest.mark.parametrize(
    "cls, view",
    [
        (widgets.GraphView, "graph"),
        (widgets.PassTimelineView, "timeline"),
        (widgets.MemoryView, "memory"),
        (widgets.TraceView, "all"),
    ],
)
def test_widget_classes_sync_payload_and_view(cls, view):
    payload = course_payload()
    w = cls(payload)
    assert w.view == view
    assert w.payload == payload
    state = w.get_state()
    assert state["payload"]["schema"] == "ascend-lab.graph/1"
    assert state["view"] == view
    assert "renderPayload" in state["_esm"] or "request-pass" in state["_esm"]
    w.close()


def test_show_trace_uses_the_trace_payload_and_snapshots():
    trace = FakeTrace()
    w = widgets.show_trace(trace, view="timeline")
    assert isinstance(w, widgets.PassTimelineView)
    # only the default views are built up front; snapshots and diffs come on request
    assert trace.calls == [("none", True)]
    reply = w.answer_pass_request(1)
    assert reply["type"] == "pass" and reply["index"] == 1
    assert [n["id"] for n in reply["graph"]["nodes"]][:3] == ["x", "w", "1"]
    assert reply["graph"]["diff"] == {
        "added": ["1"],
        "removed": ["Default/Load"],
        "modified": ["2"],
    }
    assert w.answer_pass_request(99) == {
        "type": "pass",
        "index": 99,
        "error": "pass 99: no pass 99",
    }
    assert "bad pass index" in w.answer_pass_request("3")["error"]
    w.close()


def test_pass_request_messages_are_answered_through_send():
    w = widgets.TraceView(course_payload(), snapshot=lambda i: Graph(f"g{i}"))
    sent = []
    w.send = sent.append  # type: ignore[method-assign]
    w._on_message(w, {"type": "request-pass", "index": 3}, [])
    w._on_message(w, {"type": "something-else"}, [])
    assert sent == [
        {"type": "pass", "index": 3, "graph": {"name": "g3", "file": None, "nodes": []}}
    ]
    w.close()


def test_without_a_trace_a_pass_request_gets_a_clear_error():
    w = widgets.GraphView(course_payload())
    assert "no trace to load snapshots from" in w.answer_pass_request(1)["error"]
    w.close()


@pytest.mark.parametrize(
    "payload, message",
    [
        ({"schema": "other"}, "unsupported payload schema 'other'"),
        ([1, 2], "got list"),
        (
            {"schema": "ascend-lab.graph/1", "meta": {}, "graphs": {}, "views": {"main": "m"}},
            "views.main refers to a missing graph 'm'",
        ),
    ],
)
def test_bad_payloads_get_clear_errors(payload, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        widgets.GraphView(payload)


def test_bad_view_is_rejected():
    with pytest.raises(ValueError, match="view must be one of"):
        widgets.GraphView(course_payload(), view="nope")


def test_missing_bundle_says_how_to_build(monkeypatch, tmp_path):
    monkeypatch.setattr(assets, "STATIC_DIR", str(tmp_path))
    with pytest.raises(
        assets.ViewerNotBuiltError, match="run `jlpm build:viewer` in labextension/"
    ):
        widgets.GraphView(course_payload())
    with pytest.raises(FileNotFoundError, match="jlpm build:viewer"):
        widgets.to_html(course_payload(), str(tmp_path / "x.html"))


def test_show_trace_leaves_pass_snapshots_to_load_on_demand():
    payload = course_payload()
    payload["graphs"]["pass:1"] = dict(payload["graphs"]["before"], name="pass 1")
    payload["graphs"]["after/Fused_BatchNorm_ReLU_fusion"] = {"name": "sub", "nodes": []}
    payload["passes"][1]["graph"] = "pass:1"

    class Trace(FakeTrace):
        def to_payload(self, passes="changed", memory=True):
            return payload

    w = widgets.show_trace(Trace())
    assert sorted(w.payload["graphs"]) == ["after", "after/Fused_BatchNorm_ReLU_fusion", "before"]
    assert [p["graph"] for p in w.payload["passes"]] == ["before", None, "after", None]
    # the original payload is untouched, and the dropped snapshot comes from the trace
    assert payload["passes"][1]["graph"] == "pass:1"
    assert w.answer_pass_request(1)["graph"]["name"] == "kernel_graph_before"
    w.close()


def test_a_widget_made_from_a_trace_loads_snapshots_on_demand():
    payload = course_payload()
    payload["graphs"]["pass:1"] = dict(payload["graphs"]["before"], name="pass 1")
    payload["passes"][1]["graph"] = "pass:1"

    class Trace(FakeTrace):
        def to_payload(self, passes="changed", memory=True):
            return payload

    w = widgets.PassTimelineView(Trace())
    assert "pass:1" not in w.payload["graphs"] and w.payload["passes"][1]["graph"] is None
    assert w.answer_pass_request(1)["graph"]["name"] == "kernel_graph_before"
    w.close()
    # a plain payload dict is shown as given
    w = widgets.PassTimelineView(payload)
    assert w.payload["passes"][1]["graph"] == "pass:1"
    w.close()


def test_a_widget_made_straight_from_a_trace_is_lazy_too():
    trace = FakeTrace()
    w = widgets.GraphView(trace)
    assert trace.calls == [("none", True)]
    assert w.answer_pass_request(1)["graph"]["diff"]["added"] == ["1"]
    w.close()


def _broken(change):
    payload = course_payload()
    change(payload)
    return payload


@pytest.mark.parametrize(
    "payload, message",
    [
        (
            _broken(lambda p: p["fusion"]["kernels"][0]["originals"].append("%404")),
            "fusion original '%404' is not a node of views.before",
        ),
        (
            _broken(lambda p: p["graphs"]["after"]["nodes"][1].update(kind="html")),
            "graphs['after'].nodes[1].kind must be one of op, call",
        ),
        (
            _broken(lambda p: p["passes"][0].update(graph="pass:7")),
            "passes[0].graph refers to a missing graph 'pass:7'",
        ),
        (
            _broken(lambda p: p["memory"]["tensors"][0].update(size="32 KB")),
            "memory.tensors[0].size must be a number",
        ),
        (
            _broken(
                lambda p: p["graphs"]["after"]["nodes"].append({"id": "5", "op": "X", "kind": "op"})
            ),
            "graphs['after'].nodes[6].id '5' is not unique",
        ),
    ],
)
def test_every_view_checks_the_payload_it_is_handed(payload, message, tmp_path):
    """What the old light check let through is stopped at the boundary, with the reason."""
    with pytest.raises(PayloadError, match=re.escape(message)):
        widgets.GraphView(payload)
    with pytest.raises(PayloadError, match=re.escape(message)):
        widgets.to_html(payload, str(tmp_path / "x.html"))
    with pytest.raises(PayloadError, match=re.escape(message)):
        widgets.show_trace(type("T", (FakeTrace,), {"to_payload": lambda self, **k: payload})())
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(PayloadError):  # the full schema check in the tests agrees
        validate_payload(payload)

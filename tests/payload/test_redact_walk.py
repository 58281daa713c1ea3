"""redact_paths rewrites every string value once per distinct string, and leaves the
identifier fields of graph nodes (ids, op names, scopes, types) as they are."""

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_lab.payload.redact import PathRedactor, redact_paths

HOME = os.path.expanduser("~")
PIECES = [
    "/",
    "a",
    " ",
    "\n",
    ":",
    "/usr/lib/python3/site-packages/mindspore/nn/cell.py:12",
    HOME + "/work/net.py",
    "/tmp/ascend-lab-trace-1/dump/x.ir",
    "Default/conv-Conv2d/Conv2D-op0",
    "In file /opt/x/y.py:3",
]
texts = st.lists(st.sampled_from(PIECES), max_size=5).map("".join)
keys = st.sampled_from(["a", "source", "attrs", "file", "x/y"])  # never "id" with "op"
documents = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), texts),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)
    ),
    max_leaves=20,
)


def naive(value, fn):
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: naive(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [naive(v, fn) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(documents)
def test_every_string_value_rewritten_as_one_string_would_be(doc):
    redactor = PathRedactor("/work")
    expected = naive(doc, redactor.text)
    assert redact_paths(doc, project="/work") == expected
    assert redactor.value(doc) == expected == redactor.value(doc)  # cached: same answer


def test_node_identifiers_kept_and_the_rest_of_a_node_redacted():
    path = os.path.join(tempfile.gettempdir(), "ascend-lab-trace-9", "dump", "a.ir")
    node = {
        "id": "%1",
        "op": "Conv2D",
        "name": "Default/conv-Conv2d/Conv2D-op0",
        "scope": "Default/conv-Conv2d",
        "repaired_scope": "Default/conv-Conv2d",
        "inputs": ["%para1_x"],
        "source": ["In file " + path + ":3"],
        "attrs": {"value": path, "nested": [{"where": path}]},
    }
    out = redact_paths({"graphs": {"g": {"file": path, "nodes": [node]}}})
    (got,) = out["graphs"]["g"]["nodes"]
    assert out["graphs"]["g"]["file"] == "<dump>/dump/a.ir"
    assert got["source"] == ["In file <dump>/dump/a.ir:3"]
    assert got["attrs"] == {"value": "<dump>/dump/a.ir", "nested": [{"where": "<dump>/dump/a.ir"}]}
    for field in ("id", "op", "name", "scope", "repaired_scope", "inputs"):
        assert got[field] == node[field]


def test_strings_past_the_cache_are_rewritten_each_time(monkeypatch):
    from ascend_lab.payload import redact

    monkeypatch.setattr(redact, "_CACHE_MAX", 2)
    redactor = PathRedactor("/work")
    doc = {"source": [f"/work/a{i}.py:1" for i in range(5)] * 2, "file": "/work/a0.py:1"}
    expected = naive(doc, redactor.text)
    assert redactor.value(doc) == expected == redactor.value(doc)
    assert expected["source"][:2] == ["a0.py:1", "a1.py:1"]
    assert len(redactor._done) == 2  # the first two strings kept, the others not

"""redact_json_text (what the standalone HTML uses on big payloads) rewrites exactly what
redact_paths rewrites: every string value, never a key, whatever the escapes around it."""

import json
import os
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_lab.payload.redact import redact_json_text, redact_paths

HOME = os.path.expanduser("~")
PIECES = [
    "/",
    "a",
    " ",
    '"',
    "\\",
    "\n",
    ":",
    "é",
    "\u2028",
    "/usr/lib/python3/site-packages/mindspore/nn/cell.py:12",
    HOME + "/work/net.py",
    "/tmp/ascend-lab-trace-1/dump/x.ir",
    "Default/conv-Conv2d/Conv2D-op0",
    "In file /opt/x/y.py:3",
    "</script>",
]
texts = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)
documents = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), texts),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(texts, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_same_strings_rewritten_as_the_object_walk(doc):
    for separators in ((",", ":"), (", ", ": ")):
        text = json.dumps(doc, ensure_ascii=False, separators=separators)
        assert json.loads(redact_json_text(text, project="/work")) == redact_paths(
            doc, project="/work"
        )


def test_keys_stay_and_values_change():
    doc = {"/tmp/ascend-lab-x/a.ir": "/tmp/ascend-lab-x/a.ir", "final/sub": ["final/sub"]}
    out = json.loads(redact_json_text(json.dumps(doc)))
    assert out == {"/tmp/ascend-lab-x/a.ir": "<dump>/a.ir", "final/sub": ["final/sub"]}


def test_linear_on_adversarial_text():
    # many unterminated quotes and slashes: each attempt must stop at the next quote
    for text in ('"' + "/" * 200_000, '"a/' * 100_000, '{"' + "a/" * 100_000 + '":1}'):
        start = time.perf_counter()
        redact_json_text(text)
        assert time.perf_counter() - start < 30  # quadratic would be hours; linear is ms

"""Paths in every form leave a shared payload (issue #37): file:// URLs, Windows and UNC
paths, relative climbs, folders with spaces, a user's home folder itself, and dict keys."""

import pytest

from ascend_lab.payload.redact import ELLIPSIS, PathRedactor, redact_paths

CASES = [
    ("see file:///home/alice/secret/x.py:3", "see file://" + ELLIPSIS + "/x.py:3", "alice"),
    ("file://localhost/opt/corp-internal/a.py", "file://" + ELLIPSIS + "/a.py", "corp-internal"),
    ("C:\\Users\\alice\\My Docs\\train.py line 3", ELLIPSIS + "\\train.py line 3", "alice"),
    ("C:/Users/alice/y.py", ELLIPSIS + "\\y.py", "alice"),
    ("\\\\fileserver\\share\\alice\\x.py", ELLIPSIS + "\\x.py", "fileserver"),
    ("../../private/alice/x.py", ELLIPSIS + "/x.py", "alice"),
    ("In file /home/Ann Lee/proj/net.py:12, 4~8", f"In file {ELLIPSIS}/net.py:12, 4~8", "Ann"),
    ("cwd /home/alice", f"cwd {ELLIPSIS}", "alice"),
]


@pytest.mark.parametrize("text,expected,gone", CASES, ids=[c[0][:24] for c in CASES])
def test_every_path_form_is_mapped(text, expected, gone):
    out = PathRedactor("/work/proj").text(text)
    assert out == expected
    assert gone not in out


@pytest.mark.parametrize(
    "text",
    ["Default/conv-Conv2d/Conv2D-op0", "x[0::2] a/b", "ratio 3/4", "a/../b in a scope"],
)
def test_what_is_not_a_path_stays(text):
    assert PathRedactor("/work/proj").text(text) == text


def test_dict_keys_are_mapped_like_values():
    payload = {"sources": {"/home/alice/k.py": 1}, "note": "file:///home/alice/z.py"}
    out = redact_paths(payload, project="/work/proj")
    assert "alice" not in repr(out)
    assert out["sources"] == {ELLIPSIS + "/k.py": 1}

"""Hostile input for the trace side: MindSpore's texts, payload strings, a vanishing folder.

Each scan of tool text runs on 1 MB built to make a backtracking regex or a quadratic loop
blow up, in a fresh interpreter that must answer within 120 s (linear code takes well under
a second; the quadratic versions these replace take hours on the same input). The real
MindSpore cases (the working folder removed during a trace or an export) are in
tests/tracing/test_trace_mindspore.py.
"""

import os
import textwrap

import pytest

from ascend_lab.capture import compile as capture
from ascend_lab.payload import PayloadError
from ascend_lab.render.standalone import render_html
from benchmarks.support.payloads import course_payload
from tests.support.python import run_python

MB = 1 << 20


def _run_within_bound(code: str) -> str:
    """Run ``code`` in a fresh interpreter; the bound is run_python's 120 s timeout."""
    return run_python(textwrap.dedent(code), timeout=120).stdout.strip()


def test_path_redaction_is_linear_on_adversarial_strings():
    out = _run_within_bound(
        """
        import os, tempfile
        from ascend_lab.payload.redact import redact_paths
        MB = 1 << 20
        project = os.getcwd()
        tmp = tempfile.gettempdir()
        cases = [
            "/" * MB,
            "/a" * (MB // 2),
            "~/" * (MB // 2),
            "a/" * (MB // 2),
            "</" * (MB // 2),
            ("/" + "a" * 1000 + " ") * (MB // 1002),
            (project + "x") * (MB // (len(project) + 1)),
            (tmp + "/ascend-lab-") * (MB // (len(tmp) + 12)),
            "/site-packages/" * (MB // 15),
            "In file " + "/a/b" * (MB // 4) + ":12",
        ]
        out = redact_paths({"attrs": cases})
        print(len(out["attrs"]), all(len(s) <= len(c) + 64 for s, c in zip(out["attrs"], cases)))
        """
    )
    assert out == "10 True"


def test_in_file_references_are_linear_on_adversarial_messages():
    out = _run_within_bound(
        """
        from ascend_lab.capture.compile import in_file_references, locate_user_line
        MB = 1 << 20
        cases = [
            "In file " * (MB // 8),
            "In file :" * (MB // 9),
            "In file /a" + ":x" * (MB // 2),
            "In file /a.py:" + "9" * MB,
            ("In file /a.py:1 " * (MB // 16)),
        ]
        counts = [len(in_file_references(text)) for text in cases]
        print(counts[:3], counts[3], counts[4] == MB // 16, locate_user_line(cases[0]))
        """
    )
    assert out == "[0, 0, 0] 1 True (None, None)"


def test_native_log_is_read_from_its_tail_only_and_scanned_linearly(tmp_path):
    log = tmp_path / "mindspore-native.log"
    with open(log, "w", encoding="utf-8") as fh:
        fh.write("[ERROR] CORE(1,a,python):2026-11-29 first line of a flood\n")
        line = "[WARNING] ME(1,a,python):2026-11-29 [x.cc:1] F] Get realpath failed path[/a]\n"
        fh.write(line * (12 * MB // len(line)))
        fh.write("path[" * (MB // 5) + "\n")  # no closing bracket anywhere on the line
        fh.write("[ERROR] CORE(1,a,python):2026-11-29 the last line\n")
    out = _run_within_bound(
        f"""
        from ascend_lab.capture.compile import native_log_summary
        lines = native_log_summary({str(log)!r})
        print(len(lines))
        print(lines[-1])
        print(any("first line" in x for x in lines))
        print(sum(len(x) for x in lines) < 2 * (1 << 20))
        """
    )
    assert out.splitlines() == ["3", "[ERROR] CORE the last line", "False", "True"]


def test_deeply_nested_payload_gets_a_clear_error():
    payload = course_payload()
    deep = {}
    node = deep
    for _ in range(100_000):
        node["x"] = {}
        node = node["x"]
    payload["graphs"]["after"]["nodes"][0]["attrs"] = deep
    for redact in (True, False):
        with pytest.raises(PayloadError, match="nests deeper"):
            render_html(payload, redact=redact)


class FakeMindSpore:
    """get_context/set_context over a dict; records where the process was at each set."""

    GRAPH_MODE = 0

    def __init__(self, fail_on_restore=False):
        self.context = {"mode": 1, "save_graphs": 0, "save_graphs_path": "/nowhere"}
        self.fail_on_restore = fail_on_restore
        self.sets = []

    def get_context(self, key):
        return self.context[key]

    def set_context(self, **values):
        try:
            where = os.getcwd()
        except OSError:
            where = "<removed>"
        self.sets.append((values, where))
        if self.fail_on_restore and values.get("mode") == 1:
            raise RuntimeError("the context is stuck")
        self.context.update(values)


def _enter_and_remove(tmp_path, ms, body_error=None):
    doomed = tmp_path / "work"
    doomed.mkdir()
    old = os.getcwd()
    os.chdir(doomed)
    try:
        with capture.restoring_state(ms, ("mode", "save_graphs", "save_graphs_path")):
            capture._set_context(ms, {"mode": 0, "save_graphs": 1, "save_graphs_path": "/d"})
            os.rmdir(doomed)
            if body_error is not None:
                raise body_error
        return os.getcwd()
    finally:
        os.chdir(old)


def test_context_is_restored_before_the_vanished_folder_is_handled(tmp_path):
    ms = FakeMindSpore()
    with pytest.warns(RuntimeWarning, match="disappeared during the trace"):
        now = _enter_and_remove(tmp_path, ms)
    assert now == str(tmp_path)
    assert ms.context == {"mode": 1, "save_graphs": 0, "save_graphs_path": "/nowhere"}
    restores = [where for values, where in ms.sets if values.get("mode") == 1]
    assert restores == ["<removed>"]  # the context came back before the directory did


def test_the_original_error_wins_over_a_failed_restore(tmp_path):
    ms = FakeMindSpore(fail_on_restore=True)
    with pytest.warns(RuntimeWarning) as warned:
        with pytest.raises(ValueError, match="the net's own error"):
            _enter_and_remove(tmp_path, ms, ValueError("the net's own error"))
    messages = [str(w.message) for w in warned]
    assert any("could not restore MindSpore's context" in m for m in messages), messages
    assert any("disappeared during the trace" in m for m in messages), messages


def test_a_failed_restore_without_an_error_is_raised_after_the_folder_is_back(tmp_path):
    ms = FakeMindSpore(fail_on_restore=True)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(capture.TraceError, match="could not restore"):
            with capture.restoring_state(ms, ("mode",)):
                capture._set_context(ms, {"mode": 0})
                os.chdir("/")
        assert os.getcwd() == str(tmp_path)
    finally:
        os.chdir(old)

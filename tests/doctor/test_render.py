"""Text and HTML views: escaping, structure, 'nothing recognised'."""

from ascend_lab.doctor.diagnosis import diagnose

XSS = "<img src=x onerror=alert(1)>"


def test_html_escapes_evidence_line():
    text = "ModuleNotFoundError: No module named 'te' " + XSS + "\n"
    diag = diagnose(text, source="text " + XSS, check_environment=False, notes=["note " + XSS])
    html = diag._repr_html_()
    assert "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert html.count("&lt;img") == 4  # evidence, source (header and "Checked"), note
    assert 'class="ascend-doctor-evidence"' in html
    assert "var(--jp-" in html


def test_html_structure_ranked_findings():
    text = "Malloc device memory failed\nms.set_context(mode=ms.PYNATIVE_MODE)\n"
    html = diagnose(text, check_environment=False)._repr_html_()
    first = html.index('data-id="device-oom"')
    second = html.index('data-id="pynative-in-production"')
    assert first < second
    assert "device out of memory (显存不足)" in html
    assert "<code>npu-smi info</code>" in html


def test_text_view_lists_cause_evidence_fix_and_term():
    text = "x\nCan not find any available kernel info for: HSwish. Maybe not supported\n"
    out = str(diagnose(text, check_environment=False))
    assert "1. Operator not supported on this NPU (or not for this dtype/format): HSwish" in out
    assert "Evidence: line 2: Can not find any available kernel info for: HSwish" in out
    assert "operator not supported (算子不支持)" in out
    assert "Fix:" in out and "Cause:" in out


def test_nothing_recognised_says_what_was_checked_and_what_to_collect():
    diag = diagnose("loss rose to nan after the learning_rate change\n", check_environment=False)
    out = str(diag)
    assert "Nothing recognised in the text." in out
    assert "text (1 line) against" in out
    for hint in (
        "npu-smi info",
        "ascend-lab status --json",
        "~/ascend/log",
        "ASCEND_GLOBAL_LOG_LEVEL=1",
    ):
        assert hint in out
    html = diag._repr_html_()
    assert "Nothing recognised" in html and "ASCEND_GLOBAL_LOG_LEVEL=1" in html
    d = diag.to_dict()
    assert d["findings"] == [] and not d["recognised"] and d["next_steps"]


def test_a_bare_exception_is_recognised_as_one_and_asks_for_its_traceback():
    diag = diagnose("KeyError: 'learning_rate'\n", source="text", check_environment=False)
    out = str(diag)
    assert "Nothing recognised" not in out
    assert "1. KeyError raised in a part of the program the text does not show" in out
    assert "how sure: only where it was raised is known" in out
    assert "Traceback (most recent call last):" in out and "npu-smi info" in out
    d = diag.to_dict()
    assert d["recognised"] and d["findings"][0]["rank"] == "raised"
    assert d["findings"][0]["topics"] == []


def test_to_dict_is_json_ready():
    import json

    diag = diagnose("Communication_Error_Get_Socket(EI0006)", check_environment=False)
    d = json.loads(diag.to_json())
    f = d["findings"][0]
    assert f["id"] == "hccl-connect-timeout"
    assert f["evidence"] == [{"line": 1, "text": "Communication_Error_Get_Socket(EI0006)"}]
    assert any("HCCL_CONNECT_TIMEOUT" in step for step in f["fix"])

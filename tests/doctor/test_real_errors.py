"""Real CANN / MindSpore / torch_npu error texts (tests/fixtures/real/errors, README there):
each is named right, by its rule or, without one, by its error-code family."""

import re
from pathlib import Path

import pytest

from ascend_lab.doctor.codes import MAX_CODES, explain, find_codes, load_table
from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.match import match_text

ERRORS = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "errors"

# file -> ("rule", knowledge-base id ranked first) or ("family", code prefix, code)
EXPECTED = {
    "ms_docs_e80000_stridedslicegrad.txt": ("rule", "tbe-op-param-check"),
    "ms_docs_e80012_reducesum.txt": ("rule", "tbe-op-param-check"),
    "ms_docs_e80029_assign.txt": ("rule", "tbe-op-param-check"),
    "ms_docs_eb0000_transpose_ub.txt": ("rule", "tbe-ub-overflow"),
    "ms_docs_ez9999_aicore_exec.txt": ("rule", "aicore-kernel-exception"),
    "ms_docs_e39999_aicpu_getnext.txt": ("rule", "aicpu-kernel-failed"),
    "ms_docs_ee9999_halmemalloc.txt": ("rule", "device-oom"),
    "ms_docs_ee9999_free_memory_half.txt": ("rule", "device-busy"),
    "ms_docs_ee9999_task_getnext_timeout.txt": ("rule", "getnext-timeout"),
    "ms_docs_ee1001_device_id.txt": ("rule", "device-id-out-of-range"),
    "ms_docs_ei0006_socket_timeout.txt": ("rule", "hccl-connect-timeout"),
    "ms_docs_ei0002_notify_wait.txt": ("rule", "hccl-exec-timeout"),
    "ms_docs_ei0004_ranktable.txt": ("rule", "hccl-ranktable-invalid"),
    "ms_docs_ei0005_count_mismatch.txt": ("rule", "hccl-param-inconsistent"),
    "ms_docs_ej0001_hccp_init.txt": ("rule", "hccp-init-busy"),
    "ms_docs_ek0001_profiler_path.txt": ("rule", "profiler-path-invalid"),
    "llamafactory_4165_aclnncast_bf16_910a.txt": ("rule", "bf16-unsupported-chip"),
    "vllm_ascend_910a_4_transdata_bf16.txt": ("rule", "bf16-unsupported-chip"),
    "ascend_pytorch_148_transdata_bf16.txt": ("rule", "bf16-unsupported-chip"),
    "ptoas_784_tsdopen_507033.txt": ("rule", "tsd-open-failed"),
    "ptoas_765_tsdopen_e39005.txt": ("rule", "tsd-open-failed"),
    "mindocr_586_getnext_slow_data.txt": ("rule", "getnext-timeout"),
    "ascend_pytorch_48_ee1002_stream_sync_timeout.txt": ("family", "EE", "EE1002"),
    "ascend_pytorch_67_el0003_setdevice.txt": ("rule", "device-not-visible"),
}


def _read(name):
    return (ERRORS / name).read_text(encoding="utf-8")


def test_every_fixture_has_an_expectation_and_the_readme_names_it():
    files = sorted(p.name for p in ERRORS.glob("*.txt"))
    assert files == sorted(EXPECTED)
    readme = (ERRORS.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## errors/") :]
    assert all(f"`{name}`" in section for name in files)


def test_the_kinds_the_issue_lists_are_all_there():
    """Issue #26's list: 18 kinds, including every one it names."""
    kinds = {e[1] for e in EXPECTED.values()}
    named = {  # rules for the cases the issue names as not recognised or misdiagnosed
        "device-id-out-of-range", "hccl-param-inconsistent", "hccp-init-busy",
        "profiler-path-invalid", "tbe-ub-overflow", "aicpu-kernel-failed",
        "bf16-unsupported-chip", "tsd-open-failed", "getnext-timeout",
    }  # fmt: skip
    assert named <= kinds
    assert len(EXPECTED) >= 18 and len(kinds) >= 18
    texts = {name: _read(name) for name in EXPECTED}
    assert any("aclnnCast" in t for t in texts.values())
    assert any("TransData" in t for t in texts.values())
    assert any("TsdOpen" in t and "507033" in t for t in texts.values())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_error_is_named_right(name):
    text = _read(name)
    want = EXPECTED[name]
    found = [m.entry.id for m in match_text(text)]
    diag = diagnose(text, check_environment=False)
    if want[0] == "rule":
        assert found and found[0] == want[1], found
        assert diag.findings[0].id == want[1]
    else:
        assert found == [], found
        codes = {c.code: c for c in diag.error_codes}
        assert want[2] in codes, list(codes)
        family = next(f for f in load_table()["families"] if f["prefix"] == want[1])
        assert codes[want[2]].module == family["module"]
        assert codes[want[2]].docs and all(u.startswith("https://") for _, u in codes[want[2]].docs)
        assert diag.recognised
        # a known code always gives a finding, ranked by what the tables know of it
        assert all(f.code is not None for f in diag.findings), diag.findings
        (mine,) = [f for f in diag.findings if f.code.code == want[2]]
        assert mine.rank == ("code" if want[2] in load_table()["codes"] else "family")
        assert diag.findings[0].rank == "code" or mine.rank == "family"
    assert "device-id-out-of-range" not in found[1:] or want[1] == "device-id-out-of-range"


def test_getnext_timeout_is_not_a_device_id_problem():
    """The old misdiagnosis: `module_name=EE8888` (a generic runtime code) matched the
    device-id rule. A generic code alone names no rule; its family still explains it."""
    text = _read("ms_docs_ee9999_task_getnext_timeout.txt")
    assert "module_name=EE8888" in text
    assert "device-id-out-of-range" not in [m.entry.id for m in match_text(text)]
    line = "FuncErrorReason:report error module_type=3, module_name=EE8888"
    assert match_text(line) == []
    (note,) = find_codes(line)
    assert (note.code, note.module, note.internal) == ("EE8888", "Runtime", False)


def test_ee1001_from_tsd_is_not_taken_for_a_bad_device_id():
    # EE1001 is "invalid argument": here it is the consequence of TsdOpen failing.
    found = [m.entry.id for m in match_text(_read("ptoas_784_tsdopen_507033.txt"))]
    assert found[0] == "tsd-open-failed" and "device-id-out-of-range" not in found


def test_unknown_code_gets_its_family_and_link():
    diag = diagnose("RuntimeError: EZ9876: something new went wrong\n", check_environment=False)
    # #36: a code only its family explains is still a finding, ranked "family"
    (finding,) = diag.findings
    assert finding.rank == "family" and finding.topics == ("code:EZ9876", "family:EZ")
    assert diag.recognised
    (note,) = diag.error_codes
    assert note.code == "EZ9876" and note.internal and note.line == 1
    assert note.module == "Operators (common) and operator APIs (aclnn)"
    assert note.meaning.startswith("an internal error of that module")
    urls = [u for _, u in note.docs]
    assert (
        "https://www.hiascend.com/document/detail/en/canncommercial/800/maintenref/troubleshooting/troubleshooting_0226.html"
        in urls
    )  # noqa: E501
    text = diag.to_text()
    assert "EZ9876 (line 1): Operators (common) and operator APIs (aclnn), internal error" in text
    assert "Nothing recognised" not in text
    assert "(how sure: only the code's family is known)" in text
    d = diag.to_dict()
    assert d["recognised"] and d["error_codes"][0]["code"] == "EZ9876"
    assert d["findings"][0]["rank"] == "family"
    user = find_codes("EG0012: the tuning failed")[0]
    assert (user.module, user.internal) == ("AOE", False)


def test_every_module_letter_of_the_cann_page_has_a_family():
    letters = "1234789BCDEFGHIJKLMNOPZ"  # CANN's page: 1 GE ... P Dump, Z operators (aclnn)
    prefixes = {f["prefix"] for f in load_table()["families"]}
    assert {"E" + c for c in letters} <= prefixes
    for prefix in prefixes:
        (note,) = find_codes(f"x {prefix}0001 y")
        assert note.code == prefix + "0001"


def test_what_is_not_an_error_code():
    assert find_codes("0xEE100A10 E10001x AE10001 E0001 EX12345 value 1E10001") == []
    assert find_codes("size=507033 pid 207001 took 100000 ms") == []


def test_return_codes_by_their_range():
    notes = find_codes(
        "call aclrtSetDevice failed, error code is 507033\n"
        "Malloc device memory failed, size[32212254720], ret[207001]\n"
        "Device 8 call rtSetDevice failed, ret[107001].\n"
        "aclInit failed, ret = 100001\n"
        "[ERROR] aclrtSetDevice(deviceId) failed: 507046 (main.cpp:76)\n"
    )
    got = [(n.code, n.module, n.line) for n in notes]
    assert got == [
        ("507033", "Runtime", 1),
        ("207001", "Runtime", 2),
        ("107001", "Runtime", 3),
        ("100001", "ACL", 4),
        ("507046", "Runtime", 5),
    ]
    assert notes[2].detail.startswith("ACL_ERROR_RT_INVALID_DEVICEID")
    assert notes[0].internal and not notes[1].internal


def test_named_code_and_limit():
    (note,) = find_codes("RecentErrMsg: Invalid_Argument(EE1001): The argument is invalid.")
    assert note.name == "Invalid_Argument"
    many = " ".join(f"EE{n:04d}" for n in range(1, 30))
    assert len(find_codes(many)) == MAX_CODES


def test_codes_in_chinese_and_in_html():
    zh = explain("EJ0001", "cann", 3, "", "zh_CN")
    assert zh.module == "HCCP" and re.search(r"[\u4e00-\u9fff]", zh.meaning)
    assert all("/zh/" in u or "source_zh_cn" in u for _, u in zh.docs)
    diag = diagnose("<b>EK0001</b>: bad", check_environment=False)
    html = diag._repr_html_()
    assert 'data-code="EK0001"' in html and "<b>EK0001</b>" not in html
    assert 'href="https://gitee.com/mindspore/docs/blob/master/tutorials/source_en/' in html
    diag.lang = "zh_CN"
    zh_text = diag.to_text()
    # #36: the code is a finding now (ranked), no longer only in the "Error codes" list
    assert "EK0001（第 1 行）：Profiling（性能分析）" in zh_text
    assert "可信度：已知错误码" in zh_text


def _table():
    import json

    from ascend_lab.doctor.codes import CODES_PATH

    with open(CODES_PATH, encoding="utf-8") as f:
        return json.load(f)


def test_the_family_table_is_checked():
    from ascend_lab.doctor.codes import CodeTableError, check_table

    check_table(_table())
    broken = []
    t = _table()
    t["families"][0]["zh"]["next"] = []
    broken.append((t, "one step per English step"))
    t = _table()
    t["families"][1]["docs"] = ["nowhere"]
    broken.append((t, "docs must name references"))
    t = _table()
    t["families"].append(dict(t["families"][0]))
    broken.append((t, "repeated prefix"))
    t = _table()
    t["references"]["cann-codes"]["en"] = "javascript:alert(1)"
    broken.append((t, "https URL"))
    t = _table()
    t["codes"]["EE1001"]["kind"] = "nonsense"
    broken.append((t, "unknown kind"))
    t = _table()
    t["codes"]["EE1001"]["topics"] = ["not-a-topic"]
    broken.append((t, "unknown topic"))
    for doc, why in broken:
        with pytest.raises(CodeTableError, match=re.escape(why)):
            check_table(doc)


def test_every_family_and_return_range_says_where_it_comes_from():
    t = _table()
    for item in t["families"] + t["return_codes"]:
        assert item["source"].strip() and item["docs"], item["prefix"]
        assert set(item["docs"]) <= set(t["references"])
        assert any(ref in item["source"] for ref in t["references"]), item["prefix"]
    for ref in t["references"].values():
        assert ref["en"].startswith("https://") and ref["zh"].startswith("https://")


def test_long_hostile_text_gives_the_capped_answer():
    """~2 MB of near-codes and code-like numbers: only real codes count, at most MAX_CODES."""
    near = "EE123 E 0x507033 EE12345 error code is 5070333 ret[10700] " * 20000
    assert find_codes(near) == []
    real = "".join(f"EE{n:04d} " for n in range(9000))
    notes = find_codes(near + real)
    assert [n.code for n in notes] == [f"EE{n:04d}" for n in range(MAX_CODES)]


def test_pre_check_literals_agree_with_the_regexes_on_real_texts():
    from ascend_lab.doctor.knowledge import load_entries

    texts = [_read(name) for name in EXPECTED]
    checked = 0
    for entry in load_entries():
        for pattern, needle in zip(entry.patterns, entry.needles):
            for text in texts:
                if needle is not None and pattern.search(text):
                    literals, ignorecase = needle
                    hay = text.lower() if ignorecase else text
                    assert any(lit in hay for lit in literals), (entry.id, literals)
                    checked += 1
    assert checked >= len([e for e in EXPECTED.values() if e[0] == "rule"])

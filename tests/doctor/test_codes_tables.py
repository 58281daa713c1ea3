"""The code tables (#36): built by scripts/build_error_tables.py from recorded facts, complete
against those facts, in English and Chinese, and every code the text carries is a finding
ranked by what is known of it."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from ascend_lab.doctor.codes import explain, find_codes, load_table
from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "scripts" / "error_tables" / "facts.json"


def _script():
    spec = importlib.util.spec_from_file_location(
        "build_error_tables", ROOT / "scripts" / "build_error_tables.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _facts():
    return json.loads(FACTS.read_text(encoding="utf-8"))


def test_the_committed_table_is_what_the_script_builds_offline():
    build = _script()
    table = build.build(_facts())
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    assert text == (ROOT / "ascend_lab" / "doctor" / "error_codes.json").read_text(
        encoding="utf-8"
    ), "run: python scripts/build_error_tables.py"


def test_every_source_is_recorded_with_its_commit_and_date():
    for key, src in _facts()["sources"].items():
        assert src.get("url", "").startswith("https://"), key
        if "repo" in src:
            assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]), key
            assert re.match(r"\d{4}-\d\d-\d\dT", src["date"]), key


def test_every_code_of_the_sources_is_in_the_table():
    facts, table = _facts(), load_table()
    # plus the newer HCCL codes the build adds from hicann/hcomm's error list (EI0009...), and
    # the codes only other CANN versions' troubleshooting pages document (E19010...)
    hcomm = {c for c, _, _ in _script().HCOMM_CODES}
    assert set(facts["cann"]) | hcomm | set(facts["cann_docs"]) == set(table["codes"])
    assert set(facts["returns"]) == set(table["returns"])
    assert {v["name"] for k, v in facts["hccl"].items() if k != "0"} == {
        v["name"] for v in table["hccl"].values()
    }
    assert set(facts["dcmi"]) == set(table["dcmi"])
    # the numbers the issue names, by family
    assert len(table["codes"]) >= 540 and len(table["returns"]) >= 250
    fams = {c[:2] for c in table["codes"]}
    assert {"E1", "E3", "EE", "EI", "EJ", "EK", "EL", "EZ"} <= fams
    assert {"100000", "107001", "207018", "507011", "507057", "561003"} <= set(table["returns"])
    assert len(table["hccl"]) == 24 and len(table["dcmi"]) == 21


@pytest.mark.parametrize(
    "line, code, topic",
    [
        ("aclrtMalloc failed, error code is 207018", "207018", "oom-device"),
        ("rtStreamSynchronize failed, ret[507011]", "507011", "task-timeout"),
        ("dcmi model initialized failed, because the device is used. ret is -8020", "-8020",
         "device-busy"),
        ("ACL_ERROR_RT_AICORE_EXCEPTION while running", "507015", "aicore-error"),
        ("EI0006: Getting socket times out. Reason: timeout", "EI0006", "link-setup"),
        ("EJ0003: Failed to bind the IP port. Reason: in use", "EJ0003", "port-in-use"),
        ("EI0011: Failed to allocate [1024] bytes of NPU memory.", "EI0011", "oom-device"),
        ("[hcom.cc:80][Init]errNo[0x0000000005010009] timeout", "HCCL_E_TIMEOUT",
         "collective-timeout"),
        ("HcclCommInitRootInfo failed, HCCL error code is 11", "HCCL_E_TCP_CONNECT", "link-setup"),
        ("aclnnAdd failed, status 561003", "561003", "op-unsupported"),
    ],
)  # fmt: skip
def test_a_code_gives_a_finding_with_its_topic(line, code, topic):
    (note,) = find_codes(line)
    assert (note.code, note.rank, note.topics[0]) == (code, "code", topic)
    assert "code:" + code in note.topics
    diag = diagnose(line, check_environment=False)
    found = [f for f in diag.findings if f.code is not None and f.code.code == code]
    if found:
        assert found[0].rank == "code" and found[0].topics == note.topics
    else:  # a signature finding of the knowledge base shows the code already
        assert diag.findings[0].rank == "signature" and code in diag.findings[0].evidence_line
    d = diag.to_dict()
    assert d["findings"][0]["rank"] in ("signature", "code")


def test_every_code_explains_itself_in_both_languages():
    table = load_table()
    han = re.compile(r"[\u4e00-\u9fff]")
    samples = list(table["codes"])[::7] + list(table["returns"])[::5]
    samples += [v["name"] for v in table["hccl"].values()] + list(table["dcmi"])
    for code in samples:
        kind = (
            "cann" if code[0] == "E" else "hccl" if code.startswith("HCCL")
            else "dcmi" if code.startswith("-") else "return"
        )  # fmt: skip
        en, zh = explain(code, kind, 1), explain(code, kind, 1, lang="zh_CN")
        assert en.meaning and en.next_steps and en.docs and en.rank == "code", code
        assert han.search(zh.meaning) and han.search(" ".join(zh.next_steps)), code
        assert len(en.next_steps) == len(zh.next_steps), code
        assert all(u.startswith("https://") for _, u in en.docs + zh.docs), code
        real = [t for t in en.topics if ":" not in t]
        assert all(t in known_topics() for t in real), code


def test_codes_only_other_versions_document_keep_their_pages_and_versions():
    facts, table = _facts(), load_table()
    docs = facts["cann_docs"]
    assert {"E19010", "E19022", "EE2001", "EN0007", "EZ0030"} <= set(docs)
    assert not set(docs) & set(facts["cann"])  # a code of today's sources keeps today's facts
    for code, entry in docs.items():
        assert entry["title"] and entry["seen"], code
        item = table["codes"][code]
        assert item["source"] == "cann-docs-versions"
        assert item["versions"] == list(dict.fromkeys(s["version"] for s in entry["seen"]))
        own = [s for s in entry["seen"] if s.get("page") != "list"] or entry["seen"]
        assert item["doc"] == own[-1]["url"]  # the newest page of its own, else its family's list
        assert all(s["url"].startswith("https://www.hiascend.com/") for s in entry["seen"]), code
    assert table["codes"]["E13010"]["source"] == "cann-ge-docs"  # also in 8.5.0's pages


@pytest.mark.parametrize(
    "text, code, topic",
    [
        # CANN 5.0.4-8.3.RC1 (GE); today's sources have only EZ9010 for it
        ("ATC run failed, Please check the detail log\nE19010: Op [Resize_117] failed", "E19010",
         "op-unsupported"),
        ("EE2001: Failure to allocate memory", "EE2001", "oom-device"),  # 5.0.4 runtime
        ("E19024: Value [] for environment variable [ASCEND_OPP_PATH] is invalid when load.",
         "E19024", "env-not-sourced"),
        ("EN0007: hi_mpi_vdec_send_stream times out. Reason: buffer full.", "EN0007",
         "task-timeout"),
        ("EC0010: Failed to import Python module [auto_tune].", "EC0010", "install-package"),
        # aclnn's parameter checks of CANN 9.1 (today's sources list EZ0001-EZ0007 only)
        ("EZ0009: Parameter self of operator aclnnFoo has incorrect shape [2,3]. Reason: rank 4.",
         "EZ0009", "op-input-check"),
    ],
)  # fmt: skip
def test_a_code_only_older_versions_document_is_read_with_its_topic(text, code, topic):
    from ascend_lab.doctor import diagnose_text

    (note,) = find_codes(text)
    assert (note.code, note.rank, note.topics[0]) == (code, "code", topic)
    assert not note.internal  # E19xxx: a 9xxx number, but its meaning names the failure
    assert "documented in the troubleshooting pages of CANN" in note.detail
    assert note.docs[0][1].startswith("https://www.hiascend.com/")
    zh = explain(code, "cann", 1, lang="zh_CN")
    assert "故障处理文档" in zh.detail and zh.topics == note.topics
    diag = diagnose_text(text)
    assert diag.findings[0].rank == "code" and diag.findings[0].topics == note.topics


def test_ranks_signature_then_code_then_family():
    text = (
        "RuntimeError: Malloc device memory failed, free memory size is less than half of "
        "total memory size. Device 0 Device HBM total size:34359738368 ...\n"
        "rtStreamSynchronize failed, ret[507046]\n"
        "EZ9876: something new\n"
    )
    diag = diagnose(text, check_environment=False)
    ranks = [f.rank for f in diag.findings]
    assert ranks == sorted(ranks, key=["signature", "code", "family"].index)
    assert ranks[-2:] == ["code", "family"] and ranks[0] == "signature"
    out = diag.to_text()
    assert "(how sure: known error code)" in out
    assert "(how sure: only the code's family is known)" in out
    assert "how sure: matched a known error signature" in out
    html = diag._repr_html_()
    assert html.count('class="ascend-doctor-rank"') == len(diag.findings)
    assert 'data-rank="family"' in html
    diag.lang = "zh_CN"
    assert "可信度：仅知道错误码所属类别" in diag.to_text()


def test_nothing_recognised_only_when_nothing_is():
    diag = diagnose("some ordinary text without codes 507011 pid 207018\n",
                    check_environment=False)  # fmt: skip
    assert diag.findings == [] and not diag.recognised
    assert "Nothing recognised" in diag.to_text()


def test_html_escapes_what_the_text_carries():
    diag = diagnose("<script>x</script> error code is 207018 <img>", check_environment=False)
    html = diag._repr_html_()
    assert "<script>" not in html and "<img>" not in html and "&lt;script&gt;" in html


def test_what_is_not_a_code_of_the_new_kinds():
    assert find_codes("temperature -8020 and offset -8005") == []  # no 'ret' / 'error code'
    assert find_codes("errNo[0x0000000007000009] from another module") == []
    assert find_codes("HCCL ring size is 99") == []
    assert find_codes("ACL_ERROR_NOT_A_REAL_NAME") == []


def test_long_hostile_text_stays_bounded():
    hostile = ("hccl " + "x" * 300 + " ret ") * 5000 + "ret is -80" * 20000
    assert find_codes(hostile) == []


def test_a_device_task_timeout_among_collectives_is_a_collective_timeout():
    alone = diagnose(
        "npuSynchronizeDevice: NPU error, error code is 107020", check_environment=False
    )
    assert alone.findings[0].topics[0] == "task-timeout"
    text = (
        "npuSynchronizeDevice: NPU error, error code is 107020\n"
        "hccl fftsplus task timeout occurred during task execution\n"
    )
    among = diagnose(text, check_environment=False)
    (f,) = [f for f in among.findings if f.code is not None and f.code.code == "107020"]
    assert f.topics[:2] == ("collective-timeout", "task-timeout") and "code:107020" in f.topics


def test_codes_whose_meaning_names_a_topic_carry_it():
    """Issue #36: a code-tier finding is only judged right when its code carries a topic; the
    build gives one by meaning (CODE_TOPICS, RETURN_TOPICS, NAME_TOPICS, the env and op rules)."""
    table, build = load_table(), _script()
    assert table["codes"]["EI0009"]["topics"][0] == "link-setup"
    assert table["codes"]["EI0019"]["topics"][0] == "port-in-use"
    assert table["codes"]["EI0007"]["topics"][0] == "oom-device"
    assert table["codes"]["E61001"]["topics"][0] == "op-input-check"
    assert table["codes"]["EE2002"]["topics"][0] == "env-not-sourced"
    assert table["returns"]["507021"]["topics"][0] == "profiler"
    assert table["hccl"]["20"]["topics"][0] == "device-busy"
    assert all(not v["topics"][0].startswith("code:") for v in table["dcmi"].values())
    # an internal error names no failure: it stays without a topic
    assert table["codes"]["EE9999"]["topics"][0] == "code:EE9999"
    topics = set(
        json.loads((ROOT / "ascend_lab" / "doctor" / "topics.json").read_text("utf-8"))["topics"]
    )
    for _code, (topic, reason) in {
        **build.CODE_TOPICS,
        **build.RETURN_TOPICS,
        **build.NAME_TOPICS,
    }.items():
        assert topic in topics and reason


def test_a_known_code_that_names_no_cause_says_so():
    """500002 (ACL_ERROR_GE_FAILURE) is in the tables but its meaning names no failure of
    the vocabulary: the doctor shows it as known, and says the cause is in the lines
    before it; a code with a topic (207001, device out of memory) keeps the plain label."""
    diag = diagnose("aclmdlExecute failed, ret = 500002\n", check_environment=False)
    assert [f.rank for f in diag.findings] == ["code"]
    out = diag.to_text()
    assert "how sure: known error code, but its meaning names no cause" in out
    diag.lang = "zh_CN"
    assert "已知错误码，但它的含义没有指明原因" in diag.to_text()
    oom = diagnose("aclrtMalloc failed, ret = 207001\n", check_environment=False)
    assert "(how sure: known error code)" in oom.to_text()


def test_torch_npu_err_codes_are_read_by_submodule_and_code():
    """torch_npu prints ERR + submodule + code ("ERR02011 DIST timeout error"): every
    submodule x code is in the table, built from NPUException.h/.cpp; a timeout of the
    distributed submodule is a collective's, a failed ACL call only follows the CANN code
    printed with it, and a word like ERR12345 without a submodule is not a code."""
    table = load_table()
    assert len(table["torch_npu"]) == 5 * 15
    diag = diagnose(
        "RuntimeError: wait timeout\n"
        "[ERROR] 2025-01-01-00:00:00 (PID:1, Device:0, RankID:3) ERR02011 DIST timeout error\n",
        check_environment=False,
    )
    assert diag.findings[0].topics[:2] == ("collective-timeout", "code:ERR02011")
    both = diagnose(
        "ERR00100 PTA call acl api failed\nThe error code is EE9999\n", check_environment=False
    )
    assert [f.code.code for f in both.findings if f.code][:2] == ["EE9999", "ERR00100"]
    assert not find_codes("see ERR12345 in the manual")
    zh = explain("ERR01002", "torch_npu", lang="zh_CN")
    assert "torch_npu 算子" in zh.meaning and zh.topics[0] == "op-input-check"

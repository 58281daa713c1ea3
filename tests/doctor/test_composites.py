"""A real error inside a longer log is still read as itself (issue #36: zero wrong).

A pasted log holds the failure and what followed from it: the Python traceback around it,
the generic "Call aclnnX failed, detail:EZ9999" wrapper, an internal error code (EE9999,
EI9999), HCCL's "call hccl op failed", the launcher's lines about other ranks. Each dev
text of the real-error corpus (tests/fixtures/real/corpus, dev half only: the held-out half
is never read here) whose reading is specific is put among such lines, before and after;
its first topic must stay one the case accepts (:func:`ascend_lab.doctor.diagnosis.
order_findings`). The follow-on lines are written after the wording of real logs (torch_npu,
CANN's error manager, HCCL, torchrun, msrun); they name no failure of their own.
"""

import hashlib
import json
from pathlib import Path

import pytest

from ascend_lab.doctor import diagnose_text
from ascend_lab.doctor.diagnosis import tier

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "corpus"

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/work/train.py", line 120, in <module>\n'
    "    main()\n"
    '  File "/home/user/work/train.py", line 98, in main\n'
    "    loss = train_step(data, label)\n"
)
ACLNN = (
    "[ERROR] 2025-01-02-03:04:05 (PID:12345, Device:0, RankID:-1) ERR01100 OPS call acl api "
    "failed\n"
    "EZ9999: Inner Error!\n"
    "EZ9999: [PID: 12345] 2025-01-02-03:04:05.123.456 Kernel Run failed. opType: 10, Add\n"
    "        TraceBack (most recent call last):\n"
    "        rtStreamSynchronizeWithTimeout execute failed, reason=[task exception]"
    "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
    "RuntimeError: Call aclnnAdd failed, detail:EZ9999: Inner Error!\n"
)
RUNTIME = (
    "EE9999: Inner Error!\n"
    "EE9999: [PID: 3311] 2025-01-02-03:04:05.678.000 rtStreamSynchronize execute failed, "
    "reason=[the model stream execute failed][FUNC:FuncErrorReason][FILE:error_message_manage.cc]"
    "[LINE:53]\n"
    "EE1001: [PID: 3311] 2025-01-02-03:04:05.679.000 The argument is invalid.Reason: "
    "rtStreamDestroy execute failed, reason=[stream not in current context]\n"
)
HCCL = (
    "[ERROR] HCCL(3311,python):2025-01-02-03:04:05.678.901 [hcom.cc:308][3311][HcomAllReduce]"
    "errNo[0x0000000005000004] call hccl op failed\n"
    "EI9999: Inner Error! HcclAllReduce execute failed\n"
    "RuntimeError: HCCL AllReduce & Reduce: Call HcclAllReduce failed\n"
)
OTHER_RANKS = (
    "[rank3]: RuntimeError: The Inner error is reported as above. The process exits for this "
    "inner error, and the current working operator name is aclnnAdd.\n"
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 3 "
    "(pid: 4321) of binary: /usr/bin/python3\n"
    "[ERROR] ME(4321:281473,MainProcess):2025-01-02-03:04:05.000.000 "
    "[mindspore/parallel/cluster/process_entity/_api.py:312] Worker process 4321 exit with "
    "exception. Error code: 1.\n"
)
NOISE = {  # name: (before, after)
    "traceback before": (TRACEBACK, ""),
    "aclnn wrapper after": ("", ACLNN),
    "aclnn wrapper before": (ACLNN, ""),
    "runtime codes after": ("", RUNTIME),
    "hccl follow-on after": ("", HCCL),
    "other ranks before": (OTHER_RANKS, ""),
    "other ranks after": ("", OTHER_RANKS),
    "everything": (TRACEBACK + OTHER_RANKS, ACLNN + RUNTIME + HCCL + OTHER_RANKS),
}


def _noise_for(case_id):
    """The composites a case is put in: all the follow-on lines at once ("everything"), and
    one of the single kinds, by turns over the cases (a stable hash of the id), so every kind
    is tried on about an eighth of the dev texts and the test costs two readings per text, not
    eight (it runs on every dev text in every CI leg)."""
    singles = [name for name in NOISE if name != "everything"]
    turn = int(hashlib.sha1(case_id.encode("utf-8")).hexdigest(), 16) % len(singles)
    return ["everything", singles[turn]]


def _dev_cases():
    cases = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))["cases"]
    return [c for c in cases if c["half"] == "dev"]


def _dev_params():
    # A dev case the doctor does not read right yet says why ("pending", in the manifest): it is
    # expected to fail, strictly, so a rule that comes to read it says to drop the mark.
    return [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=c["pending"]))
        if c.get("pending")
        else c
        for c in _dev_cases()
    ]


def _text(case):
    return (CORPUS / case["file"]).read_text(encoding="utf-8")


def _first_topic(diag):
    if not diag.findings:
        return None
    f = diag.findings[0]
    return f.topics[0] if f.topics else f.id


def _read_as(diag, expect):
    """Whether the first finding is one the case accepts: its main topic, or, for a code's
    finding, the code it shows (as tests/doctor/measure_corpus.py scores it)."""
    if not diag.findings:
        return False
    topics = diag.findings[0].topics
    shown = [_first_topic(diag)] + [t for t in topics[1:] if t.startswith(("code:", "family:"))]
    return any(t in expect for t in shown)


@pytest.mark.sweep
@pytest.mark.parametrize("case", _dev_params(), ids=lambda c: c["id"])
def test_a_specific_reading_survives_follow_on_lines(case):
    text = _text(case)
    alone = diagnose_text(text)
    assert _read_as(alone, case["expect"]), _first_topic(alone)
    if alone.findings[0].rank in ("levels", "raised"):
        # "only warnings" reads the whole text, and a "raised" reading (MindSpore's own verdict
        # of an unexpected error) stands only while nothing names the failure: lines that name
        # one must come first (test_levels.py, test_raised.py); here there is nothing to survive
        noisy = diagnose_text(NOISE["everything"][0] + text + NOISE["everything"][1])
        assert noisy.findings[0].rank not in ("levels", "raised")
        return
    # read only by a generic code (E?9999): another generic line may be as telling, so such
    # a reading must stay among the findings, not necessarily first (order_findings)
    specific = tier(alone.findings[0]) <= 2
    wrong = []
    for name in _noise_for(case["id"]):
        before, after = NOISE[name]
        diag = diagnose_text(before + text.rstrip("\n") + "\n" + after)
        got = _first_topic(diag)
        kept = [f.id for f in diag.findings[: 1 if specific else len(diag.findings)]]
        if not _read_as(diag, case["expect"]) and alone.findings[0].id not in kept:
            wrong.append(f"{name}: {got}")
    assert not wrong, wrong


def _case(case_id):
    return next(c for c in _dev_cases() if c["id"] == case_id)


@pytest.mark.parametrize("oom_first", [True, False])
def test_a_root_cause_beats_the_timeout_that_follows_it(oom_first):
    """One rank runs out of memory, the others time out in their collective: whichever
    rank's log is pasted first, the out-of-memory is the finding (timeouts are declared
    ``consequence`` in doctor/knowledge/)."""
    oom = _text(_case("vllm_ascend_19_npu_oom_quoted"))
    timeout = _text(_case("hccl_doc_task_run_failed_timeout"))
    assert _first_topic(diagnose_text(timeout)) == "collective-timeout"
    text = oom + "\n" + timeout if oom_first else timeout + "\n" + oom
    diag = diagnose_text(text)
    assert _first_topic(diag) == "oom-device"
    assert "collective-timeout" in {t for f in diag.findings for t in f.topics}
    assert not diag.unsure


def test_two_unrelated_specific_failures_are_shown_as_unsure():
    """A port in use and a device id out of range in one paste: neither follows from the
    other and their rules are as specific; the doctor says it is unsure, names both, and
    the reader decides from the log's order."""
    text = (
        _text(_case("megatron_343_address_in_use"))
        + "\n"
        + _text(_case("msdocs_faq_device_id_9_of_8"))
    )
    diag = diagnose_text(text)
    assert {f.topics[0] for f in diag.unsure} == {"port-in-use", "device-id"}
    assert diag.to_dict()["unsure_between"] == [f.id for f in diag.unsure]
    shown = diag.to_text()
    assert "Unsure" in shown and diag.unsure[1].title in shown
    assert "ascend-doctor-unsure" in diag._repr_html_()
    alone = diagnose_text(_text(_case("megatron_343_address_in_use")))
    assert not alone.unsure and "Unsure" not in alone.to_text()


def test_every_kind_of_follow_on_lines_is_tried_on_many_dev_texts():
    # the turns of _noise_for spread the single kinds over the dev texts
    tried = {name: 0 for name in NOISE}
    for case in _dev_cases():
        for name in _noise_for(case["id"]):
            tried[name] += 1
    assert tried["everything"] == len(_dev_cases())
    assert min(tried.values()) >= len(_dev_cases()) // (2 * (len(NOISE) - 1))

"""Recorded MindSpore 2.10 errors, negatives, ranking, evidence lines."""

import os

import pytest

from ascend_lab.doctor.match import match_text

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _read(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def _ids(text):
    return [m.entry.id for m in match_text(text)]


# Recorded by running small failing nets with MindSpore 2.10.0 on CPU (see fixtures/README.md).
RECORDED = [
    ("ms210_tensor_bool.txt", "graph-tensor-condition", "Only tensor which shape is ()"),
    ("ms210_broadcast_add.txt", "shape-broadcast", "For 'Add', input1.shape and input2.shape"),
    ("ms210_attention_mask_add.txt", "shape-broadcast", "[2, 8, 16, 16]"),
    ("ms210_matmul.txt", "shape-matmul", "'x1_col': 3 and 'x2_row': 4"),
    ("ms210_unsupported_try.txt", "graph-unsupported-syntax", "Unsupported statement 'Try'"),
    ("ms210_unsupported_yield.txt", "graph-unsupported-syntax", "Unsupported expression 'Yield'"),
    ("ms210_loss_nan.txt", "amp-overflow", "loss is NAN or INF"),
    ("ms210_device_target_cpu_only.txt", "set-env-not-sourced", "libge_runner.so"),
    ("ms210_numpy2_runtime.txt", "numpy2-abi", "numpy.core.multiarray failed to import"),
    ("ms210_numpy2_stderr.txt", "numpy2-abi", "NumPy"),
    ("ms210_recompile_warning.txt", "dynamic-shape-recompile", "has been compiled again"),
    ("ms210_mint_gelu_cpu.txt", "operator-unsupported-on-target", "Unsupported op [GeluExt]"),
]


@pytest.mark.parametrize("name,expected,evidence", RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_mindspore_errors(name, expected, evidence):
    found = match_text(_read(name))
    assert found, name
    assert found[0].entry.id == expected, [m.entry.id for m in found]
    assert evidence in found[0].evidence_line


def test_recorded_errors_report_the_operator():
    assert match_text(_read("ms210_broadcast_add.txt"))[0].detail == "Add"
    assert match_text(_read("ms210_matmul.txt"))[0].detail == "MatMul"
    assert match_text(_read("ms210_unsupported_try.txt"))[0].detail == "Try"
    assert match_text(_read("ms210_mint_gelu_cpu.txt"))[0].detail == "GeluExt"


def test_device_target_error_also_names_the_backend_problem():
    ids = _ids(_read("ms210_device_target_cpu_only.txt"))
    assert ids[:2] == ["set-env-not-sourced", "ascend-backend-unavailable"]


ORDINARY_TRACEBACK = """Traceback (most recent call last):
  File "/home/user/train.py", line 12, in <module>
    config = load_config("config.yaml")
  File "/home/user/train.py", line 5, in load_config
    return settings["learning_rate"] / settings["steps"]
KeyError: 'learning_rate'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
ZeroDivisionError: division by zero
"""

INNOCENT = """The data stream is read in chunks so memory use stays flat.
Streaming 4 files; the upload stream exceeds the limit of our quota, retrying later.
Host memory: 12.3 GB free. Out of memory errors are handled by the OOM killer.
We set the loss scale to 1024 and saw no overflow problems; loss: 0.3512.
Device 0 is used for evaluation. Results are stored in device_memory.csv.
The kernel info panel shows Python 3.8; the device id is 0.
for epoch in range(10):
    train_one_epoch(net)
print(loss.asnumpy())
"""


@pytest.mark.parametrize(
    "text",
    [ORDINARY_TRACEBACK, INNOCENT, "", "\n\n", "ok"],
    ids=["python-traceback", "innocent-words", "empty", "blank", "ok"],
)
def test_unrelated_text_matches_nothing(text):
    assert _ids(text) == []


def test_successful_mindspore_run_log_matches_nothing():
    assert _ids(_read("ms210_train_ok.txt")) == []


def test_mindspore_cpu_startup_warnings_match_nothing():
    text = (
        "[WARNING] ME(7730:140210450148224,MainProcess):2026-11-29-15:03:23.869.000 "
        "[mindspore/run_check/_check_version.py:317] Using custom Ascend AI software package "
        "(Ascend Data Center Solution) path, package version checking is skipped. Please make "
        "sure Ascend AI software package (Ascend Data Center Solution) version is supported.\n"
        "[WARNING] COMMON(7730,7f854a132b80,python):2026-11-29-15:03:19.789.858 "
        "[mindspore/ccsrc/utils/comm_manager.cc:82] GetInstance] CommManager instance for CPU "
        "not found, return default instance.\n"
    )
    assert _ids(text) == []


def test_most_specific_finding_first():
    # rank table problem reported with the generic HCCL parameter errNo
    text = (
        "[ERROR] HCCL(1104629,t):2025-10-28-17:45:13.679.684 [param_check.cc:66] "
        "[1104629][InitGroupStage][RanktableConfig]errNo[0x0000000005010001] "
        "path /ranktable.json is not a valid real path\n"
    )
    assert _ids(text)[:2] == ["hccl-ranktable-invalid", "version-mismatch"]
    # a busy device also makes the runtime report "no device"
    text = (
        "rtGetDeviceCount:ErrCode=507899, desc=[driver error:internal error]\n"
        "dcmi model initialized failed, because the device is used. ret is -8020\n"
    )
    ids = _ids(text)
    assert ids[:2] == ["device-busy", "device-not-visible"]


def test_errors_rank_before_pitfalls_and_evidence_points_at_lines():
    text = (
        "import mindspore as ms\n"
        "ms.set_context(mode=ms.PYNATIVE_MODE)\n"
        "for step, (x, y) in enumerate(ds.create_tuple_iterator()):\n"
        "    loss = step_fn(x, y)\n"
        "    history.append(loss.asnumpy())\n"
        "RuntimeError: Malloc device memory failed, size[1024], ret[207001]\n"
    )
    found = match_text(text)
    assert [m.entry.id for m in found] == [
        "device-oom",
        "asnumpy-in-loop",
        "pynative-in-production",
    ]
    assert found[1].line == 5 and found[1].evidence_line == "history.append(loss.asnumpy())"
    assert found[2].line == 2
    assert found[0].line == 6


def test_evidence_is_truncated_for_huge_lines():
    text = "x" * 5000 + " Malloc device memory failed " + "y" * 5000
    m = match_text(text)[0]
    assert len(m.evidence_line) <= 300
    assert "Malloc device memory failed" in m.evidence_line
    assert m.evidence_line.startswith("…") and m.evidence_line.endswith("…")


def test_the_unwrapped_pass_skips_only_literals_the_text_cannot_hold():
    """A literal without white space or quotes, absent from the text as it is, is not looked
    for again once the text is unwrapped; one with a space or a quote is (unwrapping joins
    lines and straightens quotes, so it may occur only there)."""
    from ascend_lab.doctor.match import Unwrapped, _in_unwrapped

    text = "ERROR: the device\n    is busy; it said \u201cno\u201d"
    flat = Unwrapped(text)
    lowered = text.lower()
    assert _in_unwrapped("device is busy", flat, lowered)  # joined across the line break
    assert _in_unwrapped("said 'no'", flat, lowered)  # curly quotes read as straight ones
    assert not _in_unwrapped("devicebusy", flat, lowered)
    assert not _in_unwrapped("absent", flat, lowered)


def test_the_word_index_never_rules_out_a_literal_the_text_holds():
    """The pre-check's word index (match.text_words) is sound: for every shipped pre-check
    literal and every knowledge example, a literal the example holds is never ruled out,
    and words the text lacks rule literals out."""
    from ascend_lab.doctor.knowledge import load_entries
    from ascend_lab.doctor.match import _keyword, _may_occur, text_words

    entries = load_entries()
    literals = {lit for e in entries for n in e.needles if n for lit in n[0]}
    checked = 0
    for e in entries:
        for example in e.examples:
            lowered = example.lower()
            words = text_words(lowered)
            for lit in literals:
                if lit.lower() in lowered:
                    checked += 1
                    assert _may_occur(lit, words), (e.id, lit)
    assert checked > 1000
    assert _keyword("failed to malloc") == "to"
    assert _keyword("ailed") is None  # an edge word may be part of a longer word
    assert _keyword(" 507035 ") is None  # digit runs are not indexed
    words = text_words("rtmalloc failed: out of memory")
    assert not _may_occur("Failed to malloc", words)
    assert _may_occur("ed: out of", words)

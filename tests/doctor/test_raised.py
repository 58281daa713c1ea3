"""Where an error was raised (ascend_lab.doctor.raised), read from real texts' structure: the
lowest-ranked finding when no rule or code names the failure. It names no topic, so it can
never be a wrong cause; it must name the right part of the stack and the user's own frame."""

from pathlib import Path

import pytest

from ascend_lab.doctor import diagnose_text
from ascend_lab.doctor.diagnosis import raised_finding, tier
from ascend_lab.doctor.raised import COMPONENTS, is_user_frame, read_raised
from ascend_lab.i18n import using

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
DEV = REAL / "corpus" / "dev"


def _read(name):
    return (DEV / name).read_text(encoding="utf-8")


# (real dev text, component, exception, the user's frame as "file:line" or None)
CASES = [
    # ValueError from MindSpore's argument check, called from the user's export script
    ("mindocr_630_export_illegal_file_name.txt", "ms-arg-check", "ValueError", "export.py:88"),
    # MindSpore's C++ call stack names the kernel actor of the runtime
    ("mindact_1698_aicpu_21008.txt", "ms-runtime", None, None),
    # the dataset pipeline's own C++ file (minddata)
    ("msdocs_md_crop_exceeds.txt", "ms-dataset", None, None),
    # a CANN operator's Python (opp/op_impl under /usr/local/Ascend) is CANN, not the user's
    ("../../errors/ms_docs_e80000_stridedslicegrad.txt", "cann", "RuntimeError", None),
]


@pytest.mark.parametrize("name, component, exception, user", CASES)
def test_real_texts_name_where_they_were_raised(name, component, exception, user):
    r = read_raised(_read(name))
    assert r is not None
    assert r.component == component
    if exception is not None:
        assert r.exception == exception
    if user is None:
        assert r.user_frame is None or is_user_frame(r.user_frame.path)
    else:
        path, line = user.split(":")
        assert r.user_frame is not None
        assert r.user_frame.path.endswith(path) and r.user_frame.line == int(line)


def test_torch_npus_csrc_core_is_not_mindspores_core():
    r = read_raised(_read("ascend_pytorch_43_hccl_fftsplus_timeout.txt"))
    assert r is None or not r.component.startswith("ms-")


def test_a_bare_exception_line_asks_for_the_whole_traceback():
    r = read_raised("RuntimeError: something went wrong in step 3\n")
    assert r is not None and r.component == "unknown" and r.exception == "RuntimeError"
    f = raised_finding(r)
    assert any("Traceback (most recent call last)" in step for step in f.entry.fix)


def test_prose_and_empty_text_show_nothing():
    assert read_raised("") is None
    assert read_raised("the training finished, loss 0.31\nError rates are low\n") is None


def test_a_finding_only_when_nothing_else_names_it():
    # the real argument-check traceback, its raise line and last line made an error nobody has
    # a rule for (the frame's source line is evidence too: rules read the check that raised)
    lines = _read("mindocr_630_export_illegal_file_name.txt").splitlines()
    assert "raise ValueError(" in lines[-2]
    lines[-2] = '    raise ValueError(f"The {name!r} is frobnicated beyond {n} quuxes.")'
    text = "\n".join(lines[:-1] + ["ValueError: The 'zq' is frobnicated beyond 7 quuxes."])
    diag = diagnose_text(text)
    assert [f.rank for f in diag.findings] == ["raised"]
    f = diag.findings[0]
    assert f.topics == () and f.id == "raised-ms-arg-check"
    assert diag.recognised and tier(f) == 7
    assert "export.py, line 88" in " ".join(f.entry.fix)
    assert f.evidence == [(len(lines), "ValueError: The 'zq' is frobnicated beyond 7 quuxes.")]
    # a text a rule names gets no such finding
    named = diagnose_text(_read("msdocs_md_crop_exceeds.txt"))
    assert named.findings and all(f.rank != "raised" for f in named.findings)


def test_every_component_reads_in_both_languages():
    from ascend_lab.doctor.raised import Raised

    for key in COMPONENTS:
        f = raised_finding(Raised(key, "x", "ValueError", "m", 1, "ValueError: m"))
        zh = dict(f.entry.translations)["zh_CN"]
        assert zh["title"] != f.entry.title and zh["fix"], key
        with using("zh_CN"):
            assert f.title == zh["title"]


def test_long_and_hostile_lines_cost_their_size():
    # bounded patterns on one pass: a 1 MB line of frame-like, dotted and path-like text
    hostile = ('  File "' + "a" * 600 + '", line 1' + "\n") * 500
    hostile += "A." * 200_000 + "Error\n" + "ccsrc/" + "x/" * 100_000 + "\n"
    r = read_raised(hostile)
    assert r is None or r.component in COMPONENTS


@pytest.mark.parametrize(
    "path, component",
    [
        ("/usr/local/lib/python3.10/site-packages/vllm_ascend/worker/model_runner_v1.py", "vllm"),
        ("/opt/conda/lib/python3.9/site-packages/mindformers/trainer/base.py", "mindformers"),
        ("/home/u/MindSpeed-LLM/mindspeed_llm/training/training.py", "mindspeed"),
        ("/root/mindspore/mindspore/dataset/engine/iterators.py", "ms-dataset"),
        ("/usr/lib/python3/dist-packages/numpy/core/numeric.py", "library"),
    ],
)
def test_the_innermost_library_frame_names_the_part(path, component):
    # a frame as Python prints it, under the user's own frame
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 7, in <module>\n'
        "    main()\n"
        f'  File "{path}", line 120, in run\n'
        "    raise ValueError(msg)\n"
        "ValueError: bad value\n"
    )
    r = read_raised(text)
    assert r is not None and r.component == component
    assert r.user_frame is not None and (r.user_frame.path, r.user_frame.line) == ("train.py", 7)


FRAMEWORK_BANNER = (
    "\n----------------------------------------------------\n"
    "- Framework Unexpected Exception Raised:\n"
    "----------------------------------------------------\n"
    "This exception is caused by framework's unexpected error. Please create an issue at "
    "https://gitee.com/mindspore/mindspore/issues to get help.\n"
)


def test_mindspores_own_verdict_of_an_unexpected_error_is_the_one_cause_a_raised_reading_names():
    # the real report (a null pointer at the end of a PyNative graph) with MindSpore's banner:
    # the lowest-ranked finding names 'framework-internal', in both languages
    text = _read("mindspore_288_conv2d_dilation_primitive_pointer_null.txt")
    assert "Framework Unexpected Exception Raised" in text
    r = read_raised(text)
    assert r is not None and r.framework_internal
    diag = diagnose_text(text)
    assert [f.rank for f in diag.findings] == ["raised"]
    f = diag.findings[0]
    assert f.topics == ("framework-internal",) and tier(f) == 7
    assert f.title.startswith("MindSpore reports an unexpected error of its own")
    assert "issue tracker" in f.entry.fix[0]
    assert f.entry.text("title", "zh_CN").startswith("MindSpore 报告了它自身的意外错误")
    # without the banner the same text names no cause
    bare = text.split("\n----------------------------------------------------\n- Framework")[0]
    assert not read_raised(bare).framework_internal
    assert diagnose_text(bare).findings[0].topics == ()


def test_the_banner_never_outranks_what_names_the_failure():
    # an out-of-memory line the rules know, under the same banner: the rule's reading, and
    # no 'raised' finding at all
    text = (
        "RuntimeError: Allocate memory failed\n"
        "[ERROR] PRE_ACT(1,python):2024-01-01 [mem.cc:1] Device(id:0) memory isn't enough and "
        "alloc failed, kernel name: Default/MatMul-op1, alloc size: 8388608B.\n" + FRAMEWORK_BANNER
    )
    diag = diagnose_text(text)
    assert diag.findings and diag.findings[0].rank != "raised"
    assert "framework-internal" not in [t for f in diag.findings for t in f.topics]

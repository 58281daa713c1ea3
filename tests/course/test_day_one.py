"""Notebook 10 ("Day one on an Ascend instance"): its exercises on the recorded NPU files in
notebooks/data, and those files themselves (verbatim copies of the fixtures with provenance).

Each exercise: the shipped blank is "not answered yet", the solution (run as the notebook
runs it) says ✓, two plausible wrong answers say ✗. No MindSpore here.
"""

import csv
import hashlib
import io
import os

import pytest

from ascend_lab.doctor.codes import find_codes
from ascend_lab.exercises import NOT_ANSWERED, ____, exercises
from ascend_lab.parsers.npu_smi import parse_info
from ascend_lab.profiling import load_profile
from benchmarks.support.nbrun import NOTEBOOKS

DATA = os.path.join(NOTEBOOKS, "data")
FIXTURES = os.path.join(os.path.dirname(NOTEBOOKS), "tests", "fixtures")
REAL = os.path.join(FIXTURES, "real")
PROFILE = os.path.join(DATA, "recorded_profile")
KERNELS = os.path.join(PROFILE, "ASCEND_PROFILER_OUTPUT", "kernel_details.csv")

# notebooks/data file -> the fixture it is a verbatim copy of
COPIES = {
    "recorded_profile/ASCEND_PROFILER_OUTPUT/kernel_details.csv": (
        "real/profiler/msprof-analyze/advisor_backend_compute_advice/kernel_details.csv"
    ),
    "cluster_step_trace_time.csv": (
        "real/profiler/msprof-analyze/cluster_analysis_output/cluster_step_trace_time.csv"
    ),
    "errors/ms_docs_ee9999_halmemalloc.txt": "real/errors/ms_docs_ee9999_halmemalloc.txt",
    "errors/ms_docs_e39999_aicpu_getnext.txt": "real/errors/ms_docs_e39999_aicpu_getnext.txt",
    "errors/ms_docs_ei0006_socket_timeout.txt": "real/errors/ms_docs_ei0006_socket_timeout.txt",
    "errors/ms_docs_ei0002_notify_wait.txt": "real/errors/ms_docs_ei0002_notify_wait.txt",
    "errors/ms_docs_ei0005_count_mismatch.txt": "real/errors/ms_docs_ei0005_count_mismatch.txt",
    "errors/vllm_ms_faq_aclnn_nonzero_e39999.txt": (
        "real/corpus/dev/vllm_ms_faq_aclnn_nonzero_e39999.txt"
    ),
    "analyze_fail/whitea133_mindspore_tools_mcp/analyze_fail.ir": (
        "real/analyze_fail/heldout/whitea133_mindspore_tools_mcp/analyze_fail.ir"
    ),
    "cann/cann-8.5.0_aarch64-linux_ascend_toolkit_install.info": (
        "real/cann/cann-8.5.0_aarch64-linux_ascend_toolkit_install.info"
    ),
    "npu_smi_info_910b3_x8.txt": "npu_smi/info_910b3_x8_npu-smi-25.2.0.txt",
}


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _sha(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


@pytest.fixture(scope="module")
def recorded():
    return load_profile(PROFILE, net_name="recorded")


@pytest.fixture(scope="module")
def recorded_info():
    return parse_info(_read(os.path.join(DATA, "npu_smi_info_910b3_x8.txt")))


@pytest.fixture(scope="module")
def errors():
    return {"EI0005": _read(os.path.join(DATA, "errors", "ms_docs_ei0005_count_mismatch.txt"))}


def kind(q, *answers, **context):
    return q.verdict(*answers, lang="en", **context)[0]


def solved(q, **names):
    """The solution's own value: its code run with the notebook's names (and imports)."""
    scope = {"find_codes": find_codes, **names}
    exec(q.solution_code, scope)  # noqa: S102 - our own solution code, as the notebook runs it
    return scope


# -- the recorded files -----------------------------------------------------------------
def test_every_data_file_is_a_verbatim_copy_of_a_fixture_with_provenance():
    shipped = set()
    for dirpath, _dirs, files in os.walk(DATA):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), DATA).replace(os.sep, "/")
            if rel != "README.md":
                shipped.add(rel)
    assert shipped == set(COPIES)
    for rel, fixture in COPIES.items():
        assert _sha(os.path.join(DATA, rel)) == _sha(os.path.join(FIXTURES, fixture)), rel


def test_the_readme_names_each_file_with_a_licence_and_the_total_stays_small():
    readme = _read(os.path.join(DATA, "README.md"))
    rows = [ln for ln in readme.splitlines() if ln.startswith("| `")]
    named = {ln.split("`")[1] for ln in rows}
    assert named == set(COPIES)
    for row in rows:
        licence = row.rstrip(" |").rsplit("|", 1)[-1].strip()
        assert licence, row
    total = sum(os.path.getsize(os.path.join(DATA, rel)) for rel in COPIES)
    assert total < 1_000_000


def test_the_recorded_profile_reads_every_row_of_the_native_file(recorded):
    rows = list(csv.DictReader(io.StringIO(_read(KERNELS))))
    assert recorded.source == "ascend"
    assert len(recorded.launches) == len(rows)
    assert {k.core for k in recorded.launches} == {r["Accelerator Core"] for r in rows}


# -- exercise 1: the physical NPU behind ASCEND_VISIBLE_DEVICES + ASCEND_RT_VISIBLE_DEVICES --
def test_1_container_npu():
    q1 = exercises("10")[0]
    context = {"container": "4,5,6,7", "visible": "2,3", "device_id": 1}
    assert q1.verdict(____, **context) == ("open", NOT_ANSWERED)
    answer = solved(q1, CONTAINER="4,5,6,7", VISIBLE="2,3", DEVICE_ID=1)["my_physical"]
    assert answer == 7  # device_id 1 -> logical 3 -> the container's fourth NPU, physical 7
    assert kind(q1, answer, **context) == "right"
    for wrong in (1, 3, 5, 6, 4, "seven"):
        assert kind(q1, wrong, **context) == "wrong", wrong
    # the same rule on another container: logical ids follow the mounted order
    assert kind(q1, 2, container="0,2", visible="1", device_id=0) == "right"
    assert kind(q1, 1, container="0,2", visible="1", device_id=0) == "wrong"
    # a setting that names no NPU (a logical id the container does not have)
    assert kind(q1, 7, container="4,5", visible="2", device_id=0) == "wrong"


# -- exercise 2: the module of error code EI0005 -----------------------------------------
def test_2_error_code_module(errors):
    q2 = exercises("10")[1]
    context = {"text": errors["EI0005"], "code": "EI0005"}
    assert q2.verdict(____, **context) == ("open", NOT_ANSWERED)
    answer = solved(q2, errors=errors)["my_module"]
    assert kind(q2, answer, **context) == "right"
    assert answer == "HCCL"
    assert kind(q2, "hccl", **context) == "right"  # the case is not the point
    assert kind(q2, "Runtime", **context) == "wrong"  # EE's module
    assert kind(q2, "GE", **context) == "wrong"  # the graph engine
    # a code the text does not hold is never right
    assert kind(q2, "HCCL", text=errors["EI0005"], code="EE9999") == "wrong"


# -- exercise 3: the op type that fell back to AI CPU ------------------------------------
def test_3_aicpu_op_type(recorded):
    q3 = exercises("10")[2]
    assert q3.verdict(____, profile=recorded) == ("open", NOT_ANSWERED)
    answer = solved(q3, recorded=recorded)["my_aicpu_type"]
    assert kind(q3, answer, profile=recorded) == "right"
    rows = list(csv.DictReader(io.StringIO(_read(KERNELS))))
    assert answer in {r["Type"] for r in rows if r["Accelerator Core"] == "AI_CPU"}
    aicpu_name = next(r["Name"] for r in rows if r["Accelerator Core"] == "AI_CPU")
    slowest_type = recorded.kernels[0].op_type  # plausible: the slowest kernel's type
    assert kind(q3, aicpu_name, profile=recorded) == "wrong"  # the Name, not the Type
    assert kind(q3, slowest_type, profile=recorded) == "wrong"
    verdict, pointer = q3.verdict(aicpu_name, lang="en", profile=recorded)
    assert "Name" in pointer


def test_3_a_profile_without_ai_cpu_says_so(recorded):
    q3 = exercises("10")[2]
    no_aicpu = type("P", (), {"launches": [k for k in recorded.launches if k.core != "AI_CPU"]})
    kind_, message = q3.verdict("Cast", lang="en", profile=no_aicpu)
    assert kind_ == "wrong" and "no AI_CPU" in message

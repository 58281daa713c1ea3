"""torch_npu's and vllm-ascend's own messages (#36), read from their source by
scripts/torch_npu_message_table.py: every template the review maps to a topic is read with that
topic once its {} hold values and it is raised as the stack prints it (exception kind, template,
torch_npu's ERR line), and no mapping is left without a template."""

import json
import re
import runpy
import types
from pathlib import Path

import pytest

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics

ROOT = Path(__file__).resolve().parents[2]


# The script's namespace (run as a module, not as __main__).
SCRIPT = types.SimpleNamespace(
    **runpy.run_path(
        str(ROOT / "scripts" / "torch_npu_message_table.py"), run_name="torch_npu_message_table"
    )
)
ROWS = SCRIPT.read_tables()
MAPPED_ROWS = [(r["area"], SCRIPT.mapped_topic(r), r) for r in ROWS if SCRIPT.mapped_topic(r)]


@pytest.mark.parametrize("stack", sorted(SCRIPT.TABLES))
def test_each_table_records_where_it_was_read(stack):
    data = json.loads(Path(SCRIPT.TABLES[stack]).read_text(encoding="utf-8"))
    assert data["stack"] == stack and data["snapshots"], "no snapshot recorded"
    for snap in data["snapshots"]:
        assert re.fullmatch(r"[0-9a-f]{40}", snap["commit"]), snap
        assert snap["repo"] and snap["ref"] and snap["version"] and snap["date"]
    areas = {f"{stack}/{name}" for name, _ in SCRIPT.AREAS[stack]}
    for row in SCRIPT.read_table(stack):
        assert row["area"] in areas, row
        assert re.search(r"[A-Za-z]{3}", row["template"]), row
        assert not row["code"] or re.fullmatch(r"ERR0[0-4]\d{3} [A-Z]{2,5} [a-z ]+", row["code"])
        assert all(0 <= i < len(data["snapshots"]) for i in row["seen"]), row


def test_every_mapping_names_a_known_topic_and_finds_a_template():
    topics = known_topics()
    for area, pattern, topic, code in SCRIPT.MAPPED:
        assert topic in topics, topic
        assert any(
            re.fullmatch(area, r["area"])
            and re.search(pattern, r["template"])
            and (not code or re.search(code, r["code"]))
            for r in ROWS
        ), f"mapping {area} {pattern!r} matches no template"


def test_the_extractor_reads_torch_npu_calls():
    kind, text, code = SCRIPT.cxx_template(
        'TORCH_CHECK(ptr != nullptr, #aclnn_api, " or ", #aclnn_api "GetWorkspaceSize", '
        '" not in ", GetOpApiLibName(), ", or ", GetOpApiLibName(), " not found.", '
        "OPS_ERROR(ErrCode::PTR));",
        "TORCH_CHECK",
    )
    assert (kind, text, code) == (
        "RuntimeError",
        "{} or {}GetWorkspaceSize not in {}, or {} not found.",
        "ERR01004 OPS invalid pointer",
    )
    kind, text, _ = SCRIPT.cxx_template(
        'ASCEND_LOGE("Device %d init failed, ret = %d", id, ret);', "ASCEND_LOGE"
    )
    assert (kind, text) == ("ERROR log", "Device {} init failed, ret = {}")
    kind, text, code = SCRIPT.py_template(
        'raise RuntimeError(f"Invalid value {x} for rank" + pta_error(ErrCode.VALUE))'
    )
    assert (kind, text, code) == (
        "RuntimeError",
        "Invalid value {} for rank",
        "ERR00003 PTA invalid value",
    )


def test_the_extractor_reads_vllm_logged_errors():
    kind, text, code = SCRIPT.py_template(
        'logger.error("Failed to connect to bootstrap server %s: %s", url, e)'
    )
    assert (kind, text, code) == ("ERROR log", "Failed to connect to bootstrap server {}: {}", None)
    lines = ['    logger.exception("Error in %s "', '                     "thread", name)']
    stmt = SCRIPT._py_statement(lines, 0, lines[0].index("logger"))
    assert SCRIPT.py_template(stmt)[1] == "Error in {} thread"
    row = {"area": "vllm/engine", "kind": "ERROR log", "template": "EngineCore failed to start."}
    assert SCRIPT.message(row).startswith("ERROR 01-07 02:38:42 [core.py:123] EngineCore failed")


PROFILER_CALLS = [
    # print_error_msg / print_warn_msg (f-strings, the PROF code suffix kept apart)
    (
        'print_error_msg(f"Can\'t create file: {output_path}" + prof_error(ErrCode.SYSCALL))',
        ("ERROR print", "Can't create file: {}", "ERR04010 PROF system call failed"),
    ),
    (
        'print_warn_msg("Profiling data parsing failed.")',
        ("WARNING print", "Profiling data parsing failed.", None),
    ),
    # torch_npu's ProfilerLogger and mindspore.log (printf formats); MindSpore's ProfilerLogger
    ('self.logger.error("Failed to parse %s", path)', ("ERROR log", "Failed to parse {}", None)),
    (
        'self._logger.error("Failed to save trace_view.json: %s", e, exc_info=True)',
        ("ERROR file log", "Failed to save trace_view.json: {}", None),
    ),
]


@pytest.mark.parametrize("call,expected", PROFILER_CALLS)
def test_the_extractor_reads_the_profilers_own_lines(call, expected):
    assert SCRIPT.prof_template(call) == expected


def test_the_profilers_lines_are_printed_in_their_forms_and_mapped_by_kind():
    row = {"kind": "ERROR print", "template": "Failed to export CANN Profiling data."}
    assert SCRIPT.message(row).startswith("[2026-01-07 02:38:42] [ERROR] [12345] profiler.py: ")
    row = {"kind": "WARNING log", "template": "Failed to parse profiler_metadata.json."}
    row["file"] = "torch_npu/profiler/analysis/prof_view/prof_db_parse/_basic_db_parser.py"
    assert SCRIPT.message(row).startswith("[2026-01-07-02:38:42.269] [WARNING] [AscendProfiler:")
    row = {"kind": "ERROR log", "template": "No PROF_* directory found in {}"}
    row["file"] = "mindspore/python/mindspore/profiler/platform/npu_profiler.py"
    assert "[mindspore/profiler/platform/npu_profiler.py:123] No PROF_" in SCRIPT.message(row)
    # a mapping may name the kind: the profiler's WARNING lines are mapped only when they fail
    warn = {"area": "torch_npu/profiler", "kind": "WARNING print", "code": ""}
    assert SCRIPT.mapped_topic(dict(warn, template="Profiling data parsing failed.")) == "profiler"
    assert (
        SCRIPT.mapped_topic(dict(warn, template="Invalid parameter wait, reset it to 0.")) is None
    )


def test_a_message_is_raised_as_torch_npu_prints_it():
    row = {"kind": "RuntimeError", "template": "Invalid device_index: {}, valid range is [0, {})"}
    row["code"] = "ERR00001 PTA invalid parameter"
    text = SCRIPT.message(row)
    assert text.startswith("RuntimeError: Invalid device_index: 8, valid range is [0, 8)")
    assert text.endswith("(PID:12345, Device:0, RankID:0) ERR00001 PTA invalid parameter")
    loader = SCRIPT.fill("{} or {}GetWorkspaceSize not in {}, or {} not found.")
    assert loader == (
        "aclnnMatmul or aclnnMatmulGetWorkspaceSize not in libopapi.so, or libopapi.so not found."
    )


@pytest.mark.sweep
@pytest.mark.parametrize(
    "row", [row for _, _, row in MAPPED_ROWS], ids=lambda row: row["template"][:60]
)
def test_each_mapped_template_reads_as_its_topic(row):
    topic = SCRIPT.mapped_topic(row)
    text = SCRIPT.message(row)
    first = SCRIPT.MS._first_topic(diagnose(text))
    assert first == topic, (text, first)

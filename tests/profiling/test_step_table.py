"""Step times from the profiler's own step table, the kernel span only as the labelled
fallback, and folders holding only msprof's database (#36). No MindSpore here.

The kernels are the real ``kernel_details.csv`` of tests/fixtures/real/profiler/ (one step,
``Step Id`` 19). The step tables and databases are NOT recordings: they are made from the
column and table names of their writers (torch_npu's ``TraceStepTimeParser.title`` and
``TraceStepTimeDbParser`` / ``TableColumnsManager`` for ``analysis.db`` ``StepTraceTime``;
msprof-analyze's SQL for ``TASK``/``COMPUTE_TASK_INFO``/``STRING_IDS``), with made-up numbers,
as tests/profiling/test_profiler_folders.py does.
"""

import sqlite3

import pytest

from ascend_lab.errors.profile import ProfileError, ProfileParseError
from ascend_lab.parsers.profiler.profiler_ascend_files import parse_kernel_details
from ascend_lab.parsers.profiler.profiler_db_steps import read_step_trace_table
from ascend_lab.payload import validate_payload
from ascend_lab.profiling import step_table
from ascend_lab.profiling.api import load_profile
from ascend_lab.viewfile.sources import is_profiler_output, view_source
from tests.profiling.test_profiler_folders import (
    KERNELS,
    STEP_HEADER,
    _view,
    make_db,
    rank_folder,
)

# torch_npu's analysis.db StepTraceTime (TableColumnsManager: step TEXT, the rest NUMERIC)
STEP_TRACE_TABLE_SQL = (
    "CREATE TABLE StepTraceTime (step TEXT, computing NUMERIC, communication_not_overlapped "
    "NUMERIC, overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, bubble "
    "NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC)"
)


def kernel_span_us():
    with open(KERNELS, encoding="utf-8") as f:
        launches = parse_kernel_details(f.read(), KERNELS)
    return max(k.end_us for k in launches) - min(k.start_us for k in launches)


def test_step_time_comes_from_step_trace_time_csv_not_the_kernel_span(tmp_path):
    span = kernel_span_us()
    free = round(span * 0.087, 3)  # the table says the step is longer than its kernels
    folder = rank_folder(tmp_path, "h_1_ascend_pt", 0)
    (folder / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_text(
        STEP_HEADER + f"0,19,{span - 100},100,20,120,{free},{span + free},0,100,7\n"
    )
    profile = load_profile(str(tmp_path))
    (step,) = profile.steps
    assert step.wall_us == pytest.approx(span + free)  # not the kernels' span
    assert step.gap_us == pytest.approx(span + free - step.busy_us)
    assert profile.step_source == step_table.STEPS_FROM_CSV
    note = next(n for n in profile.notes if n.startswith("step times from step_trace_time.csv"))
    assert f"would read {100 * span / (span + free):.1f}% of that" in note
    assert "step times from: step_trace_time.csv" in profile.summary()
    payload = profile.to_payload()
    validate_payload(payload)
    assert payload["profile"]["step_source"] == "step_trace_time.csv"
    assert payload["profile"]["steps"][0]["wall_us"] == pytest.approx(span + free, abs=1e-3)


def test_a_step_table_that_does_not_match_the_kernels_is_said_and_the_span_kept(tmp_path):
    folder = rank_folder(tmp_path, "h_1_ascend_pt", 0)
    (folder / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_text(
        STEP_HEADER + "0,1,10,0,0,0,1,11,0,0,0\n0,2,10,0,0,0,1,11,0,0,0\n"
    )
    profile = load_profile(str(tmp_path))
    assert profile.steps[0].wall_us == pytest.approx(kernel_span_us())
    assert profile.step_source == step_table.STEPS_FROM_KERNEL_SPAN
    assert any("cannot be matched" in n for n in profile.notes)


def test_without_a_step_table_the_kernel_span_is_labelled_the_fallback(tmp_path):
    rank_folder(tmp_path, "h_1_ascend_pt", 0)
    profile = load_profile(str(tmp_path))
    assert profile.step_source == step_table.STEPS_FROM_KERNEL_SPAN == "kernel span (fallback)"
    assert "step times from: kernel span (fallback)" in profile.summary()
    assert profile.to_payload()["profile"]["step_source"] == "kernel span (fallback)"


def test_a_database_step_time_table_is_the_step_source(tmp_path):
    out = tmp_path / "h_1_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    make_db(
        out / "ascend_mindspore_profiler_0.db",
        tasks=[("MatMul-op1", "MatMul", "AI_CORE", 1_000_000, 1_004_000, 7)],
        steps=[(999_000, 1_500_000)],
    )
    profile = load_profile(str(tmp_path))
    assert profile.step_source == step_table.STEPS_FROM_STEP_TIME
    assert profile.steps[0].wall_us == pytest.approx(501.0)


def test_the_step_breakdown_of_torch_npus_analysis_db(tmp_path):
    """torch_npu's db export: ascend_pytorch_profiler_0.db (kernels, no step windows) and
    analysis.db (StepTraceTime, one row per step, microseconds)."""
    out = tmp_path / "h_1_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    make_db(
        out / "ascend_pytorch_profiler_0.db",
        tasks=[
            ("MatMul-op1", "MatMul", "AI_CORE", 1_000_000, 1_004_000, 7),
            ("Add-op2", "Add", "AI_VECTOR_CORE", 1_005_000, 1_006_000, 7),
        ],
    )
    conn = sqlite3.connect(str(out / "analysis.db"))
    conn.execute(STEP_TRACE_TABLE_SQL)
    conn.execute("INSERT INTO StepTraceTime VALUES (NULL, 5.0, 0, 0, 0, 1.5, 6.5, 0, 0, 2.25)")
    conn.commit()
    conn.close()
    (row,) = read_step_trace_table(str(out / "analysis.db"))
    assert (row.step, row.computing_us, row.free_us, row.preparing_us) == (None, 5.0, 1.5, 2.25)
    profile = load_profile(str(tmp_path))
    assert [m.total_us for m in profile.measured_steps] == [6.5]
    assert profile.step_source == step_table.STEPS_FROM_DB_TABLE
    assert profile.steps[0].wall_us == pytest.approx(6.5)
    assert any(n.startswith("measured steps from analysis.db") for n in profile.notes)


def test_step_trace_table_rows_and_refusals(tmp_path):
    db = tmp_path / "analysis.db"
    conn = sqlite3.connect(str(db))
    conn.execute(STEP_TRACE_TABLE_SQL)
    conn.executemany(
        "INSERT INTO StepTraceTime (step, computing, communication_not_overlapped, free) "
        "VALUES (?, ?, ?, ?)",
        [("3", 10.0, 1.0, 2.0), ("4", "x", 1.0, 2.0), ("oops", 1.0, 0.0, 0.0)],
    )
    conn.commit()
    conn.close()
    rows = read_step_trace_table(str(db))
    assert [(r.step, r.total_us) for r in rows] == [(3, 13.0), (None, 1.0)]  # "x" skipped
    no_table = tmp_path / "no_table.db"
    sqlite3.connect(str(no_table)).execute("CREATE TABLE STEP_TIME (id INTEGER)").connection.close()
    assert read_step_trace_table(str(no_table)) == []
    other = tmp_path / "other.db"
    sqlite3.connect(str(other)).execute("CREATE TABLE StepTraceTime (step TEXT)").connection.close()
    with pytest.raises(ProfileParseError, match="no column"):
        read_step_trace_table(str(other))
    computed = tmp_path / "computed.db"  # a value made when read is not a profiler's
    conn = sqlite3.connect(str(computed))
    conn.execute(
        "CREATE TABLE StepTraceTime (step TEXT, computing NUMERIC, "
        "communication_not_overlapped NUMERIC, free NUMERIC, "
        "big TEXT GENERATED ALWAYS AS (zeroblob(1000000)) VIRTUAL)"
    )
    conn.commit()
    conn.close()
    with pytest.raises(ProfileParseError, match="computed columns"):
        read_step_trace_table(str(computed))


def msprof_collection(parent, with_tables=True):
    """msprof's own PROF_* folder after `msprof --type=db`: msprof_<timestamp>.db beside the
    raw device_0/ and host/ data, nothing exported as text."""
    prof = parent / "PROF_000001_20250109123456_ABCDEFGHIJ"
    (prof / "device_0" / "data").mkdir(parents=True)
    (prof / "host" / "data").mkdir(parents=True)
    db = prof / "msprof_20250109123500.db"
    if with_tables:
        make_db(
            db,
            tasks=[
                ("MatMul-op1", "MatMul", "AI_CORE", 1_000_000, 1_004_000, 7),
                ("Add-op2", "Add", "AI_VECTOR_CORE", 1_005_000, 1_006_000, 7),
            ],
        )
    else:
        sqlite3.connect(str(db)).execute(
            "CREATE TABLE ENUM_API_TYPE (id INTEGER)"
        ).connection.close()
    return prof


@pytest.mark.parametrize("given", ["prof", "parent"])
def test_a_folder_with_only_an_msprof_database_is_named_with_the_export_command(tmp_path, given):
    prof = msprof_collection(tmp_path)
    folder = prof if given == "prof" else tmp_path
    profile = load_profile(str(folder))
    assert profile.source == "ascend" and {k.name for k in profile.kernels} == {
        "MatMul-op1",
        "Add-op2",
    }
    command = f"msprof --export=on --output={prof} --type=text"
    note = next(n for n in profile.notes if n.startswith("only msprof's own database here"))
    assert "msprof_20250109123500.db" in note and command in note
    assert is_profiler_output(str(folder))
    payload = view_source(str(folder))
    validate_payload(payload)
    assert payload["meta"]["source"] == "profile-folder"


def test_an_msprof_database_without_kernels_says_what_it_is_and_how_to_export(tmp_path):
    prof = msprof_collection(tmp_path, with_tables=False)
    with pytest.raises(ProfileError) as err:
        load_profile(str(prof))
    text = str(err.value)
    assert "is msprof's own database" in text and "no table(s) TASK" in text
    assert f"msprof --export=on --output={prof} --type=text" in text
    done = _view(str(prof), "-o", str(tmp_path / "page.html"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "msprof's own database" in done.stderr and "IR dumps" not in done.stderr

"""Profiler folders laid out as the Ascend profiler writes them (MindSpore ``*_ascend_ms``,
torch_npu ``*_ascend_pt``): ranks, raw PROF_* data not analysed, step_trace_time.csv, the
SQLite database, memory files, and ``ascend-lab view`` of such a folder. No MindSpore here.

The kernel files are the real ones of tests/fixtures/real/profiler/, copied into the
layouts. The step, memory and database inputs are NOT recordings: they are made here from
the column and table names of the profiler's writer and of msprof-analyze's readers (see
tests/fixtures/real/README.md), with made-up numbers.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from ascend_lab.errors.profile import ProfileError, ProfileParseError
from ascend_lab.parsers.profiler.profiler_ascend_files import (
    parse_memory_record,
    parse_operator_memory,
    parse_step_trace_time,
)
from ascend_lab.parsers.profiler.profiler_db import read_profiler_db
from ascend_lab.payload import validate_payload
from ascend_lab.profiling.api import load_profile
from ascend_lab.profiling.layout import profiler_folders, rank_of
from ascend_lab.viewfile.sources import is_profiler_output, view_source

REAL = os.path.join(os.path.dirname(__file__), "..", "fixtures", "real", "profiler")
KERNELS = os.path.join(REAL, "msprof-analyze", "compute_advice", "kernel_details.csv")
KERNELS_HCCL = os.path.join(
    REAL, "msprof-analyze", "advisor_backend_compute_advice", "kernel_details.csv"
)

# torch_npu's TraceStepTimeParser.title (the header MindSpore's analysis writes too)
STEP_HEADER = (
    "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
    "Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
)


def rank_folder(parent, name, rank, kernels=KERNELS, analysed=True, info_name=None):
    """One rank's folder: profiler_info_<rank>.json, PROF_*, ASCEND_PROFILER_OUTPUT."""
    folder = parent / name
    (folder / "PROF_000001_20250109_ABCDEF").mkdir(parents=True)
    info = info_name or f"profiler_info_{rank}.json"
    (folder / info).write_text(json.dumps({"rank_id": rank}))
    if analysed:
        out = folder / "ASCEND_PROFILER_OUTPUT"
        out.mkdir()
        shutil.copy(kernels, out / "kernel_details.csv")
    return folder


def test_ranks_are_found_and_one_is_read(tmp_path):
    rank_folder(tmp_path, "node1_4001_20250109_ascend_ms", 1, KERNELS_HCCL)
    rank_folder(tmp_path, "node1_4000_20250109_ascend_ms", 0, KERNELS)
    found = profiler_folders(str(tmp_path))
    assert [(f.rank, f.framework, f.analysed) for f in found] == [
        (0, "mindspore", True),
        (1, "mindspore", True),
    ]
    first = load_profile(str(tmp_path))
    assert first.rank == 0 and [r.rank for r in first.ranks] == [0, 1]
    assert first.files["kernel_details"].startswith(str(found[0].path))
    second = load_profile(str(tmp_path), rank=1)
    assert second.rank == 1
    assert len(second.launches) != len(first.launches)  # another rank's file
    assert any("2 rank folders" in n for n in second.notes)
    with pytest.raises(ProfileError, match=r"no profiler folder of rank 5 .*ranks: 0, 1"):
        load_profile(str(tmp_path), rank=5)


def test_one_rank_folder_given_directly(tmp_path):
    folder = rank_folder(tmp_path, "host_77_20250109_ascend_pt", 3)
    profile = load_profile(str(folder))
    assert profile.rank == 3 and profile.ranks == []


def test_rank_from_info_json_or_folder_name(tmp_path):
    folder = rank_folder(tmp_path, "a_ascend_ms", 6, info_name="profiler_info.json")
    assert rank_of(str(folder)) == 6
    named = tmp_path / "rank_4"
    named.mkdir()
    assert rank_of(str(named)) == 4
    plain = tmp_path / "plain"
    plain.mkdir()
    assert rank_of(str(plain)) is None


@pytest.mark.parametrize(
    "name, command",
    [
        ("h_1_20250109_ascend_ms", "from mindspore.profiler.profiler import analyse"),
        ("h_1_20250109_ascend_pt", "from torch_npu.profiler.profiler import analyse"),
    ],
)
def test_raw_data_not_analysed_names_the_command(tmp_path, name, command):
    rank_folder(tmp_path, name, 0, analysed=False)
    with pytest.raises(ProfileError, match="not analysed yet") as err:
        load_profile(str(tmp_path))
    assert command in str(err.value)
    assert repr(str(tmp_path)) in str(err.value)  # analyse() takes the folder above


def test_some_ranks_not_analysed_is_a_note(tmp_path):
    rank_folder(tmp_path, "h_1_ascend_ms", 0)
    rank_folder(tmp_path, "h_2_ascend_ms", 1, analysed=False)
    profile = load_profile(str(tmp_path))
    assert profile.rank == 0
    assert [(r.rank, r.analysed) for r in profile.ranks] == [(0, True), (1, False)]
    assert any("not analysed yet" in n and "analyse(" in n for n in profile.notes)


def test_step_trace_time_gives_measured_steps_in_the_profile_and_payload(tmp_path):
    folder = rank_folder(tmp_path, "h_1_ascend_ms", 0)
    (folder / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_text(
        STEP_HEADER
        + "0,19,3000.5,200.25,100,300.25,50,3250.75,0,200.25,12\n"
        + "0,20,2900,100,40,140,60,3060,0,100,9\n"
    )
    profile = load_profile(str(tmp_path))
    assert [(m.step, m.rank) for m in profile.measured_steps] == [(19, 0), (20, 0)]
    assert profile.measured_steps[0].total_us == pytest.approx(3000.5 + 200.25 + 50)
    assert not any(n.startswith("no measured step times") for n in profile.notes)
    assert "measured by the profiler, mean of 2 step(s)" in profile.summary()
    payload = profile.to_payload()
    validate_payload(payload)
    rows = payload["profile"]["measured_steps"]
    assert [r["computing_us"] for r in rows] == [3000.5, 2900.0]
    assert rows[1]["free_us"] == 60.0 and rows[0]["preparing_us"] == 12.0


def test_step_trace_time_without_device_or_step_columns():
    old = "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage\n"
    (step,) = parse_step_trace_time(old + ",10,0,0,0,2,12\n")
    assert step.step is None and step.rank is None and step.total_us == 12.0
    with pytest.raises(ProfileParseError, match="missing column"):
        parse_step_trace_time("Step,Computing\n1,2\n")


def test_operator_memory_becomes_memory_over_time():
    header = "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us)\n"
    samples = parse_operator_memory(
        header
        + "cann::a,1024,10,30,20\n"
        + "cann::b,2048,20,40,20\n"
        + "cann::c,512,30,,\n"  # never released while profiled
    )
    assert [(s.time_us, s.allocated_mb) for s in samples] == [
        (10.0, 1.0),
        (20.0, 3.0),
        (30.0, 2.5),  # a released and c allocated at the same moment
        (40.0, 0.5),
    ]


def test_memory_record_is_preferred_and_goes_into_the_payload(tmp_path):
    folder = rank_folder(tmp_path, "h_1_ascend_pt", 0)
    out = folder / "ASCEND_PROFILER_OUTPUT"
    (out / "memory_record.csv").write_text(
        "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
        "Stream Ptr,Device Type\n"
        "PTA,1736413971411629.5,10.5,20,10.5,1,NPU:0\n"
        "PTA,1736413971411700.5,12.5,20,12.5,1,NPU:0\n"
        "GE,1736413971411650.5,3,4,3,1,NPU:0\n"
    )
    (out / "operator_memory.csv").write_text("Name,Size(KB),Allocation Time(us)\nx,1,1\n")
    profile = load_profile(str(folder))
    assert sorted({s.component for s in profile.memory}) == ["GE", "PTA"]
    memory = profile.to_payload()["profile"]["memory"]
    assert memory["peak_mb"] == {"GE": 3.0, "PTA": 12.5}
    assert [p[1] for p in memory["series"]["PTA"]] == [10.5, 12.5]
    assert parse_memory_record("Timestamp(us),Total Allocated(MB)\n5,1\n")[0].component == ""


def make_db(path, tasks, steps=(), comms=()):
    """A database with the tables and columns msprof-analyze's SQL reads."""
    conn = sqlite3.connect(str(path))
    conn.executescript(
        "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId "
        "INTEGER, globalTaskId INTEGER PRIMARY KEY, globalPid INTEGER, taskType INTEGER, "
        "contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);"
        "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, "
        "blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, "
        "inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER);"
        "CREATE TABLE STEP_TIME (id INTEGER PRIMARY KEY, startNs INTEGER, endNs INTEGER);"
        "CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
        "connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, "
        "retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER);"
    )
    strings = {}

    def sid(text):
        if text not in strings:
            strings[text] = len(strings) + 1
            conn.execute("INSERT INTO STRING_IDS VALUES (?, ?)", (strings[text], text))
        return strings[text]

    for i, (name, op_type, core, start, end, stream) in enumerate(tasks):
        conn.execute(
            "INSERT INTO TASK (startNs, endNs, globalTaskId, streamId) VALUES (?, ?, ?, ?)",
            (start, end, i, stream),
        )
        conn.execute(
            "INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, taskType, opType) "
            "VALUES (?, ?, ?, ?)",
            (sid(name), i, sid(core), sid(op_type)),
        )
    for i, (start, end) in enumerate(steps):
        conn.execute("INSERT INTO STEP_TIME VALUES (?, ?, ?)", (i, start, end))
    for i, (name, op_type, start, end) in enumerate(comms):
        conn.execute(
            "INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, opId, opType) "
            "VALUES (?, ?, ?, ?, ?)",
            (sid(name), start, end, i, sid(op_type)),
        )
    conn.commit()
    conn.close()


def test_database_alone_is_read_read_only_with_its_step_windows(tmp_path):
    folder = tmp_path / "h_1_20250109_ascend_ms"
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (folder / "profiler_info_2.json").write_text("{}")
    db = out / "ascend_mindspore_profiler_2.db"
    make_db(
        db,
        tasks=[
            ("MatMul-op1", "MatMul", "AI_CORE", 1_000_000, 1_004_000, 7),
            ("Add-op2", "Add", "AI_VECTOR_CORE", 1_005_000, 1_006_000, 7),
            ("MatMul-op1", "MatMul", "AI_CORE", 2_000_000, 2_003_000, 7),
        ],
        steps=[(999_000, 1_500_000), (1_999_000, 2_500_000)],
        comms=[("hcom_allReduce__1", "hcom_allReduce_", 1_004_000, 1_005_500)],
    )
    before = db.read_bytes()
    profile = load_profile(str(tmp_path))
    assert db.read_bytes() == before
    assert profile.rank == 2 and profile.source == "ascend"
    assert [round(s.wall_us, 3) for s in profile.steps] == [501.0, 501.0]
    matmul = next(k for k in profile.kernels if k.name == "MatMul-op1")
    assert (matmul.calls, matmul.total_us, matmul.core) == (2, 7.0, "AI_CORE")
    assert profile.steps[0].communication_us == pytest.approx(1.5)
    assert any("profiler database" in n for n in profile.notes)
    launches, windows = read_profiler_db(str(db))
    assert [k.lane for k in launches].count("communication") == 1
    assert windows == [(999.0, 1500.0), (1999.0, 2500.0)]


def test_database_open_is_read_only(tmp_path):
    db = tmp_path / "ascend_pytorch_profiler_0.db"
    make_db(db, tasks=[("k", "K", "AI_CORE", 0, 10, 1)])
    from ascend_lab.parsers.profiler import profiler_db as ascend_db

    conn, _size = ascend_db._connect(str(db))
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("DELETE FROM TASK")
    finally:
        conn.close()


def test_database_without_the_tables_is_an_error_naming_them(tmp_path):
    db = tmp_path / "ascend_pytorch_profiler_0.db"
    conn = sqlite3.connect(str(db))
    conn.execute("CREATE TABLE other (x)")
    conn.close()
    with pytest.raises(ProfileParseError, match="TASK, COMPUTE_TASK_INFO, STRING_IDS"):
        read_profiler_db(str(db))
    (tmp_path / "junk.db").write_bytes(b"not sqlite" * 100)
    with pytest.raises(ProfileParseError, match="unreadable profiler database"):
        read_profiler_db(str(tmp_path / "junk.db"))


def test_view_source_of_a_profiler_folder_is_a_profile_page_without_a_graph(tmp_path):
    rank_folder(tmp_path, "h_1_ascend_ms", 0)
    assert is_profiler_output(str(tmp_path))
    payload = view_source(str(tmp_path))
    validate_payload(payload)
    assert payload["meta"]["source"] == "profile-folder"
    assert payload["graphs"][payload["views"]["main"]]["nodes"] == []
    assert len(payload["profile"]["kernels"]) > 0


def test_ir_dump_folder_is_not_taken_for_a_profile(tmp_path):
    (tmp_path / "ASCEND_PROFILER_OUTPUT").mkdir()
    (tmp_path / "00_bootstrap_0000.ir").write_text("# IR\n")
    assert not is_profiler_output(str(tmp_path))


def _view(*args):
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", "view", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, ASCEND_LAB_LANG="en"),
    )


def test_cli_view_writes_a_profile_page_and_refuses_raw_data(tmp_path):
    job = tmp_path / "job"
    rank_folder(job, "h_1_ascend_pt", 0)
    page = tmp_path / "page.html"
    done = _view(str(job), "-o", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    assert "aclnnFlashAttentionScore" in text and '"profile-folder"' in text
    raw = tmp_path / "raw"
    rank_folder(raw, "h_1_ascend_pt", 0, analysed=False)
    done = _view(str(raw), "-o", str(tmp_path / "raw.html"))
    assert done.returncode == 2
    assert "torch_npu.profiler.profiler import analyse" in done.stderr


def test_the_older_profiler_folder_without_the_suffix_is_found_by_content(tmp_path):
    # MindSpore 2.3/2.4 write <output_path>/profiler/ holding PROF_* and, analysed,
    # ASCEND_PROFILER_OUTPUT/
    raw = tmp_path / "raw"
    rank_folder(raw, "profiler", 0, analysed=False)
    with pytest.raises(ProfileError, match="not analysed yet") as err:
        load_profile(str(raw))
    assert "Profiler.offline_analyse" in str(err.value)
    done = tmp_path / "done"
    rank_folder(done, "profiler", 3)
    profile = load_profile(str(done))
    assert profile.rank == 3 and len(profile.launches) > 0

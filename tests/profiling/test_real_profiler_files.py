"""The profiler parsers on real Ascend profiler files, kept verbatim in
tests/fixtures/real/profiler/ (provenance: tests/fixtures/real/README.md). Every number
checked here is checked against the file's own other columns or a plain csv/json read of
it, not against a value copied from a run of the parser. No MindSpore here.
"""

import csv
import io
import json
import os
import shutil

from ascend_lab.parsers.profiler.profiler_ascend_files import (
    parse_kernel_details,
    parse_step_trace_time,
)
from ascend_lab.parsers.profiler.trace_view import overlap_spans, parse_trace_view
from ascend_lab.payload import validate_payload
from ascend_lab.profiling.api import load_profile

REAL = os.path.join(os.path.dirname(__file__), "..", "fixtures", "real", "profiler")
MSPROF = os.path.join(REAL, "msprof-analyze")
KERNELS_SMALL = os.path.join(MSPROF, "compute_advice", "kernel_details.csv")
KERNELS_HCCL = os.path.join(MSPROF, "advisor_backend_compute_advice", "kernel_details.csv")
CLUSTER_STEPS = os.path.join(MSPROF, "cluster_analysis_output", "cluster_step_trace_time.csv")
TRACE_VIEW = os.path.join(MSPROF, "timeline_advice", "trace_view.json")


def _text(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _dict_rows(path):
    return list(csv.DictReader(io.StringIO(_text(path))))


def test_kernel_details_of_a_torch_npu_run_reads_every_row_with_its_core_and_step():
    rows = _dict_rows(KERNELS_SMALL)
    launches = parse_kernel_details(_text(KERNELS_SMALL), KERNELS_SMALL)
    assert len(launches) == len(rows) > 0
    by_name = {}
    for row in rows:
        by_name.setdefault(row["Name"], []).append(row)
    for launch in launches:
        row = by_name[launch.name].pop(0) if len(by_name[launch.name]) == 1 else None
        if row is None:
            continue
        # the cell ends with a tab (msprof keeps long numbers as text): read it anyway
        assert launch.start_us == float(row["Start Time(us)"].strip())
        assert launch.duration_us == float(row["Duration(us)"])
        assert launch.core == row["Accelerator Core"]
        assert launch.step == int(row["Step Id"])
        assert launch.lane == "stream " + row["Stream ID"]
    cores = {k.core for k in launches}
    assert {"AI_CORE", "MIX_AIC", "AI_VECTOR_CORE"} <= cores  # aclnn kernels on an A2-class chip
    starts = [k.start_us for k in launches]
    assert starts == sorted(starts)


def test_kernel_details_with_collectives_counts_hccl_as_communication(tmp_path):
    rows = _dict_rows(KERNELS_HCCL)
    out = tmp_path / "ASCEND_PROFILER_OUTPUT"
    out.mkdir()
    shutil.copy(KERNELS_HCCL, out / "kernel_details.csv")
    profile = load_profile(str(tmp_path))
    assert profile.source == "ascend"
    assert len(profile.launches) == len(rows)
    hccl = [r for r in rows if r["Accelerator Core"] == "HCCL"]
    assert hccl, "the fixture holds collectives"
    (step,) = profile.steps  # one Step Id in the file
    assert step.communication_us > 0
    # the collectives' union can be no longer than the sum of their durations (within the
    # 0.25 us resolution of a float at these epoch timestamps)
    assert step.communication_us <= sum(float(r["Duration(us)"]) for r in hccl) + 1.0
    assert step.busy_us <= step.wall_us + 1e-6
    types = {t.op_type for t in profile.op_types if t.core == "HCCL"}
    assert types == {r["Type"] for r in hccl}
    validate_payload(profile.to_payload())


def test_cluster_step_trace_time_gives_each_rank_its_measured_step():
    rows = _dict_rows(CLUSTER_STEPS)
    steps = parse_step_trace_time(_text(CLUSTER_STEPS), CLUSTER_STEPS)
    rank_rows = [r for r in rows if r["Type"] == "rank"]
    assert len(steps) == len(rank_rows) == 8  # the stage row (max over ranks) is left out
    assert [s.rank for s in steps] == [int(r["Index"]) for r in rank_rows]
    for step, row in zip(steps, rank_rows):
        assert step.step is None  # no step schedule: Step is empty
        assert step.computing_us == float(row["Computing"])
        assert step.communication_not_overlapped_us == float(row["Communication(Not Overlapped)"])
        assert step.overlapped_us == float(row["Overlapped"])
        assert step.bubble_us == float(row["Bubble"])
        # computing + not-overlapped communication + free tile the step: the file's own Stage
        assert abs(step.total_us - float(row["Stage"])) < 1.0
        # and overlapped + not overlapped is all communication
        assert (
            abs(step.overlapped_us + step.communication_not_overlapped_us - step.communication_us)
            < 1e-3
        )


def test_trace_view_of_a_torch_npu_run_has_the_overlap_analysis():
    raw = json.loads(_text(TRACE_VIEW))
    spans = parse_trace_view(_text(TRACE_VIEW), TRACE_VIEW)
    assert len(spans) == sum(1 for e in raw if e.get("ph") == "X")
    processes = {e["args"]["name"] for e in raw if e.get("name") == "process_name"}
    assert {s.process for s in spans} <= processes
    assert {"Ascend Hardware", "Overlap Analysis"} <= processes
    overlap = overlap_spans(spans)
    for name, found in overlap.items():
        expected = [
            e
            for e in raw
            if e.get("ph") == "X"
            and e.get("name") == name
            and e.get("pid")
            in {
                p["pid"]
                for p in raw
                if p.get("name") == "process_name" and p["args"]["name"] == "Overlap Analysis"
            }
        ]
        assert len(found) == len(expected) > 0
        assert (
            abs(sum(s.duration_us for s in found) - sum(float(e["dur"]) for e in expected)) < 1e-6
        )
    assert {"Computing", "Free"} <= set(overlap)

"""Hostile input to the Ascend profiler-folder readers: names that are markup, numbers
that are not finite, huge cells, and folders that loop. Made-up input (nothing here is a
recording); what is checked is that each is refused with a message or shown as text."""

import json
import os
import sqlite3

import pytest

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.parsers.profiler.profiler_ascend_files import (
    parse_kernel_details,
    parse_memory_record,
    parse_step_trace_time,
)
from ascend_lab.profiling.api import load_profile
from ascend_lab.profiling.layout import profiler_folders
from tests.profiling.test_profiler_folders import STEP_HEADER, make_db

XSS = '<img src=x onerror="alert(1)">'


@pytest.mark.parametrize("cell", ["nan", "inf", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused(cell):
    with pytest.raises(ProfileParseError, match="is not a number"):
        parse_step_trace_time(STEP_HEADER + f"0,1,{cell},0,0,0,0,0,0,0,0\n")
    with pytest.raises(ProfileParseError, match="is not a number"):
        parse_memory_record(f"Timestamp(us),Total Allocated(MB)\n1,{cell}\n")
    with pytest.raises(ProfileParseError, match="is not a number"):
        parse_kernel_details(f"Name,Type,Start Time(us),Duration(us)\nk,K,1,{cell}\n")


def test_a_huge_cell_is_read_in_one_pass_or_refused():
    row = "0,1," + "9" * 200_000 + ",0,0,0,0,0,0,0,0\n"
    try:
        (step,) = parse_step_trace_time(STEP_HEADER + row)
    except ProfileParseError as exc:  # over float's range: refused, with the cell cut short
        assert len(str(exc)) < 400
    else:
        assert step.computing_us > 0
    quotes = '"' * 100_001 + "\n"
    with pytest.raises(ProfileParseError):
        parse_step_trace_time(STEP_HEADER + quotes)


def test_markup_in_a_database_name_stays_text(tmp_path):
    out = tmp_path / "h_1_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    make_db(out / "ascend_mindspore_profiler_0.db", tasks=[(XSS, XSS, XSS, 0, 5000, 1)])
    profile = load_profile(str(tmp_path))
    assert profile.kernels[0].name == XSS
    html = profile._repr_html_()
    assert "<img" not in html and "&lt;img" in html
    json.dumps(profile.to_payload(), allow_nan=False)  # finite numbers only


def test_a_database_with_a_bad_schema_is_refused(tmp_path):
    db = tmp_path / "ascend_pytorch_profiler_0.db"
    conn = sqlite3.connect(str(db))
    conn.executescript(
        "CREATE TABLE STRING_IDS (id, value); CREATE TABLE TASK (x);"
        "CREATE TABLE COMPUTE_TASK_INFO (y);"
    )
    conn.close()
    with pytest.raises(ProfileParseError, match="unreadable profiler database"):
        load_profile(str(tmp_path))


def test_looping_links_do_not_hang_the_folder_search(tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    os.symlink(str(job), str(job / "loop_ascend_ms"))
    os.symlink(str(job), str(job / "again"))
    # links are not walked: nothing is found, and the search ends
    assert profiler_folders(str(job)) == []

"""``ASCEND_LAB_MAX_ROWS`` (issue #37): the row caps of the profiler tables are read where
each reader enforces them. By default a table holds at most 10,000 rows plus one per few
bytes of its file (a short row costs a hundred times its bytes once it is an object), so
a file of 20,000-30,000 very short rows is refused, naming the setting; with the setting
raised the same file is read whole, and with it lowered a database is refused."""

from typing import Callable, Dict, Tuple

import pytest

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.parsers.limits import MAX_ROWS_ENV, row_cap
from tests.support.profiler_db import write_profiler_db

ROWS = 24_000


def _csv(n: int) -> str:  # 8 bytes a row: 10,000 + n / 3 allowed
    return "Name,Type,Start Time(us),Duration(us)\n" + "a,b,1,1\n" * n


def _trace(n: int) -> str:  # 26 bytes an event: 10,000 + n * 26 / 48 allowed
    return "[" + ",".join(['{"ph":"X","ts":1,"dur":2}'] * n) + "]"


def _launches(n: int) -> str:  # 4 bytes a launch: 10,000 + n / 4 allowed
    return "Default/ReLU-op0;HostCpuOps;" + " ".join(["1,1"] * n)


def _read_csv(text: str) -> int:
    from ascend_lab.parsers.profiler.profiler_ascend_files import parse_kernel_details

    return len(parse_kernel_details(text))


def _read_trace(text: str) -> int:
    from ascend_lab.parsers.profiler.trace_view import parse_trace_view

    return len(parse_trace_view(text))


def _read_launches(text: str) -> int:
    from ascend_lab.parsers.profiler.profiler_cpu_files import parse_execute_timestamps

    return len(parse_execute_timestamps(text))


TEXT_TABLES: Dict[str, Tuple[Callable[[int], str], Callable[[str], int]]] = {
    "kernel_details.csv": (_csv, _read_csv),
    "trace_view.json": (_trace, _read_trace),
    "cpu launches": (_launches, _read_launches),
}


@pytest.mark.parametrize("kind", sorted(TEXT_TABLES))
def test_short_rows_are_refused_by_default_and_read_whole_with_the_setting(kind, monkeypatch):
    make, read = TEXT_TABLES[kind]
    text = make(ROWS)
    monkeypatch.delenv(MAX_ROWS_ENV, raising=False)
    with pytest.raises(ProfileParseError, match=f"set {MAX_ROWS_ENV} to allow more"):
        read(text)
    monkeypatch.setenv(MAX_ROWS_ENV, str(2 * ROWS))
    assert read(text) == ROWS


def test_a_database_table_is_read_whole_by_default_and_refused_under_a_lower_setting(
    tmp_path, monkeypatch
):
    from ascend_lab.parsers.profiler.profiler_db import read_profiler_db

    path = write_profiler_db(str(tmp_path), 3_000)
    monkeypatch.delenv(MAX_ROWS_ENV, raising=False)
    assert len(read_profiler_db(path)[0]) == 3_000
    monkeypatch.setenv(MAX_ROWS_ENV, "2999")
    with pytest.raises(ProfileParseError, match=f"over 2,999 rows.*set {MAX_ROWS_ENV}"):
        read_profiler_db(path)


def test_a_value_that_is_not_a_whole_number_keeps_the_default(monkeypatch):
    monkeypatch.setenv(MAX_ROWS_ENV, "lots")
    assert row_cap(24_000) == 11_000
    monkeypatch.setenv(MAX_ROWS_ENV, "5_000_000")
    assert row_cap(24_000) == 5_000_000

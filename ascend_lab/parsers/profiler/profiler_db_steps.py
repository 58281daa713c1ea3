"""The Ascend profiler's own step breakdown when it is written to a database, and the
databases that say what a folder holds.

- ``analysis.db`` (torch_npu's ``ASCEND_PROFILER_OUTPUT/analysis.db`` in ``db`` export; its
  ``TraceStepTimeDbParser``): table ``StepTraceTime`` (``step``, ``computing``,
  ``communication_not_overlapped``, ``overlapped``, ``communication``, ``free``, ``stage``,
  ``bubble``, ``communication_not_overlapped_and_exclude_receive``, ``preparing``), one row
  per step, microseconds (the writer converts from ns): the database form of
  ``step_trace_time.csv``. msprof-analyze reads the same table with the same columns
  (``cluster_analyse/analysis/step_trace_time_analysis.py``, ``STEP_TRACE_TIME_SQL``).
- ``msprof_<timestamp>.db`` (``msprof --type=db``, or beside the text export): the tables
  of ``ascend_*_profiler*.db`` (``TASK``, ``COMPUTE_TASK_INFO``, ``STRING_IDS``,
  ``COMMUNICATION_OP``); it is read by
  :func:`ascend_lab.parsers.profiler.profiler_db.read_profiler_db`.

How a database is opened (read-only, caps) is :mod:`ascend_lab.parsers.profiler.profiler_db`'s; this
module only says what is read.
"""

from typing import List, Optional, Sequence

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.model.profile import MeasuredStep
from ascend_lab.parsers.limits import row_cap
from ascend_lab.parsers.profiler import profiler_db

STEP_TRACE_TABLE = "StepTraceTime"
STEP_TRACE_COLUMNS = (
    "step",
    "computing",
    "communication_not_overlapped",
    "overlapped",
    "communication",
    "free",
    "stage",
    "bubble",
    "preparing",
)
MAX_STEPS = 100_000  # rows of one step table (a run of a few thousand steps is long)


def _number(value: object) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if number == number and abs(number) < 1e18 else None  # no NaN / inf


def _step_id(value: object) -> Optional[int]:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and len(text) < 10 else None


def _measured(row: Sequence[object]) -> Optional[MeasuredStep]:
    values = dict(zip(STEP_TRACE_COLUMNS, row))
    computing = _number(values.get("computing"))
    free = _number(values.get("free"))
    not_overlapped = _number(values.get("communication_not_overlapped"))
    if computing is None or free is None or not_overlapped is None:
        return None
    return MeasuredStep(
        step=_step_id(values.get("step")),
        rank=None,
        computing_us=computing,
        communication_not_overlapped_us=not_overlapped,
        free_us=free,
        overlapped_us=_number(values.get("overlapped")),
        communication_us=_number(values.get("communication")),
        stage_us=_number(values.get("stage")),
        bubble_us=_number(values.get("bubble")),
        preparing_us=_number(values.get("preparing")),
    )


def _query(conn: object, sql: str, path: str, cap: int) -> List[Sequence[object]]:
    """Rows of ``sql``, read the way :mod:`~ascend_lab.parsers.profiler.profiler_db` reads (its
    caps and errors)."""
    return list(profiler_db._rows(conn, sql, path, cap))  # type: ignore[arg-type]


def read_step_trace_table(path: str) -> List[MeasuredStep]:
    """The ``StepTraceTime`` rows of the database at ``path`` (empty: no such table).
    A row without numbers is skipped; a table with the columns missing, or computed when
    read (generated columns), is an error."""
    conn, size = profiler_db._connect(path)
    try:
        if STEP_TRACE_TABLE not in profiler_db._tables(conn, path):
            return []
        info = _query(conn, f"PRAGMA table_xinfo({STEP_TRACE_TABLE})", path, 1000)
        if any(len(col) > 6 and col[6] in (2, 3) for col in info):
            raise ProfileParseError(
                f"table {STEP_TRACE_TABLE} has computed columns: not a profiler's", path
            )
        columns = [str(col[1]) for col in info]
        needed = ("step", "computing", "communication_not_overlapped", "free")
        missing = [c for c in needed if c not in columns]
        if missing:
            raise ProfileParseError(
                f"table {STEP_TRACE_TABLE} has no column(s) {', '.join(missing)}", path
            )
        wanted = ", ".join(c if c in columns else "NULL" for c in STEP_TRACE_COLUMNS)
        cap = row_cap(size, 16, MAX_STEPS)
        rows = _query(conn, f"SELECT {wanted} FROM {STEP_TRACE_TABLE}", path, cap)
    finally:
        conn.close()
    return [m for m in (_measured(r) for r in rows) if m is not None]

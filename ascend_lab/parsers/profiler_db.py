"""Reader of the Ascend profiler's SQLite database (``ascend_mindspore_profiler_<rank>.db``,
``ascend_pytorch_profiler_<rank>.db``; CANN >= 8.1), for when the text files are missing.

Opened read-only (``file:...?mode=ro``) with the standard library. Tables and columns are
the ones msprof-analyze queries (``msprof_analyze/prof_common/constant.py``,
``compare_tools/.../npu_profiling_db_parser.py``):

- ``TASK`` (``globalTaskId``, ``startNs``, ``endNs``, ``streamId``) joined with
  ``COMPUTE_TASK_INFO`` (``globalTaskId``, ``name``, ``opType``, ``taskType``): the kernels;
- ``COMMUNICATION_OP`` (``opName``, ``opType``, ``startNs``, ``endNs``): the collectives;
- ``STRING_IDS`` (``id``, ``value``): every name above is an id into it;
- ``STEP_TIME`` (``id``, ``startNs``, ``endNs``): the measured step windows.

Times are nanoseconds there; the rows returned are in microseconds, like the CSV files.
"""

import os
import sqlite3
from typing import List, Optional, Sequence, Tuple
from urllib.parse import quote

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.model.profile import KernelLaunch
from ascend_lab.parsers.profiler_files import MAX_BYTES_ENV, max_bytes

MAX_ROWS = 5_000_000

KERNELS_SQL = """
SELECT NAMES.value, TYPES.value, CORES.value, TASK.startNs, TASK.endNs, TASK.streamId
FROM COMPUTE_TASK_INFO AS CTI
JOIN TASK ON TASK.globalTaskId = CTI.globalTaskId
LEFT JOIN STRING_IDS AS NAMES ON NAMES.id = CTI.name
LEFT JOIN STRING_IDS AS TYPES ON TYPES.id = CTI.opType
LEFT JOIN STRING_IDS AS CORES ON CORES.id = CTI.taskType
ORDER BY TASK.startNs
"""

COMMUNICATION_SQL = """
SELECT NAMES.value, TYPES.value, COMM.startNs, COMM.endNs
FROM COMMUNICATION_OP AS COMM
LEFT JOIN STRING_IDS AS NAMES ON NAMES.id = COMM.opName
LEFT JOIN STRING_IDS AS TYPES ON TYPES.id = COMM.opType
ORDER BY COMM.startNs
"""

STEPS_SQL = "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs"

Window = Tuple[float, float]


def _connect(path: str) -> sqlite3.Connection:
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise ProfileParseError(f"cannot read it: {exc.strerror or exc}", path) from None
    cap = max_bytes()
    if size > cap:
        raise ProfileParseError(
            f"the file is over the limit of {cap:,} bytes (set {MAX_BYTES_ENV} to allow more)",
            path,
        )
    uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise ProfileParseError(f"not an SQLite database: {exc}", path) from None


def _rows(conn: sqlite3.Connection, sql: str, path: str) -> List[Sequence]:
    try:
        cursor = conn.execute(sql)
        rows = cursor.fetchmany(MAX_ROWS + 1)
    except sqlite3.Error as exc:
        raise ProfileParseError(f"unreadable profiler database: {exc}", path) from None
    if len(rows) > MAX_ROWS:
        raise ProfileParseError(f"over {MAX_ROWS:,} rows in one table", path)
    return rows


def _tables(conn: sqlite3.Connection, path: str) -> List[str]:
    rows = _rows(conn, "SELECT name FROM sqlite_master WHERE type = 'table'", path)
    return [str(r[0]) for r in rows]


def _us(ns: object) -> Optional[float]:
    return float(ns) / 1000.0 if isinstance(ns, (int, float)) else None


def read_profiler_db(path: str) -> Tuple[List[KernelLaunch], List[Window]]:
    """``(launches, step windows)`` from the database at ``path`` (windows may be empty)."""
    conn = _connect(path)
    try:
        tables = set(_tables(conn, path))
        missing = [t for t in ("TASK", "COMPUTE_TASK_INFO", "STRING_IDS") if t not in tables]
        if missing:
            raise ProfileParseError(
                f"no table(s) {', '.join(missing)}: not an Ascend profiler database", path
            )
        launches: List[KernelLaunch] = []
        for name, op_type, core, start, end, stream in _rows(conn, KERNELS_SQL, path):
            begin, finish = _us(start), _us(end)
            if begin is None or finish is None:
                continue
            text = str(name or "")
            launches.append(
                KernelLaunch(
                    name=text,
                    op_type=str(op_type or text.rsplit("/", 1)[-1]),
                    start_us=begin,
                    duration_us=max(0.0, finish - begin),
                    lane=f"stream {stream if stream is not None else '?'}",
                    core=str(core) if core else None,
                )
            )
        if "COMMUNICATION_OP" in tables:
            for name, op_type, start, end in _rows(conn, COMMUNICATION_SQL, path):
                begin, finish = _us(start), _us(end)
                if begin is None or finish is None:
                    continue
                launches.append(
                    KernelLaunch(
                        name=str(name or op_type or "communication"),
                        op_type=str(op_type or "hcom"),
                        start_us=begin,
                        duration_us=max(0.0, finish - begin),
                        lane="communication",
                        core="COMMUNICATION",
                    )
                )
        windows: List[Window] = []
        if "STEP_TIME" in tables:
            for _step, start, end in _rows(conn, STEPS_SQL, path):
                begin, finish = _us(start), _us(end)
                if begin is not None and finish is not None and finish >= begin:
                    windows.append((begin, finish))
    finally:
        conn.close()
    launches.sort(key=lambda k: (k.start_us, k.name))
    return launches, windows

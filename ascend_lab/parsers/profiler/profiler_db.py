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

Budget (issue #37: a 32 KB database whose ``STRING_IDS.value`` was a generated column of
2 MB strings took 2.4 GB and 80 s): the file passes the one gate
(:func:`~ascend_lab.parsers.regular_file.gate`: a regular file inside the allowed root,
within the byte cap) and is opened ``mode=ro&immutable=1`` (no journal, no lock, no
write); a table read with a generated (computed) column is refused; where Python offers
``setlimit`` (3.11+) no value may be longer than :data:`MAX_VALUE_BYTES`; a progress handler
ends any query past :data:`QUERY_SECONDS` (or the confined request's deadline); and a query
returns at most :func:`~ascend_lab.parsers.limits.row_cap` rows of the file's bytes.
"""

import os
import sqlite3
import time
from typing import Iterator, List, Optional, Sequence, Tuple
from urllib.parse import quote

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.model.profile import KernelLaunch
from ascend_lab.parsers.limits import ROWS_HINT, bounded_float, row_cap
from ascend_lab.parsers.profiler.profiler_files import MAX_BYTES_ENV, max_bytes
from ascend_lab.parsers.regular_file import FileRefused, check_deadline, gate, open_fd

MAX_ROWS = 5_000_000
MAX_VALUE_BYTES = 1 << 20  # a kernel's name is at most a few KB
MAX_NAME = 4096  # characters of a name kept
QUERY_SECONDS = 60.0
_PROGRESS_STEPS = 10_000  # SQLite VM steps between two looks at the clock
_READ_TABLES = ("TASK", "COMPUTE_TASK_INFO", "STRING_IDS", "COMMUNICATION_OP", "STEP_TIME")

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


def _connect(path: str) -> Tuple[sqlite3.Connection, int]:
    """The database read-only and immutable, with its limits set (module doc), and its
    size in bytes."""
    cap = max_bytes()
    try:
        real = gate(path)
        fd = open_fd(real)  # a regular file (a FIFO or device is refused), inside the root
        try:
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
    except FileRefused as exc:
        raise ProfileParseError(f"cannot read it: {exc.strerror}", path) from None
    except OSError as exc:
        raise ProfileParseError(f"cannot read it: {exc.strerror or exc}", path) from None
    if size > cap:
        raise ProfileParseError(
            f"the file is over the limit of {cap:,} bytes (set {MAX_BYTES_ENV} to allow more)",
            path,
        )
    uri = "file:" + quote(real) + "?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise ProfileParseError(f"not an SQLite database: {exc}", path) from None
    setlimit = getattr(conn, "setlimit", None)  # Python 3.11+
    if setlimit is not None:
        setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)  # type: ignore[attr-defined]
        setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 1 << 16)  # type: ignore[attr-defined]
    deadline = time.monotonic() + QUERY_SECONDS

    def overran() -> int:  # non-zero ends the query with "interrupted"
        if time.monotonic() > deadline:
            return 1
        try:
            check_deadline(path)
        except FileRefused:
            return 1
        return 0

    conn.set_progress_handler(overran, _PROGRESS_STEPS)
    return conn, size


def _rows(conn: sqlite3.Connection, sql: str, path: str, cap: int) -> Iterator[Sequence]:
    try:
        cursor = conn.execute(sql)
        count = 0
        for row in cursor:
            count += 1
            if count > cap:
                raise ProfileParseError(
                    f"over {cap:,} rows in one table: more than a database of this size "
                    f"holds; not read further ({ROWS_HINT})",
                    path,
                )
            yield row
    except sqlite3.Error as exc:
        raise ProfileParseError(f"unreadable profiler database: {exc}", path) from None


def _refuse_computed(conn: sqlite3.Connection, tables: Sequence[str], path: str) -> None:
    """A table read here whose columns are computed when read (generated columns) is not
    a profiler's: refused before any row is read."""
    for table in tables:
        if table not in _READ_TABLES:
            continue
        info = list(_rows(conn, f"PRAGMA table_xinfo({table})", path, 10_000))
        if any(len(col) > 6 and col[6] in (2, 3) for col in info):
            raise ProfileParseError(
                f"table {table} has computed columns: not an Ascend profiler database", path
            )


def _tables(conn: sqlite3.Connection, path: str) -> List[str]:
    rows = _rows(conn, "SELECT name FROM sqlite_master WHERE type = 'table'", path, 100_000)
    return [str(r[0]) for r in rows]


def _us(ns: object) -> Optional[float]:
    value = bounded_float(ns) if isinstance(ns, (int, float)) else None
    return value / 1000.0 if value is not None else None


def _name(value: object) -> str:
    return str(value or "")[:MAX_NAME]


def read_profiler_db(path: str) -> Tuple[List[KernelLaunch], List[Window]]:
    """``(launches, step windows)`` from the database at ``path`` (windows may be empty)."""
    conn, size = _connect(path)
    cap = row_cap(size, 16, MAX_ROWS)
    try:
        tables = set(_tables(conn, path))
        missing = [t for t in ("TASK", "COMPUTE_TASK_INFO", "STRING_IDS") if t not in tables]
        if missing:
            raise ProfileParseError(
                f"no table(s) {', '.join(missing)}: not an Ascend profiler database", path
            )
        _refuse_computed(conn, sorted(tables), path)
        launches: List[KernelLaunch] = []
        for name, op_type, core, start, end, stream in _rows(conn, KERNELS_SQL, path, cap):
            begin, finish = _us(start), _us(end)
            if begin is None or finish is None:
                continue
            text = _name(name)
            launches.append(
                KernelLaunch(
                    name=text,
                    op_type=_name(op_type) or text.rsplit("/", 1)[-1],
                    start_us=begin,
                    duration_us=max(0.0, finish - begin),
                    lane=f"stream {stream if stream is not None else '?'}",
                    core=_name(core) if core else None,
                )
            )
        if "COMMUNICATION_OP" in tables:
            for name, op_type, start, end in _rows(conn, COMMUNICATION_SQL, path, cap):
                begin, finish = _us(start), _us(end)
                if begin is None or finish is None:
                    continue
                launches.append(
                    KernelLaunch(
                        name=_name(name or op_type or "communication"),
                        op_type=_name(op_type or "hcom"),
                        start_us=begin,
                        duration_us=max(0.0, finish - begin),
                        lane="communication",
                        core="COMMUNICATION",
                    )
                )
        windows: List[Window] = []
        if "STEP_TIME" in tables:
            for _step, start, end in _rows(conn, STEPS_SQL, path, cap):
                begin, finish = _us(start), _us(end)
                if begin is not None and finish is not None and finish >= begin:
                    windows.append((begin, finish))
    finally:
        conn.close()
    launches.sort(key=lambda k: (k.start_us, k.name))
    return launches, windows

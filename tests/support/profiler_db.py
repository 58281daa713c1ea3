"""Profiler databases built for the tests: the three tables of an Ascend profiler's
SQLite file that :func:`ascend_lab.parsers.profiler.profiler_db.read_profiler_db` reads."""

import os
import sqlite3


def write_profiler_db(tmp: str, rows: int, computed: bool = False, length: int = 10) -> str:
    """A profiler database in ``tmp`` (the tables ``read_profiler_db`` reads) with ``rows``
    kernel tasks; its string column is computed when read (``printf`` of ``length``
    characters) when ``computed``, else plain. Written once per shape."""
    path = os.path.join(tmp, f"ascend_mindspore_profiler_{rows}_{int(computed)}_{length}.db")
    if os.path.exists(path):
        return path
    value = (
        f"value TEXT GENERATED ALWAYS AS (printf('%.*c', {length}, 'x')) VIRTUAL"
        if computed
        else "value TEXT"
    )
    conn = sqlite3.connect(path)
    conn.executescript(
        f"CREATE TABLE STRING_IDS(id INTEGER, {value}, k INTEGER);"
        "CREATE TABLE TASK(globalTaskId INTEGER, startNs INTEGER, endNs INTEGER, streamId INTEGER);"
        "CREATE TABLE COMPUTE_TASK_INFO(globalTaskId INTEGER, name INTEGER, opType INTEGER,"
        " taskType INTEGER);"
    )
    if computed:
        conn.executemany("INSERT INTO STRING_IDS(id, k) VALUES (?, 0)", [(i,) for i in range(3)])
    else:
        conn.executemany("INSERT INTO STRING_IDS VALUES (?, 'k', 0)", [(i,) for i in range(3)])
    conn.executemany("INSERT INTO TASK VALUES (?, ?, ?, 0)", [(i, i, i + 5) for i in range(rows)])
    conn.executemany(
        "INSERT INTO COMPUTE_TASK_INFO VALUES (?, ?, ?, 2)", [(i, i % 3, 1) for i in range(rows)]
    )
    conn.commit()
    conn.close()
    return path

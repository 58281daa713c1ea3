"""Reading a big Ascend profiler folder: ``load_profile`` and the page payload's size.

Builds, in a temporary folder, a rank folder with N kernel launches, (a) as
``kernel_details.csv`` (the rows of the real fixture
tests/fixtures/real/profiler/msprof-analyze/advisor_backend_compute_advice/kernel_details.csv
repeated with shifted start times and step ids) and (b) as the SQLite database alone
(``ascend_mindspore_profiler_0.db``, the TASK / COMPUTE_TASK_INFO / STRING_IDS / STEP_TIME
tables msprof-analyze reads). Prints seconds to ``load_profile`` each, peak RSS growth, and
the JSON size of the payload. Numbers only, nothing asserted (the machine is shared).

Usage: .venv/bin/python benchmarks/bench_profiler_folder.py [--launches 200000]
"""

import argparse
import csv
import io
import json
import os
import resource
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REAL = os.path.join(
    os.path.dirname(HERE),
    "tests",
    "fixtures",
    "real",
    "profiler",
    "msprof-analyze",
    "advisor_backend_compute_advice",
    "kernel_details.csv",
)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def write_csv(folder: str, launches: int) -> int:
    with open(REAL, encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    start_col = header.index("Start Time(us)")
    step_col = header.index("Step Id")
    starts = [float(r[start_col].strip()) for r in body]
    span = max(starts) - min(starts) + 1000.0
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for i in range(launches):
        rep, j = divmod(i, len(body))
        row = list(body[j])
        row[start_col] = f"{starts[j] + rep * span:.3f}\t"
        row[step_col] = str(rep + 1)
        writer.writerow(row)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "kernel_details.csv")
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(out.getvalue())
    return os.path.getsize(path)


def write_db(folder: str, launches: int) -> int:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "ascend_mindspore_profiler_0.db")
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, globalTaskId INTEGER PRIMARY KEY,"
        " streamId INTEGER);"
        "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY,"
        " taskType INTEGER, opType INTEGER);"
        "CREATE TABLE STEP_TIME (id INTEGER PRIMARY KEY, startNs INTEGER, endNs INTEGER);"
    )
    conn.executemany(
        "INSERT INTO STRING_IDS VALUES (?, ?)",
        [(i, f"Kernel{i}") for i in range(500)] + [(1000, "AI_CORE"), (1001, "MatMul")],
    )
    per_step = 1000
    conn.executemany(
        "INSERT INTO TASK VALUES (?, ?, ?, ?)",
        ((i * 5000, i * 5000 + 3000, i, i % 4) for i in range(launches)),
    )
    conn.executemany(
        "INSERT INTO COMPUTE_TASK_INFO VALUES (?, ?, ?, ?)",
        ((i % 500, i, 1000, 1001) for i in range(launches)),
    )
    steps = -(-launches // per_step)
    conn.executemany(
        "INSERT INTO STEP_TIME VALUES (?, ?, ?)",
        ((s, s * per_step * 5000, (s + 1) * per_step * 5000 - 1) for s in range(steps)),
    )
    conn.commit()
    conn.close()
    return os.path.getsize(path)


def measure(label: str, root: str, size: int) -> None:
    from ascend_lab.profiling.api import load_profile

    before = _rss_mb()
    t0 = time.perf_counter()
    profile = load_profile(root)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    payload = json.dumps(profile.to_payload())
    payload_seconds = time.perf_counter() - t1
    print(
        f"{label:>16}: {size / 1e6:7.1f} MB in, {len(profile.launches):>8,} launches, "
        f"{len(profile.kernels):>5} kernels, {len(profile.steps):>4} steps: "
        f"load {seconds:6.2f} s, payload {payload_seconds:5.2f} s "
        f"({len(payload) / 1e6:5.1f} MB JSON), peak RSS +{_rss_mb() - before:6.0f} MB"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        csv_root = os.path.join(tmp, "csv")
        out = os.path.join(csv_root, "h_1_20250109_ascend_ms", "ASCEND_PROFILER_OUTPUT")
        size = write_csv(out, args.launches)
        measure("kernel_details", csv_root, size)
        db_root = os.path.join(tmp, "db")
        out = os.path.join(db_root, "h_1_20250109_ascend_ms", "ASCEND_PROFILER_OUTPUT")
        size = write_db(out, args.launches)
        measure("sqlite db", db_root, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())

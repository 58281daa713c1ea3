"""Parsers of the per-op files MindSpore 2.7-2.10 write when profiling on CPU.

``FRAMEWORK/cpu_op_execute_timestamp_<rank>.txt``, one line per kernel::

    Default/conv-Conv2d/Conv2D-op0;HostCpuOps;<start ns>,<duration ms>,<thread> <start ns>,...

``FRAMEWORK/cpu_op_detail_info_<rank>.csv``: ``op_side,op_type,op_name,full_op_name,
op_occurrences,op_total_time(ms),...``. Both checked on 2.7.0 and 2.10.0 (same format).
Pure: text in, rows out; each line is split, never matched by a backtracking regex.
"""

from typing import Dict, List, Optional

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.model.profile import KernelLaunch
from ascend_lab.parsers.limits import ROWS_HINT, bounded_float, row_cap
from ascend_lab.parsers.profiler.csv_rows import read_csv_rows
from ascend_lab.parsers.regular_file import check_deadline

# A line longer than this is not one MindSpore writes (one entry is ~40 characters; this
# allows ~100,000 launches of one kernel).
MAX_LINE = 4 << 20


def op_type_of(name: str) -> str:
    """``Default/conv-Conv2d/Conv2D-op0`` -> ``Conv2D`` (the last segment without ``-opN``)."""
    last = name.rsplit("/", 1)[-1]
    head, sep, tail = last.rpartition("-op")
    if sep and tail.isdigit() and head:
        return head
    return last


def parse_execute_timestamps(
    text: str, op_types: Optional[Dict[str, str]] = None, path: Optional[str] = None
) -> List[KernelLaunch]:
    """Every launch in a ``cpu_op_execute_timestamp_*.txt`` text, sorted by start time.

    ``op_types`` (full name -> op type, from :func:`parse_op_detail`) names the type; without
    it the type is read from the name.
    """
    launches: List[KernelLaunch] = []
    cap = row_cap(len(text), 16)  # a launch record is "<19 digits>,<ms>,<thread>"
    for number, line in enumerate(text.splitlines(), 1):
        if not number & 1023:
            check_deadline(path or "")
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise ProfileParseError(f"line of {len(line):,} characters", path, number)
        name, sep1, rest = line.partition(";")
        _kind, sep2, records = rest.partition(";")
        if not (sep1 and sep2) or not name:
            raise ProfileParseError(
                "expected '<name>;<kind>;<start ns>,<duration ms>,<thread> ...'", path, number
            )
        op_type = (op_types or {}).get(name) or op_type_of(name)
        for record in records.split():
            parts = record.split(",")
            if len(parts) < 2:
                raise ProfileParseError(f"bad launch record {record[:60]!r}", path, number)
            start_ns = bounded_float(parts[0]) if parts[0].lstrip("-").isdigit() else None
            duration_ms = bounded_float(parts[1])
            if start_ns is None or duration_ms is None:
                raise ProfileParseError(f"bad launch record {record[:60]!r}", path, number)
            if len(launches) >= cap:
                raise ProfileParseError(
                    f"over {cap:,} launches: more than a profiler writes in a file of this "
                    f"size; not read further ({ROWS_HINT})",
                    path,
                    number,
                )
            thread = parts[2] if len(parts) > 2 and parts[2] else "0"
            launches.append(
                KernelLaunch(
                    name=name,
                    op_type=op_type,
                    start_us=start_ns / 1000.0,
                    duration_us=duration_ms * 1000.0,
                    lane=f"thread {thread}",
                )
            )
    launches.sort(key=lambda k: (k.start_us, k.name))
    return launches


def parse_op_detail(text: str, path: Optional[str] = None) -> Dict[str, str]:
    """Full op name -> op type, from a ``cpu_op_detail_info_*.csv`` text."""
    rows = read_csv_rows(text, ("op_type", "full_op_name"), path)
    return {row["full_op_name"]: row["op_type"] for row in rows if row["full_op_name"]}

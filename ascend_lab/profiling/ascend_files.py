"""Parsers of the Ascend profiler's summary files, as MindSpore 2.3/2.4 with CANN 8.0 write
them to ``ASCEND_PROFILER_OUTPUT/``. Pure: text in, rows out. Columns are found by name
(extra or reordered columns are fine; see tests/fixtures/profile/README.md for the sources).

``kernel_details.csv``: one row per kernel launch on the NPU: ``Step Id`` (only with a
step schedule), ``Model ID``, ``Task ID``, ``Stream ID``, ``Name``, ``Type``,
``Accelerator Core``, ``Start Time(us)``, ``Duration(us)``, ``Wait Time(us)``,
``Block Dim``, ``Mix Block Dim``, input/output shapes, types and formats, then optional
AI Core metrics.

``op_statistic.csv``: one row per op type and core: ``OP Type``, ``Core Type``, ``Count``,
``Total Time(us)``, ``Min Time(us)``, ``Avg Time(us)``, ``Max Time(us)``, ``Ratio(%)``.
"""

from typing import List, Optional

from .csv_rows import number, read_csv_rows
from .errors import ProfileParseError
from .model import KernelLaunch, OpTypeStats

KERNEL_REQUIRED = ("Name", "Type", "Start Time(us)", "Duration(us)")
STATISTIC_REQUIRED = ("OP Type", "Count", "Total Time(us)")


def _int(value: Optional[float]) -> Optional[int]:
    return int(value) if value is not None else None


def parse_kernel_details(text: str, path: Optional[str] = None) -> List[KernelLaunch]:
    """Every launch of a ``kernel_details.csv`` text, sorted by start time."""
    launches: List[KernelLaunch] = []
    for row in read_csv_rows(text, KERNEL_REQUIRED, path):
        start = number(row, "Start Time(us)", path)
        duration = number(row, "Duration(us)", path)
        if start is None or duration is None:
            raise ProfileParseError(f"kernel {row['Name'][:80]!r} has no start or duration", path)
        stream = row.get("Stream ID") or "?"
        launches.append(
            KernelLaunch(
                name=row["Name"],
                op_type=row["Type"] or row["Name"].rsplit("/", 1)[-1],
                start_us=start,
                duration_us=duration,
                lane=f"stream {stream}",
                step=_int(number(row, "Step Id", path)) if "Step Id" in row else None,
                core=row.get("Accelerator Core") or None,
                wait_us=number(row, "Wait Time(us)", path),
                block_dim=_int(number(row, "Block Dim", path)),
            )
        )
    launches.sort(key=lambda k: (k.start_us, k.name))
    return launches


def parse_op_statistic(text: str, path: Optional[str] = None) -> List[OpTypeStats]:
    """Per op type (and core) rows of an ``op_statistic.csv`` text, as the profiler wrote them."""
    out: List[OpTypeStats] = []
    for row in read_csv_rows(text, STATISTIC_REQUIRED, path):
        count = number(row, "Count", path) or 0.0
        total = number(row, "Total Time(us)", path) or 0.0
        mean = number(row, "Avg Time(us)", path)
        ratio = number(row, "Ratio(%)", path)
        out.append(
            OpTypeStats(
                op_type=row["OP Type"],
                core=row.get("Core Type") or None,
                calls=int(count),
                total_us=total,
                mean_us=mean if mean is not None else (total / count if count else 0.0),
                min_us=number(row, "Min Time(us)", path) or 0.0,
                max_us=number(row, "Max Time(us)", path) or 0.0,
                share=ratio / 100.0 if ratio is not None else None,
            )
        )
    return out

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

from typing import List, Optional, Tuple

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.model.profile import KernelLaunch, MeasuredStep, MemorySample, OpTypeStats
from ascend_lab.parsers.profiler.csv_rows import number, read_csv_rows

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


# -- step_trace_time.csv ------------------------------------------------------------------
# The header msprof's analysis writes (torch_npu's TraceStepTimeParser.title, and MindSpore's
# from 2.3 on): Device_id, Step, Computing, Communication(Not Overlapped), Overlapped,
# Communication, Free, Stage, Bubble, Communication(Not Overlapped and Exclude Receive),
# Preparing. Older files have no Device_id; msprof-analyze's cluster_step_trace_time.csv has
# Type (rank | stage) and Index (the rank) instead. ``Step`` is empty without a step schedule.
STEP_TRACE_REQUIRED = ("Computing", "Communication(Not Overlapped)", "Free")


def parse_step_trace_time(text: str, path: Optional[str] = None) -> List[MeasuredStep]:
    """The measured steps of a ``step_trace_time.csv`` (or ``cluster_step_trace_time.csv``:
    its rank rows) text, in file order. Times are microseconds, as the file gives them."""
    out: List[MeasuredStep] = []
    for row in read_csv_rows(text, STEP_TRACE_REQUIRED, path):
        kind = row.get("Type", "rank").lower()
        if kind != "rank":  # the cluster file's per-stage maximum over its ranks
            continue
        rank = _int(number(row, "Index" if "Type" in row else "Device_id", path))
        out.append(
            MeasuredStep(
                step=_int(number(row, "Step", path)),
                rank=rank,
                computing_us=number(row, "Computing", path) or 0.0,
                communication_not_overlapped_us=number(row, "Communication(Not Overlapped)", path)
                or 0.0,
                overlapped_us=number(row, "Overlapped", path),
                communication_us=number(row, "Communication", path),
                free_us=number(row, "Free", path) or 0.0,
                stage_us=number(row, "Stage", path),
                bubble_us=number(row, "Bubble", path),
                preparing_us=number(row, "Preparing", path),
            )
        )
    return out


# -- memory_record.csv and operator_memory.csv --------------------------------------------
# memory_record.csv (torch_npu and MindSpore with profile_memory=True): Component,
# Timestamp(us), Total Allocated(MB), Total Reserved(MB), [Total Active(MB)], [Stream Ptr],
# Device Type. operator_memory.csv: Name, Size(KB), Allocation Time(us), Release Time(us),
# Duration(us), [Active ...], Allocation Total Allocated(MB), ...: one row per allocation.
MEMORY_RECORD_REQUIRED = ("Timestamp(us)", "Total Allocated(MB)")
OPERATOR_MEMORY_REQUIRED = ("Name", "Size(KB)", "Allocation Time(us)")


def parse_memory_record(text: str, path: Optional[str] = None) -> List[MemorySample]:
    """Samples of allocated / reserved memory over time, per component, sorted by time."""
    out: List[MemorySample] = []
    for row in read_csv_rows(text, MEMORY_RECORD_REQUIRED, path):
        when = number(row, "Timestamp(us)", path)
        allocated = number(row, "Total Allocated(MB)", path)
        if when is None or allocated is None:
            continue
        out.append(
            MemorySample(
                time_us=when,
                allocated_mb=allocated,
                reserved_mb=number(row, "Total Reserved(MB)", path),
                component=row.get("Component") or "",
            )
        )
    out.sort(key=lambda s: (s.component, s.time_us))
    return out


def parse_operator_memory(text: str, path: Optional[str] = None) -> List[MemorySample]:
    """Memory held by operators over time: each row adds its size at its allocation time and
    removes it at its release time (no release: held to the end). Component ``operators``."""
    events: List[Tuple[float, float]] = []
    for row in read_csv_rows(text, OPERATOR_MEMORY_REQUIRED, path):
        size_kb = number(row, "Size(KB)", path)
        start = number(row, "Allocation Time(us)", path)
        if size_kb is None or start is None:
            continue
        events.append((start, size_kb / 1024.0))
        end = number(row, "Release Time(us)", path)
        if end is not None:
            events.append((end, -size_kb / 1024.0))
    events.sort()
    out: List[MemorySample] = []
    held = 0.0
    for when, delta in events:
        held += delta
        if out and out[-1].time_us == when:
            out[-1].allocated_mb = held
        else:
            out.append(MemorySample(time_us=when, allocated_mb=held, component="operators"))
    return out

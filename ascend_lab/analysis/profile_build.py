"""Kernel launches (+ measured step windows) -> a :class:`Profile`: per kernel, per op type,
per step. Pure: no MindSpore, no files.
"""

import bisect
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ascend_lab.i18n import N_, msg
from ascend_lab.model.profile import KernelLaunch, KernelStats, OpTypeStats, Profile, StepTime

Window = Tuple[float, float]  # (start, end) in microseconds, the profiler's clock


def is_communication(launch: KernelLaunch) -> bool:
    """HCCL collectives (``hcom_allReduce_...``, core ``HCCL``/``COMMUNICATION``)."""
    core = (launch.core or "").upper()
    if core in ("HCCL", "COMMUNICATION"):
        return True
    op = launch.op_type.lower()
    return op.startswith(("hcom", "hccl")) or "/hcom_" in launch.name.lower()


def union_us(intervals: Iterable[Tuple[float, float]]) -> float:
    """Length of the union of ``(start, end)`` intervals."""
    total = 0.0
    cur_start: Optional[float] = None
    cur_end = 0.0
    for start, end in sorted(intervals):
        if cur_start is None or start > cur_end:
            if cur_start is not None:
                total += cur_end - cur_start
            cur_start, cur_end = start, end
        elif end > cur_end:
            cur_end = end
    if cur_start is not None:
        total += cur_end - cur_start
    return total


def assign_steps(
    launches: Sequence[KernelLaunch], windows: Optional[Sequence[Window]]
) -> Tuple[List[Window], int, List[str]]:
    """Give each launch its step; return the windows used, launches left out, and notes.

    With measured ``windows``, a launch belongs to the window its start falls in. Without
    them, the profiler's own step ids are used (Ascend ``Step Id``), each step spanning its
    first to its last kernel; with neither, all launches form one step.
    """
    notes: List[str] = []
    if windows:
        starts = [w[0] for w in windows]
        outside = 0
        for launch in launches:
            i = bisect.bisect_right(starts, launch.start_us) - 1
            if i >= 0 and launch.start_us <= windows[i][1]:
                launch.step = i
            else:
                launch.step = None
                outside += 1
        if outside:
            notes.append(
                msg(
                    "{} launch(es) fell outside the measured steps (warm-up or asynchronous "
                    "work) and are not counted",
                    outside,
                )
            )
        return list(windows), outside, notes
    by_step: Dict[int, List[KernelLaunch]] = {}
    if launches and all(k.step is not None for k in launches):
        for launch in launches:
            by_step.setdefault(int(launch.step), []).append(launch)  # type: ignore[arg-type]
        notes.append(
            N_(
                "no measured step times: each step spans its first to its last kernel "
                "(host time before and after is not included)"
            )
        )
    elif launches:
        by_step[0] = list(launches)
        notes.append(N_("no step boundaries: all launches are counted as one step"))
    derived: List[Window] = []
    for new_index, step_id in enumerate(sorted(by_step)):
        group = by_step[step_id]
        for launch in group:
            launch.step = new_index
        derived.append((min(k.start_us for k in group), max(k.end_us for k in group)))
    return derived, 0, notes


def step_times(launches: Sequence[KernelLaunch], windows: Sequence[Window]) -> List[StepTime]:
    per_step: List[List[KernelLaunch]] = [[] for _ in windows]
    for launch in launches:
        if launch.step is not None and 0 <= launch.step < len(windows):
            per_step[launch.step].append(launch)
    out = []
    for i, ((start, end), group) in enumerate(zip(windows, per_step)):
        wall = end - start
        busy = union_us((k.start_us, k.end_us) for k in group)
        comm = union_us((k.start_us, k.end_us) for k in group if is_communication(k))
        compute = union_us((k.start_us, k.end_us) for k in group if not is_communication(k))
        out.append(
            StepTime(
                index=i,
                start_us=start,
                wall_us=wall,
                kernel_sum_us=sum(k.duration_us for k in group),
                busy_us=busy,
                compute_us=compute,
                communication_us=comm,
                gap_us=max(0.0, wall - busy),
                launches=len(group),
            )
        )
    return out


def kernel_stats(
    launches: Sequence[KernelLaunch], steps: int, mean_step_us: Optional[float]
) -> List[KernelStats]:
    groups: Dict[str, List[KernelLaunch]] = {}
    for launch in launches:
        if launch.step is not None:
            groups.setdefault(launch.name, []).append(launch)
    out = []
    for name, group in groups.items():
        durations = [k.duration_us for k in group]
        total = sum(durations)
        waits = [k.wait_us for k in group if k.wait_us is not None]
        share = total / steps / mean_step_us if steps and mean_step_us else None
        out.append(
            KernelStats(
                name=name,
                op_type=group[0].op_type,
                calls=len(group),
                total_us=total,
                mean_us=total / len(group),
                min_us=min(durations),
                max_us=max(durations),
                share=share,
                core=group[0].core,
                wait_us=sum(waits) if waits else None,
                block_dim=group[0].block_dim,
                first_start_us=min(k.start_us for k in group),
            )
        )
    out.sort(key=lambda k: (-k.total_us, k.name))
    return out


def op_type_stats(
    kernels: Sequence[KernelStats], launches: Sequence[KernelLaunch]
) -> List[OpTypeStats]:
    groups: Dict[Tuple[str, Optional[str]], List[KernelLaunch]] = {}
    for launch in launches:
        if launch.step is not None:
            groups.setdefault((launch.op_type, launch.core), []).append(launch)
    kernel_count: Dict[Tuple[str, Optional[str]], int] = {}
    for k in kernels:
        kernel_count[(k.op_type, k.core)] = kernel_count.get((k.op_type, k.core), 0) + 1
    all_total = sum(k.total_us for k in kernels) or 0.0
    out = []
    for (op_type, core), group in groups.items():
        durations = [k.duration_us for k in group]
        total = sum(durations)
        out.append(
            OpTypeStats(
                op_type=op_type,
                core=core,
                calls=len(group),
                total_us=total,
                mean_us=total / len(group),
                min_us=min(durations),
                max_us=max(durations),
                share=total / all_total if all_total else None,  # of all kernel time
                kernels=kernel_count.get((op_type, core), 0),
            )
        )
    out.sort(key=lambda t: (-t.total_us, t.op_type))
    return out


def build_profile(
    net_name: str,
    source: str,
    launches: List[KernelLaunch],
    windows: Optional[Sequence[Window]] = None,
    notes: Optional[List[str]] = None,
) -> Profile:
    """Aggregate ``launches`` into a :class:`Profile` (not yet joined to a graph)."""
    used, _outside, step_notes = assign_steps(launches, windows)
    steps = step_times(launches, used)
    mean = sum(s.wall_us for s in steps) / len(steps) if steps else None
    kernels = kernel_stats(launches, len(steps), mean)
    profile = Profile(
        net_name=net_name,
        source=source,
        kernels=kernels,
        op_types=op_type_stats(kernels, launches),
        steps=steps,
        launches=[k for k in launches if k.step is not None],
        notes=list(notes or []) + step_notes,
    )
    if not launches:
        profile.notes.append(N_("the profiler recorded no kernel launches"))
    return profile

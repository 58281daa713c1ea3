"""Where a profile's step times come from, and the folders that hold only a database.

Step times come from the profiler's own step table whenever there is one, in this order:

1. step windows measured around each step (``profile_net``'s runner) or the database's
   ``STEP_TIME`` table (``ascend_*_profiler*.db``): each step's start and end;
2. ``step_trace_time.csv``, else the ``StepTraceTime`` table of ``analysis.db``: per step,
   computing + not-overlapped communication + free (the span the profiler's overlap
   analysis tiles), matched to the kernels' ``Step Id``;
3. only then the kernels' own span (first kernel start to last kernel end), labelled as the
   fallback it is: it leaves out the device's free time before the first and after the last
   kernel, so it reads short.

``Profile.step_source`` says which (one of ``STEPS_FROM_*``), in the result and the view.
"""

import os
from typing import List, Optional, Sequence, Tuple

from ascend_lab.errors.profile import ProfileError, ProfileParseError
from ascend_lab.i18n import N_, msg
from ascend_lab.model.profile import KernelLaunch, MeasuredStep, Profile

STEPS_FROM_RUNNER = N_("measured around each step")
STEPS_FROM_STEP_TIME = N_("STEP_TIME table")
STEPS_FROM_CSV = "step_trace_time.csv"  # a file name: the same in every language
STEPS_FROM_DB_TABLE = N_("StepTraceTime table (analysis.db)")
STEPS_FROM_KERNEL_SPAN = N_("kernel span (fallback)")
STEPS_FROM_ONE_SPAN = N_("one span over all kernels (fallback)")

Window = Tuple[float, float]


def prof_folder(path: str) -> str:
    """The ``PROF_*`` folder holding ``path`` (msprof's ``--output``), else its folder."""
    folder = os.path.dirname(os.path.abspath(path))
    probe = folder
    for _ in range(4):
        if os.path.basename(probe).startswith("PROF_"):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return folder


def msprof_export_command(db_path: str) -> str:
    """The command that exports msprof's usual files (timeline JSON, summary CSV) from the
    raw data beside an ``msprof_*.db`` (msprof's own guide: ``--type=text`` is the default
    and exports them; ``--type=db`` writes only the database)."""
    return f"msprof --export=on --output={prof_folder(db_path)} --type=text"


def read_msprof_only(path: str) -> Tuple[List[KernelLaunch], List[Window], List[str]]:
    """``(launches, step windows, notes)`` of a folder whose only profiler file is msprof's
    own database: named as such, with the command that exports the usual files."""
    from ascend_lab.parsers.profiler.profiler_db import read_profiler_db

    command = msprof_export_command(path)
    try:
        launches, windows = read_profiler_db(path)
    except ProfileParseError as exc:
        raise ProfileError(
            msg(
                "{} is msprof's own database (msprof_<timestamp>.db, written by msprof "
                "--type=db) and its kernels could not be read ({}); export the usual files "
                "with: {}",
                path,
                exc.args[0] if exc.args else exc,
                command,
            )
        ) from None
    notes = [
        msg(
            "only msprof's own database here ({}): the kernels are read from it; the usual "
            "files (timeline, summary CSV) are exported with: {}",
            path,
            command,
        )
    ]
    return launches, windows, notes


def kernel_step_ids(launches: Sequence[KernelLaunch]) -> List[int]:
    """The profiler's ``Step Id`` of the kernels, in order (empty when any kernel has none):
    the ids the kernel-span steps are made from, one per step."""
    if not launches or any(k.step is None for k in launches):
        return []
    return sorted({int(k.step) for k in launches if k.step is not None})


def _for_rank(rows: Sequence[MeasuredStep], rank: Optional[int]) -> List[MeasuredStep]:
    ranks = {m.rank for m in rows}
    if len(ranks) <= 1:
        return list(rows)
    return [m for m in rows if m.rank == rank]


def _pairs(profile: Profile, rows: List[MeasuredStep], step_ids: Sequence[int]) -> list:
    if step_ids and len(step_ids) == len(profile.steps) and all(m.step is not None for m in rows):
        by_id = {m.step: m for m in rows}
        pairs = [(s, by_id.get(i)) for s, i in zip(profile.steps, step_ids)]
        return pairs if all(m is not None for _, m in pairs) else []
    if len(rows) == len(profile.steps):
        return list(zip(profile.steps, rows))
    return []


def apply_step_table(profile: Profile, step_ids: Sequence[int], table: str) -> bool:
    """Give each step of ``profile`` (whose times are the kernels' span) the time the
    profiler's step table measured; ``table`` names it. False (and a note) when the table's
    steps cannot be matched to the kernels' steps."""
    rows = _for_rank(profile.measured_steps, profile.rank)
    if not rows or not profile.steps:
        return False
    pairs = _pairs(profile, rows, step_ids)
    if not pairs:
        profile.notes.append(
            msg(
                "{} lists {} step(s) and the kernels {}: they cannot be matched, so step "
                "times are the kernels' span",
                table,
                len(rows),
                len(profile.steps),
            )
        )
        return False
    span = sum(s.wall_us for s, _ in pairs)
    for step, measured in pairs:
        step.wall_us = measured.total_us
        step.gap_us = max(0.0, step.wall_us - step.busy_us)
    table_total = sum(s.wall_us for s, _ in pairs)
    profile.step_source = table
    if table_total > 0:
        profile.notes.append(
            msg(
                "step times from {}: computing + not-overlapped communication + free per "
                "step; the kernels' own span would read {}% of that",
                table,
                f"{100.0 * span / table_total:.1f}",
            )
        )
    return True

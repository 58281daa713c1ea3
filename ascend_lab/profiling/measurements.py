"""What the Ascend profiler measured beyond the kernels: its step breakdown
(``step_trace_time.csv``), memory over time (``memory_record.csv``, else
``operator_memory.csv``), and which rank folder of a multi-rank job a profile is read from.
"""

from typing import List, Optional, Tuple

from ascend_lab.errors.profile import ProfileError
from ascend_lab.i18n import msg
from ascend_lab.model.profile import MeasuredStep, Profile, RankRun
from ascend_lab.parsers.profiler.profiler_ascend_files import (
    parse_memory_record,
    parse_operator_memory,
    parse_step_trace_time,
)
from ascend_lab.parsers.profiler.profiler_files import find_files, read_text
from ascend_lab.profiling.layout import ProfilerFolder, profiler_folders

NO_MEASURED_STEPS = "no measured step times"  # the start of build's note when derived


def _measured_steps(folder: str) -> List[MeasuredStep]:
    path = find_files(folder).get("step_trace_time")
    return parse_step_trace_time(read_text(path), path) if path else []


def choose_rank_folder(
    root: str, rank: Optional[int] = None
) -> Tuple[Optional[ProfilerFolder], List[RankRun], List[str]]:
    """The rank folder to read under ``root`` (None: not the Ascend profiler's layout, read
    ``root`` as it is), every rank found, and notes. A folder whose raw ``PROF_*`` data was
    never analysed is an error naming the command that analyses it."""
    folders = profiler_folders(root)
    if not folders:
        return None, [], []
    ready = [f for f in folders if not f.needs_analysis]
    if rank is not None:
        picked = [f for f in folders if f.rank == rank]
        if not picked:
            known = ", ".join(str(f.rank) for f in folders if f.rank is not None) or "none"
            raise ProfileError(
                msg("no profiler folder of rank {} under {} (ranks: {})", rank, root, known)
            )
        chosen = picked[0]
    elif ready:
        chosen = ready[0]
    else:
        chosen = folders[0]
    if chosen.needs_analysis:
        raise ProfileError(
            msg(
                "{}: the profiler's raw data (PROF_*) is not analysed yet; run: {}",
                chosen.path,
                chosen.analyse_command(),
            )
        )
    notes: List[str] = []
    ranks: List[RankRun] = []
    if len(folders) > 1:
        for f in folders:
            steps = _measured_steps(f.path) if not f.needs_analysis else []
            ranks.append(
                RankRun(
                    rank=f.rank, path=f.path, analysed=not f.needs_analysis, measured_steps=steps
                )
            )
        notes.append(
            msg(
                "{} rank folders here (ranks {}); this profile is rank {} "
                "(load_profile(folder, rank=N) reads another)",
                len(folders),
                ", ".join("?" if f.rank is None else str(f.rank) for f in folders),
                "?" if chosen.rank is None else chosen.rank,
            )
        )
        waiting = [f for f in folders if f.needs_analysis]
        if waiting:
            notes.append(
                msg(
                    "{} rank folder(s) not analysed yet (raw PROF_* data only); run: {}",
                    len(waiting),
                    waiting[0].analyse_command(),
                )
            )
    return chosen, ranks, notes


def _step_table_in_database(profile: Profile) -> List[MeasuredStep]:
    """The ``StepTraceTime`` table of torch_npu's ``analysis.db`` (its db export), if any."""
    path = profile.files.get("analysis_db")
    if not path:
        return []
    from ascend_lab.parsers.profiler.profiler_db_steps import read_step_trace_table

    return read_step_trace_table(path)


def read_ascend_measurements(profile: Profile) -> None:
    """Add the measured steps and memory over time of the files found for ``profile``."""
    steps_path = profile.files.get("step_trace_time")
    if steps_path:
        profile.measured_steps = parse_step_trace_time(read_text(steps_path), steps_path)
        measured_from = "step_trace_time.csv"
    else:
        profile.measured_steps = _step_table_in_database(profile)
        measured_from = "analysis.db (StepTraceTime)"
    if profile.measured_steps:
        # build derived the step spans from the kernels; the profiler's own breakdown is here
        profile.notes = [n for n in profile.notes if not str(n).startswith(NO_MEASURED_STEPS)]
        profile.notes.append(
            msg(
                "measured steps from {}: computing, communication not overlapped, overlapped, "
                "free and bubble per step",
                measured_from,
            )
        )
    record = profile.files.get("memory_record")
    operators = profile.files.get("operator_memory")
    if record:
        profile.memory = parse_memory_record(read_text(record), record)
    elif operators:
        profile.memory = parse_operator_memory(read_text(operators), operators)

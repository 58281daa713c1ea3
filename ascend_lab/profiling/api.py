"""``ascend_lab.profile(net, x)`` and :func:`load_profile` (read a profiler folder).

The profiler writes to a private temporary folder that is removed before ``profile()``
returns, unless ``keep=True`` (then ``Profile.profiler_dir`` names it).
"""

import os
import shutil
import tempfile
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ascend_lab.analysis.profile_build import build_profile
from ascend_lab.analysis.profile_join import join_to_graph
from ascend_lab.errors.profile import ProfileError
from ascend_lab.i18n import N_, msg
from ascend_lab.model.profile import KernelLaunch, Profile
from ascend_lab.parsers.profiler.profiler_ascend_files import (
    parse_kernel_details,
    parse_op_statistic,
)
from ascend_lab.parsers.profiler.profiler_cpu_files import parse_execute_timestamps, parse_op_detail
from ascend_lab.parsers.profiler.profiler_files import find_files, read_text
from ascend_lab.parsers.profiler.trace_view import overlap_spans, parse_trace_view
from ascend_lab.profiling.measurements import choose_rank_folder, read_ascend_measurements
from ascend_lab.profiling.step_table import (
    STEPS_FROM_CSV,
    STEPS_FROM_DB_TABLE,
    STEPS_FROM_KERNEL_SPAN,
    STEPS_FROM_ONE_SPAN,
    STEPS_FROM_RUNNER,
    STEPS_FROM_STEP_TIME,
    apply_step_table,
    kernel_step_ids,
    read_msprof_only,
)

__all__ = ["load_profile", "profile_net"]


def _read_launches(
    folder: str,
) -> Tuple[str, List[KernelLaunch], dict, List[str], Optional[List[Tuple[float, float]]]]:
    """``(source, launches, files, notes, db windows)`` from the profiler's files under
    ``folder``; the windows are the database's ``STEP_TIME`` (None: not read from one)."""
    files = find_files(folder)
    notes: List[str] = []
    windows: Optional[List[Tuple[float, float]]] = None
    if files.truncated:
        notes.append(msg("{} holds very many files; only the first ones were searched", folder))
    if files.is_ascend:
        path = files.paths["kernel_details"]
        launches = parse_kernel_details(read_text(path), path)
        source = "ascend"
    elif files.is_ascend_db:
        from ascend_lab.parsers.profiler.profiler_db import read_profiler_db

        path = files.paths["profiler_db"]
        launches, windows = read_profiler_db(path)
        notes.append(msg("read from the profiler database {} (no kernel_details.csv)", path))
        source = "ascend"
    elif files.is_msprof_db:
        path = files.paths["msprof_db"]
        launches, windows, db_notes = read_msprof_only(path)
        notes.extend(db_notes)
        source = "ascend"
    elif files.is_cpu:
        op_types = {}
        detail = files.get("cpu_op_detail")
        if detail:
            op_types = parse_op_detail(read_text(detail), detail)
        path = files.paths["cpu_timestamps"]
        launches = parse_execute_timestamps(read_text(path), op_types, path)
        source = "cpu"
    else:
        raise ProfileError(
            f"no per-kernel profiler file under {folder} (looked for kernel_details.csv, "
            "ascend_*_profiler*.db, msprof_*.db and cpu_op_execute_timestamp_*.txt)"
        )
    return source, launches, dict(files.paths), notes, windows


def _ascend_extras(profile: Profile) -> None:
    """Cross-check with op_statistic.csv; take the communication split from trace_view.json."""
    stat = profile.files.get("op_statistic")
    if stat:
        rows = parse_op_statistic(read_text(stat), stat)
        listed = sum(r.calls for r in rows)
        counted = len(profile.launches)
        if listed != counted:
            profile.notes.append(
                msg(
                    "op_statistic.csv counts {} launches, kernel_details.csv {} in the measured "
                    "steps (op_statistic covers the whole profiled span)",
                    listed,
                    counted,
                )
            )
    view = profile.files.get("trace_view")
    if view:
        overlap = overlap_spans(parse_trace_view(read_text(view), view))
        if overlap:
            free = sum(s.duration_us for s in overlap.get("Free", []))
            comm = sum(s.duration_us for s in overlap.get("Communication(Not Overlapped)", []))
            profile.notes.append(
                msg(
                    "trace_view.json overlap analysis: not-overlapped communication {} us, free "
                    "(device idle) {} us over the profiled span",
                    f"{comm:.1f}",
                    f"{free:.1f}",
                )
            )


def load_profile(
    folder: str,
    net_name: str = "net",
    windows: Optional[Sequence[Tuple[float, float]]] = None,
    trace: Any = None,
    rank: Optional[int] = None,
) -> Profile:
    """Read a profiler folder (MindSpore CPU or Ascend, or torch_npu) into a :class:`Profile`.

    ``folder`` is one rank's ``*_ascend_ms`` / ``*_ascend_pt`` folder, the folder holding
    several (``rank`` picks one; default the lowest analysed), or any folder with the
    profiler's files below. ``windows`` are measured step windows ``(start_us, end_us)``;
    without them, the database's ``STEP_TIME``, then Ascend's ``Step Id`` (or one step over
    everything) is used. ``trace`` (an ascend_lab Trace) joins the kernels to its final graph.
    """
    profile = _load(folder, net_name, windows, rank)
    attach_trace(profile, trace)
    return profile


def _load(
    folder: str,
    net_name: str,
    windows: Optional[Sequence[Tuple[float, float]]],
    rank: Optional[int] = None,
) -> Profile:
    if not os.path.isdir(folder):
        raise ProfileError(f"{folder} is not a folder")
    chosen, ranks, rank_notes = choose_rank_folder(folder, rank)
    source, launches, paths, notes, db_windows = _read_launches(chosen.path if chosen else folder)
    step_source = STEPS_FROM_RUNNER if windows is not None else None
    if windows is None and db_windows:
        windows, step_source = db_windows, STEPS_FROM_STEP_TIME
    step_ids = kernel_step_ids(launches)  # before the steps are numbered from 0
    profile = build_profile(net_name, source, launches, windows, rank_notes + notes)
    profile.files = paths
    if chosen is not None:
        profile.rank = chosen.rank
        profile.ranks = ranks
    if source == "ascend":
        _ascend_extras(profile)
        read_ascend_measurements(profile)
    profile.step_source = step_source or _steps_from_table(profile, step_ids)
    if source == "cpu":
        profile.notes.append(
            N_("data loading is not reported on CPU (each step is called with the same inputs)")
        )
    return profile


def _steps_from_table(profile: Profile, step_ids: List[int]) -> Optional[str]:
    """The profiler's step table (step_trace_time.csv, analysis.db) for steps made from the
    kernels' span, else the fallback's label (None: no steps)."""
    if not profile.steps:
        return None
    if profile.measured_steps:
        table = STEPS_FROM_CSV if profile.files.get("step_trace_time") else STEPS_FROM_DB_TABLE
        if apply_step_table(profile, step_ids, table):
            return table
    return STEPS_FROM_KERNEL_SPAN if step_ids else STEPS_FROM_ONE_SPAN


def attach_trace(profile: Profile, trace: Any, why_missing: Optional[str] = None) -> None:
    """Join ``profile`` to ``trace``'s final graph, or note why there is no graph."""
    if trace is None:
        if why_missing:
            note = msg(
                "no trace: kernels are not joined to graph nodes ({}); the table and timeline "
                "are complete",
                why_missing,
            )
        else:
            note = N_(
                "no trace: kernels are not joined to graph nodes; the table and timeline are "
                "complete"
            )
        profile.notes.append(note)
        return
    profile.trace = trace
    join_to_graph(profile, trace.graph)


def _trace_for(net: Any, inputs: Sequence[Any]) -> Tuple[Any, Optional[str]]:
    from ascend_lab.errors.trace import TraceError
    from ascend_lab.tracing.api import trace_net

    try:
        return trace_net(net, list(inputs), False, 1, False, False, False), None
    except (TraceError, TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"the trace failed: {first}"


def profile_net(
    net: Any,
    inputs: Sequence[Any],
    steps: int = 5,
    warmup: int = 2,
    keep: bool = False,
    trace: Any = None,
    step: Optional[Callable[[], Any]] = None,
) -> Profile:
    """Profile ``net(*inputs)`` (or ``step()``) for ``steps`` steps after ``warmup`` calls."""
    from ascend_lab.capture.profiler import run_profiled

    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a whole number >= 1, got {steps!r}")
    if step is not None and not callable(step):
        raise TypeError(f"step must be a function called once per step, got {type(step).__name__}")
    if not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be a whole number >= 0, got {warmup!r}")
    why_missing: Optional[str] = None
    if trace is None:
        trace, why_missing = _trace_for(net, inputs)
    elif trace is False:
        trace, why_missing = None, "trace=False"
    folder = tempfile.mkdtemp(prefix="ascend-lab-profile-")
    try:
        run = run_profiled(net, inputs, steps, warmup, folder, step)
        profile = _load(folder, type(net).__name__, run.windows)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    profile.device = run.device
    profile.mindspore_version = run.mindspore_version
    if step is not None:
        profile.notes.append(
            N_(
                "each step ran your step function: host work in it (data loading, asnumpy, "
                "Python) shows as gaps between kernels"
            )
        )
    if warmup == 0:
        profile.notes.append(N_("warmup=0: the first step includes the graph compile"))
    attach_trace(profile, trace, why_missing)
    if keep:
        profile.profiler_dir = folder
    else:
        shutil.rmtree(folder, ignore_errors=True)
        profile.files = {k: os.path.relpath(v, folder) for k, v in profile.files.items()}
    return profile

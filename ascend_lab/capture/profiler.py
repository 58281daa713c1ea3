"""Run a Cell under MindSpore's own profiler, in graph mode, for a few measured steps.

The only module of ``ascend_lab.profile`` that imports MindSpore. It reuses the trace's
guards (:mod:`ascend_lab.capture.compile`): the same process-wide lock (MindSpore's context
is global), :func:`restoring_state` (context and current directory come back, also on
error), the private work folder as current directory (MindSpore's droppings stay out of
the user's folder) and the native-output redirection (the profiler's C++ side and its
parsing subprocess print progress bars to fds 1/2, which can hang a Jupyter kernel).

Warm-up steps (the first one compiles) run before the profiler records; each measured step
is timed with ``time.time_ns()``, the clock the profiler's CPU timestamps use, so each
kernel launch can be put in its step.
"""

import contextlib
import inspect
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ascend_lab.capture.compile import (
    CAPTURE_LOCK,
    _native_output_to,
    mindspore_log_filter,
    native_log_summary,
    restoring_state,
    work_root,
)
from ascend_lab.errors.profile import ProfileError

NATIVE_LOG = "mindspore-native.log"

Window = Tuple[float, float]


@dataclass
class ProfilerRun:
    """Where the profiler wrote, and the measured step windows (microseconds, epoch)."""

    output_dir: str
    windows: List[Tuple[float, float]]
    device: Optional[str]
    mindspore_version: Optional[str]
    messages: List[str] = field(default_factory=list)


class _DropProfilerNotices(logging.Filter):
    """Hide the profiler's "won't be using warmup" notice (warmup=0 asks for that)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:
            return True
        return "using warmup" not in msg


def _quiet_profiler() -> "contextlib.AbstractContextManager[None]":
    return mindspore_log_filter(_DropProfilerNotices())


def _parameters(function: Any) -> Any:
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return {}


def _synchronize(ms: Any, device: Optional[str]) -> None:
    """Wait for the device (Ascend/GPU run asynchronously; on CPU the call has returned)."""
    if device in (None, "CPU"):
        return
    for owner in ("runtime", "hal"):
        sync = getattr(getattr(ms, owner, None), "synchronize", None)
        if sync is not None:
            sync()
            return


def _timed_step(ms: Any, call: Callable[[], Any], device: Optional[str]) -> Window:
    start = time.time_ns()
    call()
    _synchronize(ms, device)
    return (start / 1000.0, time.time_ns() / 1000.0)


def _profiled_steps(
    ms: Any,
    call: Callable[[], Any],
    steps: int,
    warmup: int,
    output_dir: str,
    device: Optional[str],
) -> List[Window]:
    """Warm up, then profile ``steps`` timed steps; the profiler writes to ``output_dir``.

    MindSpore >= 2.5 has ``mindspore.profiler.profile`` with a step schedule (the last
    warm-up call runs in the schedule's own warm-up phase, as it asks); 2.3/2.4 (the Ascend
    notebook images) have only ``mindspore.Profiler`` with ``start()``/``stop()``.
    """
    api: Any = getattr(ms, "profiler", None)
    new_api = all(hasattr(api, n) for n in ("profile", "schedule", "tensorboard_trace_handler"))
    in_schedule = 1 if (new_api and warmup >= 1) else 0
    for _ in range(warmup - in_schedule):
        call()
    _synchronize(ms, device)
    windows: List[Window] = []
    if not new_api:
        profiler = ms.Profiler(start_profile=False, output_path=output_dir)
        profiler.start()
        try:
            for _ in range(steps):
                windows.append(_timed_step(ms, call, device))
        finally:
            profiler.stop()
        profiler.analyse()
        return windows
    activity = api.ProfilerActivity
    activities = [activity.CPU]
    if device == "Ascend" and hasattr(activity, "NPU"):
        activities.append(activity.NPU)
    with _trace_handler_path_restored():  # the handler stores its folder process-wide
        options: Dict[str, Any] = {}
        if "start_profile" in _parameters(api.profile):
            # it starts in its constructor by default; start() then logs "The profile has already
            # started" (2.10), which learners read as an error
            options["start_profile"] = False
        prof = api.profile(
            activities=activities,
            schedule=api.schedule(wait=0, warmup=in_schedule, active=steps, repeat=1, skip_first=0),
            on_trace_ready=api.tensorboard_trace_handler(output_dir),
            **options,
        )
        prof.start()
        try:
            for i in range(in_schedule + steps):
                if i < in_schedule:
                    call()
                    _synchronize(ms, device)
                else:
                    windows.append(_timed_step(ms, call, device))
                prof.step()
        finally:
            prof.stop()
    return windows


@contextlib.contextmanager
def _trace_handler_path_restored() -> Iterator[None]:
    """Give back MindSpore's process-wide profiler output path as it was.

    ``tensorboard_trace_handler(dir)`` stores ``dir`` in the ProfilerContext singleton
    (2.6 to 2.10) and nothing resets it: every later ``mindspore.Profiler(output_path=...)``
    in the process then writes into ascend-lab's (removed) folder instead, and says "Both
    on_trace_ready path and output_path are provided. The on_trace_ready path takes effect"
    (notebook 05 run twice in one kernel, MindSpore 2.10, 2026-12-07).
    """
    try:
        from mindspore.profiler.common.profiler_context import ProfilerContext

        context: Any = ProfilerContext()
        before = context.on_trace_ready_output_path
    except Exception:  # another layout (2.5 and older): nothing to give back
        yield
        return
    try:
        yield
    finally:
        try:
            context.on_trace_ready_output_path = before
        except Exception:
            pass


def run_profiled(
    net: Any,
    inputs: Sequence[Any],
    steps: int,
    warmup: int,
    output_dir: str,
    step: Optional[Callable[[], Any]] = None,
) -> ProfilerRun:
    """Run ``warmup`` unprofiled calls, then ``steps`` profiled calls of ``net(*inputs)``
    (or of ``step()``: the user's own step, e.g. with its data loading)."""
    if not CAPTURE_LOCK.acquire(blocking=False):
        raise ProfileError(
            "A trace or profile is running in this process. MindSpore's context is global, "
            "so they run one at a time: wait for the other one to finish."
        )
    try:
        import mindspore as ms

        try:
            device = ms.get_context("device_target")
        except Exception:
            device = None
        native_log = os.path.join(output_dir, NATIVE_LOG)
        try:
            with restoring_state(ms, ("mode",)):
                os.chdir(work_root())
                ms.set_context(mode=ms.GRAPH_MODE)
                with _native_output_to(native_log), _quiet_profiler():
                    call = step if step is not None else (lambda: net(*inputs))
                    windows = _profiled_steps(ms, call, steps, warmup, output_dir, device)
        except ProfileError:
            raise
        except Exception as exc:
            native = [m for m in native_log_summary(native_log) if "ERROR" in m]
            raise ProfileError(
                f"MindSpore could not run {type(net).__name__} under its profiler: {exc}"
                + ("\n\nMindSpore's log:\n" + "\n".join(native[:5]) if native else "")
            ) from exc
        return ProfilerRun(
            output_dir=output_dir,
            windows=windows,
            device=device,
            mindspore_version=getattr(ms, "__version__", None),
            messages=native_log_summary(native_log),
        )
    finally:
        CAPTURE_LOCK.release()

"""Run a Cell under MindSpore's own profiler, in graph mode, for a few measured steps.

The only module of ``ascend_lab.profile`` that imports MindSpore. It reuses the trace's
guards (:mod:`ascend_lab.tracing.capture`): the same process-wide lock (MindSpore's context
is global), :func:`restoring_state` (context and current directory come back, also on
error), the private work folder as current directory (MindSpore's droppings stay out of
the user's folder) and the native-output redirection (the profiler's C++ side and its
parsing subprocess print progress bars to fds 1/2, which can hang a Jupyter kernel).

Warm-up steps (the first one compiles) run before the profiler starts; each measured step
is timed with ``time.time_ns()``, the clock the profiler's CPU timestamps use, so each
kernel launch can be put in its step.
"""

import contextlib
import logging
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator, List, Optional, Sequence, Tuple

from ..tracing.capture import (
    _LOCK,
    _native_output_to,
    native_log_summary,
    restoring_state,
    work_root,
)
from .errors import ProfileError

NATIVE_LOG = "mindspore-native.log"


@dataclass
class ProfilerRun:
    """Where the profiler wrote, and the measured step windows (microseconds, epoch)."""

    output_dir: str
    windows: List[Tuple[float, float]]
    device: Optional[str]
    mindspore_version: Optional[str]
    messages: List[str] = field(default_factory=list)


class _DropProfilerNotices(logging.Filter):
    """Hide the profiler's "will be deprecated" and "won't be using warmup" notices: the
    warm-up is ours, and ``mindspore.Profiler`` is the API every supported version has."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:
            return True
        return not ("Profiler" in msg and ("deprecated" in msg or "warmup" in msg))


@contextlib.contextmanager
def _quiet_profiler() -> Iterator[None]:
    try:
        from mindspore import log as ms_log

        logger = ms_log._get_logger()  # type: ignore[attr-defined]
    except Exception:
        logger = None
    flt = _DropProfilerNotices()
    if logger is not None:
        logger.addFilter(flt)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            yield
    finally:
        if logger is not None:
            logger.removeFilter(flt)


def _synchronize(ms: Any, device: Optional[str]) -> None:
    """Wait for the device (Ascend/GPU run asynchronously; on CPU the call has returned)."""
    if device in (None, "CPU"):
        return
    for owner in ("runtime", "hal"):
        sync = getattr(getattr(ms, owner, None), "synchronize", None)
        if sync is not None:
            sync()
            return


def run_profiled(
    net: Any, inputs: Sequence[Any], steps: int, warmup: int, output_dir: str
) -> ProfilerRun:
    """Run ``warmup`` unprofiled calls, then ``steps`` profiled calls of ``net(*inputs)``."""
    if not _LOCK.acquire(blocking=False):
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
        windows: List[Tuple[float, float]] = []
        try:
            with restoring_state(ms, ("mode",)):
                os.chdir(work_root())
                ms.set_context(mode=ms.GRAPH_MODE)
                with _native_output_to(native_log), _quiet_profiler():
                    for _ in range(warmup):
                        net(*inputs)
                    _synchronize(ms, device)
                    profiler = ms.Profiler(start_profile=False, output_path=output_dir)
                    profiler.start()
                    try:
                        for _ in range(steps):
                            start = time.time_ns()
                            net(*inputs)
                            _synchronize(ms, device)
                            windows.append((start / 1000.0, time.time_ns() / 1000.0))
                    finally:
                        profiler.stop()
                    profiler.analyse()
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
        _LOCK.release()

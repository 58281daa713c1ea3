"""Compile (and run) a Cell in GRAPH_MODE with MindSpore's IR dumps in a private folder.

The only module of ``ascend_lab.trace`` that touches MindSpore's global state. What it does:

- takes a process-wide lock (MindSpore's context is global): a second trace while one runs
  raises :class:`TraceBusyError` at once instead of waiting;
- remembers every context setting it changes (``mode``, ``save_graphs``,
  ``save_graphs_path``, ``enable_graph_kernel``) and the current directory, and puts them
  back when the compile ends, also when it fails (:func:`restoring_state`): the context
  first, then the directory, each in its own guard, and the original error wins. It sets
  one environment variable for good, ``MS_COMPILER_CACHE_PATH`` when the user has not
  (:func:`share_kernel_cache`: AKG's kernels of a trace and of the learner's own compiles
  must be found in one place); ``MS_DEV_SAVE_GRAPHS*`` are read at import, see below;
- runs with the current directory in a private temporary folder (one per process, see
  :func:`work_root`), so AKG's ``akg_kernel_meta``, ``rank_0/`` and other droppings never
  land in the user's folder; the dumps go to a fresh folder per trace;
- forces a fresh compile: MindSpore caches a compiled Cell by
  ``phase + create_time + id + argument key``; a Cell the learner already ran would not be
  recompiled and nothing would be dumped. We give the Cell a new ``create_time`` for the
  duration of the trace (so its graph and scope names are exactly those of a normal call),
  and put the old one back afterwards (so the learner's cached graph is used again).

``MS_DEV_SAVE_GRAPHS`` set at run time has no effect in MindSpore 2.10 (it is read at import),
so dumps are switched on with ``set_context(save_graphs=..., save_graphs_path=...)``, whose
deprecation warning is filtered out while we call it.
"""

import atexit
import contextlib
import logging
import os
import re
import shlex
import shutil
import sys
import tempfile
import threading
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ascend_lab.capture import akg_server
from ascend_lab.capture.input_notes import numpy_input_notes
from ascend_lab.errors.trace import TraceBusyError, TraceError
from ascend_lab.i18n import _
from ascend_lab.parsers import limits

# One capture at a time per process: compile, MindIR export and the profiler all change
# MindSpore's process-wide context (and restore it after).
CAPTURE_LOCK = threading.Lock()
_WORK_ROOT: Optional[str] = None

# Context keys a trace sets; all are read before and written back after.
CONTEXT_KEYS = ("mode", "save_graphs", "save_graphs_path", "enable_graph_kernel")

DUMP_SUBDIR = "dump"
# What MindSpore 2.x says when a fusion compile reaches its AKG kernel-build server before the
# server's socket is open (seen once in CI on 2.10 with two compiles at the same time).
AKG_SERVER_NOT_OPEN = "Send request before Open()"
# What MindSpore's C++ side printed during the compile (see _native_output_to).
NATIVE_LOG = "mindspore-native.log"


@dataclass
class CaptureResult:
    """What one capture produced: where the dumps are and what the net returned."""

    workdir: str
    dump_dir: str
    output: Any
    compile_seconds: float
    fusion: bool
    level: int
    ran: bool
    mindspore_version: Optional[str] = None
    device: Optional[str] = None
    messages: List[str] = field(default_factory=list)


class _DropDeprecation(logging.Filter):
    """Hide MindSpore's "will be deprecated" notices for the settings we touch."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:
            return True
        return not ("deprecated" in msg and ("save_graphs" in msg or "graph_kernel" in msg))


@contextlib.contextmanager
def mindspore_log_filter(flt: logging.Filter) -> Iterator[None]:
    """``flt`` on MindSpore's Python logger for the block (nothing if it cannot be found)."""
    try:
        from mindspore import log as ms_log

        logger = ms_log._get_logger()  # type: ignore[attr-defined]
    except Exception:
        logger = None
    if logger is not None:
        logger.addFilter(flt)
    try:
        yield
    finally:
        if logger is not None:
            logger.removeFilter(flt)


def _quiet_mindspore_logger() -> "contextlib.AbstractContextManager[None]":
    return mindspore_log_filter(_DropDeprecation())


def read_context(ms: Any, keys: Sequence[str] = CONTEXT_KEYS) -> Dict[str, Any]:
    """Current values of ``keys`` (a key this MindSpore does not know is skipped)."""
    values = {}
    for key in keys:
        try:
            values[key] = ms.get_context(key)
        except Exception:
            continue
    return values


def _restore_raw_path(value: Any) -> bool:
    """Put back a relative ``save_graphs_path`` as it was (``set_context`` makes it absolute)."""
    try:
        from mindspore._c_expression import ms_ctx_param
        from mindspore.context import _context

        _context().set_param(ms_ctx_param.save_graphs_path, value)
    except Exception:
        return False
    return True


def _set_context(ms: Any, values: Dict[str, Any], restoring: bool = False) -> None:
    with _quiet_mindspore_logger():
        for key, value in values.items():
            if (
                restoring
                and key == "save_graphs_path"
                and isinstance(value, str)
                and not os.path.isabs(value)
                and _restore_raw_path(value)
            ):
                continue
            ms.set_context(**{key: value})


def _return_to(folder: Optional[str]) -> str:
    """``chdir`` to ``folder``; if it was removed meanwhile, to its nearest existing parent.

    Never stays in the private work folder (removed at exit). Warns when it falls back.
    """
    target = folder or os.path.expanduser("~")
    try:
        os.chdir(target)
        return target
    except OSError as exc:
        reason = exc.strerror or str(exc)
    fallback = target
    while True:
        parent = os.path.dirname(fallback)
        if parent == fallback:
            break
        fallback = parent
        try:
            os.chdir(fallback)
            break
        except OSError:
            continue
    warnings.warn(
        f"the working folder {target} disappeared during the trace ({reason}); "
        f"the current folder is now {fallback}",
        RuntimeWarning,
        stacklevel=4,
    )
    return fallback


def restore_state(ms: Any, context: Dict[str, Any], cwd: Optional[str]) -> None:
    """Put MindSpore's ``context`` back, then the current directory ``cwd``.

    The context goes first and does not depend on the directory (a relative
    ``save_graphs_path`` is restored as it was written), so a vanished directory can never
    leave MindSpore in graph mode with dumps switched on. A failure to restore the context
    is raised after the directory is back.
    """
    failure: Optional[BaseException] = None
    try:
        _set_context(ms, context, restoring=True)
    except Exception as exc:
        failure = exc
    _return_to(cwd)
    if failure is not None:
        raise TraceError(f"could not restore MindSpore's context {context}: {failure}") from failure


@contextlib.contextmanager
def restoring_state(ms: Any, keys: Sequence[str] = CONTEXT_KEYS) -> Iterator[Dict[str, Any]]:
    """Run the block, then :func:`restore_state`; an error of the block is the one raised.

    Yields the saved context (the keys this MindSpore knows).
    """
    context = read_context(ms, keys)
    try:
        cwd: Optional[str] = os.getcwd()
    except OSError:  # the user's folder was already gone: come back to the home folder
        cwd = None
    try:
        yield context
    except BaseException:
        try:
            restore_state(ms, context, cwd)
        except Exception as exc:  # keep the original error; say what could not be undone
            warnings.warn(str(exc), RuntimeWarning, stacklevel=3)
        raise
    restore_state(ms, context, cwd)


KERNEL_CACHE_ENV = "MS_COMPILER_CACHE_PATH"


def share_kernel_cache() -> Optional[str]:
    """Give the process one folder for AKG's compiled kernels (``MS_COMPILER_CACHE_PATH``,
    unless the user set it); the folder, or None when the user's setting is kept.

    AKG's build server remembers, for the whole process, which fused kernels it has built;
    MindSpore then looks for their files under ``MS_COMPILER_CACHE_PATH``, else under the
    current directory. A trace builds in :func:`work_root`, so the learner's own fusion
    compile of the same net afterwards, in the notebook's folder, found no file and MindSpore
    split the fused kernels back into single ops ("... do not have compile cache after
    compiling and will be split": fusion silently undone); the other way round, a trace after
    the learner's compile read split kernels (4 kernels -> 5 for ConvBNReLU). One path for
    both fixes both, and keeps ``akg_kernel_meta`` out of the learner's folder. Set by the
    MindSpore kernel at start and by the first fusion trace; the folder is removed at exit
    with :func:`work_root`. Known limit: in a script (not the kernel) whose own fusion compile
    comes before the first trace, that trace still reads split kernels (MindSpore keeps the
    first compile's path); call this function first there."""
    if os.environ.get(KERNEL_CACHE_ENV):
        return None
    os.environ[KERNEL_CACHE_ENV] = work_root()
    return os.environ[KERNEL_CACHE_ENV]


def work_root() -> str:
    """The private folder traces run in (one per process, removed at exit).

    One folder for the whole process, not one per trace: AKG's kernel build server is
    started once, in the current directory of the first fusion compile, and keeps writing
    ``akg_kernel_meta`` there, so that folder must outlive every trace.
    """
    global _WORK_ROOT
    if _WORK_ROOT is None or not os.path.isdir(_WORK_ROOT):
        _WORK_ROOT = tempfile.mkdtemp(prefix="ascend-lab-work-")
        atexit.register(shutil.rmtree, _WORK_ROOT, True)
    return _WORK_ROOT


@contextlib.contextmanager
def _fresh_compile(net: Any) -> Iterator[None]:
    """Make MindSpore treat ``net`` as never compiled, for the duration of the block."""
    old = getattr(net, "_create_time", None)
    if old is None:
        yield
        return
    new = time.time_ns()
    if new == old:
        new += 1
    object.__setattr__(net, "_create_time", new)
    try:
        yield
    finally:
        object.__setattr__(net, "_create_time", old)
        cache = getattr(net, "_compile_cache", None)
        if isinstance(cache, set):
            # Forget the trace's phase so the learner's next call is not confused by it.
            for phase in [p for p in cache if f".{new}." in p]:
                cache.discard(phase)


@contextlib.contextmanager
def _native_output_to(path: str) -> Iterator[None]:
    """Send what MindSpore's C++ side writes to fds 1 and 2 into ``path`` for the block.

    Why: in a Jupyter kernel fds 1/2 are pipes that a kernel thread drains, and draining
    needs the GIL. MindSpore writes its logs from C++ while holding the GIL; with dumps on,
    a net defined in a notebook cell makes it log one "Get realpath failed" line per node
    (the cell's "file" is not on disk), the pipe fills up, and the kernel hangs forever.
    A file never fills up. The text is read back for error messages.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # no usable fds 1/2 (e.g. a detached process): nothing to protect
        yield
        return
    try:
        with open(path, "ab") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for fd in saved:
            os.close(fd)


# Of a native log, only the last NATIVE_LOG_TAIL bytes are read (the error is at the end;
# a notebook-defined net can log one line per node).
NATIVE_LOG_TAIL = 4 << 20
# "[ERROR] CORE(123,7f..,python):2026-11-29-16:10:16.176.814 [file.cc:253] Func] text"
_LOG_PREFIX = re.compile(r"\[(\w+)\] (\w+)\([^)]*\):\S+ ")
# "path[/tmp/x]": the part between the brackets holds no bracket, so each attempt stops at
# the next one (linear on any line).
_LOG_PATH = re.compile(r"path\[[^\[\]]*\]")


def native_log_summary(path: str, limit: int = 12) -> List[str]:
    """Distinct lines of MindSpore's native log (without the timestamp prefix), with counts."""
    try:
        data, size = limits.read_tail(path, NATIVE_LOG_TAIL)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if size > NATIVE_LOG_TAIL:
        lines = lines[1:]  # the first one is cut
    counts: Dict[str, int] = {}
    for line in lines:
        if not line.strip():
            continue
        prefix = _LOG_PREFIX.match(line)  # anchored: one attempt per line
        key = f"[{prefix.group(1)}] {prefix.group(2)} {line[prefix.end() :]}" if prefix else line
        key = _LOG_PATH.sub("path[...]", key)
        counts[key] = counts.get(key, 0) + 1
    out = [f"{n} x {key}" if n > 1 else key for key, n in counts.items()]
    return out[:limit]


_LINE_NUMBER = re.compile(r":(\d{1,9})")


def in_file_references(text: str) -> List[Tuple[str, int]]:
    """``(path, line)`` of each ``In file <path>:<line>`` in MindSpore's text, in order.

    The path runs to the first ``:<digits>`` after it (so ``C:\\x.py:3`` works). Found by
    walking two sorted lists per line, not by a regex with a lazy ``.+?``, which is
    quadratic on a line full of "In file " without a line number.
    """
    refs: List[Tuple[str, int]] = []
    for line in text.splitlines():
        if "In file " not in line:
            continue
        numbers = [(m.start(), m.end(), m.group(1)) for m in _LINE_NUMBER.finditer(line)]
        i = 0
        pos = 0
        while True:
            found = line.find("In file ", pos)
            if found == -1:
                break
            start = found + len("In file ")
            while i < len(numbers) and numbers[i][0] <= start:
                i += 1
            if i == len(numbers):
                break
            colon, end, digits = numbers[i]
            refs.append((line[start:colon], int(digits)))
            pos = end
    return refs


def _is_library_file(path: str) -> bool:
    norm = path.replace("\\", "/")
    return "/site-packages/" in norm or "/dist-packages/" in norm or "/mindspore/" in norm


def locate_user_line(message: str, tb: Optional[Any] = None) -> Tuple[Optional[str], Optional[int]]:
    """The user's ``file:line`` from MindSpore's error text, else from the traceback."""
    for path, line in in_file_references(message or ""):
        path = path.strip()
        if not _is_library_file(path):
            return path, line
    if tb is not None:
        frames = traceback.extract_tb(tb)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # ascend_lab
        for frame in reversed(frames):
            if not _is_library_file(frame.filename) and not frame.filename.startswith(here):
                return frame.filename, frame.lineno
    return None, None


def _short_message(message: str) -> str:
    """MindSpore's message without the C++ call stack section."""
    lines = (message or "").strip().splitlines()
    out: List[str] = []
    skip = False
    for line in lines:
        if "C++ Call Stack" in line:
            skip = True
            if out and set(out[-1].strip()) == {"-"}:
                out.pop()
            continue
        if "analyze_fail.ir" in line:
            # It points into the temporary folder, which is removed.
            continue
        if skip:
            if "Traceback of Net Construct Code" in line:
                skip = False
                out.append(line)
            continue
        out.append(line)
    return "\n".join(out).strip()


def require_fusion_dependencies() -> None:
    """Raise :class:`TraceError` with the install command if AKG's ``decorator`` is missing.

    MindSpore's graph-kernel fusion compiles its kernels with AKG, which imports
    ``decorator``; without it the compile fails deep inside AKG's build server.
    """
    try:
        import decorator  # noqa: F401
    except ImportError:
        raise TraceError(
            _(
                "fusion=True needs the `decorator` package (MindSpore's graph-kernel fusion "
                "compiles kernels with AKG, which imports it), and it is not installed in "
                "this Python. Install it with:\n    {}\nthen trace again. Without fusion, "
                "ascend_lab.trace(net, x) works as it is."
            ).format(f"{shlex.quote(sys.executable)} -m pip install decorator")
        ) from None


def require_live_akg_server() -> None:
    """Raise :class:`TraceError` if the AKG build server MindSpore started in this process
    has exited: a fusion compile would then wait forever (see :mod:`.akg_server`)."""
    akg_server.note_servers()  # also one started by the learner's own fusion compile
    pid = akg_server.dead_server()
    if pid is not None:
        raise TraceError(
            _(
                "MindSpore's build server for fused kernels (AKG, pid {}) has exited in this "
                "process, and MindSpore does not start another: a fusion compile now would "
                "wait forever. Restart the kernel (or the Python process), then trace again. "
                "Without fusion, ascend_lab.trace(net, x) still works."
            ).format(pid)
        )


def not_a_cell_message(net: Any) -> str:
    """Why trace() refuses ``net``, and for a function (a ``@jit`` one too) what to do."""
    kind = type(net).__name__
    if isinstance(net, type):
        return (
            f"trace() needs a mindspore.nn.Cell instance, got the class {net.__name__}: "
            f"trace {net.__name__}(...) instead"
        )
    if not callable(net):
        return f"trace() needs a mindspore.nn.Cell, got {kind}"
    name = getattr(net, "__name__", kind)
    call = name if name.isidentifier() else "fn"  # a lambda: keep it as self.fn or fn
    return (
        f"trace() needs a mindspore.nn.Cell, got the {kind} {name!r}. MindSpore compiles a "
        "function (a @jit one too) only when it is called, with no Cell to trace: wrap it, "
        f"e.g. class Net(nn.Cell): def construct(self, x): return {call}(x), "
        "and trace Net()"
    )


def capture(
    net: Any,
    inputs: Sequence[Any],
    fusion: bool = False,
    level: int = 1,
    run: bool = True,
    workdir: Optional[str] = None,
) -> CaptureResult:
    """Compile ``net`` on ``inputs`` (and run it unless ``run=False``) with IR dumps.

    Returns a :class:`CaptureResult`; the caller owns ``workdir`` (remove it when done).
    Raises :class:`TraceBusyError` if another trace runs, :class:`TraceError` if MindSpore
    cannot compile or run the net (the temporary folder is removed then).
    """
    if level not in (1, 2, 3):
        raise ValueError(f"level must be 1, 2 or 3 (MindSpore's save_graphs levels), got {level!r}")
    if fusion:
        require_fusion_dependencies()
        require_live_akg_server()
    if not CAPTURE_LOCK.acquire(blocking=False):
        raise TraceBusyError(
            "Another ascend_lab.trace() is running in this process. MindSpore's context is "
            "global, so traces run one at a time: wait for the other one to finish."
        )
    try:
        import mindspore as ms

        try:
            from mindspore import nn

            is_cell = isinstance(net, nn.Cell)
        except Exception:
            is_cell = True
        if not is_cell:
            raise TypeError(not_a_cell_message(net))
        own_workdir = workdir is None
        workdir = workdir or tempfile.mkdtemp(prefix="ascend-lab-trace-")
        try:
            try:
                output, elapsed, messages = _compile_with_dumps(
                    ms, net, inputs, workdir, fusion, level, run
                )
            except TraceError as exc:
                if not (fusion and AKG_SERVER_NOT_OPEN in (exc.ms_message or "")):
                    raise
                # MindSpore's graph-kernel (AKG) build server was not up when the compile
                # sent it the first kernel: a transient of its process start. One retry.
                shutil.rmtree(os.path.join(workdir, DUMP_SUBDIR), ignore_errors=True)
                output, elapsed, messages = _compile_with_dumps(
                    ms, net, inputs, workdir, fusion, level, run
                )
            if fusion:
                akg_server.note_servers()
        except BaseException:
            if own_workdir:
                shutil.rmtree(workdir, ignore_errors=True)
            raise
        try:
            device = ms.get_context("device_target")
        except Exception:
            device = None
        return CaptureResult(
            workdir=workdir,
            dump_dir=os.path.join(workdir, DUMP_SUBDIR),
            output=output,
            compile_seconds=elapsed,
            fusion=bool(fusion),
            level=level,
            ran=run,
            mindspore_version=getattr(ms, "__version__", None),
            device=device,
            messages=messages,
        )
    finally:
        CAPTURE_LOCK.release()


def _compile_with_dumps(
    ms: Any, net: Any, inputs: Sequence[Any], workdir: str, fusion: bool, level: int, run: bool
) -> Tuple[Any, float, List[str]]:
    """Compile (and run) ``net`` with dumps into ``workdir``; ``(output, seconds, log)``."""
    dump_dir = os.path.join(workdir, DUMP_SUBDIR)
    os.makedirs(dump_dir, exist_ok=True)
    native_log = os.path.join(workdir, NATIVE_LOG)
    started = time.perf_counter()
    output = None
    try:
        if fusion:
            share_kernel_cache()
        with restoring_state(ms) as saved:
            os.chdir(work_root())
            wanted: Dict[str, Any] = {
                "mode": ms.GRAPH_MODE,
                "save_graphs": level,
                "save_graphs_path": dump_dir,
                "enable_graph_kernel": bool(fusion),
            }
            _set_context(ms, {k: v for k, v in wanted.items() if k in saved})
            with _fresh_compile(net), _native_output_to(native_log):
                if run:
                    output = net(*inputs)
                else:
                    net.compile(*inputs)
    except TraceError:
        raise
    except Exception as exc:
        text = str(exc)
        path, line = locate_user_line(text, sys.exc_info()[2])
        where = _(" (at {}:{})").format(path, line) if path else ""
        native = [m for m in native_log_summary(native_log) if "ERROR" in m or "EXCEPTION" in m]
        raise TraceError(
            _("MindSpore could not compile {} in graph mode{}:").format(type(net).__name__, where)
            + "\n"
            + _short_message(text)
            + "".join("\n" + note for note in numpy_input_notes(inputs))
            + ("\n\n" + _("MindSpore's log:") + "\n" + "\n".join(native[:5]) if native else ""),
            ms_message=text,
            file=path,
            line=line,
        ) from exc
    elapsed = time.perf_counter() - started
    with os.scandir(dump_dir) as entries:
        wrote_nothing = not any(entries)
    if wrote_nothing:
        raise TraceError(
            _("MindSpore compiled {} but wrote no IR dumps to {}.").format(
                type(net).__name__, dump_dir
            )
        )
    return output, elapsed, native_log_summary(native_log)

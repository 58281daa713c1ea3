"""``--with-trace``: run :mod:`.trace_worker` in a child under the time budget and put its
dumps (capped per jit_level), profile and MindIR into the bundle."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable, List, Optional, Set, Tuple

from ascend_lab.doctor.intake import read_tail_file
from ascend_lab.parsers.regular_file import read_gated
from ascend_lab.report.bundle import Bundle
from ascend_lab.report.machine import Budget

DUMP_CAP_BYTES = 8 * 1024 * 1024  # per jit_level; a small net's dumps are ~2 MB on CPU
PROFILE_CAP_BYTES = 4 * 1024 * 1024
WORKER_LOG_BYTES = 64 * 1024
_TEXT_SUFFIXES = (".ir", ".txt", ".csv", ".json", ".log", ".dot")


def _ordered_dump_files(folder: str) -> List[Tuple[str, str]]:
    """(absolute, relative) files, the viewer's essentials first: the final kernel graph
    (graph_build_*), the runtime's actor sets, then the passes in their order."""
    files = []
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            files.append((full, rel))

    def rank(item: Tuple[str, str]) -> Tuple[int, str]:
        rel = item[1]
        if "graph_build" in rel:
            return 0, rel
        if rel.startswith("actor_set/"):
            return 1, rel
        return (2 if rel.endswith(".ir") else 3), rel

    return sorted(files, key=rank)


def _add_capped(bundle: Bundle, folder: str, dest: str, cap: int, item: str) -> None:
    used = kept = skipped = 0
    for full, rel in _ordered_dump_files(folder):
        try:
            size = os.path.getsize(full)
        except OSError:
            continue
        if used + size > cap:
            skipped += 1
            continue
        try:  # the one gate: a FIFO or a link leaving the dump folder is skipped, not read
            data = read_gated(full, size, root=folder)
        except OSError:
            skipped += 1
            continue
        if rel.endswith(_TEXT_SUFFIXES) or "." not in os.path.basename(rel):
            bundle.add_text(f"{dest}/{rel}", data.decode("utf-8", "replace"))
        else:
            bundle.add_binary(f"{dest}/{rel}", data)  # .pb: binary, not redacted
        used += size
        kept += 1
    detail = f"{kept} files, {used} bytes"
    if skipped:
        detail += f"; {skipped} files left out (cap {cap} bytes)"
    bundle.record(item, "ok", path=dest, detail=detail, truncated=bool(skipped))


def _report_steps(out: str, told: Set[int], progress: Callable[[str], None]) -> None:
    """Tell ``progress`` the worker's steps finished since the last call (its worker.json)."""
    from ascend_lab.i18n import _
    from ascend_lab.report.course import STEP_DONE

    try:
        with open(os.path.join(out, "worker.json"), encoding="utf-8") as f:
            steps = json.load(f).get("steps", [])
    except (OSError, ValueError, AttributeError):
        return  # not written yet, or half written: read again on the next tick
    for i, s in enumerate(steps):
        if i not in told and isinstance(s, dict):
            told.add(i)
            progress(
                _(STEP_DONE).format(s.get("step"), s.get("status"), float(s.get("seconds") or 0))
            )


def _wait(
    proc: "subprocess.Popen[bytes]",
    timeout: float,
    out: str,
    progress: Optional[Callable[[str], None]],
) -> None:
    """Wait for the worker up to ``timeout`` s, telling ``progress`` each step it finishes."""
    if progress is None:
        proc.wait(timeout=timeout)
        return
    told: Set[int] = set()
    deadline = time.monotonic() + timeout
    while True:
        try:
            proc.wait(timeout=max(0.0, min(1.0, deadline - time.monotonic())))
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise
        _report_steps(out, told, progress)
    _report_steps(out, told, progress)


def collect_trace(
    bundle: Bundle,
    budget: Budget,
    device: str,
    tell: Optional[Callable[[str], None]] = None,
) -> None:
    work = tempfile.mkdtemp(prefix="ascend-lab-report-trace-")
    out = os.path.join(work, "out")
    timeout = budget.timeout(budget.left() - 5)  # leave time to pack the archive
    started = time.monotonic()
    timed_out = False
    try:
        if timeout <= 10:
            bundle.record("--with-trace", "skipped", detail="not enough of the time budget left")
            return
        log_path = os.path.join(work, "worker.log")  # a file: the output is read capped
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen(  # noqa: S603 - fixed argv
                [sys.executable, "-m", "ascend_lab.report.trace_worker", out, device],
                cwd=work,  # MindSpore and AKG write caches into the working folder
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                _wait(proc, timeout, out, tell)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log, _size, _cut = read_tail_file(log_path, WORKER_LOG_BYTES)
        bundle.add_text("trace/worker.log", log)
        try:
            with open(os.path.join(out, "worker.json"), encoding="utf-8") as f:
                progress = json.load(f)
        except (OSError, ValueError):
            progress = {"steps": []}
        for s in progress.get("steps", []):
            bundle.record(
                s["step"],
                s["status"],
                detail=(s.get("detail") or "").split("\n", 1)[0][:300],
                seconds=s.get("seconds"),
            )
        if timed_out:
            bundle.record(
                "--with-trace (the rest)",
                "timed out",
                detail=f"stopped after {timeout:.0f} s (time budget)",
                seconds=time.monotonic() - started,
            )
        elif proc.returncode != 0:
            bundle.record(
                "--with-trace worker",
                "failed",
                detail=f"exit {proc.returncode}; see trace/worker.log",
            )
        bundle.add_json("trace/worker.json", progress)
        bundle.trace_device = progress.get("device")
        for level in ("O0", "O1", "O2"):
            dump = os.path.join(out, level, "dump")
            if os.path.isdir(dump):
                _add_capped(
                    bundle,
                    dump,
                    f"trace/{level}/dump",
                    DUMP_CAP_BYTES,
                    f"IR dumps, jit_level={level}",
                )
                summary = os.path.join(out, level, "summary.txt")
                if os.path.isfile(summary):
                    try:
                        text = read_gated(summary, 64 * 1024, root=out)
                    except OSError:
                        text = b""
                    bundle.add_text(f"trace/{level}/summary.txt", text.decode("utf-8", "replace"))
        if os.path.isdir(os.path.join(out, "profile")):
            _add_capped(
                bundle,
                os.path.join(out, "profile"),
                "trace/profile",
                PROFILE_CAP_BYTES,
                "profile output",
            )
        mindir = os.path.join(out, "net.mindir")
        if os.path.isfile(mindir) and os.path.getsize(mindir) < 16 * 1024 * 1024:
            try:
                bundle.add_binary("trace/net.mindir", read_gated(mindir, 16 << 20, root=out))
            except OSError:
                pass
    finally:
        shutil.rmtree(work, ignore_errors=True)

"""Tails of the newest CANN plog files and of log files the user names, with byte caps."""

import os
from typing import List, Optional, Tuple

from ascend_lab.doctor.intake import read_tail_file
from ascend_lab.report.bundle import Bundle
from ascend_lab.report.machine import Budget

PLOG_FILES = 5  # the newest few: the failing run is almost always the last one
PLOG_TAIL_BYTES = 256 * 1024
USER_LOG_TAIL_BYTES = 1024 * 1024
_WALK_MAX_ENTRIES = 20000  # a long-lived machine can hold a huge log tree


def plog_roots(home: Optional[str] = None) -> List[str]:
    """``~/ascend/log`` (CANN's default) and ``$ASCEND_PROCESS_LOG_PATH`` when set."""
    roots = [os.path.join(home or os.path.expanduser("~"), "ascend", "log")]
    extra = os.environ.get("ASCEND_PROCESS_LOG_PATH")
    if extra:
        roots.append(extra)
    return [r for r in roots if os.path.isdir(r)]


def newest_plogs(roots: List[str], budget: Budget, count: int = PLOG_FILES) -> List[str]:
    """The ``count`` newest ``*.log`` files in a ``plog`` folder under ``roots``."""
    found: List[Tuple[float, str]] = []
    seen = 0
    for root in roots:
        for dirpath, dirnames, names in os.walk(root):
            seen += len(names) + len(dirnames)
            if seen > _WALK_MAX_ENTRIES or budget.left() <= 0:
                break
            in_plog = os.path.basename(dirpath) == "plog" or root == os.environ.get(
                "ASCEND_PROCESS_LOG_PATH"
            )
            if not in_plog:
                continue
            for n in names:
                if n.endswith(".log"):
                    p = os.path.join(dirpath, n)
                    try:
                        found.append((os.path.getmtime(p), p))
                    except OSError:
                        continue
    found.sort(reverse=True)
    return [p for _, p in found[:count]]


def _tail(bundle: Bundle, item: str, path: str, dest: str, limit: int) -> None:
    try:
        if os.path.isdir(path):
            raise IsADirectoryError("is a directory")
        text, total, truncated = read_tail_file(path, limit)
    except OSError as exc:
        bundle.record(item, "failed", detail=f"{path}: {exc.strerror or exc}")
        return
    bundle.add_text(dest, text)
    bundle.record(item, "ok", path=dest, detail=f"{path}, {total} bytes", truncated=truncated)


def collect_logs(bundle: Bundle, budget: Budget, user_logs: List[str]) -> None:
    roots = plog_roots()
    plogs = newest_plogs(roots, budget)
    if not plogs:
        where = " and ".join(roots) or "~/ascend/log (absent) or $ASCEND_PROCESS_LOG_PATH"
        bundle.record("newest plog files", "missing", detail=f"no plog/*.log under {where}")
    for i, p in enumerate(plogs):
        _tail(
            bundle,
            f"plog tail (last {PLOG_TAIL_BYTES // 1024} KiB)",
            p,
            f"logs/plog/{i}_{os.path.basename(p)}",
            PLOG_TAIL_BYTES,
        )
    for i, p in enumerate(user_logs):
        _tail(
            bundle,
            f"--log tail (last {USER_LOG_TAIL_BYTES // 1024} KiB)",
            p,
            f"logs/user/{i}_{os.path.basename(p) or 'log'}",
            USER_LOG_TAIL_BYTES,
        )

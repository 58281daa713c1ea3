"""What the viewer routes compute, run in the viewer's worker processes
(:mod:`.worker_pool`): a path under the server's root -> ``(HTTP status, body)``.

Each job is a row of :data:`JOBS` (``graph``, ``pass``, ``weight``, ``profile``) and runs
through :func:`run_job`: inside :func:`~ascend_lab.parsers.regular_file.confined` to the
root and the request's deadline (every file any reader opens for it must be a regular file
inside the root; the readers' loops stop at the deadline), with every error a 4xx naming
its kind, never a traceback and never text from the file. The routes and their limits are
described in :mod:`.file_handlers` and :mod:`.profile_handlers`.

Nothing here imports tornado or jupyter_server: a worker process imports this module and
the readers only. Answers may hold absolute paths; the handler makes them relative to the
root before they leave the server.
"""

import os
import stat
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ascend_lab import settings
from ascend_lab.errors import AscendLabError
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.regular_file import confined

# the limits' names and defaults are registered in ascend_lab.settings (issue #25)
VIEW_MAX_BYTES_ENV = "ASCEND_LAB_VIEW_MAX_BYTES"
DEFAULT_MAX_BYTES = settings.setting(VIEW_MAX_BYTES_ENV).default  # 1 GiB
# a .mindir's graph (the file without its weights' bytes) grows ~75x when parsed
GRAPH_MAX_BYTES_ENV = "ASCEND_LAB_VIEW_MAX_GRAPH_BYTES"
DEFAULT_GRAPH_MAX_BYTES = settings.setting(GRAPH_MAX_BYTES_ENV).default  # 16 MiB
NODES_MAX_ENV = "ASCEND_LAB_VIEW_MAX_NODES"
# an answer's nodes (250,000); edges may be 4x as many
DEFAULT_MAX_NODES = settings.setting(NODES_MAX_ENV).default
STATS_MAX_BYTES_ENV = "ASCEND_LAB_VIEW_MAX_STATS_BYTES"
# one weight's bytes (read twice) per request: 256 MiB
DEFAULT_STATS_MAX_BYTES = settings.setting(STATS_MAX_BYTES_ENV).default
TIMEOUT_ENV = "ASCEND_LAB_VIEW_TIMEOUT"
DEFAULT_TIMEOUT = settings.setting(TIMEOUT_ENV).default  # 120 s
WORKER_MEMORY_ENV = "ASCEND_LAB_VIEW_WORKER_MEMORY"
FOLDER_MAX_ENTRIES = 100_000  # files and folders a dump folder may hold


def _env_int(name: str, fallback: int) -> int:
    """The positive whole number setting ``name``; its default when unset or not one."""
    value = settings.get(name)
    return fallback if value is None else int(value)


def max_bytes() -> int:
    return _env_int(VIEW_MAX_BYTES_ENV, DEFAULT_MAX_BYTES)


def _timeout() -> float:
    return float(settings.get(TIMEOUT_ENV))


class Refused(AscendLabError):
    """A path the viewer does not read: ``status`` and a message for the answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _is_hidden_name(name: str) -> bool:
    return name.startswith(".")


def resolve_under_root(root: str, relative: str, allow_hidden: bool = True) -> str:
    """The real path of ``relative`` under ``root``; ValueError if it leaves the root,
    :class:`Refused` (404) when a part of it is hidden and ``allow_hidden`` is False
    (jupyter_server's ``ContentsManager.allow_hidden``)."""
    real_root = os.path.realpath(root)
    joined = os.path.normpath(os.path.join(real_root, relative.lstrip("/")))
    target = os.path.realpath(joined)
    if os.path.commonpath([real_root, target]) != real_root:
        raise ValueError(f"{relative}: outside the server's root folder")
    if not allow_hidden:
        parts = os.path.relpath(joined, real_root).split(os.sep)
        parts += os.path.relpath(target, real_root).split(os.sep)
        if any(_is_hidden_name(p) and p not in (".", "..") for p in parts):
            raise Refused(
                404,
                f"{relative}: hidden files and folders are not shown "
                "(the server's ContentsManager.allow_hidden is False)",
            )
    return target


def _check_ir_file(full: str, shown: str, real_root: str) -> int:
    """The size of one ``.ir`` file of a folder; :class:`Refused` when it is a symlink
    leaving the root or not a regular file (a FIFO would hang its reader)."""
    info = os.lstat(full)
    if stat.S_ISLNK(info.st_mode):
        real = os.path.realpath(full)
        if os.path.commonpath([real_root, real]) != real_root:
            raise Refused(403, f"{shown}: a symbolic link outside the server's root folder")
        info = os.stat(full)
    if not stat.S_ISREG(info.st_mode):
        raise Refused(400, f"{shown}: not a regular file; not read")
    return info.st_size


def input_size(path: str, real_root: Optional[str] = None, allow_hidden: bool = True) -> int:
    """Bytes the parser would read: the file, or every ``.ir`` file under a dump folder
    (subfolders too: ``verbose_ir_files/``, ``actor_set/``, ``rank_N/``), as the pass
    list walks them. With ``real_root``, a folder's ``.ir`` files must be regular files
    inside it (and not hidden unless ``allow_hidden``): else :class:`Refused`."""
    if not os.path.isdir(path):
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(400, f"{os.path.basename(path)}: not a regular file; not read")
        return info.st_size
    root = real_root or os.path.realpath(path)
    total = entries = 0
    for top, dirs, files in os.walk(path):  # as the pass list: links to folders not walked
        entries += len(dirs) + len(files)
        if entries > FOLDER_MAX_ENTRIES:
            raise Refused(
                413, f"{os.path.basename(path)}: over {FOLDER_MAX_ENTRIES:,} files and folders"
            )
        rel_top = os.path.relpath(top, path)
        for name in files:
            if not name.endswith(".ir"):
                continue
            rel = name if rel_top == "." else os.path.join(rel_top, name)
            if not allow_hidden and any(_is_hidden_name(p) for p in rel.split(os.sep)):
                raise Refused(
                    403,
                    f"{os.path.basename(path)} holds hidden files ({rel}); not shown "
                    "(the server's ContentsManager.allow_hidden is False)",
                )
            total += _check_ir_file(os.path.join(top, name), rel, root)
    return total


def _mindir_graph_bytes(path: str) -> int:
    from ascend_lab.parsers.mindir.mindir_skeleton import read_mindir_skeleton

    return len(read_mindir_skeleton(path)[0])


def _unreadable(exc: BaseException, path: str, message: str) -> Tuple[int, Any]:
    """400 with ``message`` for a file a reader refused, or the 413 of the memory limit
    when the refusal came from a ``MemoryError`` (the readers turn one into their own
    error: it is still the exception's context)."""
    cause: Optional[BaseException] = exc
    for _ in range(8):
        if cause is None:
            break
        if isinstance(cause, MemoryError):
            return 413, {"message": memory_message(os.path.basename(path)), "reason": "memory"}
        cause = cause.__context__
    return 400, {"message": message}


def _count_limit(body: Any) -> Optional[Tuple[int, Any]]:
    """413 when an answer holds more nodes (or edges) than the viewer's limit."""
    graphs = body.get("graphs") if "graphs" in body else {"one": body}
    nodes = sum(len(g.get("nodes") or ()) for g in graphs.values() if isinstance(g, dict))
    edges = sum(len(g.get("edges") or ()) for g in graphs.values() if isinstance(g, dict))
    limit = _env_int(NODES_MAX_ENV, DEFAULT_MAX_NODES)
    if nodes > limit or edges > 4 * limit:
        return 413, {
            "message": f"the graph has {nodes:,} nodes and {edges:,} edges, over the viewer's "
            f"limit of {limit:,} nodes and {4 * limit:,} edges (set {NODES_MAX_ENV} for the "
            "server to allow more)"
        }
    return None


class Where:
    """Which file a request is about: its real path, the server's real root, and whether
    hidden files may be read (``ContentsManager.allow_hidden``)."""

    def __init__(self, path: str, real_root: str, allow_hidden: bool) -> None:
        self.path = path
        self.real_root = real_root
        self.allow_hidden = allow_hidden


def load_payload(where: Where) -> Tuple[int, Any]:
    """``(HTTP status, body)`` for the file or folder of ``where``.

    A dump folder answers its main views and pass list only; each pass's graph is asked for
    when the pass slider reaches it (:func:`load_pass`)."""
    from ascend_lab.viewfile import ViewFileError, payload_for_path
    from ascend_lab.viewfile.sources import DumpFolder, MindirFile, find_kind

    path = where.path
    refusal = _refusal(where)
    if refusal is not None:
        return refusal
    try:
        kind = find_kind(path)  # the source table: the row that opens this path
        if isinstance(kind, DumpFolder):
            source, lock = folder_source(path)
            with lock:
                body = source.to_payload(passes="none")
        else:
            if isinstance(kind, MindirFile):
                graph_bytes = _mindir_graph_bytes(path)
                limit = _env_int(GRAPH_MAX_BYTES_ENV, DEFAULT_GRAPH_MAX_BYTES)
                if graph_bytes > limit:
                    return 413, {
                        "message": f"{os.path.basename(path)}: its graph is {graph_bytes:,} "
                        f"bytes without its weights, over the viewer's limit of {limit:,} "
                        f"(set {GRAPH_MAX_BYTES_ENV} for the server to allow more)"
                    }
            body = payload_for_path(path)
    except (ViewFileError, GraphParseError) as exc:
        return _unreadable(exc, path, str(exc))
    except OSError as exc:
        return 400, {"message": f"{os.path.basename(path)}: cannot read it ({exc.strerror})"}
    return _count_limit(body) or (200, body)


def load_pass(where: Where, index_text: str) -> Tuple[int, Any]:
    """``(HTTP status, body)``: pass ``index`` of the dump folder of ``where``, its graph
    with the diff against the pass before (what the notebook widget gets from its kernel)."""
    from ascend_lab.payload.view_input import pass_snapshot
    from ascend_lab.viewfile import ViewFileError

    path = where.path
    refusal = _refusal(where)
    if refusal is not None:
        return refusal
    if not os.path.isdir(path):
        return 400, {"message": f"{os.path.basename(path)}: passes are a dump folder's"}
    if not (index_text.isascii() and index_text.isdigit() and len(index_text) < 7):
        return 400, {"message": "which pass? (index must be a pass number)"}
    try:
        source, lock = folder_source(path)
        with lock:
            count = len(source.trace.passes)
            index = int(index_text)
            if index >= count:
                return 404, {"message": f"no pass {index}: the folder has {count}"}
            body = pass_snapshot(source, index)
    except ViewFileError as exc:
        return _unreadable(exc, path, str(exc))
    except (GraphParseError, OSError, UnicodeDecodeError) as exc:
        return _unreadable(exc, path, f"pass {index_text}: {exc}")
    return _count_limit(body) or (200, body)


# Dump folders whose passes are being looked at: real path -> (what it was read from, the
# source, a lock: one request at a time walks its pass cache). The newest two are kept, in
# each worker process (a worker that was ended reads its folder again).
_FOLDERS: Dict[str, Tuple[Any, Any, threading.Lock]] = {}
_FOLDERS_KEPT = 2
_FOLDERS_LOCK = threading.Lock()


def _folder_stamp(path: str) -> Any:
    """What a folder's graphs are read from: its .ir files' names, sizes and times."""
    stamp = []
    for root, _dirs, files in os.walk(path):
        for name in files:
            if name.endswith(".ir"):
                info = os.stat(os.path.join(root, name))
                stamp.append((root, name, info.st_size, info.st_mtime_ns))
    return tuple(sorted(stamp))


def folder_source(path: str) -> Tuple[Any, threading.Lock]:
    """The DumpFolderSource of ``path``, read again when its files changed."""
    from ascend_lab.viewfile.sources import view_source

    stamp = _folder_stamp(path)
    with _FOLDERS_LOCK:
        kept = _FOLDERS.pop(path, None)
        if kept is not None and kept[0] == stamp:
            _FOLDERS[path] = kept
            return kept[1], kept[2]
    source = view_source(path)  # lists the dumps: outside the lock, it may take a while
    with _FOLDERS_LOCK:
        _FOLDERS[path] = (stamp, source, threading.Lock())
        while len(_FOLDERS) > _FOLDERS_KEPT:
            del _FOLDERS[next(iter(_FOLDERS))]
        return source, _FOLDERS[path][2]


def load_weight_stats(where: Where, name: str) -> Tuple[int, Any]:
    """``(HTTP status, body)``: statistics of weight ``name`` of the .mindir of ``where``,
    refused (413) over ``ASCEND_LAB_VIEW_MAX_STATS_BYTES`` bytes."""
    from ascend_lab.viewfile.weight_stats import WeightStatsError, WeightStatsLimit, weight_stats

    refusal = _refusal(where)
    if refusal is not None:
        return refusal
    if not name:
        return 400, {"message": "which weight? (the name parameter is missing)"}
    limit = _env_int(STATS_MAX_BYTES_ENV, DEFAULT_STATS_MAX_BYTES)
    try:
        return 200, weight_stats(where.path, name, max_bytes=limit)
    except WeightStatsLimit as exc:
        return 413, {"message": f"{exc} (set {STATS_MAX_BYTES_ENV} for the server to allow more)"}
    except WeightStatsError as exc:
        return 400, {"message": str(exc)}


def _refusal(where: Where) -> Optional[Tuple[int, Any]]:
    """400, 403, 404 or 413 for the path of ``where``, or None when it may be read."""
    path = where.path
    if not os.path.exists(path):
        return 404, {"message": f"{os.path.basename(path)}: no such file or folder"}
    try:
        size = input_size(path, where.real_root, where.allow_hidden)
    except Refused as exc:
        return exc.status, {"message": str(exc)}
    except OSError as exc:
        return 400, {"message": f"{os.path.basename(path)}: cannot read it ({exc.strerror})"}
    return over_limit(f"{os.path.basename(path)} is", size)


def over_limit(what: str, size: int) -> Optional[Tuple[int, Any]]:
    """413 with ``"<what> <size> bytes, over the viewer's limit …"`` when ``size`` is over
    ``ASCEND_LAB_VIEW_MAX_BYTES``, else None (every viewer route answers alike)."""
    limit = max_bytes()
    if size <= limit:
        return None
    return 413, {
        "message": f"{what} {size:,} bytes, over the viewer's limit of {limit:,} bytes "
        f"(set {VIEW_MAX_BYTES_ENV} for the server to allow more)"
    }


def _profile_files_to_read(path: str) -> List[str]:
    """The profiler files a load of ``path`` reads (every rank's, for the rank list)."""
    from ascend_lab.parsers.profiler.profiler_files import find_files
    from ascend_lab.profiling.layout import profiler_folders

    folders = [f.path for f in profiler_folders(path)] or [path]
    out: List[str] = []
    for folder in folders:
        out.extend(find_files(folder).paths.values())
    return out


def _profile_refusal(where: Where) -> Optional[Tuple[int, Any]]:
    path = where.path
    name = os.path.basename(path)
    if not os.path.exists(path):
        return 404, {"message": f"{name}: no such file or folder"}
    if not os.path.isdir(path):
        return 400, {"message": f"{name}: not a folder (a profiler folder is one)"}
    total = 0
    try:
        for full in _profile_files_to_read(path):
            shown = os.path.relpath(full, path)
            if not where.allow_hidden and any(p.startswith(".") for p in shown.split(os.sep)):
                raise Refused(
                    403,
                    f"{name} holds hidden files ({shown}); not shown "
                    "(the server's ContentsManager.allow_hidden is False)",
                )
            total += _check_ir_file(full, shown, where.real_root)
    except Refused as exc:
        return exc.status, {"message": str(exc)}
    except OSError as exc:
        return 400, {"message": f"{name}: cannot read it ({exc.strerror})"}
    return over_limit(f"{name}: its profiler files are", total)


def load_profile_payload(where: Where) -> Tuple[int, Any]:
    """``(HTTP status, body)`` for the profiler folder of ``where``."""
    from ascend_lab.viewfile import ViewFileError
    from ascend_lab.viewfile.sources import profile_folder_payload

    refusal = _profile_refusal(where)
    if refusal is not None:
        return refusal
    try:
        return 200, profile_folder_payload(where.path)
    except ViewFileError as exc:
        return _unreadable(exc, where.path, str(exc))
    except OSError as exc:
        name = os.path.basename(where.path)
        return 400, {"message": f"{name}: cannot read it ({exc.strerror})"}


# the jobs a worker runs, by the name a handler sends
JOBS: Dict[str, Callable[..., Tuple[int, Any]]] = {
    "graph": load_payload,
    "pass": load_pass,
    "weight": load_weight_stats,
    "profile": load_profile_payload,
}


def memory_message(name: str) -> str:
    """The 413 message of a job that ran out of memory (in its worker: the limit
    ``ASCEND_LAB_VIEW_WORKER_MEMORY``)."""
    limit = settings.get(WORKER_MEMORY_ENV)
    return (
        f"{name}: too large to show: reading it needs more memory than the viewer's limit "
        f"of {limit >> 20:,} MiB per worker (set {WORKER_MEMORY_ENV} for the server to "
        "allow more)"
    )


def timeout_answer(name: str, seconds: float) -> Tuple[int, Dict[str, str]]:
    """The 504 of a job that ran past its time limit (``ASCEND_LAB_VIEW_TIMEOUT``), whether
    its reader stopped at the deadline or its worker was ended."""
    return 504, {
        "message": f"{name}: reading it took longer than {seconds:g} s; stopped (set "
        f"{TIMEOUT_ENV} for the server to allow more)",
        "reason": "timeout",
    }


def run_job(job: str, where: Where, *args: Any, seconds: Optional[float] = None) -> Tuple[int, Any]:
    """``JOBS[job](where, *args)`` with every file read confined to the root and a deadline
    ``seconds`` from now (default ``ASCEND_LAB_VIEW_TIMEOUT``). A refusal that comes after
    the deadline is the timeout's 504; an exception no reader foresaw is a 400 naming its
    kind (its text may quote the file: it is not shown)."""
    name = os.path.basename(where.path)
    work = JOBS.get(job)
    if work is None:
        return 400, {"message": f"no such viewer job: {job[:40]!r}"}
    seconds = _timeout() if seconds is None else seconds
    deadline = time.monotonic() + seconds
    try:
        with confined(where.real_root, seconds):
            status, body = work(where, *args)
    except MemoryError:
        return 413, {"message": memory_message(name), "reason": "memory"}
    except RecursionError:
        status, body = 413, {"message": f"{name}: too deeply nested to show (RecursionError)"}
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        status, body = 400, {"message": f"{name}: cannot read it ({why})"}
    except Exception as exc:  # noqa: BLE001 - the answer must be a 4xx, never a traceback
        status, body = 400, {"message": f"{name}: cannot be shown ({type(exc).__name__})"}
    if status != 200 and time.monotonic() > deadline:
        return timeout_answer(name, seconds)
    return status, body

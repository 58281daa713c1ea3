"""``GET {base_url}ascend-lab/api/graph?path=<path>``: a .mindir, .ir or dump folder under
the server's root -> the ``ascend-lab.graph/1`` payload, for the JupyterLab document viewer.

The path is relative to the contents manager's root and must stay inside it (symlinks are
resolved first; a dump folder's ``.ir`` files that are links leaving the root are refused
too). Hidden files and folders are refused unless ``ContentsManager.allow_hidden``. Only
regular files are read (a FIFO named ``x.ir`` is refused, not waited on). Limits, each
answered with 413 and a message saying how to allow more:

- ``ASCEND_LAB_VIEW_MAX_BYTES`` (default 1 GiB): the file, or every ``.ir`` file of a
  folder, subfolders included;
- ``ASCEND_LAB_VIEW_MAX_GRAPH_BYTES`` (default 16 MiB): a ``.mindir``'s graph without its
  weights' bytes (it grows about 75x in memory when parsed);
- ``ASCEND_LAB_VIEW_MAX_NODES`` (default 250,000; edges 4x): nodes of one answer;
- ``ASCEND_LAB_VIEW_MAX_STATS_BYTES`` (default 256 MiB): one weight's bytes for its
  statistics.

Parsing runs in the viewer's own two worker threads (a few requests may wait; more are
answered 503), within ``ASCEND_LAB_VIEW_TIMEOUT`` seconds (default 120; else 504), so the
server keeps answering meanwhile. Each request runs
:func:`~ascend_lab.parsers.regular_file.confined` to the root and its deadline: every file
any reader opens for it (a profiler folder's CSV reached through the graph route included)
must be a regular file inside the root, and the readers' loops stop at the deadline, so a
worker that overran is returned to the pool soon after its 504 (issue #37). The workers are
daemon threads: SIGTERM stops the server whatever they are doing. An error no reader
foresaw answers 400 naming its kind, never a traceback. Errors answer ``{"message": ...}``
with 400 (cannot be read), 403 (outside the root), 404 (missing, or hidden). Answers name
files relative to the root: the server's own folders are never shown.

A dump folder answers its main views and pass list; ``GET {base_url}ascend-lab/api/graph/
pass?path=<folder>&index=<n>`` answers one pass's graph with its diff when the viewer's pass
slider reaches it (the folder's trace is kept for the next request, read again when its
files change), so a 32-layer LLM's hundred passes are never sent or held at once.

``GET {base_url}ascend-lab/api/graph/weight?path=<path>&name=<weight>``: the statistics of
one weight of a ``.mindir`` (:func:`ascend_lab.viewfile.weight_stats.weight_stats`), read
from its bytes on disk in bounded chunks, for the node panel's "Statistics" button; the
same confinement, limits and error answers.
"""

import asyncio
import json
import os
import queue
import stat
import threading
from concurrent.futures import Future
from typing import Any, Callable, Dict, Optional, Tuple

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

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
FOLDER_MAX_ENTRIES = 100_000  # files and folders a dump folder may hold

# parsing runs here, never in the server's shared executor: a request that hangs (a file
# that cannot be read to its end) holds one of these threads, and the rest of the server
# (contents, kernels) keeps its own
_WORKERS = 2
_QUEUED = 4
_SLOTS = threading.BoundedSemaphore(_WORKERS + _QUEUED)


class _DaemonPool:
    """A fixed pool of daemon threads (``ThreadPoolExecutor`` joins its threads at exit:
    one stuck worker kept the server from stopping on SIGTERM)."""

    def __init__(self, workers: int, name: str) -> None:
        self._jobs: Any = queue.Queue()  # of (future, work, args)
        self._threads = [
            threading.Thread(target=self._run, name=f"{name}_{i}", daemon=True)
            for i in range(workers)
        ]
        self._started = False
        self._lock = threading.Lock()

    def _run(self) -> None:
        while True:
            future, work, args = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work(*args))
            except BaseException as exc:  # handed to the awaiting request
                future.set_exception(exc)

    def submit(self, work: Callable[..., Any], *args: Any) -> Future:
        with self._lock:
            if not self._started:
                for thread in self._threads:
                    thread.start()
                self._started = True
        future: Future = Future()
        self._jobs.put((future, work, args))
        return future


_POOL = _DaemonPool(_WORKERS, "ascend-lab-view")


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
    """``(HTTP status, body)`` for the file or folder of ``where`` (runs in a worker
    thread).

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
    except ViewFileError as exc:
        return 400, {"message": str(exc)}
    except GraphParseError as exc:
        return 400, {"message": str(exc)}
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
        return 400, {"message": str(exc)}
    except (GraphParseError, OSError, UnicodeDecodeError) as exc:
        return 400, {"message": f"pass {index_text}: {exc}"}
    return _count_limit(body) or (200, body)


# Dump folders whose passes are being looked at: real path -> (what it was read from, the
# source, a lock: one request at a time walks its pass cache). The newest two are kept.
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


def _relative_text(text: str, real_root: str) -> str:
    """JSON text without the server's root folder: every path under it is relative
    (``graph.file``, messages, source locations); the root itself shows as ``.``."""
    quoted = json.dumps(real_root + os.sep)[1:-1]
    bare = json.dumps(real_root)[1:-1]
    return text.replace(quoted, "").replace(f'"{bare}"', '"."')


async def run_bounded(work: Callable[..., Tuple[int, Any]], *args: Any) -> Tuple[int, Any]:
    """``work(*args)`` in the viewer's own threads, within ``ASCEND_LAB_VIEW_TIMEOUT``
    seconds: 503 when every thread and queue place is taken, 504 when it took too long
    (the thread finishes, or stays stuck, on its own; its place is freed when it ends)."""
    if not _SLOTS.acquire(blocking=False):
        return 503, {"message": "the viewer is busy with other files; try again shortly"}
    try:
        future = _POOL.submit(work, *args)
    except BaseException:
        _SLOTS.release()
        raise
    future.add_done_callback(lambda _done: _SLOTS.release())
    timeout = _timeout()
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), timeout=timeout)
    except asyncio.TimeoutError:
        return 504, {"message": f"reading the file took longer than {timeout:g} s ({TIMEOUT_ENV})"}


def _confined_work(
    work: Callable[..., Tuple[int, Any]], where: Where, *args: Any
) -> Tuple[int, Any]:
    """``work(where, *args)`` with every file read confined to the root and the request's
    deadline (module doc); an exception no reader foresaw is a 400 naming its kind (its
    text may quote the file: it is not shown)."""
    try:
        with confined(where.real_root, _timeout()):
            return work(where, *args)
    except (MemoryError, RecursionError) as exc:
        name = os.path.basename(where.path)
        why = type(exc).__name__
        return 413, {"message": f"{name}: too large or too deeply nested to show ({why})"}
    except OSError as exc:
        name = os.path.basename(where.path)
        return 400, {"message": f"{name}: cannot read it ({exc.strerror or type(exc).__name__})"}
    except Exception as exc:  # noqa: BLE001 - the answer must be a 4xx, never a traceback
        name = os.path.basename(where.path)
        return 400, {"message": f"{name}: cannot be shown ({type(exc).__name__})"}


class _UnderRootHandler(APIHandler):
    """Answers about one path under the server's root, worked out in a worker thread."""

    async def _answer_for(self, work: Callable[..., Tuple[int, Any]], *args: str) -> None:
        relative = self.get_argument("path", "")
        root = self.settings.get("server_root_dir") or self.contents_manager.root_dir
        real_root = os.path.realpath(root)
        allow_hidden = bool(getattr(self.contents_manager, "allow_hidden", False))
        try:
            path = resolve_under_root(real_root, relative, allow_hidden)
        except ValueError as exc:
            self._answer(403, {"message": str(exc)})
            return
        except Refused as exc:
            self._answer(exc.status, {"message": str(exc)})
            return
        where = Where(path, real_root, allow_hidden)
        status, body = await run_bounded(_confined_work, work, where, *args)
        if status != 200:
            # paths in messages are the user's own, relative to the root they browse
            body["message"] = body["message"].replace(os.path.dirname(path) + os.sep, "")
        self._answer(status, body, real_root)

    def _answer(self, status: int, body: Any, real_root: Optional[str] = None) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        text = json.dumps(body)
        self.finish(_relative_text(text, real_root) if real_root else text)


class GraphFileHandler(_UnderRootHandler):
    """The payload of one graph file or dump folder under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for(load_payload)


class GraphPassHandler(_UnderRootHandler):
    """One pass's graph of a dump folder under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for(load_pass, self.get_argument("index", ""))


class WeightStatsHandler(_UnderRootHandler):
    """The statistics of one weight of a .mindir under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for(load_weight_stats, self.get_argument("name", ""))


def setup_file_handlers(serverapp: Any) -> None:
    base_url = serverapp.web_app.settings["base_url"]
    route = url_path_join(base_url, "ascend-lab", "api", "graph")
    serverapp.web_app.add_handlers(
        ".*$",
        [
            (route, GraphFileHandler),
            (url_path_join(route, "pass"), GraphPassHandler),
            (url_path_join(route, "weight"), WeightStatsHandler),
        ],
    )

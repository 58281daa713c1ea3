"""``GET {base_url}ascend-lab/api/graph?path=<path>``: a .mindir, .ir or dump folder under
the server's root -> the ``ascend-lab.graph/1`` payload, for the JupyterLab document viewer.

The path is relative to the contents manager's root and must stay inside it (symlinks are
resolved first). Files (or a folder's ``.ir`` files together) larger than
``ASCEND_LAB_VIEW_MAX_BYTES`` (default 1 GiB) are refused with 413 and a message saying how
to allow more. Parsing runs in a worker thread, so the server keeps answering meanwhile.
Errors answer ``{"message": ...}`` with 400 (cannot be read), 403 (outside the root), 404.

A dump folder answers its main views and pass list; ``GET {base_url}ascend-lab/api/graph/
pass?path=<folder>&index=<n>`` answers one pass's graph with its diff when the viewer's pass
slider reaches it (the folder's trace is kept for the next request, read again when its
files change), so a 32-layer LLM's hundred passes are never sent or held at once.

``GET {base_url}ascend-lab/api/graph/weight?path=<path>&name=<weight>``: the statistics of
one weight of a ``.mindir`` (:func:`ascend_lab.viewfile.weight_stats.weight_stats`), read
from its bytes on disk in bounded chunks, for the node panel's "Statistics" button; the
same confinement, limit and error answers.
"""

import json
import os
import threading
from typing import Any, Callable, Dict, Optional, Tuple

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado.ioloop import IOLoop

from ..graph.errors import GraphParseError

VIEW_MAX_BYTES_ENV = "ASCEND_LAB_VIEW_MAX_BYTES"
DEFAULT_MAX_BYTES = 1 << 30


def max_bytes() -> int:
    text = os.environ.get(VIEW_MAX_BYTES_ENV, "").strip().replace("_", "")
    return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_MAX_BYTES


def resolve_under_root(root: str, relative: str) -> str:
    """The real path of ``relative`` under ``root``; ValueError if it leaves the root."""
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, relative.lstrip("/")))
    if os.path.commonpath([real_root, target]) != real_root:
        raise ValueError(f"{relative}: outside the server's root folder")
    return target


def input_size(path: str) -> int:
    """Bytes the parser would read: the file, or a dump folder's .ir files (one level, and
    one ``rank_N`` level below)."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    total = 0
    for folder in [path] + [
        os.path.join(path, n) for n in os.listdir(path) if n.startswith("rank_")
    ]:
        if os.path.isdir(folder):
            for entry in os.scandir(folder):
                if entry.name.endswith(".ir") and entry.is_file():
                    total += entry.stat().st_size
    return total


def load_payload(path: str) -> Tuple[int, Any]:
    """``(HTTP status, body)`` for the real path ``path`` (runs in a worker thread).

    A dump folder answers its main views and pass list only; each pass's graph is asked for
    when the pass slider reaches it (:func:`load_pass`)."""
    from ..viewfile import ViewFileError, payload_for_path

    refusal = _refusal(path)
    if refusal is not None:
        return refusal
    try:
        if os.path.isdir(path):
            source, lock = folder_source(path)
            with lock:
                return 200, source.to_payload(passes="none")
        return 200, payload_for_path(path)
    except ViewFileError as exc:
        return 400, {"message": str(exc)}


def load_pass(path: str, index_text: str) -> Tuple[int, Any]:
    """``(HTTP status, body)``: pass ``index`` of the dump folder at ``path``, its graph
    with the diff against the pass before (what the notebook widget gets from its kernel)."""
    from ..payload.view_input import pass_snapshot
    from ..viewfile import ViewFileError

    refusal = _refusal(path)
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
            return 200, pass_snapshot(source, index)
    except ViewFileError as exc:
        return 400, {"message": str(exc)}
    except (GraphParseError, OSError, UnicodeDecodeError) as exc:
        return 400, {"message": f"pass {index_text}: {exc}"}


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
    from ..viewfile.sources import view_source

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


def load_weight_stats(path: str, name: str) -> Tuple[int, Any]:
    """``(HTTP status, body)``: statistics of weight ``name`` of the .mindir at ``path``."""
    from ..viewfile.weight_stats import WeightStatsError, weight_stats

    refusal = _refusal(path)
    if refusal is not None:
        return refusal
    if not name:
        return 400, {"message": "which weight? (the name parameter is missing)"}
    try:
        return 200, weight_stats(path, name)
    except WeightStatsError as exc:
        return 400, {"message": str(exc)}


def _refusal(path: str) -> Optional[Tuple[int, Any]]:
    """404 or 413 for ``path``, or None when it may be read."""
    if not os.path.exists(path):
        return 404, {"message": f"{os.path.basename(path)}: no such file or folder"}
    size = input_size(path)
    limit = max_bytes()
    if size > limit:
        return 413, {
            "message": f"{os.path.basename(path)} is {size:,} bytes, over the viewer's limit "
            f"of {limit:,} bytes (set {VIEW_MAX_BYTES_ENV} for the server to allow more)"
        }
    return None


class _UnderRootHandler(APIHandler):
    """Answers about one path under the server's root, worked out in a worker thread."""

    async def _answer_for(self, work: Callable[..., Tuple[int, Any]], *args: str) -> None:
        relative = self.get_argument("path", "")
        root = self.settings.get("server_root_dir") or self.contents_manager.root_dir
        try:
            path = resolve_under_root(root, relative)
        except ValueError as exc:
            self._answer(403, {"message": str(exc)})
            return
        status, body = await IOLoop.current().run_in_executor(None, work, path, *args)
        if status != 200:
            # paths in messages are the user's own, relative to the root they browse
            body["message"] = body["message"].replace(os.path.dirname(path) + os.sep, "")
        self._answer(status, body)

    def _answer(self, status: int, body: Any) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(body))


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

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

Parsing runs in the viewer's worker processes (:mod:`.worker_pool`; the work itself is
:mod:`.view_jobs`), so the server keeps answering meanwhile and no request can hold it:
``ASCEND_LAB_VIEW_WORKERS`` workers (default 2; a few requests may wait, more are answered
503), each job within ``ASCEND_LAB_VIEW_TIMEOUT`` seconds (default 120; else 504, and a
worker that overran is ended by its PID and replaced) and within
``ASCEND_LAB_VIEW_WORKER_MEMORY`` of memory (default 1 GiB; else 413). Each job runs
:func:`~ascend_lab.parsers.regular_file.confined` to the root and its deadline: every file
any reader opens for it (a profiler folder's CSV reached through the graph route included)
must be a regular file inside the root. An error no reader foresaw answers 400 naming its
kind, never a traceback. Errors answer ``{"message": ...}`` with 400 (cannot be read), 403
(outside the root), 404 (missing, or hidden). Answers name files relative to the root: the
server's own folders are never shown.

A dump folder answers its main views and pass list; ``GET {base_url}ascend-lab/api/graph/
pass?path=<folder>&index=<n>`` answers one pass's graph with its diff when the viewer's pass
slider reaches it (the folder's trace is kept for the next request, read again when its
files change; each worker keeps the two folders it saw last), so a 32-layer LLM's hundred
passes are never sent or held at once.

``GET {base_url}ascend-lab/api/graph/weight?path=<path>&name=<weight>``: the statistics of
one weight of a ``.mindir`` (:func:`ascend_lab.viewfile.weight_stats.weight_stats`), read
from its bytes on disk in bounded chunks, for the node panel's "Statistics" button; the
same confinement, limits and error answers.
"""

import json
import os
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from ascend_lab.server.view_jobs import Refused, Where, resolve_under_root
from ascend_lab.server.worker_pool import POOL


def _relative_text(text: str, real_root: str) -> str:
    """JSON text without the server's root folder: every path under it is relative
    (``graph.file``, messages, source locations); the root itself shows as ``.``."""
    quoted = json.dumps(real_root + os.sep)[1:-1]
    bare = json.dumps(real_root)[1:-1]
    return text.replace(quoted, "").replace(f'"{bare}"', '"."')


class _UnderRootHandler(APIHandler):
    """Answers about one path under the server's root, worked out by a job
    (:data:`~ascend_lab.server.view_jobs.JOBS`) in the viewer's worker processes."""

    async def _answer_for(self, job: str, *args: str) -> None:
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
        status, body = await POOL.run(job, Where(path, real_root, allow_hidden), *args)
        text = body.decode("utf-8")
        if status != 200:
            # paths in messages are the user's own, relative to the root they browse
            error = json.loads(text)
            error["message"] = error["message"].replace(os.path.dirname(path) + os.sep, "")
            text = json.dumps(error)
        self._send(status, _relative_text(text, real_root))

    def _answer(self, status: int, body: Any) -> None:
        self._send(status, json.dumps(body))

    def _send(self, status: int, text: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(text)


class GraphFileHandler(_UnderRootHandler):
    """The payload of one graph file or dump folder under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for("graph")


class GraphPassHandler(_UnderRootHandler):
    """One pass's graph of a dump folder under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for("pass", self.get_argument("index", ""))


class WeightStatsHandler(_UnderRootHandler):
    """The statistics of one weight of a .mindir under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for("weight", self.get_argument("name", ""))


def setup_file_handlers(serverapp: Any) -> None:
    POOL.log = serverapp.log  # workers start with the first request, not here
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

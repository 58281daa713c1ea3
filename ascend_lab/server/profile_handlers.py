"""``GET {base_url}ascend-lab/api/profile?path=<folder>``: a profiler folder under the
server's root -> the ``ascend-lab.graph/1`` payload with its ``profile`` section (no graph),
for JupyterLab's "Open as ascend-lab profile" on a folder.

The folder is what :func:`ascend_lab.viewfile.sources.profile_folder_payload` reads: one
rank's ``*_ascend_ms`` / ``*_ascend_pt`` folder, the folder holding one per rank (the
lowest analysed rank is shown, the others listed), or MindSpore's CPU profiler output.
The same confinement, limits, worker threads and answers as the graph files
(:mod:`.file_handlers`): the path stays under the root (symlinks resolved), hidden parts
are refused unless ``ContentsManager.allow_hidden``, every file that would be read must be
a regular file inside the root, and their bytes together stay under
``ASCEND_LAB_VIEW_MAX_BYTES``. A folder whose raw ``PROF_*`` data was never analysed is
answered 400 with the command that analyses it. Paths in answers are relative to the root.
"""

import os
from typing import Any, List, Optional, Tuple

import tornado.web
from jupyter_server.utils import url_path_join

from ascend_lab.server.file_handlers import (
    Refused,
    Where,
    _check_ir_file,
    _UnderRootHandler,
    over_limit,
)


def _files_to_read(path: str) -> List[str]:
    """The profiler files a load of ``path`` reads (every rank's, for the rank list)."""
    from ascend_lab.parsers.profiler.profiler_files import find_files
    from ascend_lab.profiling.layout import profiler_folders

    folders = [f.path for f in profiler_folders(path)] or [path]
    out: List[str] = []
    for folder in folders:
        out.extend(find_files(folder).paths.values())
    return out


def _refusal(where: Where) -> Optional[Tuple[int, Any]]:
    path = where.path
    name = os.path.basename(path)
    if not os.path.exists(path):
        return 404, {"message": f"{name}: no such file or folder"}
    if not os.path.isdir(path):
        return 400, {"message": f"{name}: not a folder (a profiler folder is one)"}
    total = 0
    try:
        for full in _files_to_read(path):
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
    """``(HTTP status, body)`` for the profiler folder of ``where`` (in a worker thread)."""
    from ascend_lab.viewfile import ViewFileError
    from ascend_lab.viewfile.sources import profile_folder_payload

    refusal = _refusal(where)
    if refusal is not None:
        return refusal
    try:
        return 200, profile_folder_payload(where.path)
    except ViewFileError as exc:
        return 400, {"message": str(exc)}
    except OSError as exc:
        name = os.path.basename(where.path)
        return 400, {"message": f"{name}: cannot read it ({exc.strerror})"}


class ProfileFolderHandler(_UnderRootHandler):
    """The profile payload of one profiler folder under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for(load_profile_payload)


def setup_profile_handlers(serverapp: Any) -> None:
    base_url = serverapp.web_app.settings["base_url"]
    route = url_path_join(base_url, "ascend-lab", "api", "profile")
    serverapp.web_app.add_handlers(".*$", [(route, ProfileFolderHandler)])

"""``GET {base_url}ascend-lab/api/profile?path=<folder>``: a profiler folder under the
server's root -> the ``ascend-lab.graph/1`` payload with its ``profile`` section (no graph),
for JupyterLab's "Open as ascend-lab profile" on a folder.

The folder is what :func:`ascend_lab.viewfile.sources.profile_folder_payload` reads: one
rank's ``*_ascend_ms`` / ``*_ascend_pt`` folder, the folder holding one per rank (the
lowest analysed rank is shown, the others listed), or MindSpore's CPU profiler output.
The same confinement, limits, worker processes and answers as the graph files
(:mod:`.file_handlers`; the work: :func:`.view_jobs.load_profile_payload`): the path stays
under the root (symlinks resolved), hidden parts are refused unless
``ContentsManager.allow_hidden``, every file that would be read must be a regular file
inside the root, and their bytes together stay under ``ASCEND_LAB_VIEW_MAX_BYTES``. A
folder whose raw ``PROF_*`` data was never analysed is answered 400 with the command that
analyses it. Paths in answers are relative to the root.
"""

from typing import Any

import tornado.web
from jupyter_server.utils import url_path_join

from ascend_lab.server.file_handlers import _UnderRootHandler


class ProfileFolderHandler(_UnderRootHandler):
    """The profile payload of one profiler folder under the server's root."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self._answer_for("profile")


def setup_profile_handlers(serverapp: Any) -> None:
    base_url = serverapp.web_app.settings["base_url"]
    route = url_path_join(base_url, "ascend-lab", "api", "profile")
    serverapp.web_app.add_handlers(".*$", [(route, ProfileFolderHandler)])

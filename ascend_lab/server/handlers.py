"""Authenticated REST handlers of the server extension."""

import json
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from ..i18n import from_accept_language
from ..i18n.status_display import with_display
from . import kernel_env
from .cache import StatusCache, hub_probe
from .config import AscendLabServerConfig
from .course_locator import locate_course

NAMESPACE = "ascend-lab"


class StatusHandler(APIHandler):
    """``GET {base_url}ascend-lab/api/status``: the device status JSON.

    ``?lang=zh_CN`` (the front end passes JupyterLab's display language; else the
    request's Accept-Language) adds a ``display`` object with the shown texts translated;
    every other field stays English."""

    def initialize(self, cache: StatusCache) -> None:
        self.cache = cache

    @tornado.web.authenticated
    async def get(self) -> None:
        refresh = self.get_argument("refresh", "0").lower() in ("1", "true", "yes")
        text = await self.cache.get_json(refresh=refresh)
        lang = self.get_argument("lang", "") or from_accept_language(
            self.request.headers.get("Accept-Language")
        )
        text = with_display(text, lang)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(text)


class CourseHandler(APIHandler):
    """``GET {base_url}ascend-lab/api/course``: where the course's first notebook is."""

    def initialize(self, config: AscendLabServerConfig) -> None:
        self.ext_config = config

    @tornado.web.authenticated
    def get(self) -> None:
        root_dir = self.settings.get("server_root_dir") or self.contents_manager.root_dir
        try:
            kernel_names = list(self.kernel_spec_manager.find_kernel_specs())
        except Exception:  # a broken kernelspec must not hide the course
            kernel_names = []
        # ?lang= (the Launcher card passes JupyterLab's language) picks the course edition
        lang = self.get_argument("lang", "") or from_accept_language(
            self.request.headers.get("Accept-Language")
        )
        config = self.ext_config
        self.finish(json.dumps(locate_course(config.course_dir, root_dir, kernel_names, lang)))


def setup_handlers(serverapp: Any, config: AscendLabServerConfig) -> StatusCache:
    web_app = serverapp.web_app
    base_url = web_app.settings["base_url"]
    cache = StatusCache(
        cache_seconds=config.cache_seconds,
        timeout=config.timeout,
        probe=hub_probe(
            kernel_env.server_probe(
                config.kernel_name, serverapp.kernel_spec_manager.find_kernel_specs
            )
        ),
        extra_wait=kernel_env.START_SECONDS,
    )
    web_app.settings["ascend_lab_status_cache"] = cache
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base_url, NAMESPACE, "api", "status"), StatusHandler, {"cache": cache}),
            (
                url_path_join(base_url, NAMESPACE, "api", "course"),
                CourseHandler,
                {"config": config},
            ),
        ],
    )
    return cache

"""Authenticated REST handlers of the server extension."""

import json
import os
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from ascend_lab.i18n import from_accept_language
from ascend_lab.render.device_json import with_display
from ascend_lab.server import kernel_env
from ascend_lab.server.cache import HUB_SERVICE_URL, StatusCache, hub_probe
from ascend_lab.server.config import AscendLabServerConfig
from ascend_lab.server.course_locator import locate_course

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


# An instructor's class view for 40 learners is tens of KiB.
MAX_CLASS_BYTES = 4 * 1024 * 1024


class ClassHandler(APIHandler):
    """``GET {base_url}ascend-lab/api/class``: the hub service's instructor view, asked with
    this server's hub token (it carries the admin scope only on an instructor's server).
    404 when not under the hub service, the service's 403 for a learner."""

    @tornado.web.authenticated
    async def get(self) -> None:
        from tornado.httpclient import AsyncHTTPClient, HTTPClientError

        url = os.environ.get(HUB_SERVICE_URL, "")
        token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
        if not url.startswith(("http://", "https://")) or not token:
            raise tornado.web.HTTPError(404, "not under the ascend-lab hub service")
        try:
            response = await AsyncHTTPClient(max_body_size=MAX_CLASS_BYTES).fetch(
                url.rstrip("/") + "/api/class",
                headers={"Authorization": "token " + token},
                request_timeout=10.0,
            )
        except HTTPClientError as e:
            code = e.code if e.code in (403, 404) else 502
            raise tornado.web.HTTPError(code, f"the hub service answered HTTP {e.code}") from None
        except OSError as e:
            raise tornado.web.HTTPError(502, f"the hub service did not answer: {e}") from None
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(response.body)


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
            (url_path_join(base_url, NAMESPACE, "api", "class"), ClassHandler),
            (
                url_path_join(base_url, NAMESPACE, "api", "course"),
                CourseHandler,
                {"config": config},
            ),
        ],
    )
    return cache

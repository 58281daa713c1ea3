"""The ascend-lab hub service: one ``npu-smi`` probe per interval, status for every hub user.

Started by JupyterHub as a managed service (see ``configure_hub``)::

    python -m ascend_lab.hub.service --state SEATS.json [--interval 5] [--npu-smi PATH]

It listens where ``JUPYTERHUB_SERVICE_URL`` says and serves under
``JUPYTERHUB_SERVICE_PREFIX`` (``/services/ascend-lab/``), both set by the hub:

- ``GET <prefix>api/status``: JSON for the user behind the request (a hub API token in
  ``Authorization: token …``, or the service's OAuth cookie). Learners see their chips;
  holders of ``custom:ascend-lab:admin`` (or hub admins) see all chips and whose each
  process is (from the servers' process trees or real uids, never a process's environment;
  see ``owners``). Unauthenticated: 403, never a redirect.
- ``GET <prefix>api/class``: instructors only (else 403): one row per learner's server with
  its chip, the chip's HBM use, the learner's processes and how long the hub has not seen
  them (``last_activity`` from the hub's REST API, read with the service's own token).
- ``GET <prefix>``: the same, for a browser (logs in through the hub's OAuth first).

One background loop runs the probe; requests only read its last snapshot, so forty
learners polling cost one ``npu-smi`` per interval.
"""

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from typing import Any, List, Optional
from urllib.parse import urlparse

from ascend_lab.hub.allocator import StateFileError, read_seats
from ascend_lab.hub.owners import process_owners
from ascend_lab.hub.views import (
    MAX_USERS_BYTES,
    Snapshot,
    class_view,
    is_instructor,
    last_activity_of,
    status_for,
)
from ascend_lab.parsers import npu_smi
from ascend_lab.probes import npu_smi_runner

log = logging.getLogger("ascend_lab.hub.service")


class Prober:
    """Runs ``npu-smi info`` once per interval in a worker thread; keeps the last snapshot."""

    def __init__(self, executable: Optional[str], interval: float, timeout: float) -> None:
        self.executable = executable
        self.interval = interval
        self.timeout = timeout
        self.snapshot = Snapshot(interval=interval)

    async def probe_once(self) -> None:
        exe = self.executable or npu_smi_runner.find_npu_smi()
        runs = self.snapshot.runs + 1
        if exe is None:
            self.snapshot = Snapshot(
                None, "npu-smi not found", time.time(), 0.0, runs, self.interval
            )
            return
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(
            None, npu_smi_runner.run_npu_smi, exe, ["info"], self.timeout
        )
        info = npu_smi.parse_info(result.stdout) if result.ok else None
        reason = result.reason if info is None else ""
        if info is not None and not info.chips:
            info, reason = None, "npu-smi info listed no chips"
        self.snapshot = Snapshot(info, reason, time.time(), result.seconds, runs, self.interval)

    async def run_forever(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.probe_once()
            except Exception:  # a bug in one probe must not stop the next ones
                log.exception("ascend-lab: probe failed")
            await asyncio.sleep(max(0.0, self.interval - (time.monotonic() - started)))


def make_app(prober: Prober, state_path: str, prefix: str) -> Any:
    """The tornado application (JupyterHub's auth classes are imported only here)."""
    from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
    from jupyterhub.utils import url_path_join
    from tornado import web

    class StatusHandler(HubOAuthenticated, web.RequestHandler):
        async def prepare(self) -> None:
            # Ask the hub who this is without blocking the event loop: the synchronous lookup
            # tornado's current_user does would stall every request behind each token's first
            # check (a class logging in at once). The answer is cached on the handler.
            await self.hub_auth.get_user(self, sync=False)

        def _status(self, user: Any) -> Any:
            admin = is_instructor(user)
            try:
                seats = read_seats(state_path)
            except StateFileError as e:
                self.set_status(500)
                return {"error": str(e)}
            owners = process_owners(seats)  # the servers' process trees, or real uids
            return status_for(prober.snapshot, seats, user["name"], admin, owners)

        def _send(self, doc: Any) -> None:
            self.set_header("Content-Type", "application/json; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(json.dumps(doc))

    class ApiStatusHandler(StatusHandler):
        def get(self) -> None:
            user = self.current_user
            if not user:
                raise web.HTTPError(403, "a hub token with access to this service is needed")
            self._send(self._status(user))

    class ApiClassHandler(StatusHandler):
        async def get(self) -> None:
            user = self.current_user
            if not user or not is_instructor(user):
                raise web.HTTPError(403, "the class view is for instructors")
            status = self._status(user)
            if "error" in status:
                return self._send(status)
            users, why = await _hub_users()
            now = time.time()
            rows = class_view(status, last_activity_of(users), now)
            self._send({"learners": rows, "activity_error": why, "probe": status["probe"]})

    class PageHandler(StatusHandler):
        @web.authenticated
        def get(self) -> None:
            self._send(self._status(self.current_user))

    return web.Application(
        [
            (url_path_join(prefix, "api/status"), ApiStatusHandler),
            (url_path_join(prefix, "api/class"), ApiClassHandler),
            (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
            (prefix, PageHandler),
        ],
        cookie_secret=os.urandom(32),
    )


async def _hub_users() -> Any:
    """``(the hub's GET /users list, "")`` or ``(None, why not)``, with the service's token."""
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError

    api = os.environ.get("JUPYTERHUB_API_URL", "")
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
    if not api or not token:
        return None, "JUPYTERHUB_API_URL or JUPYTERHUB_API_TOKEN is not set"
    try:
        response = await AsyncHTTPClient(max_body_size=MAX_USERS_BYTES).fetch(
            api.rstrip("/") + "/users",
            headers={"Authorization": "token " + token},
            request_timeout=10.0,
        )
        return json.loads(response.body.decode("utf-8")), ""
    except HTTPClientError as e:
        return None, f"the hub's /users answered HTTP {e.code}"
    except (OSError, ValueError) as e:
        return None, f"the hub's /users could not be read: {type(e).__name__}"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ascend_lab.hub.service")
    parser.add_argument("--state", required=True, help="the seat file configure_hub uses")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between probes")
    parser.add_argument("--timeout", type=float, default=10.0, help="npu-smi timeout (s)")
    parser.add_argument("--npu-smi", default=None, help="path of npu-smi (default: PATH)")
    args = parser.parse_args(argv)
    if args.interval <= 0:
        parser.error("--interval must be positive")
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[ascend-lab service %(asctime)s] %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/ascend-lab/")
    asyncio.run(_serve(args, url.hostname or "127.0.0.1", url.port or 10101, prefix))
    return 0


async def _serve(args: argparse.Namespace, host: str, port: int, prefix: str) -> None:
    prober = Prober(args.npu_smi, args.interval, args.timeout)
    app = make_app(prober, args.state, prefix)
    app.listen(port, address=host)
    log.info("serving %s on %s:%s, one npu-smi probe every %g s", prefix, host, port, args.interval)
    await prober.run_forever()


if __name__ == "__main__":
    sys.exit(main())

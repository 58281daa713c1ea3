"""Start the trial hub (deploy/jupyterhub/jupyterhub_config.py) for real on 127.0.0.1.

The hub runs in its own process group with the fake npu-smi machine on PATH; a small
config file loads the deploy config and adds one admin service token for the test.
"""

import os
import signal
import subprocess
import sys
import time
from typing import Any, Dict, Optional

import requests

from benchmarks.support.lab import free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY_CONFIG = os.path.join(REPO, "deploy", "jupyterhub", "jupyterhub_config.py")
ADMIN_TOKEN = "ascend-lab-hub-test-admin-token-0123456789"
# the trial hub does not start without them (settings may override or blank them)
LEARNER_PASSWORD = "learners-test-password"
INSTRUCTOR_PASSWORD = "instructors-test-password-0123"

_TEST_CONFIG = """
load_subconfig({deploy!r})
c = get_config()
c.JupyterHub.services.append({{"name": "test-admin", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{
    "name": "test-admin",
    "scopes": ["admin:users", "admin:servers", "admin:server_state", "tokens", "list:users"],
    "services": ["test-admin"],
}})
c.JupyterHub.log_level = "INFO"
# Ten servers start at once on a small shared machine: give them time, not failures.
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}  # POST .../server answers at once
"""


class Hub:
    def __init__(self, workdir: str, env: Dict[str, str], settings: Dict[str, str]) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.env = dict(env)
        self.env.update(
            {
                "ASCEND_LAB_HUB_DIR": os.path.join(workdir, "hub"),
                "ASCEND_LAB_HUB_PORT": str(self.port),
                "ASCEND_LAB_HUB_API_PORT": str(free_port()),
                "ASCEND_LAB_HUB_PROXY_API_PORT": str(free_port()),
                "ASCEND_LAB_HUB_SERVICE_PORT": str(free_port()),
                "ASCEND_LAB_HUB_PASSWORD": LEARNER_PASSWORD,
                "ASCEND_LAB_HUB_INSTRUCTOR_PASSWORD": INSTRUCTOR_PASSWORD,
            }
        )
        self.env.update(settings)
        bin_dir = os.path.dirname(sys.executable)
        self.env["PATH"] = self.env["PATH"] + os.pathsep + bin_dir
        self.url = f"http://127.0.0.1:{self.port}"
        self.seats_path = os.path.join(workdir, "hub", "seats.json")
        self.log_path = os.path.join(workdir, "hub.log")
        self.proc: Optional[subprocess.Popen[bytes]] = None

    def start(self, timeout: float = 90) -> "Hub":
        config = os.path.join(self.workdir, "test_jupyterhub_config.py")
        with open(config, "w") as f:
            f.write(_TEST_CONFIG.format(deploy=DEPLOY_CONFIG, token=ADMIN_TOKEN))
        jupyterhub = os.path.join(os.path.dirname(sys.executable), "jupyterhub")
        with open(self.log_path, "wb") as logf:
            self.proc = subprocess.Popen(
                [jupyterhub, "-f", config],
                cwd=self.workdir,
                env=self.env,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("jupyterhub exited:\n" + self.log_tail())
            try:
                if requests.get(self.url + "/hub/api/", timeout=2).status_code == 200:
                    return self
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        raise RuntimeError("jupyterhub did not answer:\n" + self.log_tail())

    def login(self, name: str, password: str) -> Any:
        """``(the login form's answer, the session)``: 302 when the hub let ``name`` in."""
        session = requests.Session()
        session.get(self.url + "/hub/login", timeout=30)
        xsrf = session.cookies.get("_xsrf", path="/hub/")
        r = session.post(
            self.url + "/hub/login",
            data={"username": name, "password": password, "_xsrf": xsrf},
            timeout=60,
            allow_redirects=False,
        )
        return r, session

    def api(self, method: str, path: str, token: str = ADMIN_TOKEN, **kw: Any) -> Any:
        r = requests.request(
            method,
            self.url + "/hub/api" + path,
            headers={"Authorization": f"token {token}"},
            timeout=60,
            **kw,
        )
        return r

    def log_tail(self, n: int = 60) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-n:]).decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM to the hub (it stops the proxy, the service and the servers), then SIGKILL
        to anything left in its process group."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(timeout=10)

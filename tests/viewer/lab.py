"""A real ``jupyter lab`` on 127.0.0.1 for the viewer's browser tests.

Own runtime, config, data, settings and workspace folders under a temp folder; a token;
a ``mindspore`` kernelspec running this Python; stopped by its PID.
"""

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional

TOKEN = "ascend-lab-viewer-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Lab:
    def __init__(self, folder: Path, settings: Optional[Dict[str, Dict[str, Any]]] = None) -> None:
        import os

        self.folder = folder
        self.root = folder / "root"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.token = TOKEN
        self.proc: Optional[Any] = None
        for d in ("root", "runtime", "config", "data", "home", "workspaces", "settings"):
            (folder / d).mkdir(parents=True, exist_ok=True)
        self.env = dict(os.environ)
        self.env.update(
            {
                "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
                "JUPYTER_CONFIG_DIR": str(folder / "config"),
                "JUPYTER_DATA_DIR": str(folder / "data"),
                "JUPYTER_PLATFORM_DIRS": "1",
                "HOME": str(folder / "home"),
            }
        )
        spec = folder / "data" / "kernels" / "mindspore"
        spec.mkdir(parents=True, exist_ok=True)
        (spec / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "MindSpore (test)",
                    "language": "python",
                }
            ),
            encoding="utf-8",
        )
        all_settings = {"@jupyterlab/apputils-extension/notification": {"fetchNews": "false"}}
        all_settings.update(settings or {})
        for plugin, values in all_settings.items():
            package, name = plugin.rsplit("/", 1)
            target = folder / "settings" / package
            target.mkdir(parents=True, exist_ok=True)
            (target / f"{name}.jupyterlab-settings").write_text(
                json.dumps(values), encoding="utf-8"
            )

    def start(self, timeout: float = 90.0) -> "Lab":
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            f"--port={self.port}",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port_retries=0",
            f"--ServerApp.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            f"--LabApp.workspaces_dir={self.folder / 'workspaces'}",
            f"--LabApp.user_settings_dir={self.folder / 'settings'}",
        ]
        log = open(str(self.folder / "server.log"), "wb")
        self.proc = subprocess.Popen(
            cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=str(self.root)
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("jupyter lab exited: " + self.log())
            try:
                self.request("api/status")
                return self
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"jupyter lab did not start in {timeout} s: {self.log()}")

    def log(self) -> str:
        try:
            return (self.folder / "server.log").read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def request(self, path: str, method: str = "GET") -> Any:
        req = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": "token " + self.token}
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read().decode("utf-8")
            return json.loads(body) if body else None

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

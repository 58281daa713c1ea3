"""Start a real JupyterLab on 127.0.0.1 with its own runtime/config/data/workspace dirs in a
temporary folder, and stop it by its PID. Used by the browser tests and the benchmark."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional

TOKEN = "ascend-lab-test-token"
BASE_URL = "/user/alice/"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_notebook(path: Path, title: str = "Welcome") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nb = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# " + title]}],
        "metadata": {
            "kernelspec": {"name": "mindspore", "display_name": "MindSpore (test)"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def write_mindspore_kernelspec(data_dir: Path) -> None:
    """A kernelspec named ``mindspore`` (what ``ascend-lab install-kernel`` registers)."""
    spec = data_dir / "kernels" / "mindspore"
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


class LabServer:
    """``jupyter lab`` in a subprocess; ``url`` ends with the base URL."""

    def __init__(
        self,
        folder: Path,
        env: Dict[str, str],
        base_url: str = BASE_URL,
        settings: Optional[Dict[str, Dict]] = None,
    ) -> None:
        self.folder = folder
        self.root = folder / "root"
        self.port = free_port()
        self.base_url = base_url
        self.url = f"http://127.0.0.1:{self.port}{base_url}"
        self.token = TOKEN
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.env = dict(os.environ)
        self.env.update(env)
        data = folder / "data"
        self.env.update(
            {
                "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
                "JUPYTER_CONFIG_DIR": str(folder / "config"),
                "JUPYTER_DATA_DIR": str(data),
                "JUPYTER_PLATFORM_DIRS": "1",
                "HOME": str(folder / "home"),
                "ASCEND_LAB_CACHE_SECONDS": env.get("ASCEND_LAB_CACHE_SECONDS", "1"),
            }
        )
        for d in ("root", "runtime", "config", "home", "workspaces"):
            (folder / d).mkdir(parents=True, exist_ok=True)
        write_mindspore_kernelspec(data)
        # no "Jupyter news?" toast over the screenshots
        news = folder / "settings" / "@jupyterlab" / "apputils-extension"
        news.mkdir(parents=True, exist_ok=True)
        (news / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false"}), encoding="utf-8"
        )
        # more user settings: {"@jupyterlab/translation-extension/plugin": {...}}
        for plugin, values in (settings or {}).items():
            target = folder / "settings" / (plugin + ".jupyterlab-settings")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(values), encoding="utf-8")

    def start(self, timeout: float = 60.0) -> LabServer:
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
            f"--ServerApp.base_url={self.base_url}",
            f"--ServerApp.root_dir={self.root}",
            "--LabApp.workspaces_dir={}".format(self.folder / "workspaces"),
            "--LabApp.user_settings_dir={}".format(self.folder / "settings"),
            "--LabServerApp.extension_manager=readonly",
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
                with urllib.request.urlopen(
                    self.url + "api/status?token=" + self.token, timeout=2
                ) as r:
                    if r.status == 200:
                        self._check_extension_installed()
                        return self
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"jupyter lab did not start in {timeout} s: {self.log()}")

    def _check_extension_installed(self) -> None:
        """Fail fast, with the fix, when the extension is not installed in this env."""
        fix = (
            "build and install it first: cd labextension && jlpm build; "
            "pip install -e . ; jupyter labextension develop --overwrite ."
        )
        try:
            self.get_json("ascend-lab/api/status")
        except urllib.error.HTTPError as e:
            self.stop()
            raise RuntimeError(
                f"the ascend_lab.server extension is not enabled (HTTP {e.code}): {fix}"
            ) from None
        req = urllib.request.Request(
            self.url + "lab", headers={"Authorization": "token " + self.token}
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            page = r.read().decode("utf-8", errors="replace")
        if '"name": "ascend-lab"' not in page and '"name":"ascend-lab"' not in page:
            self.stop()
            raise RuntimeError(f"JupyterLab does not load the ascend-lab lab extension: {fix}")

    def log(self) -> str:
        try:
            return (self.folder / "server.log").read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def request(self, path: str, method: str = "GET") -> Any:
        """Authenticated request to the server's REST API; the decoded JSON body (or None)."""
        req = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": "token " + self.token}
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read().decode("utf-8")
            return json.loads(body) if body else None

    def get_json(self, path: str) -> Dict:
        return self.request(path)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def lab_url(self) -> str:
        return f"{self.url}lab?reset&token={self.token}"


def locale_entry_point_dir(folder: Path) -> Path:
    """A folder for PYTHONPATH declaring the ``jupyterlab.locale`` entry point
    ``ascend_lab = ascend_lab`` (what the installed package declares), so JupyterLab
    serves ascend_lab/locale/<lang>/LC_MESSAGES/ascend_lab.json."""
    dist = folder / "ascend_lab_locale_probe-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ascend-lab-locale-probe\n")
    (dist / "entry_points.txt").write_text("[jupyterlab.locale]\nascend_lab = ascend_lab\n")
    return folder

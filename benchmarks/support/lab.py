"""Start a real JupyterLab (or a bare jupyter server with the ascend-lab extension) on
127.0.0.1 with its own runtime/config/data/workspace dirs in a temporary folder, and stop
it by its PID. Used by the browser tests, the server tests and the benchmarks."""

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
from typing import Any, Dict, List, Optional, Tuple

import psutil

TOKEN = "ascend-lab-test-token"
BASE_URL = "/user/alice/"
REPO = Path(__file__).resolve().parents[2]
# server extensions an ExtensionServer turns off (JupyterLab's take seconds to load)
OTHER_SERVER_EXTENSIONS = (
    "jupyterlab",
    "jupyter_lsp",
    "jupyter_server_terminals",
    "jupyterlab_jupytext",
    "notebook_shim",
    "notebook",
    "nbclassic",
)


def stop_by_pid(proc: subprocess.Popen[Any], grace: float = 30) -> Optional[int]:
    """SIGTERM to ``proc`` (a server: it stops its kernels and workers), SIGKILL after
    ``grace`` seconds; its exit status."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return proc.returncode


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
        if self.proc is not None:
            stop_by_pid(self.proc, 15)

    def lab_url(self) -> str:
        return f"{self.url}lab?reset&token={self.token}"


class ExtensionServer:
    """``jupyter server`` in a subprocess with the ascend-lab server extension alone (no
    JupyterLab: it starts in a second or two), its root ``folder/root``, settings in
    ``env``; stopped by its PID."""

    def __init__(self, folder: Path, env: Dict[str, str]) -> None:
        self.root = folder / "root"
        config = folder / "config"
        for d in (self.root, config, folder / "runtime", folder / "data"):
            d.mkdir(parents=True, exist_ok=True)
        # this extension only: JupyterLab and the others take seconds to load
        extensions = {name: False for name in OTHER_SERVER_EXTENSIONS}
        extensions["ascend_lab.server"] = True
        (config / "jupyter_server_config.json").write_text(
            json.dumps({"ServerApp": {"jpserver_extensions": extensions}})
        )
        self.port = free_port()
        self.token = TOKEN
        environ = dict(os.environ)
        environ.update(
            JUPYTER_CONFIG_DIR=str(config),
            JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
            JUPYTER_DATA_DIR=str(folder / "data"),
            JUPYTER_PLATFORM_DIRS="1",
            PYTHONPATH=str(REPO),  # this checkout's ascend_lab, in the server and its workers
        )
        environ.update(env)
        self.log = folder / "server.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(  # noqa: S603 - fixed argv
                [
                    sys.executable,
                    "-m",
                    "jupyter_server",
                    "--no-browser",
                    f"--port={self.port}",
                    "--ServerApp.ip=127.0.0.1",
                    "--ServerApp.port_retries=0",
                    "--allow-root",
                    f"--IdentityProvider.token={self.token}",
                    f"--ServerApp.root_dir={self.root}",
                ],
                env=environ,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("jupyter server exited: " + self.text())
            try:
                self.get("api/status")
                return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("jupyter server did not start: " + self.text())

    def text(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def get(self, path: str, timeout: float = 60) -> Tuple[int, Any]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/{path}", headers={"Authorization": "token " + self.token}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as r:  # noqa: S310
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def graph(self, path: str) -> Tuple[int, Any]:
        return self.get("ascend-lab/api/graph?path=" + path)

    def workers(self) -> List[int]:
        """The PIDs of the server's viewer workers."""
        found = []
        for child in psutil.Process(self.proc.pid).children():
            try:
                if "ascend_lab.server.pool_worker" in child.cmdline():
                    found.append(child.pid)
            except psutil.NoSuchProcess:
                pass
        return found

    def stop(self) -> Optional[int]:
        return stop_by_pid(self.proc)


def locale_entry_point_dir(folder: Path) -> Path:
    """A folder for PYTHONPATH declaring the ``jupyterlab.locale`` entry point
    ``ascend_lab = ascend_lab`` (what the installed package declares), so JupyterLab
    serves ascend_lab/locale/<lang>/LC_MESSAGES/ascend_lab.json."""
    dist = folder / "ascend_lab_locale_probe-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ascend-lab-locale-probe\n")
    (dist / "entry_points.txt").write_text("[jupyterlab.locale]\nascend_lab = ascend_lab\n")
    return folder

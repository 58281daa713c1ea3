"""The release wheel as an Ascend notebook image gets it: `pip install ascend_lab-*.whl` into
fresh Python 3.8 venvs, with no Node.js on PATH and nothing downloaded.

`make wheel-test` builds what these tests use: `dist/ascend_lab-*.whl` (`make wheel`) and a
local wheelhouse of JupyterLab 4 and JupyterLab 3.6 with their dependencies for Python 3.8
(`.wheelhouse-py38`). pip runs with `--no-index`, so a requirement the wheelhouse cannot meet
fails here instead of reaching the network.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
WHEELHOUSE = Path(os.environ.get("ASCEND_LAB_WHEELHOUSE", str(REPO / ".wheelhouse-py38")))
PY38 = os.environ.get(
    "ASCEND_LAB_PY38", str(Path.home() / ".pyenv" / "versions" / "3.8.18" / "bin" / "python3.8")
)
VERSION = json.loads((REPO / "labextension" / "package.json").read_text())["version"]
# Files a pure-Python wheel never holds: native code, bytecode, executables.
COMPILED = (".so", ".pyd", ".dll", ".dylib", ".pyc", ".pyo", ".exe", ".node", ".a", ".o")

# The kernel-side checks, run by the venv's own Python in a real kernel it registered.
KERNEL_SCRIPT = r"""
import json
import sys
from jupyter_client.manager import start_new_kernel

ERROR_TEXT = "ImportError: libascendcl.so: cannot open shared object file"

km, kc = start_new_kernel(kernel_name="mindspore", startup_timeout=180)
try:
    def run(code):
        out = []

        def hook(msg):
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                out.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                out.append("ERROR " + content["ename"] + ": " + content["evalue"])

        kc.execute_interactive(code, output_hook=hook, timeout=180)
        return "".join(out)

    result = json.dumps({
        "loaded": run("import sys; print('ascend_lab' in get_ipython().extension_manager.loaded,"
                      " 'mindspore' in sys.modules, sys.version_info[:2])"),
        "status": run("%ascend_status --json"),
        "doctor": run('%ascend_doctor "' + ERROR_TEXT + '"'),
    })
    with open(sys.argv[1], "w") as f:
        f.write(result)
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
"""


def the_wheel() -> Path:
    wheels = sorted((REPO / "dist").glob("ascend_lab-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in dist/ (run `make wheel`), found {wheels}"
    return wheels[0]


class Venv:
    """A fresh Python 3.8 venv with a PATH that has no Node.js and a private Jupyter home."""

    def __init__(self, root: Path):
        assert os.access(PY38, os.X_OK), f"{PY38} is missing: pyenv install 3.8.18"
        assert (WHEELHOUSE / ".complete").is_file(), f"{WHEELHOUSE} missing: make wheel-test"
        self.root = root
        self.prefix = root / "venv"
        self.bin = self.prefix / "bin"
        subprocess.run([PY38, "-m", "venv", str(self.prefix)], check=True, timeout=300)
        tools = root / "tools"  # the few system tools a kernel launch may call; no node/npm
        tools.mkdir()
        for name in ("sh", "bash", "env", "uname"):
            found = shutil.which(name)
            if found:
                (tools / name).symlink_to(found)
        home = root / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "PIP_"))}
        for key in ("PYTHONPATH", "VIRTUAL_ENV", "MPLBACKEND", "ASCEND_HOME_PATH"):
            env.pop(key, None)
        env.update(
            PATH=f"{self.bin}{os.pathsep}{tools}",
            HOME=str(home),
            JUPYTER_CONFIG_DIR=str(home / "jupyter-config"),
            JUPYTER_DATA_DIR=str(home / "jupyter-data"),
            JUPYTER_RUNTIME_DIR=str(home / "jupyter-runtime"),
            IPYTHONDIR=str(home / "ipython"),
            MPLCONFIGDIR=str(home / "mpl"),
            PIP_NO_INDEX="1",
            PIP_FIND_LINKS=str(WHEELHOUSE),
            PIP_DISABLE_PIP_VERSION_CHECK="1",
            PIP_NO_CACHE_DIR="1",
            ASCEND_LAB_ASCEND_ROOT=str(root / "no-ascend"),
        )
        self.env = env
        assert shutil.which("node", path=env["PATH"]) is None
        assert shutil.which("npm", path=env["PATH"]) is None

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        exe = args[0] if os.path.isabs(args[0]) else str(self.bin / args[0])
        return subprocess.run(
            [exe, *args[1:]],
            env=self.env,
            cwd=str(self.root),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def ok(self, *args: str, timeout: float = 600) -> str:
        proc = self.run(*args, timeout=timeout)
        assert proc.returncode == 0, f"{args}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc.stdout + proc.stderr

    def pip_install(self, *requirements: str) -> str:
        return self.ok("python", "-m", "pip", "install", "--no-index", *requirements)

    def version_of(self, dist: str) -> str:
        code = f"from importlib.metadata import version; print(version({dist!r}))"
        return self.ok("python", "-c", code).strip()

    def check_kernel_side(self) -> dict:
        """status, install-kernel into this venv, and the magics in a real kernel."""
        out = self.ok("ascend-lab", "--version")
        assert out.strip() == f"ascend-lab {VERSION}"
        out = self.ok("ascend-lab", "status")
        assert "CPU mode" in out
        status = json.loads(self.ok("ascend-lab", "status", "--json"))
        assert (status["schema"], status["mode"]) == ("ascend-lab.status/1", "cpu")
        self.ok("ascend-lab", "install-kernel", "--sys-prefix")
        spec = json.loads(
            (
                self.prefix / "share" / "jupyter" / "kernels" / "mindspore" / "kernel.json"
            ).read_text()
        )
        assert spec["argv"][0] == str(self.bin / "python")
        assert str(self.prefix / "share" / "jupyter" / "kernels" / "mindspore") in self.ok(
            "jupyter", "kernelspec", "list"
        )
        proc = subprocess.run(
            [str(self.bin / "ascend-lab"), "doctor", "-", "--json"],
            input="ImportError: libascendcl.so: cannot open shared object file\n",
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 1, proc.stderr  # 1: something was recognised
        doctor = json.loads(proc.stdout)
        assert doctor["findings"][0]["id"] == "set-env-not-sourced"
        script = self.root / "kernel_check.py"
        script.write_text(KERNEL_SCRIPT)
        out = self.ok("python", str(script), str(self.root / "kernel_check.json"))
        result = json.loads((self.root / "kernel_check.json").read_text())
        result["output"] = out
        assert result["loaded"].strip() == "True False (3, 8)", result
        assert "ERROR" not in result["status"] and "ERROR" not in result["doctor"], result
        assert '"mode": "cpu"' in result["status"], result
        assert "The CANN environment (set_env.sh) is not loaded" in result["doctor"], result
        return result


def test_the_wheel_is_pure_python_and_carries_the_viewer():
    wheel = the_wheel()
    assert wheel.name == f"ascend_lab-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(f"ascend_lab-{VERSION}.dist-info/METADATA").decode()
        tags = z.read(f"ascend_lab-{VERSION}.dist-info/WHEEL").decode()
        data = f"ascend_lab-{VERSION}.data/data/"
        ext = data + "share/jupyter/labextensions/ascend-lab/"
        ext_package = json.loads(z.read(ext + "package.json"))
        version_py = z.read("ascend_lab/_version.py").decode()
        viewer = z.read("ascend_lab/static/viewer.js").decode()
        remote = [
            n for n in names if re.fullmatch(re.escape(ext) + r"static/remoteEntry\.\w+\.js", n)
        ]
        remote_js = z.read(remote[0]).decode() if len(remote) == 1 else ""
    # pure Python: one tag for every platform (aarch64 images included), nothing compiled
    assert "Root-Is-Purelib: true" in tags and "Tag: py3-none-any" in tags
    assert [n for n in names if n.lower().endswith(COMPILED)] == []
    # everything the viewer and the JupyterLab part need
    for needed in (
        "ascend_lab/static/viewer.js",
        "ascend_lab/static/standalone.js",
        ext + "static/style.js",
        ext + "schemas/ascend-lab/plugin.json",
        ext + "install.json",
        data + "etc/jupyter/jupyter_server_config.d/ascend_lab.json",
        data + "share/ascend-lab/notebooks/00_stack_and_machine.ipynb",
        "ascend_lab/locale/zh_CN/LC_MESSAGES/ascend_lab.json",
        f"ascend_lab-{VERSION}.dist-info/licenses/LICENSE",
    ):
        assert needed in names, needed
    assert len(remote) == 1, remote
    # a production build: minified, no development source maps next to it
    assert not [n for n in names if n.endswith(".js.map")]
    for js in (remote_js, viewer):
        assert len(js) / (js.count("\n") + 1) > 1000  # minified: long lines
    # one version everywhere
    assert ext_package["version"] == VERSION
    assert f"'{VERSION}'" in version_py
    assert f"\nVersion: {VERSION}\n" in meta
    # the base install needs only the kernel side: no JupyterLab, no server, no MindSpore
    base = [
        ln for ln in meta.splitlines() if ln.startswith("Requires-Dist:") and "extra ==" not in ln
    ]
    assert sorted(ln.split()[1].split(">")[0].split("<")[0] for ln in base) == [
        "anywidget",
        "ipykernel",
        "ipywidgets",
        "matplotlib",
        "networkx",
        "psutil",  # the course's msrun runner stops a job's process tree
    ]
    assert "Requires-Dist: decorator; extra == 'mindspore'" in meta
    assert "Requires-Dist: jupyterlab<5,>=4.0; extra == 'lab'" in meta


def test_wheel_in_a_fresh_python38_venv_with_jupyterlab_4(tmp_path):
    venv = Venv(tmp_path)
    venv.pip_install(f"{the_wheel()}[lab]")
    assert venv.version_of("jupyterlab").startswith("4.")
    venv.ok("python", "-m", "pip", "check")
    venv.check_kernel_side()
    labext = plain(venv.ok("jupyter", "labextension", "list"))
    line = rf"ascend-lab v{re.escape(VERSION)} enabled OK \(python, ascend-lab\)"
    assert re.search(line, labext), labext
    serverext = plain(venv.ok("jupyter", "server", "extension", "list"))
    assert re.search(r"ascend_lab\.server enabled", serverext), serverext
    assert re.search(rf"ascend_lab\.server {re.escape(VERSION)} OK", serverext), serverext


def plain(text: str) -> str:
    """Jupyter's listings without their terminal colours."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_wheel_next_to_jupyterlab_3_6_leaves_it_alone_and_the_kernel_side_works(tmp_path):
    venv = Venv(tmp_path)
    venv.pip_install("jupyterlab==3.6.*", "jupyter_server<2")
    lab, server = venv.version_of("jupyterlab"), venv.version_of("jupyter_server")
    assert lab.startswith("3.6.") and server.startswith("1."), (lab, server)
    # the wheelhouse also holds JupyterLab 4: a hard requirement on it would upgrade here
    venv.pip_install(str(the_wheel()))
    assert (venv.version_of("jupyterlab"), venv.version_of("jupyter_server")) == (lab, server)
    venv.ok("python", "-m", "pip", "check")
    venv.check_kernel_side()
    assert "ascend_lab.server" in venv.ok("jupyter", "server", "extension", "list")
    # JupyterLab 3.6 sees the prebuilt JupyterLab 4 extension as incompatible and skips it
    labext = plain(venv.ok("jupyter", "labextension", "list"))
    assert re.search(rf"ascend-lab v{re.escape(VERSION)} enabled +X", labext), labext
    assert '"ascend-lab@' + VERSION + '" is not compatible with the current JupyterLab' in labext

    # jupyter_server 1.x loads the server extension: it steps aside, the server keeps working
    port, token = free_port(), "ascend-lab-test"
    log = open(tmp_path / "server.log", "w+")
    proc = subprocess.Popen(
        [str(venv.bin / "jupyter"), "server", "--no-browser", "--allow-root", "--ip=127.0.0.1"]
        + [f"--port={port}"]
        + [
            f"--ServerApp.token={token}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={tmp_path}",
        ],
        env=venv.env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        text = ""
        while time.monotonic() < deadline and proc.poll() is None:
            log.seek(0)
            text = log.read()
            if "is running at" in text and "ascend-lab server extension not loaded" in text:
                break
            time.sleep(0.5)
        assert proc.poll() is None, text
        assert "ascend-lab server extension not loaded" in text, text
        assert "needs jupyter_server >= 2" in text and "Traceback" not in text, text
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=30) as r:
            assert r.status == 200 and "started" in json.loads(r.read())
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/ascend-lab/api/status?token={token}", timeout=30)
        assert missing.value.code == 404
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()

"""A real Model Explorer server with the extension, started as a user starts it:

    model-explorer --host 127.0.0.1 --port P --no_open_in_browser \
        --extensions=ascend_lab.model_explorer

(a subprocess, stopped by its PID). It loads a ``.mindir``, a dump folder and a trace with a
profile (its kernel time as node data); for each, the node and layer counts of its page
("GRAPH INFO") equal the counts taken from ascend-lab's own model, and a Chromium screenshot
of the first view is taken. Model Explorer draws with WebGL: headless Chromium gives it
SwiftShader (software WebGL), and the test prints which renderer it got.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from ascend_lab.model.graph import Graph
from ascend_lab.model_explorer import ADAPTER_ID, EXTENSION, node_data
from ascend_lab.model_explorer.main import load_payload
from ascend_lab.parsers.mindir.mindir import parse_mindir_file
from ascend_lab.results.trace import Trace
from benchmarks.support.browser import WEBGL_ARGS, chromium
from tests.model_explorer.expected import counts
from tests.support.ir_fixtures import FIXTURES

pytestmark = pytest.mark.browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MINDIR = FIXTURES / "lenet" / "lenet.mindir"
FUSION = FIXTURES / "lenet_fusion"
PROFILED = FIXTURES.parent / "profile" / "lenet-profile-payload.json"
START_S = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    exe = os.path.join(os.path.dirname(sys.executable), "model-explorer")
    log = tmp_path_factory.mktemp("me") / "model-explorer.log"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [exe, "--host", "127.0.0.1", "--port", str(port), "--no_open_in_browser"]
    cmd.append(f"--extensions={EXTENSION}")
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    origin = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_S
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")
            try:
                with urllib.request.urlopen(origin + "/check_health", timeout=2) as r:
                    if r.read() == b"model_explorer_ok":
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.2)
        assert "MindSpore (ascend-lab)" in log.read_text(errors="replace")
        yield origin
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(scope="module")
def browser():
    with chromium(WEBGL_ARGS) as b:  # SwiftShader: software WebGL (no GPU on CI)
        yield b


def _convert(origin: str, path: str):
    """What the page asks the server for: the adapter's graphs."""
    cmd = {
        "extensionId": ADAPTER_ID,
        "cmdId": "convert",
        "modelPath": path,
        "settings": {},
        "deleteAfterConversion": False,
    }
    url = origin + "/api/v1/send_command?json=" + urllib.parse.quote(json.dumps(cmd))
    with urllib.request.urlopen(url, timeout=60) as r:
        answer = json.load(r)
    assert "error" not in answer, answer
    return answer["graphs"]


def _first_view(browser, origin, path, shot, node_data_path=None):
    data = {"models": [{"url": path, "adapterId": ADAPTER_ID}]}
    if node_data_path:
        data["nodeData"] = [node_data_path]
        data["nodeDataTargets"] = [os.path.basename(path)]
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    blocked = []

    def local_only(route):  # Model Explorer asks the web for its newest version: refused
        if route.request.url.startswith(origin):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", local_only)
    try:
        page.goto(origin + "/?data=" + urllib.parse.quote(json.dumps(data)))
        page.wait_for_selector("webgl-renderer canvas", timeout=60000)
        page.wait_for_function(
            "() => /layer count\\s*\\d+/.test(document.body.innerText)", timeout=60000
        )
        page.wait_for_timeout(1000)  # the first frame drawn
        page.screenshot(path=str(shot))
        text = page.inner_text("body")
        renderer = page.evaluate(
            "() => { const g = document.createElement('canvas').getContext('webgl');"
            " const e = g && g.getExtension('WEBGL_debug_renderer_info');"
            " return e ? g.getParameter(e.UNMASKED_RENDERER_WEBGL) : null; }"
        )
    finally:
        page.close()
    ops = int(re.search(r"op node count\s*(\d+)", text).group(1))
    layers = int(re.search(r"layer count\s*(\d+)", text).group(1))
    return ops, layers, text, renderer


@pytest.mark.parametrize(
    "name, path, model, graphs",
    [
        ("mindir", MINDIR, lambda: parse_mindir_file(str(MINDIR)), 1),
        # the dump folder: the final graph, then each changed pass (the pass timeline)
        ("dump-folder", FUSION / "*.ir", lambda: Trace.from_dump_folder(str(FUSION)).graph, 8),
        ("profiled-trace", PROFILED, lambda: Graph.from_dict(_profiled_graph()), 1),
    ],
)
def test_model_explorer_shows_what_ascend_lab_counts(
    server, browser, tmp_path, name, path, model, graphs
):
    nodes, layers = counts(model())
    answer = _convert(server, str(path))
    assert len(answer) == graphs
    assert len(answer[0]["nodes"]) == nodes
    extra = None
    if name == "profiled-trace":
        extra = node_data.save(
            node_data.kernel_time(load_payload(str(PROFILED))), str(tmp_path / "kernel_time.json")
        )
    shot = tmp_path / f"model-explorer-{name}.png"
    ops, shown_layers, text, renderer = _first_view(browser, server, str(path), shot, extra)
    print(f"{name}: {ops} op nodes, {shown_layers} layers; WebGL renderer {renderer}; {shot}")
    assert (ops, shown_layers) == (nodes, layers)
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    if name == "dump-folder":
        assert "pass 6 graph_build_0" in answer[-1]["id"]
    if extra:
        assert "kernel time" in text  # Model Explorer lists the node data it loaded


def _profiled_graph():
    with open(PROFILED, encoding="utf-8") as f:
        payload = json.load(f)
    return payload["graphs"][payload["views"]["main"]]

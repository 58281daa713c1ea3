"""Side by side in one headless Chromium, one run: ascend-lab's standalone HTML against Netron
(on the ``.mindir``) and against Google's Model Explorer (on the ONNX that ``ms.export`` writes),
on ResNet-50 and the 32-layer Llama-style decoder: settled first view (median of --runs fresh
loads, alternating the tools), what the first view shows, and the file sizes.

Inputs, made once with ``--make`` into /work/notes/artifacts (one fresh process per net):
``<net>.html`` (``ascend_lab.trace(net, x, run=False).to_html()``), ``<net>.mindir`` and
``<net>.onnx`` (``ms.export(net, x, file_format=...)``). ResNet-50 is ``ascend_lab.course.nets``'
(as in bench_trace.py), the decoder is benchmarks/support/nets.py's ``Decoder(layers=32)`` (as in
bench_llm.py). MindSpore's ONNX exporter has no Rsqrt (the decoder's RMSNorm): the decoder's
``.onnx`` is exported with ``rsqrt(v)`` written as ``1 / sqrt(v)`` (Div of Sqrt, same values),
and the table says so.

Ours and Netron: bench_netron.py's static server, settle probe and node selectors (its
docstring defines "settled"). Model Explorer: ``model-explorer FILE --host 127.0.0.1 --port P
--no_open_in_browser`` from a separate venv (``--me-venv``, default .venv-model-explorer,
gitignored; ``pip install ai-edge-model-explorer==0.1.34 model-explorer-onnx``), started per
net on a free port and stopped by its PID. Model Explorer draws the graph with WebGL (three.js)
into a <canvas>, so its DOM has no node boxes: its "settled" is the same probe's rule with the
graph canvas (``canvas`` inside its renderer, shown, in the viewport) in place of node boxes,
plus no DOM mutation for 500 ms. The canvas exists before the graph is laid out, so this
time is a lower bound for Model Explorer's first view.

"Readable nodes": node labels drawn at >= 9 px in the viewport.
  * ours and Netron: SVG/HTML text of node boxes in the viewport with a computed on-screen
    font size >= 9 px (font-size x the element's screen scale);
  * Model Explorer: its labels are WebGL text (SDF glyphs), not in the DOM, so they cannot be
    read from the page the same way; what is printed instead is what its own UI says, named
    as such (text of its graph info panel / node count it shows, if any), or "n/a".
Every request that does not go to 127.0.0.1 is aborted and listed. The WebGL renderer that
headless Chromium used (``WEBGL_debug_renderer_info``'s ``UNMASKED_RENDERER_WEBGL``) is printed.

Prints numbers only; nothing here asserts a time.

Usage: .venv/bin/python benchmarks/bench_first_view.py --make      # once, needs MindSpore
       .venv/bin/python benchmarks/bench_first_view.py [--runs 3] [--no-model-explorer]
"""

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import bench_netron as bn  # noqa: E402

from benchmarks.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

ARTIFACTS = "/work/notes/artifacts"
ME_VENV = os.path.join(ROOT, ".venv-model-explorer")
# Model Explorer 0.1.34: its <webgl-renderer> is created once "Processing graph..." is done;
# the graph is drawn into its (first) <canvas>. No error element is known: a failed load
# shows as "not settled within the cap".
ME_NODES = "webgl-renderer canvas"
ME_ERROR = ""
# Its "GRAPH INFO" panel (shown with the first view): totals of the whole graph, not of the view.
ME_VIEW = """
() => {
  const text = (document.body.innerText || '').slice(0, 200000);
  const grab = (re) => { const m = re.exec(text); return m ? m[1] : '?'; };
  const ops = grab(/op node count\\s{0,20}(\\d{1,9})/);
  const layers = grab(/layer count\\s{0,20}(\\d{1,9})/);
  return { note: 'labels are WebGL text, not countable from the page; its GRAPH INFO panel: '
    + ops + ' op nodes, ' + layers + ' layers in the whole graph' };
}
"""
NETS = ["resnet50", "decoder32"]


def make_one(name: str, out: str) -> Dict[str, Any]:
    """In a fresh process: trace + HTML, MINDIR and ONNX export of one net."""
    import mindspore as ms

    import ascend_lab

    if name == "resnet50":
        import numpy as np

        from ascend_lab.course.nets import ResNet50

        net = ResNet50()
        x = ms.Tensor(np.random.RandomState(0).rand(1, 3, 224, 224).astype(np.float32))
    else:
        from benchmarks.support.nets import Decoder, decoder_tokens

        net = Decoder(layers=32)
        x = decoder_tokens()
    net.set_train(False)
    base = os.path.join(out, name)
    report: Dict[str, Any] = {}
    for fmt, ext in (("MINDIR", ".mindir"), ("ONNX", ".onnx")):
        start = time.perf_counter()
        try:
            ms.export(net, x, file_name=base, file_format=fmt)
            report[ext] = f"{time.perf_counter() - start:.1f} s"
        except Exception as e:  # an export MindSpore refuses is reported, not fatal
            report[ext] = f"FAILED: {type(e).__name__}: {str(e)[:300]}"
            if fmt == "ONNX" and "key Rsqrt" in str(e):
                # MindSpore 2.x's ONNX exporter has no Rsqrt (nor Reciprocal): the decoder's
                # RMSNorm is exported with rsqrt(v) written as 1 / sqrt(v) (Div of Sqrt), in
                # a fresh process, and that is said wherever the .onnx is reported.
                cmd = [sys.executable, os.path.abspath(__file__), "--make-onnx-rsqrt", name]
                subprocess.run(cmd + ["--out", out], check=True)
                report[ext] += "; exported instead with rsqrt(v) as 1 / sqrt(v)"
    start = time.perf_counter()
    ascend_lab.trace(net, x, run=False).to_html(base + ".html")
    report[".html"] = f"{time.perf_counter() - start:.1f} s"
    return report


def make_onnx_rsqrt(name: str, out: str) -> None:
    """The ONNX export with ``ops.rsqrt`` replaced by Div(1, Sqrt) (same values)."""
    import mindspore as ms
    from mindspore import ops

    sqrt = ops.sqrt

    def rsqrt(x: Any) -> Any:
        s = sqrt(x)
        return ops.div(ops.ones_like(s), s)

    ops.rsqrt = rsqrt
    from benchmarks.support.nets import Decoder, decoder_tokens

    net = Decoder(layers=32)
    net.set_train(False)
    ms.export(net, decoder_tokens(), file_name=os.path.join(out, name), file_format="ONNX")
    with open(os.path.join(out, name + ".onnx.note"), "w", encoding="utf-8") as f:
        f.write("rsqrt(v) exported as 1 / sqrt(v): MindSpore's ONNX exporter has no Rsqrt\n")


def make(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name in NETS:
        print(f"making {name} in {out} ...", flush=True)
        subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--make-one", name, "--out", out],
            check=True,
        )


# After the probe reported: node boxes in the viewport (outermost matches only) and those with
# a label drawn >= 9 px (SVG <text> inside the box: computed font-size x its CTM's scale).
READABLE = """
(sel) => {
  const w = innerWidth, h = innerHeight;
  const SHOWN = { opacityProperty: true, visibilityProperty: true };
  const inView = (r) => r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0
    && r.left < w && r.top < h;
  let boxes = 0, readable = 0, smallest = Infinity;
  for (const el of document.querySelectorAll(sel)) {
    // A match inside a match is a part of a node (Netron's border path is "node node-border").
    if (el.parentElement && el.parentElement.closest(sel)) continue;
    if (!inView(el.getBoundingClientRect()) || !el.checkVisibility(SHOWN)) continue;
    boxes += 1;
    let best = 0;
    for (const t of el.querySelectorAll('text')) {
      const m = t.getScreenCTM();
      if (!m || !inView(t.getBoundingClientRect()) || !t.checkVisibility(SHOWN)) continue;
      best = Math.max(best, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
    }
    if (best > 0) smallest = Math.min(smallest, best);
    if (best >= %(px)s) readable += 1;
  }
  return { boxes, readable, label_px_min: smallest === Infinity ? -1 : smallest };
}
"""
READABLE_PX = 9

# The WebGL that this Chromium gives a page (Model Explorer draws with it).
WEBGL_INFO = """
() => {
  const c = document.createElement('canvas');
  const gl = c.getContext('webgl2') || c.getContext('webgl');
  if (!gl) return { webgl: 'unavailable' };
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  return {
    webgl: gl instanceof WebGL2RenderingContext ? 'webgl2' : 'webgl1',
    version: gl.getParameter(gl.VERSION),
    vendor: ext ? gl.getParameter(ext.UNMASKED_VENDOR_WEBGL) : gl.getParameter(gl.VENDOR),
    renderer: ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
  };
}
"""


def evaluate(page: Any, function: str, arg: Any = None) -> Any:
    """``(function)(arg)`` in the page through CDP's Runtime.evaluate: Netron replaces
    window.eval, which Playwright's page.evaluate calls."""
    cdp = page.context.new_cdp_session(page)
    try:
        expression = f"({function})({json.dumps(arg)})"
        answer = cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    finally:
        cdp.detach()
    if "exceptionDetails" in answer:
        return {"note": "probe failed: " + str(answer["exceptionDetails"].get("text"))[:200]}
    return answer["result"].get("value")


def readable(selector: str) -> Callable[[Any], Any]:
    script = READABLE % {"px": READABLE_PX}
    return lambda page: evaluate(page, script, selector)


def me_probe(cap_ms: int = bn.LOAD_CAP_MS) -> str:
    """bench_netron's probe with Model Explorer's graph canvas in place of SVG node boxes."""
    loop = (
        "for (const svg of document.getElementsByTagName('svg')) {\n"
        "      if (svg.ownerSVGElement || !svg.checkVisibility(SHOWN) || !svg.querySelector(NODES))"
        " continue;\n"
        "      for (const el of svg.querySelectorAll(NODES)) {"
    )
    if loop not in bn.SETTLE_PROBE:
        sys.exit("bench_netron.SETTLE_PROBE changed: update me_probe()")
    script = bn.SETTLE_PROBE.replace(
        loop, "{\n      for (const el of document.querySelectorAll(NODES)) {"
    )
    return script % {
        "nodes": json.dumps(ME_NODES),
        "error": json.dumps(ME_ERROR),
        "quiet": bn.QUIET_MS,
        "cap": cap_ms,
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ModelExplorer:
    """``model-explorer FILE`` on 127.0.0.1:<free port>, stopped by its PID."""

    def __init__(
        self,
        venv: str,
        model: str,
        log: str,
        extensions: str = "model_explorer_onnx",
        env: Optional[Dict[str, str]] = None,
    ) -> None:
        exe = os.path.join(venv, "bin", "model-explorer")
        if not os.path.isfile(exe):
            sys.exit(
                f"no {exe}: python3 -m venv {venv} && {venv}/bin/pip install "
                "ai-edge-model-explorer==0.1.34 model-explorer-onnx (or --no-model-explorer)"
            )
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        cmd = [exe, model, "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--extensions", extensions, "--no_open_in_browser"]
        self.log_path = log
        self.log = open(log, "wb")  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.url = self._wait_url()

    def _wait_url(self) -> str:
        deadline = time.monotonic() + 300
        pattern = re.compile(r"http://127\.0\.0\.1:" + str(self.port) + r"/[^\s'\"]{0,4000}")
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                sys.exit(f"model-explorer exited with {self.proc.returncode}: see {self.log_path}")
            with open(self.log_path, "rb") as f:
                text = f.read(1_000_000).decode("utf-8", "replace")
            found = pattern.search(text)
            if found and self._answers():
                return found.group(0)
            time.sleep(0.5)
        self.stop()
        sys.exit(f"model-explorer printed no URL within 300 s: see {self.log_path}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def me_view(page: Any) -> Dict[str, Any]:
    """What Model Explorer's first view exposes outside its WebGL canvas."""
    return dict(evaluate(page, ME_VIEW))


def row_cells(side: Dict[str, Any]) -> Tuple[str, str]:
    settled = bn.seconds(side, "settled")
    if "readable" in side:
        return settled, f"{side['readable']:.0f} of {side['boxes']:.0f}"
    return settled, side.get("readable_note", "n/a")


@contextlib.contextmanager
def chromium(extra: List[str]) -> Iterator[Any]:
    """benchmarks/support/browser.py's Debian Chromium, with ``extra`` flags added."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        args = CHROMIUM_ARGS + extra
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        try:
            yield browser
        finally:
            browser.close()


def webgl_info(browser: Any) -> Dict[str, Any]:
    context = browser.new_context()
    try:
        return dict(context.new_page().evaluate(WEBGL_INFO))
    finally:
        context.close()


def side_summary(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    out = bn.summary(runs)
    checks = [r["check"] for r in runs if "settled" in r and isinstance(r.get("check"), dict)]
    for key in ("readable", "boxes", "label_px_min"):
        values = [c[key] for c in checks if key in c]
        if values:
            out[key] = statistics.median(values)
    notes = sorted({str(c["note"]) for c in checks if "note" in c})
    if notes:
        out["readable_note"] = "; ".join(notes)
    return out


def progress(r: Dict[str, Any]) -> str:
    if "settled" not in r:
        return f"FAILED: {r['error']}"
    return f"settled {r['settled']:.0f} ms, first view {r.get('check')}"


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--make", action="store_true", help="export/trace the nets, then exit")
    parser.add_argument("--make-one", help=argparse.SUPPRESS)
    parser.add_argument("--make-onnx-rsqrt", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=ARTIFACTS, help="where the nets' files are")
    parser.add_argument(
        "--nets", default=",".join(NETS), help="comma-separated, of " + ",".join(NETS)
    )
    parser.add_argument("--runs", type=int, default=3, help="fresh loads per page (median)")
    parser.add_argument("--netron-git", default=bn.NETRON_GIT, help="bare git dir of Netron")
    parser.add_argument("--netron-ref", default=bn.NETRON_REF, help="tag or commit to extract")
    parser.add_argument("--netron-wheel", metavar="VERSION", help="see bench_netron.py")
    parser.add_argument("--me-venv", default=ME_VENV, help="venv with model-explorer")
    parser.add_argument("--no-model-explorer", action="store_true")
    parser.add_argument(
        "--chromium-arg", action="append", default=[], help="extra Chromium flag (repeatable)"
    )
    args = parser.parse_args(argv)
    if args.make_onnx_rsqrt:
        make_onnx_rsqrt(args.make_onnx_rsqrt, args.out)
        return 0
    if args.make_one:
        print(args.make_one, make_one(args.make_one, args.out), flush=True)
        return 0
    if args.make:
        make(args.out)
        return 0
    names = [n for n in args.nets.split(",") if n]
    nets = []
    for name in names:
        paths = {ext: os.path.join(args.out, name + ext) for ext in (".html", ".mindir", ".onnx")}
        for ext, path in paths.items():
            if not os.path.isfile(path) and ext != ".onnx":
                sys.exit(f"missing input: {path} (run with --make first)")
        if not args.no_model_explorer and not os.path.isfile(paths[".onnx"]):
            print(f"note: no {paths['.onnx']} (did ms.export refuse it?): no Model Explorer row")
        nets.append((name, paths))
    netron = bn.netron_wheel(args.netron_wheel) if args.netron_wheel else None
    netron = netron or bn.extract_netron(args.netron_git, args.netron_ref)
    os.makedirs(bn.SHOTS, exist_ok=True)
    print(f"Netron {bn.netron_version(netron)} from {netron}", flush=True)
    if not args.no_model_explorer:
        version = subprocess.run(
            [os.path.join(args.me_venv, "bin", "python"), "-c", ME_VERSIONS],
            capture_output=True,
            text=True,
        )
        print(f"Model Explorer: {version.stdout.strip() or version.stderr.strip()}", flush=True)
    print(f"Chromium {CHROMIUM} flags: {' '.join(CHROMIUM_ARGS + args.chromium_arg)}")
    print(f"load average (1, 5, 15 min) at start: {os.getloadavg()}, {os.cpu_count()} CPUs")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, chromium(args.chromium_arg) as browser:
        print(f"WebGL in this headless Chromium: {webgl_info(browser)}", flush=True)
        bn.link_tree(tmp, netron, [(p[".html"], p[".mindir"]) for _, p in nets])
        server, origin = bn.serve(tmp)
        try:
            for i, (name, paths) in enumerate(nets):
                base = f"{origin}/nets/{i}/"
                tools = [
                    (
                        "ours",
                        origin,
                        base + name + ".html",
                        bn.probe(bn.OURS_NODES, bn.OURS_ERROR),
                        readable(bn.OURS_NODES),
                    ),
                    (
                        "netron",
                        origin,
                        f"{origin}/netron/index.html?url={base}{name}.mindir",
                        bn.probe(bn.NETRON_NODES, bn.NETRON_ERROR),
                        readable(bn.NETRON_NODES),
                    ),
                ]
                me = None
                if not args.no_model_explorer and os.path.isfile(paths[".onnx"]):
                    log = os.path.join(args.out, f"model-explorer-{name}.log")
                    me = ModelExplorer(args.me_venv, paths[".onnx"], log)
                    print(f"  Model Explorer pid {me.proc.pid} at {me.origin}", flush=True)
                    tools.append(("model-explorer", me.origin, me.url, me_probe(), me_view))
                sides: Dict[str, List[Dict[str, Any]]] = {t[0]: [] for t in tools}
                try:
                    for run in range(args.runs):
                        for side, side_origin, url, script, check in tools:
                            shot = os.path.join(bn.SHOTS, f"{name}-{side}.png")
                            r = bn.load(browser, side_origin, url, script, shot, check)
                            sides[side].append(r)
                            print(f"  {name} run {run + 1} {side}: {progress(r)}", flush=True)
                finally:
                    if me is not None:
                        me.stop()
                rows.append((name, paths, {k: side_summary(v) for k, v in sides.items()}))
        finally:
            server.shutdown()
    print(f"load average (1, 5, 15 min) at end: {os.getloadavg()}")
    print()
    report(rows)
    print(f"screenshots: {bn.SHOTS}")
    return 0


FILE_OF = {"ours": ".html", "netron": ".mindir", "model-explorer": ".onnx"}


def report(rows: List[Tuple[str, Dict[str, str], Dict[str, Dict[str, Any]]]]) -> None:
    head = (
        f"{'net':<10} {'tool':<15} {'file':<22} {'settled first view':>19} {'vs ours':>8}  "
        f"readable nodes (labels >= {READABLE_PX} px) in the first view"
    )
    print(head)
    print("-" * len(head))
    for name, paths, sides in rows:
        ours = sides["ours"]
        for side, s in sides.items():
            path = paths[FILE_OF[side]]
            file = f"{os.path.basename(path)} {bn.mb(path)}"
            settled, shown = row_cells(s)
            ratio = (
                f"{s['settled'] / ours['settled']:.1f}x"
                if side != "ours" and "settled" in s and "settled" in ours
                else ""
            )
            print(f"{name:<10} {side:<15} {file:<22} {settled:>19} {ratio:>8}  {shown}")
    print()
    for name, paths, sides in rows:
        note = paths[".onnx"] + ".note"
        if "model-explorer" in sides and os.path.isfile(note):
            with open(note, encoding="utf-8") as f:
                print(f"{name} ONNX: {f.read(1000).strip()}")
        for side, s in sides.items():
            detail = f"{name} {side}: {s['ok']}/{s['runs']} settled"
            if s["ok"]:
                detail += (
                    f", runs {s['all_settled']} ms, graph seen at {bn.seconds(s, 'graph')}, "
                    f"{s['mutations']:.0f} DOM mutations, JS heap {s['heap_mb']:.0f} MB"
                )
            if "label_px_min" in s:
                detail += f", smallest label {s['label_px_min']:.1f} px"
            if s["errors"]:
                detail += f"; errors: {s['errors']}"
            detail += f"; blocked requests: {s['network'] or 'none'}"
            print(detail)


ME_VERSIONS = (
    "from importlib.metadata import version as v; "
    "print(', '.join(p + ' ' + v(p) for p in ('ai-edge-model-explorer', 'model-explorer-onnx', "
    "'onnx')))"
)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

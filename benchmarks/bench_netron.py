"""Side by side in one headless Chromium: ascend-lab's standalone HTML against Netron on the
same network's ``.mindir``; time to a settled first view, file sizes, screenshots.

For each net (``--ours HTML --mindir MINDIR`` pairs; default: ResNet-50 and the 32-layer
decoder in /work/notes/artifacts), both pages are served by one static HTTP server on
127.0.0.1 (every other request is aborted and reported) and loaded --runs times each, fresh
context every time, alternating ours / Netron so machine load hits both alike.

"Settled first view", the same rule for both pages (the probe below):
  * at least one graph node box of the page is drawn inside the viewport, not hidden by
    display, visibility or opacity of it or an ancestor (ours:
    ``.al-node``/``.al-group``; Netron: ``#canvas .node``), and
  * no DOM mutation anywhere in the document for 500 ms;
  the time reported is ``performance.now()`` (0 = navigation start) after the first frame
  that follows the last mutation. "graph" is when a node box was first seen (polled every
  100 ms). Netron fetches the ``.mindir`` from the same server (``index.html?url=...``, its
  own way of opening a URL), so its time includes reading the file, as ours includes parsing
  the HTML. Netron's cookie-consent cookie is set beforehand (else it asks, after a geo-IP
  lookup). The probe's own main-thread time is printed; it stays far below 1% of a load.

Netron: ``--netron DIR`` (its ``source/`` folder, as in the repository; Netron's browser
version needs no build). Without it, ``source/`` of tag ``--netron-ref`` is extracted once
from the local mirror ``--netron-git`` (``fetch github:lutzroeder/netron``) into
``.cache/netron/<ref>/`` (gitignored); nothing is downloaded. (Our mirror lacks the blobs of
onnx-metadata.json and mlir-metadata.json; Netron's format probe gets a 404 for the first and
goes on; a full file would only add its parse time to Netron's side.) ``--netron-wheel VERSION``
takes the released browser files from PyPI's ``netron`` wheel instead (``pip download``
once into the same cache): complete where a partial mirror lacks large files, but a
packaged build, whose telemetry requests are blocked and listed.

Screenshots: test-artifacts/netron/<net>-ours.png and <net>-netron.png (last run).
Prints numbers only; nothing here asserts a time.

Usage: .venv/bin/python benchmarks/bench_netron.py [--ours HTML --mindir MINDIR ...]
       [--runs 3] [--netron DIR | --netron-wheel 9.3.3]
Tests of the probe: tests/viewer/test_settle_probe_browser.py (-m browser).
"""

import argparse
import collections
import functools
import http.server
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import zipfile
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.support.browser import block_network, chromium  # noqa: E402

ARTIFACTS = "/work/notes/artifacts"
DEFAULT_NETS = [
    (os.path.join(ARTIFACTS, "resnet50.html"), os.path.join(ARTIFACTS, "resnet50.mindir")),
    (os.path.join(ARTIFACTS, "decoder32.html"), os.path.join(ARTIFACTS, "decoder32.mindir")),
]
NETRON_GIT = "/work/.mirror/lutzroeder+netron/repo"
NETRON_REF = "v9.2.1"
CACHE = os.path.join(ROOT, ".cache", "netron")
SHOTS = os.path.join(ROOT, "test-artifacts", "netron")
VIEWPORT = {"width": 1280, "height": 860}
QUIET_MS = 500
LOAD_CAP_MS = 600_000  # one page load that has not settled after 10 min is reported as such

# What counts as a drawn graph node on each page.
OURS_NODES = ".al-node, .al-group"
NETRON_NODES = "#canvas .node"
# Where each page says it failed (text shown to the user).
OURS_ERROR = ".al-root.al-error"
NETRON_ERROR = "body.message #message-text"

# Installed before any page script. Same code for both pages; only the selectors differ.
SETTLE_PROBE = """
(() => {
  const NODES = %(nodes)s, ERROR = %(error)s, QUIET = %(quiet)d, CAP = %(cap)d;
  const s = { lastMutation: 0, painted: 0, mutations: 0, graph: -1, boxes: 0, probe_ms: 0 };
  let armed = false;
  const arm = () => {
    armed = true;
    requestAnimationFrame(() => {
      const frameAt = performance.now();
      setTimeout(() => {
        s.painted = performance.now();
        if (s.lastMutation > frameAt) arm(); else armed = false;
      }, 0);
    });
  };
  new MutationObserver((records) => {
    s.mutations += records.length;
    s.lastMutation = performance.now();
    if (!armed) arm();
  }).observe(document, { subtree: true, childList: true, attributes: true,
                         characterData: true });
  // Stops at `limit`; looks into shown top-level <svg>s only, so that polling a hidden graph
  // of thousands of nodes costs one check per poll, not one per node.
  const SHOWN = { opacityProperty: true, visibilityProperty: true };
  const boxesInView = (limit) => {
    let n = 0;
    const w = innerWidth, h = innerHeight;
    for (const svg of document.getElementsByTagName('svg')) {
      if (svg.ownerSVGElement || !svg.checkVisibility(SHOWN) || !svg.querySelector(NODES)) continue;
      for (const el of svg.querySelectorAll(NODES)) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < w
            && r.top < h && el.checkVisibility(SHOWN)) {
          n += 1;
          if (n >= limit) return n;
        }
      }
    }
    return n;
  };
  const failure = () => {
    const el = ERROR && document.querySelector(ERROR);
    return el && el.getClientRects().length ? (el.textContent || '').trim() || 'error' : '';
  };
  const resolve = (result) => {
    result.heap_mb = performance.memory ? performance.memory.usedJSHeapSize / 1048576 : -1;
    window.__benchReport(result);
  };
  {
    const tick = () => {
      const now = performance.now();
      const error = document.body ? failure() : '';
      if (error) { resolve(Object.assign({ error }, s)); return; }
      if (s.graph < 0 && document.body && boxesInView(1) > 0) s.graph = now;
      if (s.graph >= 0 && !armed && now - s.lastMutation >= QUIET) {
        s.boxes = boxesInView(Infinity);
        if (s.boxes > 0) { resolve(Object.assign({ settled: s.painted }, s)); return; }
      }
      s.probe_ms += performance.now() - now;
      if (now > CAP) { resolve(Object.assign({ error: 'not settled within the cap' }, s)); return; }
      setTimeout(tick, 100);
    };
    setTimeout(tick, 100);
  }
})();
"""


def probe(nodes: str, error: str, cap_ms: int = LOAD_CAP_MS) -> str:
    """The init script that reports the settled first view (see the module docstring)."""
    return SETTLE_PROBE % {
        "nodes": json.dumps(nodes),
        "error": json.dumps(error),
        "quiet": QUIET_MS,
        "cap": cap_ms,
    }


def netron_version(source: str) -> str:
    package = os.path.join(os.path.dirname(source), "package.json")
    if os.path.isfile(package):
        with open(package, encoding="utf-8") as f:
            return str(json.loads(f.read(1_000_000)).get("version", "?"))
    with open(os.path.join(source, "index.html"), encoding="utf-8") as f:
        head = f.read(4000)
    found = re.search(r'<meta name="version" content="([0-9.]{1,20})">', head)
    return found.group(1) if found else "? (no version in package.json or index.html)"


def netron_wheel(version: str) -> str:
    """Netron's browser files from its PyPI wheel (``pip download``), cached once."""
    target = os.path.join(CACHE, f"pypi-{version}")
    source = os.path.join(target, "netron")
    if os.path.isfile(os.path.join(source, "index.html")):
        return source
    wheels = os.path.join(CACHE, "wheel")
    wheel = os.path.join(wheels, f"netron-{version}-py3-none-any.whl")
    if not os.path.isfile(wheel):
        pip = [sys.executable, "-m", "pip", "download", f"netron=={version}", "--no-deps"]
        subprocess.run(pip + ["-d", wheels], check=True)
    tmp = tempfile.mkdtemp(dir=CACHE, prefix=".extract-")
    try:
        with zipfile.ZipFile(wheel) as whl:
            names = [n for n in whl.namelist() if n.startswith("netron/") and ".." not in n]
            whl.extractall(tmp, members=names)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return source


def extract_netron(git_dir: str, ref: str) -> str:
    """Netron's ``source/`` (+ package.json) at ``ref`` from a local mirror, cached once.

    A partial mirror may lack the blobs of its largest files (ONNX's and MLIR's operator
    metadata); they are left out and named, since opening a ``.mindir`` never reads them.
    """
    target = os.path.join(CACHE, ref)
    source = os.path.join(target, "source")
    if os.path.isfile(os.path.join(source, "index.html")):
        return source
    if not os.path.isdir(git_dir):
        sys.exit(
            f"No Netron source: {git_dir} does not exist. Mirror lutzroeder/netron there "
            "(a bare git directory) or pass --netron DIR (Netron's source/ folder)."
        )
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run(
        git + ["ls-tree", "-r", "-z", ref, "source", "package.json"],
        check=True,
        capture_output=True,
    ).stdout.decode("utf-8")
    os.makedirs(CACHE, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=CACHE, prefix=".extract-")
    missing = []
    try:
        for entry in filter(None, listing.split("\0")):
            meta, path = entry.split("\t", 1)
            _, kind, sha = meta.split()
            if kind != "blob" or os.path.isabs(path) or ".." in path.split("/"):
                continue
            blob = subprocess.run(git + ["cat-file", "blob", sha], capture_output=True)
            if blob.returncode != 0:
                missing.append(path)
                continue
            out = os.path.join(tmp, path)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(blob.stdout)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if missing:
        print(f"note: the mirror lacks {', '.join(missing)}; extracted without them", flush=True)
    return source


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def serve(root: str) -> Tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(QuietHandler, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def only_origin(context: Any, origin: str) -> List[str]:
    """Abort every request that does not go to our server; return the list of attempts."""
    return block_network(context, allow=(origin + "/",))


def load(
    browser: Any,
    origin: str,
    url: str,
    script: str,
    shot: str,
    check: Optional[Callable[[Any], Any]] = None,
) -> Dict[str, Any]:
    """One fresh load; the probe's report, plus ``check(page)`` run right after it (tests)."""
    context = browser.new_context(viewport=VIEWPORT)
    # Netron asks for cookie consent (after a geo-IP lookup) unless this cookie is set.
    context.add_cookies([{"name": "consent", "value": "1", "url": origin}])
    attempts = only_origin(context, origin)
    page = context.new_page()
    errors: List[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(script)
    # The probe reports through a binding: Netron replaces window.eval, which page.evaluate uses.
    results: List[Dict[str, Any]] = []
    page.expose_function("__benchReport", lambda result: results.append(result))
    try:
        page.goto(url, wait_until="commit")
        while not results:
            page.wait_for_timeout(200)
        result = results[0]
        if check is not None:
            result["check"] = check(page)
        page.screenshot(path=shot)
    finally:
        context.close()
    result["page_errors"] = errors
    result["network_attempts"] = attempts
    return result


def link_tree(tmp: str, netron: str, nets: List[Tuple[str, str]]) -> None:
    os.symlink(netron, os.path.join(tmp, "netron"))
    for i, (ours, mindir) in enumerate(nets):
        folder = os.path.join(tmp, "nets", str(i))
        os.makedirs(folder)
        os.symlink(os.path.abspath(ours), os.path.join(folder, os.path.basename(ours)))
        os.symlink(os.path.abspath(mindir), os.path.join(folder, os.path.basename(mindir)))


def summary(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    good = [r for r in runs if "settled" in r]
    out: Dict[str, Any] = {"ok": len(good), "runs": len(runs)}
    if good:
        for key in ("settled", "graph", "mutations", "boxes", "heap_mb", "probe_ms"):
            out[key] = statistics.median(r[key] for r in good)
        out["all_settled"] = [round(r["settled"]) for r in good]
    errors = sorted({r["error"] for r in runs if "error" in r})
    errors += sorted({e for r in runs for e in r["page_errors"]})
    out["errors"] = errors
    hosts = collections.Counter(
        "/".join(u.split("/", 3)[:3]) for r in runs for u in r["network_attempts"]
    )
    out["network"] = [f"{host} x{n}" for host, n in sorted(hosts.items())]
    return out


def mb(path: str) -> str:
    return f"{os.path.getsize(path) / 1e6:.2f} MB"


def seconds(side: Dict[str, Any], key: str) -> str:
    return f"{side[key] / 1000:.2f} s" if key in side else "-"


def pairs(ours: Optional[List[str]], mindirs: Optional[List[str]]) -> List[Tuple[str, str]]:
    if not ours and not mindirs:
        return list(DEFAULT_NETS)
    if len(ours or []) != len(mindirs or []):
        sys.exit("give --ours and --mindir the same number of times (one pair per net)")
    return list(zip(ours or [], mindirs or []))


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", action="append", help="ascend-lab standalone HTML")
    parser.add_argument("--mindir", action="append", help="the same net's .mindir")
    parser.add_argument("--runs", type=int, default=3, help="fresh loads per page (median)")
    parser.add_argument("--netron", help="Netron's source/ folder (with index.html)")
    parser.add_argument("--netron-git", default=NETRON_GIT, help="bare git dir of Netron")
    parser.add_argument("--netron-ref", default=NETRON_REF, help="tag or commit to extract")
    parser.add_argument(
        "--netron-wheel",
        metavar="VERSION",
        help="use the browser files of PyPI's netron==VERSION instead (pip download, cached)",
    )
    args = parser.parse_args(argv)
    nets = pairs(args.ours, args.mindir)
    for ours, mindir in nets:
        for path in (ours, mindir):
            if not os.path.isfile(path):
                sys.exit(f"missing input: {path}")
    if args.netron:
        netron = os.path.abspath(args.netron)
    elif args.netron_wheel:
        netron = netron_wheel(args.netron_wheel)
    else:
        netron = extract_netron(args.netron_git, args.netron_ref)
    if not os.path.isfile(os.path.join(netron, "index.html")):
        sys.exit(f"{netron} has no index.html; --netron wants Netron's source/ folder")
    os.makedirs(SHOTS, exist_ok=True)
    print(f"Netron {netron_version(netron)} from {netron}", flush=True)
    print(
        f"settled = a node box in the viewport, then {QUIET_MS} ms without DOM mutation; "
        f"time to the frame after the last mutation; median of {args.runs} fresh loads",
        flush=True,
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp, chromium() as browser:
        link_tree(tmp, netron, nets)
        server, origin = serve(tmp)
        try:
            for i, (ours, mindir) in enumerate(nets):
                name = os.path.splitext(os.path.basename(mindir))[0]
                base = f"{origin}/nets/{i}/"
                ours_url = base + os.path.basename(ours)
                netron_url = f"{origin}/netron/index.html?url={base}{os.path.basename(mindir)}"
                sides: Dict[str, List[Dict[str, Any]]] = {"ours": [], "netron": []}
                for run in range(args.runs):
                    for side, url, script in (
                        ("ours", ours_url, probe(OURS_NODES, OURS_ERROR)),
                        ("netron", netron_url, probe(NETRON_NODES, NETRON_ERROR)),
                    ):
                        shot = os.path.join(SHOTS, f"{name}-{side}.png")
                        r = load(browser, origin, url, script, shot)
                        sides[side].append(r)
                        state = (
                            f"settled {r['settled']:.0f} ms"
                            if "settled" in r
                            else f"FAILED: {r['error']}"
                        )
                        print(f"  {name} run {run + 1} {side}: {state}", flush=True)
                rows.append((name, ours, mindir, summary(sides["ours"]), summary(sides["netron"])))
        finally:
            server.shutdown()
    print()
    head = (
        f"{'net':<10} {'HTML':>9} {'.mindir':>10} {'ours graph':>10} {'ours settled':>12} "
        f"{'Netron graph':>12} {'Netron settled':>14} {'ratio':>6}"
    )
    print(head)
    print("-" * len(head))
    for name, ours, mindir, o, n in rows:
        ratio = f"{n['settled'] / o['settled']:.1f}x" if "settled" in o and "settled" in n else "-"
        print(
            f"{name:<10} {mb(ours):>9} {mb(mindir):>10} {seconds(o, 'graph'):>10} "
            f"{seconds(o, 'settled'):>12} {seconds(n, 'graph'):>12} "
            f"{seconds(n, 'settled'):>14} {ratio:>6}"
        )
    print()
    for name, _, _, o, n in rows:
        for side, s in (("ours", o), ("Netron", n)):
            detail = f"{name} {side}: {s['ok']}/{s['runs']} settled"
            if s["ok"]:
                detail += (
                    f", runs {s['all_settled']} ms, {s['boxes']:.0f} node boxes in view, "
                    f"{s['mutations']:.0f} DOM mutations, JS heap {s['heap_mb']:.0f} MB, "
                    f"probe's own time {s['probe_ms']:.0f} ms"
                )
            if s["errors"]:
                detail += f"; errors: {s['errors']}"
            if s["network"]:
                detail += f"; blocked requests: {s['network']}"
            print(detail)
    print(f"screenshots: {SHOTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""ResNet-50 and the 32-layer decoder in Google's Model Explorer through ascend-lab's adapter
(``--extensions=ascend_lab.model_explorer`` on the ``.mindir``), against Model Explorer's
ONNX route (``model-explorer-onnx`` on the ``.onnx`` that ``ms.export`` writes) and against
ascend-lab's own standalone page: settled first view, what the first view holds, and the
layer structure.

Inputs: bench_first_view.py's (``--make`` there, into ``--out``): ``<net>.html``,
``<net>.mindir``, ``<net>.onnx``. Each Model Explorer route is a ``model-explorer FILE
--host 127.0.0.1 --port P --no_open_in_browser --extensions=...`` subprocess (stopped by its
PID), loaded in one headless Chromium with SwiftShader WebGL (benchmarks/support/browser.py's
WEBGL_ARGS); every request off 127.0.0.1 is aborted. "Settled" is bench_first_view.py's:
its probe (bench_netron.py's rule) with Model Explorer's graph canvas as the node boxes,
a lower bound for Model Explorer (its canvas exists before the graph is laid out).

What the first view holds:
  * ours: node boxes in the viewport with labels >= 9 px (bench_first_view's ``readable``);
  * Model Explorer draws labels as WebGL text, not in the DOM, so they cannot be counted on
    the page. Printed instead: the root level it lays out first (its first view shows the
    root level with every layer collapsed), counted from the graphs each adapter hands it
    (converted in this process, the same adapters), and its own GRAPH INFO panel (op nodes,
    layers of the whole graph).
Layer structure: layers (namespaces holding >= 2 nodes, as Model Explorer draws them),
deepest nesting, and the largest single level (the most items one expanded layer shows).

Prints numbers only; nothing here asserts a time.

Usage: .venv/bin/python benchmarks/bench_first_view.py --make --out DIR   # once, MindSpore
       .venv/bin/python benchmarks/bench_model_explorer.py --out DIR [--runs 1]
"""

import argparse
import os
import statistics
import sys
import tempfile
from collections import Counter
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import bench_first_view as bfv  # noqa: E402
import bench_netron as bn  # noqa: E402

from benchmarks.support.browser import WEBGL_ARGS, chromium  # noqa: E402

SHOTS = os.path.join(ROOT, "test-artifacts", "model-explorer")
OURS = "ascend_lab.model_explorer"
ONNX = "model_explorer_onnx"


def structure(graph: Any) -> Dict[str, Any]:
    """Root-level items, layers, depth and the widest level of one Model Explorer graph."""
    per_path: Counter = Counter()
    children: Dict[str, set] = {}
    for node in graph.nodes:
        parts = node.namespace.split("/") if node.namespace else []
        for i in range(1, len(parts) + 1):
            per_path["/".join(parts[:i])] += 1
        parent = ""
        for part in parts:
            children.setdefault(parent, set()).add(("layer", part))
            parent = f"{parent}/{part}" if parent else part
        children.setdefault(parent, set()).add(("node", node.id))
    layers = {p for p, n in per_path.items() if n >= 2}

    def shown(path: str) -> int:  # a one-node layer is drawn as its node
        return len(children.get(path, ()))

    return {
        "nodes": len(graph.nodes),
        "root": shown(""),
        "layers": len(layers),
        "depth": max((p.count("/") + 1 for p in layers), default=0),
        "widest": max((shown(p) for p in [""] + sorted(layers)), default=0),
    }


def adapter_graph(extension: str, path: str) -> Any:
    if extension == OURS:
        from ascend_lab.model_explorer.main import MindSporeAdapter

        return MindSporeAdapter().convert(path, {})["graphs"][0]
    from model_explorer_onnx.main import ONNXAdapter

    result = ONNXAdapter().convert(path, {})
    graphs = result.get("graphs") or [g for c in result["graphCollections"] for g in c.graphs]
    return max(graphs, key=lambda g: len(g.nodes))


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=bfv.ARTIFACTS, help="bench_first_view --make's folder")
    parser.add_argument("--nets", default=",".join(bfv.NETS))
    parser.add_argument("--runs", type=int, default=1, help="fresh loads per page (median)")
    args = parser.parse_args(argv)
    venv = os.path.dirname(os.path.dirname(sys.executable))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    os.makedirs(SHOTS, exist_ok=True)
    print(f"load average (1, 5, 15 min) at start: {os.getloadavg()}, {os.cpu_count()} CPUs")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, chromium(WEBGL_ARGS) as browser:
        print(f"WebGL in this headless Chromium: {bfv.webgl_info(browser)}", flush=True)
        server, origin = bn.serve(tmp)
        try:
            for name in [n for n in args.nets.split(",") if n]:
                paths = {e: os.path.join(args.out, name + e) for e in (".html", ".mindir", ".onnx")}
                os.symlink(paths[".html"], os.path.join(tmp, name + ".html"))
                routes = [(OURS, paths[".mindir"]), (ONNX, paths[".onnx"])]
                shapes = {}
                for extension, path in routes:
                    shapes[extension] = structure(adapter_graph(extension, path))
                    print(f"  {name} {extension}: {shapes[extension]}", flush=True)
                tools = [
                    (
                        "ours (standalone)",
                        origin,
                        f"{origin}/{name}.html",
                        bn.probe(bn.OURS_NODES, bn.OURS_ERROR),
                        bfv.readable(bn.OURS_NODES),
                    )
                ]
                servers = []
                try:
                    for extension, path in routes:
                        log = os.path.join(tmp, f"me-{name}-{extension}.log")
                        me = bfv.ModelExplorer(venv, path, log, extensions=extension, env=env)
                        servers.append(me)
                        label = "ME + ascend-lab" if extension == OURS else "ME + ONNX"
                        tools.append((label, me.origin, me.url, bfv.me_probe(), bfv.me_view))
                    sides: Dict[str, List[Dict[str, Any]]] = {t[0]: [] for t in tools}
                    for _run in range(args.runs):
                        for side, side_origin, url, script, check in tools:
                            slug = side.replace(" ", "").replace("(", "-").replace(")", "")
                            shot = os.path.join(SHOTS, f"{name}-{slug}.png")
                            r = bn.load(browser, side_origin, url, script, shot, check)
                            sides[side].append(r)
                            print(f"  {name} {side}: {bfv.progress(r)}", flush=True)
                finally:
                    for me in servers:
                        me.stop()
                rows.append((name, sides, shapes))
        finally:
            server.shutdown()
    print(f"load average (1, 5, 15 min) at end: {os.getloadavg()}")
    print()
    report(rows)
    print(f"screenshots of each first view: {SHOTS}")
    return 0


def report(rows: List[Any]) -> None:
    head = (
        f"{'net':<10} {'route':<18} {'settled':>9}  first view: {'root items':>10}  "
        f"{'nodes':>6} {'layers':>6} {'depth':>5} {'widest level':>12}"
    )
    print(head)
    print("-" * len(head))
    for name, sides, shapes in rows:
        for side, runs in sides.items():
            ok = [r["settled"] for r in runs if "settled" in r]
            settled = f"{statistics.median(ok) / 1000:.1f} s" if ok else "not settled"
            shape = shapes.get(OURS if "ascend-lab" in side else ONNX if "ONNX" in side else "")
            if shape:
                cells = (
                    f"{shape['root']:>10}  {shape['nodes']:>6} {shape['layers']:>6} "
                    f"{shape['depth']:>5} {shape['widest']:>12}"
                )
            else:
                checks = [r.get("check") for r in runs if isinstance(r.get("check"), dict)]
                readable = [c["readable"] for c in checks if "readable" in c]
                boxes = [c["boxes"] for c in checks if "boxes" in c]
                cells = (
                    f"{statistics.median(readable):.0f} of {statistics.median(boxes):.0f} boxes "
                    "legible (>= 9 px)"
                    if readable
                    else "n/a"
                )
            print(f"{name:<10} {side:<18} {settled:>9}  {'':12}{cells}")
        for side, runs in sides.items():
            notes = [r["check"].get("note") for r in runs if isinstance(r.get("check"), dict)]
            if any(notes):
                print(f"  {name} {side}: {notes[0]}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

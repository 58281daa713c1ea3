"""Two traces side by side at LLM scale (issue #27): two 32-layer Llama-style decoders (d=64,
benchmarks/support/nets.py, as in bench_llm.py), the second after a code change (the MLP's hidden
width 172 -> 176), compared with ``ascend_lab.compare`` and opened in Chromium; then the
decoder in fp32 against ``auto_mixed_precision(..., "O2")``.

Prints (each measured once: the machine is shared, run it once), wall seconds and, for the
single-threaded Python parts, CPU seconds (what the wall time is on an idle machine):
  * the decoder's own numbers, from bench_llm's phases in fresh processes: MindSpore's
    compile with the same dumps, ``ascend_lab.trace`` and its overhead over it,
    ``Trace.to_html()``, and the peak PSS of the trace's process tree (``/proc/PID/
    smaps_rollup`` over the process and everything it starts, summed);
  * ``compare(a, b)`` split: reading both sides (their memory plans) and the alignment;
    then the payload (both graphs with their repaired scopes), the HTML page (validation,
    path redaction, JSON, the page) with digests of its content, and Chromium (offline)
    until both panes are drawn, with the browser processes' CPU seconds; time to a first
    view = their sum (target 3 s);
  * fp32 against AMP O2: Cast kernels added, dtypes changed (per op), each side's memory
    peak, and what stayed unpaired.

The traced final graphs are saved in ``--graphs DIR`` (``h172.json``, ``h176.json``,
``o2.json``; ``Graph.to_dict()``) and read from there on the next run, which then skips
those traces (a 32-layer trace takes 1-4 minutes here; the O2 one longer).

Usage: .venv/bin/python benchmarks/bench_compare.py [--layers 32] [--out DIR] [--graphs DIR]
       [--no-phases] [--no-browser] [--no-amp]
"""

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

READY = '[data-pane="{}"] .al-canvas[data-state="ready"]'


class Clock:
    """Wall and CPU seconds of one block (``with Clock() as c: ...; c.wall, c.cpu``)."""

    def __enter__(self):
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu

    def __str__(self):
        return f"{self.wall:6.2f} s wall {self.cpu:6.2f} s CPU"


def _graph(name, layers, graphs_dir, amp=False):
    """The final graph of one decoder trace: read from ``graphs_dir`` or traced (and saved)."""
    from ascend_lab.model.graph import Graph

    path = os.path.join(graphs_dir, f"{name}.json") if graphs_dir else None
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return Graph.from_dict(json.load(f)), None
    import ascend_lab
    from benchmarks.support.nets import Decoder, decoder_tokens

    net = Decoder(layers=layers, hidden=176 if name == "h176" else 172)
    if amp:
        from mindspore.amp import auto_mixed_precision

        net = auto_mixed_precision(net, "O2")
    net.set_train(False)
    with Clock() as clock:
        tr = ascend_lab.trace(net, decoder_tokens(), run=False, progress=False)
    if path:
        os.makedirs(graphs_dir, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(tr.graph.to_dict(), f)
    return tr.graph, clock


def _tree_cpu():
    """CPU seconds of every process this one started (Chromium, its renderer and GPU
    processes, Playwright's driver)."""
    import psutil

    total = 0.0
    for proc in psutil.Process().children(recursive=True):
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def browser_drawn(path):
    """ms from navigation until both panes are drawn, boxes drawn, browser CPU seconds."""
    from benchmarks.support.browser import block_network, chromium

    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        attempts = block_network(context)
        page = context.new_page()
        page.goto("about:blank")
        cpu = _tree_cpu()
        page.goto(f"file://{path}", timeout=300000)
        page.wait_for_selector(READY.format("a"), timeout=300000)
        page.wait_for_selector(READY.format("b"), timeout=300000)
        drawn = page.evaluate("performance.now()")
        cpu = _tree_cpu() - cpu
        boxes = page.locator(".al-node, .al-group, .al-stack").count()
        context.close()
    if attempts:
        raise RuntimeError(f"the page tried to use the network: {attempts}")
    return drawn, boxes, cpu


def print_phases(layers, out):
    from benchmarks.bench_llm import run_phase

    base = run_phase("compile", layers, out)
    ours = run_phase("trace", layers, out)
    overhead = (ours["trace_s"] - base["compile_s"]) / base["compile_s"] * 100
    print(f"{layers}-layer decoder (d=64), MindSpore on CPU, each phase once in a fresh process")
    print(
        f"  MindSpore's compile, save_graphs=1: {base['compile_s']:.1f} s "
        f"({base['files']} files, {base['dump_mb']:.0f} MB), tree PSS {base['tree_pss_mb']:.0f} MB"
    )
    print(
        f"  ascend_lab.trace(run=False): {ours['trace_s']:.1f} s, {overhead:+.0f}% over that "
        f"compile (its own compile inside: {ours['compile_in_trace_s']:.1f} s, reading the "
        f"dumps: {ours['analysis_s']:.1f} s; target <= +10%)"
    )
    print(
        f"  peak PSS of the trace's process tree: {ours['trace_tree_pss_mb']:.0f} MB "
        f"(target <= 1024 MB; with to_html after it {ours['tree_pss_mb']:.0f} MB; "
        f"process peak RSS {ours['peak_rss_mb']:.0f} MB)"
    )
    print(
        f"  Trace.to_html(): {ours['html_s']:.2f} s wall {ours['html_cpu_s']:.2f} s CPU, "
        f"{ours['html_mb']:.1f} MB (target <= 5 s)"
    )


def content_digests(data, path):
    """SHA-256 (first 16 hex digits) of the compare payload as JSON and of the JSON the page
    embeds, with the creation time left out: what a faster build must keep equal. (The
    page's redacted paths depend on the current folder: compare runs made in one folder.)"""
    import hashlib
    import re

    def digest(text):
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    payload = dict(data, meta=dict(data["meta"], created=None))
    with open(path, encoding="utf-8") as f:
        page = f.read()
    embedded = re.search(r'id="ascend-lab-payload">(.*?)</script>', page, re.S).group(1)
    embedded = re.sub(r'"created":"[^"]*"', '"created":null', embedded, count=1)
    return f"payload {digest(json.dumps(payload, sort_keys=True))}, page JSON {digest(embedded)}"


def print_compare(a, b, out, browser):
    import ascend_lab
    from ascend_lab.render import to_html

    with Clock() as total:
        cmp = ascend_lab.compare(a, b, titles=("hidden 172", "hidden 176"))
    how = ", ".join(f"{k} {v}" for k, v in sorted(cmp.alignment.how_counts().items()))
    print(
        f"compare(a, b): {total} (reading both sides with their memory plans "
        f"{cmp.seconds['sides']:.2f} s, alignment {cmp.seconds['align']:.2f} s wall)"
    )
    print(
        f"  matched {len(cmp.matched)} ({how}), added {len(cmp.added)}, removed "
        f"{len(cmp.removed)}, changed {len(cmp.changed)} (shape {len(cmp.changes_of('shape'))}); "
        f"memory peaks {cmp.a.peak} B / {cmp.b.peak} B"
    )
    with Clock() as payload:
        data = cmp.to_payload()
    print(f"payload (both graphs, repaired scopes, the alignment): {payload}")
    path = os.path.join(out, "compare.html")
    with Clock() as page:
        to_html(data, path, title=f"{cmp.a.title} vs {cmp.b.title}")
    print(f"HTML page (validation, redaction, JSON): {page}, {os.path.getsize(path) / 1e6:.1f} MB")
    print(f"  content digests (equal before and after a speed-up): {content_digests(data, path)}")
    wall = total.wall + payload.wall + page.wall
    cpu = total.cpu + payload.cpu + page.cpu
    if not browser:
        print(f"compare + payload + HTML: {wall:.2f} s wall {cpu:.2f} s CPU (no browser run)")
        return
    drawn_ms, boxes, browser_cpu = browser_drawn(path)
    print(
        f"Chromium: both panes drawn {drawn_ms:.0f} ms after navigation ({boxes} boxes; "
        f"browser processes {browser_cpu:.2f} s CPU, over 2 cores)"
    )
    print(
        f"time to a first view (compare + payload + HTML + drawn): {wall + drawn_ms / 1000:.2f} s "
        f"wall; Python {cpu:.2f} s CPU + browser {drawn_ms / 1000:.2f} s (target <= 3 s)"
    )


def print_amp(a, o2):
    import ascend_lab

    with Clock() as clock:
        cmp = ascend_lab.compare(a, o2, titles=("fp32", "O2"))
    print(f"fp32 vs AMP O2: compare {clock}")
    print(
        f"  kernels {cmp.a.kernel_count} -> {cmp.b.kernel_count}; Casts added "
        f"{cmp.casts_added} (Cast kernels {cmp.a.casts} -> {cmp.b.casts}); other ops added "
        f"{sum(1 for n in cmp.added if n.op != 'Cast')}, removed {len(cmp.removed)}"
    )
    dtypes = Counter(
        (cmp.a.graph.node(m.a[0]).op, m.changes["dtype"]) for m in cmp.changes_of("dtype")
    )
    print(
        f"  dtypes changed: {sum(dtypes.values())} pairs: "
        + ", ".join(f"{op} {d[0]}->{d[1]} x{n}" for (op, d), n in dtypes.most_common())
    )
    print(f"  memory peak (planner): fp32 {cmp.a.peak} B, O2 {cmp.b.peak} B")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--out", default=None, help="folder for dumps and HTML pages")
    parser.add_argument("--graphs", default=None, help="folder of saved final graphs (reused)")
    parser.add_argument("--no-phases", action="store_true", help="skip compile/trace phases")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-amp", action="store_true", help="skip fp32 vs AMP O2")
    args = parser.parse_args()
    out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="bench-compare-"))
    os.makedirs(out, exist_ok=True)

    if not args.no_phases:
        print_phases(args.layers, out)
    a, ta = _graph("h172", args.layers, args.graphs)
    b, tb = _graph("h176", args.layers, args.graphs)
    for label, g, clock in (("A, hidden 172", a, ta), ("B, hidden 176", b, tb)):
        how = f"traced: {clock}" if clock else f"read from {args.graphs}"
        print(f"trace {label}: {len(g.kernels)} kernels, {len(g.nodes)} nodes ({how})")
    print_compare(a, b, out, browser=not args.no_browser)
    if not args.no_amp:
        o2, to2 = _graph("o2", args.layers, args.graphs, amp=True)
        how = f"traced: {to2}" if to2 else f"read from {args.graphs}"
        print(f"trace O2: {len(o2.kernels)} kernels, {len(o2.nodes)} nodes ({how})")
        print_amp(a, o2)
    print(f"(pages in {out})")


if __name__ == "__main__":
    main()

"""LLM scale: a 32-layer Llama-style decoder (d=64; tests/scopes/nets.py) traced on CPU.

Prints, each measured once in a fresh process (the machine is shared: run it once):
  * MindSpore's own compile with the same dumps (``save_graphs=1``, no ascend-lab): seconds;
  * ``ascend_lab.trace(net, x, run=False)``: seconds, and its overhead over that compile;
  * ``Trace.to_html()`` (payload with every changed pass + HTML) seconds and size, the
    notebook view's ``to_payload(passes="none")``, and the process's peak RSS (VmHWM) after
    the trace and after the HTML;
  * scope repair: kernels, how many MindSpore names under the first layer, and how many of
    the 32 layers hold the same ops after repair (32 means every layer reads alike);
  * the HTML in Chromium: first view drawn, and expanding one group right after.

On a shared machine read the CPU seconds and the ratios (both phases run in one process
each): wall times grow with the load.

Usage: .venv/bin/python benchmarks/bench_llm.py [--layers 32] [--out DIR]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)


def _net(layers):
    from tests.scopes.nets import Decoder, decoder_tokens

    net = Decoder(layers=layers)
    net.set_train(False)
    return net, decoder_tokens()


def phase_compile(layers, out):
    """MindSpore alone: GRAPH_MODE compile with save_graphs=1 into a fresh folder."""
    import mindspore as ms

    net, tokens = _net(layers)
    dump = tempfile.mkdtemp(prefix="bench-llm-dump-", dir=out)
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=1, save_graphs_path=dump)
    start = time.perf_counter()
    net.compile(tokens)
    seconds = time.perf_counter() - start
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(dump) for f in fs)
    return {
        "compile_s": seconds,
        "dump_mb": size / 1e6,
        "files": sum(len(fs) for _, _, fs in os.walk(dump)),
    }


def _peak_mb():
    """The process's peak resident memory so far (VmHWM), MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_trace(layers, out):
    import re
    from collections import Counter, defaultdict

    import ascend_lab
    from ascend_lab.scopes import repair_scopes

    net, tokens = _net(layers)
    start = time.perf_counter()
    tr = ascend_lab.trace(net, tokens, run=False)
    trace_s = time.perf_counter() - start
    peak_after_trace = _peak_mb()
    html_path = os.path.join(out, "decoder.html")
    start, cpu = time.perf_counter(), time.process_time()
    tr.to_html(html_path)  # what a user runs: the payload with every changed pass, packed
    html_s = time.perf_counter() - start
    html_cpu_s = time.process_time() - cpu  # single-threaded Python: wall on an idle machine
    peak_after_html = _peak_mb()
    start = time.perf_counter()
    view_payload = tr.to_payload(passes="none")  # what the notebook view is handed
    view_payload_s = time.perf_counter() - start
    view_json_mb = len(json.dumps(view_payload)) / 1e6
    del view_payload
    graph = tr.graph
    start = time.perf_counter()
    repaired = repair_scopes(graph)
    repair_s = time.perf_counter() - start
    layer = re.compile(r"/(\d+)-Block(/.*)?$")
    held = defaultdict(Counter)
    first = 0
    for node in graph.kernels:
        if "/0-Block" in (node.scope or ""):
            first += 1
        m = layer.search(repaired.get(node.id, node.scope or ""))
        if m:
            held[int(m.group(1))][(m.group(2) or "", node.op)] += 1
    reference = Counter(tuple(sorted(c.items())) for c in held.values()).most_common(1)
    alike = reference[0][1] if reference else 0
    return {
        "trace_s": trace_s,
        "html_s": html_s,
        "html_cpu_s": html_cpu_s,
        "compile_in_trace_s": tr.compile_seconds,
        "analysis_s": tr.analysis_seconds,
        "html_mb": os.path.getsize(html_path) / 1e6,
        "view_payload_s": view_payload_s,
        "view_json_mb": view_json_mb,
        "peak_after_trace_mb": peak_after_trace,
        "peak_after_html_mb": peak_after_html,
        "repair_s": repair_s,
        "kernels": len(graph.kernels),
        "nodes": len(graph.nodes),
        "named_under_first_layer": first,
        "layers_alike": alike,
        "layers": len(held),
        "passes": len(tr.passes),
    }


def run_phase(name, layers, out):
    """Run one phase in a fresh interpreter; its result plus its peak RSS (MB)."""
    code = (
        f"import json, resource, sys; sys.path.insert(0, {ROOT!r});"
        f"from benchmarks.bench_llm import phase_{name} as f;"
        f"r = f({layers}, {out!r});"
        "r['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024;"
        "print('RESULT ' + json.dumps(r))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=out, timeout=3600
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
            children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            result["children_peak_rss_mb"] = children
            return result
    raise SystemExit(f"{name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")


def first_view(path):
    """Chromium, offline: ms to the first drawn view, and to expanding the first group in
    view right after it (bench_viewer's probes)."""
    from benchmarks.bench_viewer import EXPAND, PROBE
    from tests.support.browser import block_network, chromium

    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        block_network(context)
        page = context.new_page()
        page.add_init_script(PROBE)
        page.goto(f"file://{path}", timeout=300000)
        drawn = page.evaluate("window.__drawn")
        boxes = page.locator(".al-node, .al-group").count()
        expand = page.evaluate(EXPAND, "")
        context.close()
    return {"drawn_ms": drawn, "boxes": boxes, "expand_ms": expand}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--out", default=None, help="folder for dumps and the HTML")
    args = parser.parse_args()
    out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="bench-llm-"))
    os.makedirs(out, exist_ok=True)
    base = run_phase("compile", args.layers, out)
    ours = run_phase("trace", args.layers, out)
    overhead = (ours["trace_s"] - base["compile_s"]) / base["compile_s"] * 100
    b, o = base, ours

    def row(label, value, note=""):
        print(f"  {label:<42}{value:>9}  {note}".rstrip())

    print(f"{args.layers}-layer decoder (d=64), MindSpore on CPU, one run each")
    row(
        "MindSpore compile with save_graphs=1",
        f"{b['compile_s']:.1f} s",
        f"({b['files']} files, {b['dump_mb']:.0f} MB of dumps, peak RSS {b['peak_rss_mb']:.0f} MB)",
    )
    row("ascend_lab.trace(run=False)", f"{o['trace_s']:.1f} s", f"(overhead {overhead:+.0f}%)")
    row(
        "  of which MindSpore's compile / ours",
        f"{o['compile_in_trace_s']:.1f} s",
        f"/ {o['analysis_s']:.1f} s: reading the dumps, final graph, fusion map "
        f"({o['analysis_s'] / o['compile_in_trace_s'] * 100:.0f}% of that compile)",
    )
    row(
        "Trace.to_html() (payload + HTML)",
        f"{o['html_s']:.1f} s",
        f"({o['html_cpu_s']:.1f} s CPU; {o['html_mb']:.1f} MB, every changed pass inside)",
    )
    row(
        'to_payload(passes="none") (notebook view)',
        f"{o['view_payload_s']:.1f} s",
        f"({o['view_json_mb']:.1f} MB JSON)",
    )
    row(
        "peak RSS after trace / after to_html",
        f"{o['peak_after_trace_mb']:.0f} MB",
        f"/ {o['peak_after_html_mb']:.0f} MB (Binder: 2048 MB)",
    )
    row(
        "scope repair of the final graph",
        f"{o['repair_s']:.2f} s",
        f"({o['kernels']} kernels, {o['nodes']} nodes, {o['passes']} passes)",
    )
    row("kernels MindSpore names under layer 0", str(o["named_under_first_layer"]))
    row("layers holding the same ops after repair", f"{o['layers_alike']}/{o['layers']}")
    view = first_view(os.path.join(out, "decoder.html"))
    row(
        "first view in Chromium (standalone HTML)",
        f"{view['drawn_ms']:.0f} ms",
        f"({view['boxes']} boxes)",
    )
    row("expanding the first group in view", f"{view['expand_ms']:.0f} ms")
    print(f"  (dumps and decoder.html in {out})")


if __name__ == "__main__":
    main()

"""LLM scale: a 32-layer Llama-style decoder (d=64; benchmarks/support/nets.py) traced on CPU.

Prints, each measured once in a fresh process (the machine is shared: run it once):
  * MindSpore's own compile with the same dumps (``save_graphs=1``, no ascend-lab): seconds;
  * ``ascend_lab.trace(net, x, run=False)``: seconds, and its overhead over that compile;
  * ``Trace.to_html()`` (payload with every changed pass + HTML) seconds and size, the
    notebook view's ``to_payload(passes="none")``, and the process's peak RSS (VmHWM) after
    the trace and after the HTML;
  * the peak PSS of each phase's process tree (``/proc/PID/smaps_rollup`` of the phase's
    process and all it starts, summed, sampled every 0.25 s): the trace's until it
    returned, and MindSpore's compile alone;
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
import sys
import tempfile
import time
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)


def _net(layers):
    from benchmarks.support.nets import Decoder, decoder_tokens

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
    from ascend_lab.analysis.scopes import repair_scopes

    net, tokens = _net(layers)
    start = time.perf_counter()
    tr = ascend_lab.trace(net, tokens, run=False)
    trace_s = time.perf_counter() - start
    trace_done = time.monotonic()  # the tree sampler's clock: the trace's own PSS peak
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
        "trace_done_monotonic": trace_done,
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
    """Run one phase in a fresh interpreter; its result plus its peak RSS (MB) and the peak
    PSS of its process tree (``tree_pss_mb``: the phase's process and every process it
    starts, summed from ``/proc/PID/smaps_rollup`` every 0.25 s by bench_course's
    TreeSampler; for the trace phase also ``trace_tree_pss_mb``, the peak until the trace
    returned)."""
    from benchmarks.bench_course import run_sampled

    code = (
        f"import json, resource, sys; sys.path.insert(0, {ROOT!r});"
        f"from benchmarks.bench_llm import phase_{name} as f;"
        f"r = f({layers}, {out!r});"
        "r['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024;"
        "print('RESULT ' + json.dumps(r))"
    )
    stdout, stderr, sampler = run_sampled(code, out)
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
            children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            result["children_peak_rss_mb"] = children
            result["tree_pss_mb"] = sampler.peak_pss / 2**20
            if "trace_done_monotonic" in result:
                until = sampler.peak_pss_until(result["trace_done_monotonic"])
                result["trace_tree_pss_mb"] = until / 2**20
            return result
    raise SystemExit(f"{name} failed:\n{stdout[-2000:]}\n{stderr[-4000:]}")


# One interaction, timed from the event to the next drawn frame after the pane's
# `al-rendered` (layout in the worker + SVG drawn); -1 when its target is missing.
AFTER_RENDER = """
(pane) => new Promise((resolve) => pane.addEventListener('al-rendered',
    () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)),
    { once: true }))
"""

INTERACT = (
    """
async ([what, arg]) => {
  const afterRender = """
    + AFTER_RENDER
    + """;
  const graph = document.querySelector('[data-view="graph"]');
  const pane = graph.querySelector('.al-canvas');
  const click = (el) => el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  const t0 = performance.now();
  if (what === 'stack') {
    // a stack's button: 'next' draws the next layer, 'all' every layer
    const b = graph.querySelector(`.al-stack-btn[data-stack-action="${arg}"]`);
    if (!b) return -1;
    const done = afterRender(pane);
    click(b);
    return (await done) - t0;
  }
  if (what === 'group') {
    const g = graph.querySelector(`.al-group[data-group="${arg}"]`);
    if (!g) return -1;
    const done = afterRender(pane);
    click(g);
    return (await done) - t0;
  }
  if (what === 'search') {
    // typing the query: every layer is searched, the results listed (synchronous)
    const input = graph.querySelector('input[type="search"]');
    input.value = arg;
    input.dispatchEvent(new Event('input'));
    const t1 = performance.now();
    const hits = graph.querySelectorAll('.al-results li[role="button"]').length;
    return [t1 - t0, hits];
  }
  if (what === 'hit') {
    // go to the first search hit that is an `arg` op: reveals its layer, draws, selects
    const li = [...graph.querySelectorAll('.al-results li[role="button"]')].find((e) =>
        e.textContent.startsWith(arg + ' '));
    if (!li) return -1;
    const done = afterRender(pane);
    click(li);
    return (await done) - t0;
  }
  if (what === 'slider') {
    const view = document.querySelector('[data-view="timeline"]');
    const slider = view.querySelector('input[type="range"]');
    const tpane = view.querySelector('.al-canvas');
    const value = Number(slider.value) + Number(arg);
    if (value < 0 || value > Number(slider.max)) return -1;
    const done = afterRender(tpane);
    const t = performance.now();
    slider.value = String(value);
    slider.dispatchEvent(new Event('input'));
    return (await done) - t;
  }
  return -1;
}
"""
)


def browser_numbers(path, screenshot=None):
    """Chromium, offline: ms from navigation to the first drawn view, then each interaction
    (click -> drawn): scopes of the drawn layer, the next layer of the "N × Block" stack
    (opening like the one before), "show all", expanding one collapsed layer after that, a
    search across layers and going to its hit, and moving the pass slider by one step (after
    the timeline's first draw)."""
    from benchmarks.bench_viewer import PROBE
    from benchmarks.support.browser import block_network, chromium

    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        attempts = block_network(context)
        page = context.new_page()
        page.add_init_script(PROBE)
        page.goto(f"file://{path}", timeout=300000)
        out = {"drawn_ms": page.evaluate("window.__drawn")}
        out["boxes"] = page.locator(".al-node, .al-group, .al-stack").count()
        heads = page.locator(".al-stack-head > text")
        out["stack"] = heads.first.text_content() if heads.count() else "no stack"
        if screenshot:
            page.screenshot(path=screenshot)
        # a scope of the drawn layer at once, and another after a second of looking (scopes
        # in view are laid out ahead while idle)
        attention = "Default/blocks-CellList/0-Block/attn-Attention"
        out["expand_scope_ms"] = page.evaluate(INTERACT, ["group", attention])
        page.wait_for_timeout(1500)
        mlp = "Default/blocks-CellList/0-Block/mlp-SwiGLU"
        out["expand_scope_idle_ms"] = page.evaluate(INTERACT, ["group", mlp])
        # the machine may be shared: medians of a few
        out["next_layer_ms"] = median(page.evaluate(INTERACT, ["stack", "next"]) for _ in range(5))
        out["show_all_ms"] = page.evaluate(INTERACT, ["stack", "all"])
        out["show_all_boxes"] = page.locator(".al-node, .al-group").count()
        out["expand_layer_ms"] = median(
            page.evaluate(INTERACT, ["group", f"Default/blocks-CellList/{i}-Block"])
            for i in (17, 18, 19)
        )
        page.evaluate("window.ascendLab.app.graphView.panes[0].setGraph(null)")
        page.evaluate(
            "window.ascendLab.app.graphView.panes[0].setGraph("
            "window.ascendLab.app.payload.graphs[window.ascendLab.app.payload.views.main])"
        )
        page.wait_for_selector('[data-view="graph"] .al-canvas[data-state="ready"]')
        search_ms, hits = page.evaluate(INTERACT, ["search", "3-Block/mlp-SwiGLU/down_proj"])
        out["search_ms"], out["search_hits"] = search_ms, hits
        out["hit_ms"] = page.evaluate(INTERACT, ["hit", "MatMul"])
        layer3 = '.al-frame[data-frame="Default/blocks-CellList/3-Block"]'
        out["hit_layer_drawn"] = (
            page.locator(layer3).count() == 1 and page.locator(".al-node.al-selected").count() == 1
        )
        tab = page.locator('.al-tab[data-tab="timeline"]')
        out["slider_ms"] = []
        if tab.count():
            tab.click()
            page.wait_for_selector(
                '[data-view="timeline"] .al-canvas[data-state="ready"]', timeout=120000
            )
            for step in (-1, -1, -1, -1, -1):
                out["slider_ms"].append(page.evaluate(INTERACT, ["slider", step]))
        out["longest_task_ms"] = max(page.evaluate("window.__longtasks") or [0.0])
        context.close()
    if attempts:
        raise RuntimeError(f"the page tried to use the network: {attempts}")
    return out


def ms(value):
    """A probe's milliseconds, or n/a where its target was not there (e.g. no stack)."""
    return "n/a" if value < 0 else f"{value:.0f} ms"


def print_browser(view, row):
    layer = "(its layer drawn)" if view["hit_layer_drawn"] else "(its layer NOT drawn)"
    rows = [
        ("first view in Chromium (standalone HTML)", "drawn_ms",
         f"({view['boxes']} boxes; {view['stack'].strip()})"),
        ("expanding a scope of the drawn layer", "expand_scope_ms",
         f"(at once; another after 1.5 s idle: {ms(view['expand_scope_idle_ms'])})"),
        ('next layer of the stack ("\u203a": click -> drawn)', "next_layer_ms", "(median of 5)"),
        ('"show all" layers', "show_all_ms", f"({view['show_all_boxes']} boxes)"),
        ("expanding one collapsed layer after that", "expand_layer_ms", "(median of 3 layers)"),
        ("search across layers (typing -> results)", "search_ms",
         f"({view['search_hits']} hits listed)"),
        ("going to a hit in a stacked layer (MatMul of 3-Block)", "hit_ms", layer),
        ("longest main-thread task", "longest_task_ms", ""),
    ]  # fmt: skip
    for label, key, note in rows:
        row(label, ms(view[key]), note)
    steps = ", ".join(ms(t) for t in view["slider_ms"]) or "no passes"
    row("pass slider, one step each (-> drawn)", steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--out", default=None, help="folder for dumps and the HTML")
    parser.add_argument(
        "--html", default=None, help="only the browser part, on this standalone HTML"
    )
    parser.add_argument("--screenshot", default=None, help="PNG of the first view")
    args = parser.parse_args()

    def row(label, value, note=""):
        print(f"  {label:<46}{value:>10}  {note}".rstrip())

    if args.html:
        print(f"{os.path.basename(args.html)} in Chromium, one run")
        print_browser(browser_numbers(os.path.abspath(args.html), args.screenshot), row)
        return
    out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="bench-llm-"))
    os.makedirs(out, exist_ok=True)
    base = run_phase("compile", args.layers, out)
    ours = run_phase("trace", args.layers, out)
    overhead = (ours["trace_s"] - base["compile_s"]) / base["compile_s"] * 100
    b, o = base, ours

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
        "peak PSS of the process tree: trace",
        f"{o['trace_tree_pss_mb']:.0f} MB",
        f"(whole phase with to_html {o['tree_pss_mb']:.0f} MB; MindSpore's compile alone "
        f"{b['tree_pss_mb']:.0f} MB; target <= 1024 MB)",
    )
    row(
        "scope repair of the final graph",
        f"{o['repair_s']:.2f} s",
        f"({o['kernels']} kernels, {o['nodes']} nodes, {o['passes']} passes)",
    )
    row("kernels MindSpore names under layer 0", str(o["named_under_first_layer"]))
    row("layers holding the same ops after repair", f"{o['layers_alike']}/{o['layers']}")
    print_browser(browser_numbers(os.path.join(out, "decoder.html"), args.screenshot), row)
    print(f"  (dumps and decoder.html in {out})")


if __name__ == "__main__":
    main()

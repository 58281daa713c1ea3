"""Two traces side by side at LLM scale: two 32-layer Llama-style decoders (d=64,
tests/scopes/nets.py, as in bench_llm.py), the second after a code change (the MLP's hidden
width 172 -> 176), compared with ``ascend_lab.compare`` and opened in Chromium.

Prints (each measured once: the machine is shared, run it once):
  * the two traces (``run=False``): seconds each, kernels and nodes of each final graph;
  * ``ascend_lab.compare(a, b)``: seconds (alignment + each side's memory plan), and what
    it found: matched / added / removed / changed, how the pairs were found;
  * ``Comparison.to_html()``: seconds and size;
  * the page in Chromium (offline): ms from navigation until both panes are drawn;
  * time to a first view = compare + HTML + drawn (target <= 3 s).

Usage: .venv/bin/python benchmarks/bench_compare.py [--layers 32] [--out DIR]
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

READY = '[data-pane="{}"] .al-canvas[data-state="ready"]'


def _trace(layers, hidden):
    import ascend_lab
    from tests.scopes.nets import Decoder, decoder_tokens

    net = Decoder(layers=layers, hidden=hidden)
    net.set_train(False)
    start = time.perf_counter()
    tr = ascend_lab.trace(net, decoder_tokens(), run=False, progress=False)
    return tr, time.perf_counter() - start


def browser_drawn_ms(path):
    from tests.support.browser import block_network, chromium

    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        attempts = block_network(context)
        page = context.new_page()
        page.goto(f"file://{path}", timeout=300000)
        page.wait_for_selector(READY.format("a"), timeout=300000)
        page.wait_for_selector(READY.format("b"), timeout=300000)
        drawn = page.evaluate("performance.now()")
        boxes = page.locator(".al-node, .al-group, .al-stack").count()
        context.close()
    if attempts:
        raise RuntimeError(f"the page tried to use the network: {attempts}")
    return drawn, boxes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--out", default=None, help="folder for the HTML page")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="bench-compare-")

    import ascend_lab

    a, ta = _trace(args.layers, 172)
    b, tb = _trace(args.layers, 176)
    print(
        f"trace A ({args.layers} layers, hidden 172): {ta:.1f} s, "
        f"{a.kernel_count} kernels, {len(a.graph.nodes)} nodes"
    )
    print(
        f"trace B ({args.layers} layers, hidden 176): {tb:.1f} s, "
        f"{b.kernel_count} kernels, {len(b.graph.nodes)} nodes"
    )

    start = time.perf_counter()
    cmp = ascend_lab.compare(a, b, titles=("hidden 172", "hidden 176"))
    compare_s = time.perf_counter() - start
    how = ", ".join(f"{k} {v}" for k, v in sorted(cmp.alignment.how_counts().items()))
    print(
        f"compare: {compare_s:.2f} s; matched {len(cmp.matched)} ({how}), "
        f"added {len(cmp.added)}, removed {len(cmp.removed)}, changed {len(cmp.changed)} "
        f"(shape {len(cmp.changes_of('shape'))})"
    )
    print(f"memory peaks: A {cmp.a.peak} B, B {cmp.b.peak} B")

    start = time.perf_counter()
    path = cmp.to_html(os.path.join(out, "compare.html"))
    html_s = time.perf_counter() - start
    print(f"to_html: {html_s:.2f} s, {os.path.getsize(path) / 1e6:.1f} MB ({path})")

    drawn_ms, boxes = browser_drawn_ms(path)
    print(f"Chromium: both panes drawn {drawn_ms:.0f} ms after navigation ({boxes} boxes)")
    first = compare_s + html_s + drawn_ms / 1000
    print(f"time to a first view (compare + HTML + drawn): {first:.2f} s (target <= 3 s)")


if __name__ == "__main__":
    main()

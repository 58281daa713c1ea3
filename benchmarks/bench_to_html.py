"""Issue #27: ``Trace.to_html()`` of the 32-layer decoder (benchmarks/support/nets.py), by phase.

Prints the wall and CPU seconds of one ``trace.to_html(path)`` (target: <= 5 s) and how
they split: parsing pass dumps, pass fingerprints and diffs, scope repair, the rest of the
graphs' payload objects, the memory plan, path redaction, JSON encoding, gzip, the
payload check, and what is left (the pass loop, the page); then the page's size. Each
phase is timed by wrapping the one function that does it (a few hundred calls: the
wrappers cost nothing measurable), so the phases add up to the total.

The trace is taken once (MindSpore on CPU, ~2 min under load) and can be kept:
``--pickle FILE`` reads the Trace from FILE, or traces and writes it there when FILE does
not exist. ``--profile N`` also prints cProfile's top N functions (cumulative and own
time; the profile slows the run ~1.5x, so its seconds are not the phases' above).

On a shared machine read the CPU seconds: wall grows with the load.

Usage: .venv/bin/python benchmarks/bench_to_html.py [--layers 32] [--pickle FILE]
       [--out DIR] [--profile 30]
"""

import argparse
import os
import pickle
import sys
import tempfile
import time
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

SPENT = defaultdict(lambda: [0.0, 0.0, 0])  # phase -> [wall, cpu, calls]


def timed(phase, fn):
    """``fn``, adding its wall and CPU seconds to ``SPENT[phase]``."""

    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent = SPENT[phase]
            spent[0] += time.perf_counter() - wall
            spent[1] += time.process_time() - cpu
            spent[2] += 1

    return wrapper


class _Shim:
    """A module stand-in whose one function is timed (``gzip.compress``, ``json.dumps``)."""

    def __init__(self, module, name, phase):
        self._module = module
        setattr(self, name, timed(phase, getattr(module, name)))

    def __getattr__(self, name):
        return getattr(self._module, name)


def load_trace(layers, path):
    """The decoder's Trace: from ``path`` if it exists, else traced (and saved to ``path``)."""
    from ascend_lab.parsers.ir.timeline import _memo_parser

    if path and os.path.exists(path):
        with open(path, "rb") as f:
            trace = pickle.load(f)
        trace.passes._parse = _memo_parser()
        return trace, None
    import ascend_lab
    from benchmarks.support.nets import Decoder, decoder_tokens

    net = Decoder(layers=layers)
    net.set_train(False)
    start = time.perf_counter()
    trace = ascend_lab.trace(net, decoder_tokens(), run=False)
    seconds = time.perf_counter() - start
    if path:
        parse, net_, inputs = trace.passes._parse, trace._net, trace._inputs
        trace.passes._parse, trace._net, trace._inputs = None, None, []  # not picklable
        try:
            with open(path, "wb") as f:
                pickle.dump(trace, f, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            trace.passes._parse, trace._net, trace._inputs = parse, net_, inputs
    return trace, seconds


def instrument(trace):
    """Wrap each phase's function (module globals the pipeline looks up at call time)."""
    import gzip
    import json

    from ascend_lab.parsers.ir import timeline
    from ascend_lab.payload import build, packing, redact, view_input
    from ascend_lab.render import standalone

    trace.passes._parse = timed("parse pass dumps", trace.passes._parse)
    timeline.fingerprint = timed("pass fingerprints + diffs", timeline.fingerprint)
    timeline.diff_fingerprints = timed("pass fingerprints + diffs", timeline.diff_fingerprints)
    build.repair_scopes = timed("scope repair", build.repair_scopes)
    build.graph_data = timed("graph objects (with scope repair)", build.graph_data)
    build.memory_section = timed("memory plan", build.memory_section)
    redact.PathRedactor.value = timed("path redaction", redact.PathRedactor.value)
    packing.json = _Shim(json, "dumps", "JSON encoding")
    standalone.embed_json = timed("JSON encoding", standalone.embed_json)
    packing.gzip = _Shim(gzip, "compress", "gzip")
    view_input.check_payload = timed("payload check", view_input.check_payload)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--pickle", default=None, help="the Trace, kept between runs")
    parser.add_argument("--out", default=None, help="folder for the HTML")
    parser.add_argument("--profile", type=int, default=0, help="also print cProfile's top N")
    args = parser.parse_args()

    trace, traced_s = load_trace(args.layers, args.pickle)
    out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="bench-to-html-"))
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "decoder.html")
    how = f"traced in {traced_s:.1f} s" if traced_s is not None else f"read from {args.pickle}"
    print(f"{args.layers}-layer decoder: {len(trace.passes)} passes, "
          f"{len(trace.graph.nodes)} nodes in the final graph ({how})")  # fmt: skip

    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
    instrument(trace)
    wall, cpu = time.perf_counter(), time.process_time()
    trace.to_html(path)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if args.profile:
        profile.disable()

    spent = {k: list(v) for k, v in SPENT.items()}
    whole = "graph objects (with scope repair)"
    if whole in spent and "scope repair" in spent:  # exclusive: scope repair on its own row
        for i in (0, 1):
            spent[whole][i] -= spent["scope repair"][i]
        spent["graph objects (no repair)"] = spent.pop(whole)
    print(f"Trace.to_html(): {wall:.2f} s wall, {cpu:.2f} s CPU (target <= 5 s)")
    print(f"  {'phase':<34}{'wall s':>8}{'CPU s':>8}{'CPU %':>7}{'calls':>7}")
    for phase, (w, c, n) in sorted(spent.items(), key=lambda kv: -kv[1][1]):
        print(f"  {phase:<34}{w:8.2f}{c:8.2f}{c / cpu * 100:6.0f}%{n:7d}")
    rest_w = wall - sum(v[0] for v in spent.values())
    rest_c = cpu - sum(v[1] for v in spent.values())
    rest = "the rest (pass loop, page)"
    print(f"  {rest:<34}{rest_w:8.2f}{rest_c:8.2f}{rest_c / cpu * 100:6.0f}%")
    print(f"page: {os.path.getsize(path) / 1e6:.2f} MB ({path})")
    if args.profile:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(args.profile)
        stats.sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()

"""compare_numerics at LLM scale: the 32-layer Llama-style decoder (d=64; tests/scopes/nets.py).

Prints, each phase once in a fresh process whose process tree is sampled for PSS (summed
over the tree, shared pages counted once; see bench_course.TreeSampler) and peak RSS:
  * ``baseline``: ``net(tokens)`` in PyNative, twice (MindSpore alone);
  * ``same``: ``compare_numerics(net, net, tokens)``, statistics only (the default);
  * ``amp``: ``compare_numerics(net, tokens, amp="O2")`` (a deep copy under AMP);
  * ``tensors``: ``compare_numerics(net, net, tokens, tensors=True)`` (whole tensors kept).
Each line: seconds of the phase's own work (import excluded), matched Cell calls, the first
divergence, peak tree PSS and the process's peak RSS. The machine is shared: run it once
and read the ratios.

Usage: .venv/bin/python benchmarks/bench_numerics.py [--layers 32] [--phases same,amp]
"""

import argparse
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

PHASES = ("baseline", "same", "amp", "tensors")


def phase(name: str, layers: int) -> dict:
    import mindspore as ms

    import ascend_lab
    from tests.scopes.nets import Decoder, decoder_tokens

    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Decoder(layers=layers)
    net.set_train(False)
    tokens = decoder_tokens()
    from ascend_lab.capture.cell_outputs import _prime_pynative

    _prime_pynative()  # MindSpore 2.10 + NumPy 2: the first PyNative op may fail spuriously
    start = time.perf_counter()
    result = None
    if name == "baseline":
        net(tokens)
        net(tokens)
    elif name == "same":
        result = ascend_lab.compare_numerics(net, net, tokens)
    elif name == "amp":
        result = ascend_lab.compare_numerics(net, tokens, amp="O2")
    elif name == "tensors":
        result = ascend_lab.compare_numerics(net, net, tokens, tensors=True)
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "cpu_s": time.process_time()}
    if result is not None:
        first = result.first_divergence
        out["matched"] = len(result.pairs)
        out["unmatched"] = len(result.unmatched)
        out["first_divergence"] = f"{first.label} ({first.op_type_a})" if first else None
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_phase(name: str, layers: int) -> dict:
    from benchmarks.bench_course import run_sampled

    code = (
        f"import json, sys; sys.path.insert(0, {ROOT!r});"
        "from benchmarks.bench_numerics import phase;"
        f"print('RESULT ' + json.dumps(phase({name!r}, {layers})))"
    )
    out, err, sampler = run_sampled(code, ROOT)
    for line in out.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
            result["tree_pss_mb"] = sampler.peak_pss / 2**20
            result["tree_rss_mb"] = sampler.peak_rss / 2**20
            return result
    raise SystemExit(f"{name} failed:\n{out[-2000:]}\n{err[-4000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--phases", default=",".join(PHASES))
    args = parser.parse_args()
    print(f"decoder: {args.layers} layers, d=64, 16 tokens; MindSpore on CPU, PyNative")
    print(f"{'phase':9} {'time':>8} {'CPU':>8} {'matched':>8} {'tree PSS':>9} {'RSS':>8}  first")
    for name in args.phases.split(","):
        r = run_phase(name, args.layers)
        print(
            f"{name:9} {r['seconds']:6.2f} s {r['cpu_s']:6.1f} s {r.get('matched', '-')!s:>8} "
            f"{r['tree_pss_mb']:6.0f} MB {r['peak_rss_mb']:5.0f} MB  {r.get('first_divergence')}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

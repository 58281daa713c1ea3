"""compare_numerics at LLM scale: the 32-layer Llama-style decoder (d=64;
benchmarks/support/nets.py).

Prints, each phase once in a fresh process whose process tree is sampled for PSS (summed
over the tree, shared pages counted once; see bench_course.TreeSampler) and peak RSS:
  * ``baseline``: ``net(tokens)`` in PyNative, twice (MindSpore alone);
  * ``same``: ``compare_numerics(net, net, tokens)``, statistics only (the default);
  * ``amp``: ``compare_numerics(net, tokens, amp="O2")`` (a deep copy under AMP);
  * ``tensors``: ``compare_numerics(net, net, tokens, tensors=True)`` (whole tensors kept);
  * ``dump``: ``compare_numerics(net, net, tokens, capture="dump")``: op by op, each side
    compiled and run in GRAPH_MODE in a child process with MindSpore's dump on (the child
    processes are part of the sampled tree), statistics only;
  * ``dump_amp``: ``compare_numerics(net, tokens, amp="O2", capture="dump")``.
Each line: seconds of the phase's own work (import excluded), matched Cell calls (ops with
``capture="dump"``), the first divergence, peak tree PSS and the process's peak RSS; the
dump phases also print the largest the dump folders grew on disk (polled every 0.2 s). The
machine is shared: run it once and read the ratios.

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

PHASES = ("baseline", "same", "amp", "tensors", "dump", "dump_amp")


class DumpDiskSampler:
    """The largest total size of the capture's dump folders (``ascend-lab-opdump-*`` in the
    temporary folder), polled from a thread."""

    def __init__(self, every: float = 0.2):
        import threading

        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "DumpDiskSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import tempfile

        root = tempfile.gettempdir()
        while not self._stop.wait(self.every):
            total = 0
            try:
                names = [n for n in os.listdir(root) if n.startswith("ascend-lab-opdump-")]
            except OSError:
                continue
            for name in names:
                for folder, _, files in os.walk(os.path.join(root, name)):
                    for f in files:
                        try:
                            total += os.path.getsize(os.path.join(folder, f))
                        except OSError:
                            pass
            self.peak = max(self.peak, total)


def phase(name: str, layers: int) -> dict:
    import mindspore as ms

    import ascend_lab
    from benchmarks.support.nets import Decoder, decoder_tokens

    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Decoder(layers=layers)
    net.set_train(False)
    tokens = decoder_tokens()
    from ascend_lab.capture.cell_outputs import prime_pynative

    prime_pynative()  # MindSpore 2.10 + NumPy 2: the first PyNative op may fail spuriously
    start = time.perf_counter()
    result = None
    disk = None
    if name == "baseline":
        net(tokens)
        net(tokens)
    elif name == "same":
        result = ascend_lab.compare_numerics(net, net, tokens)
    elif name == "amp":
        result = ascend_lab.compare_numerics(net, tokens, amp="O2")
    elif name == "tensors":
        result = ascend_lab.compare_numerics(net, net, tokens, tensors=True)
    elif name in ("dump", "dump_amp"):
        with DumpDiskSampler() as disk:
            if name == "dump":
                result = ascend_lab.compare_numerics(net, net, tokens, capture="dump")
            else:
                result = ascend_lab.compare_numerics(net, tokens, amp="O2", capture="dump")
    seconds = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {"seconds": seconds, "cpu_s": time.process_time() + children.ru_utime + children.ru_stime}
    if disk is not None:
        out["dump_disk_mb"] = disk.peak / 2**20
    if result is not None:
        first = result.first_divergence
        out["matched"] = len(result.pairs)
        out["unmatched"] = len(result.unmatched)
        out["largest_rel"] = max((p.max_rel for p in result.pairs), default=0.0)
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
    print(
        f"decoder: {args.layers} layers, d=64, 16 tokens; MindSpore on CPU, PyNative "
        "(dump phases: GRAPH_MODE in child processes)"
    )
    print(f"{'phase':9} {'time':>8} {'CPU':>8} {'matched':>8} {'tree PSS':>9} {'RSS':>8}  first")
    for name in args.phases.split(","):
        r = run_phase(name, args.layers)
        print(
            f"{name:9} {r['seconds']:6.2f} s {r['cpu_s']:6.1f} s {r.get('matched', '-')!s:>8} "
            f"{r['tree_pss_mb']:6.0f} MB {r['peak_rss_mb']:5.0f} MB  {r.get('first_divergence')}"
            + (
                f"  (dump on disk at most {r['dump_disk_mb']:.0f} MB)"
                if "dump_disk_mb" in r
                else ""
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Profiling overhead: ``ascend_lab.profile`` versus the same steps without a profiler (CPU).

For each reference net (ascend_lab/course/nets.py), in one process, graph mode:
  * unprofiled: ``--warmup`` calls, then ``--steps`` timed calls: median step (ms), once
    before and once after the profile (the machine is shared: the two show the noise;
    the overhead is taken against the smaller);
  * profiled: ``ascend_lab.profile(net, x, steps, warmup, trace=...)``: median measured step
    (ms), its overhead over the unprofiled median, and the whole call's seconds (profiler
    start, steps, MindSpore's analysis, parsing; plus the trace compile when joined);
  * what the profile found: kernels in the final graph, kernels timed, graph kernels
    without a time (and their op types), rows not joined, and the largest
    (kernel time sum / step wall) over the steps, which must stay <= 1.

Run it once (the machine is shared). ResNet-50 (1x3x224x224) is included with --resnet.
Usage: .venv/bin/python benchmarks/bench_profile.py [--steps 10] [--warmup 2] [--resnet]
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def _nets(resnet):
    import mindspore as ms
    import numpy as np

    from ascend_lab.course.nets import ConvBNReLU, EncoderBlock, LeNet5, ResNet50

    rng = np.random.default_rng(0)

    def t(*shape):
        return ms.Tensor(rng.random(shape, dtype=np.float32))

    nets = [
        ("ConvBNReLU", ConvBNReLU, t(1, 3, 16, 16)),
        ("LeNet5", LeNet5, t(32, 1, 32, 32)),
        ("EncoderBlock", EncoderBlock, t(8, 64, 128)),
    ]
    if resnet:
        nets.append(("ResNet50", ResNet50, t(1, 3, 224, 224)))
    return nets


def unprofiled_ms(net, x, steps, warmup):
    import mindspore as ms

    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(warmup):
        net(x)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        net(x)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--resnet", action="store_true", help="also ResNet-50 (slow)")
    parser.add_argument("--no-trace", action="store_true", help="do not join to a trace")
    args = parser.parse_args()

    import mindspore as ms

    import ascend_lab

    print(f"MindSpore {ms.__version__}, CPU, {args.steps} steps after {args.warmup} warm-up")
    head = (
        f"{'net':<13} {'plain ms (before/after)':>23} {'profiled ms':>12} {'overhead':>9} "
        f"{'call s':>7} {'graph k':>8} {'timed':>6} {'no time':>8} {'unjoined':>9} "
        f"{'max sum/wall':>13}"
    )
    print(head)
    print("-" * len(head))
    for name, cls, x in _nets(args.resnet):
        net = cls()
        plain = unprofiled_ms(net, x, args.steps, args.warmup)
        start = time.perf_counter()
        prof = ascend_lab.profile(
            net, x, steps=args.steps, warmup=args.warmup, trace=False if args.no_trace else None
        )
        call_s = time.perf_counter() - start
        after = unprofiled_ms(net, x, args.steps, 0)
        profiled = statistics.median(s.wall_us for s in prof.steps) / 1000
        ratio = max(s.kernel_sum_us / s.wall_us for s in prof.steps)
        graph_k = len(prof.trace.graph.kernels) if prof.trace is not None else "-"
        timed = sum(1 for k in prof.kernels if k.node_id) if prof.trace else len(prof.kernels)
        print(
            f"{name:<13} {plain:>11.2f} /{after:>10.2f} {profiled:>12.2f} "
            f"{profiled / min(plain, after) - 1:>+8.0%} "
            f"{call_s:>7.1f} {graph_k!s:>8} {timed:>6} {len(prof.unmeasured_nodes):>8} "
            f"{len(prof.unjoined_rows):>9} {ratio:>13.3f}"
        )
        missing = sorted({u.op_type for u in prof.unmeasured_nodes})
        if missing:
            print(f"{'':<13} without a time: {', '.join(missing)} (nop kernels, not launched)")
        slow = prof.slowest
        print(f"{'':<13} slowest: {slow.name} ({slow.mean_us / 1000:.3f} ms per call)")


if __name__ == "__main__":
    main()

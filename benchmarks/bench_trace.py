"""Benchmarks for ascend_lab.trace (prints numbers; no assertions).

    .venv/bin/python benchmarks/bench_trace.py [--runs 3] [--nets course,lenet,resnet50]

What is measured (every number is the median of --runs samples; the samples are printed):

1. Overhead, per net, in one process: MindSpore's own first call of a fresh instance with
   the same dumps on (``save_graphs=1``) against ``ascend_lab.trace()`` of another fresh
   instance. The two alternate (A B, B A, A B, ...) so neither always runs first, after one
   warm-up call of the net without dumps (kernels and lazy imports are then paid for).
   Reported: both wall times, the trace's own compile+run and its parse + analysis, and
   parse + analysis as % of MindSpore's first call (target <= 20 % for ResNet-50).
2. The course's net (``ConvBNReLU`` from notebooks/course_nets.py: Conv2d(3->16, 3x3,
   same, no bias) + BatchNorm2d + ReLU, input 1x3x32x32, as notebook 02 traces it):
   ``import mindspore`` + ``trace()`` + ``to_payload()`` in a fresh process, process wall
   time included (target < 10 s). Fresh processes, one after another.
3. Peak RSS of a ResNet-50 trace + payload in a fresh process (target < 1.5 GB).

CPU timings are noisy (2 shared cores): compare within one run, look at the spread.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# name -> (how to make a fresh instance, input shape)
NETS: Dict[str, Tuple[str, Tuple[int, ...]]] = {
    "course": ("course ConvBNReLU", (1, 3, 32, 32)),
    "lenet": ("LeNet-5", (1, 1, 32, 32)),
    "resnet50": ("ResNet-50", (1, 3, 224, 224)),
}


def make_net(name: str) -> Any:
    if name == "course":
        sys.path.insert(0, os.path.join(ROOT, "notebooks"))
        from course_nets import ConvBNReLU  # the net the course follows

        net = ConvBNReLU()
    elif name == "lenet":
        from ascend_lab.course.nets import LeNet5

        net = LeNet5()
    else:
        from ascend_lab.course.nets import ResNet50

        net = ResNet50()
    net.set_train(False)
    return net


def _tensor(shape: Tuple[int, ...]) -> Any:
    import mindspore as ms
    import numpy as np

    return ms.Tensor(np.random.RandomState(0).rand(*shape).astype(np.float32))


def _fmt(samples: List[float], unit: str = "s", digits: int = 2) -> str:
    med = statistics.median(samples)
    each = ", ".join(f"{s:.{digits}f}" for s in samples)
    return f"{med:7.{digits}f} {unit}  (samples: {each})"


def mindspore_first_call(name: str, x: Any) -> float:
    """Seconds of MindSpore's first call of a fresh instance with save_graphs=1."""
    import mindspore as ms

    from ascend_lab.capture.compile import _set_context, read_context

    dump = tempfile.mkdtemp(prefix="bench-dumps-")
    saved = read_context(ms)
    net = make_net(name)
    _set_context(ms, {"mode": ms.GRAPH_MODE, "save_graphs": 1, "save_graphs_path": dump})
    try:
        t0 = time.perf_counter()
        net(x)
        return time.perf_counter() - t0
    finally:
        _set_context(ms, saved, restoring=True)
        shutil.rmtree(dump)


def traced(name: str, x: Any) -> Dict[str, float]:
    import ascend_lab

    net = make_net(name)
    t0 = time.perf_counter()
    tr = ascend_lab.trace(net, x, progress=False)
    total = time.perf_counter() - t0
    return {
        "total": total,
        "compile": tr.compile_seconds,
        "analysis": tr.analysis_seconds,
        "passes": float(len(tr.passes)),
        "kernels": float(tr.kernel_count),
    }


def bench_overhead(name: str, runs: int) -> None:
    import mindspore as ms

    label, shape = NETS[name]
    x = _tensor(shape)
    old_mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    make_net(name)(x)  # warm-up: kernels and lazy imports, paid by neither side
    ms.set_context(mode=old_mode)
    first: List[float] = []
    trace_runs: List[Dict[str, float]] = []
    cases: List[Callable[[], None]] = [
        lambda: first.append(mindspore_first_call(name, x)),
        lambda: trace_runs.append(traced(name, x)),
    ]
    for i in range(runs):
        for case in cases if i % 2 == 0 else reversed(cases):
            case()
    total = [r["total"] for r in trace_runs]
    compile_ = [r["compile"] for r in trace_runs]
    analysis = [r["analysis"] for r in trace_runs]
    overhead = statistics.median(analysis) / statistics.median(first) * 100
    print(
        f"{label} {'x'.join(map(str, shape))}, CPU, save_graphs=1, "
        f"{int(trace_runs[0]['passes'])} dumps, {int(trace_runs[0]['kernels'])} kernels; "
        f"median of {runs}, alternating:"
    )
    print(f"  MindSpore's first call with dumps: {_fmt(first)}")
    print(f"  ascend_lab.trace() total:          {_fmt(total)}")
    print(f"    its compile + run (capture):     {_fmt(compile_)}")
    print(f"    its parse + analysis:            {_fmt(analysis)}")
    print(f"  parse + analysis / first call:     {overhead:7.1f} %  (target <= 20 % on ResNet-50)")
    print(
        f"  trace total / first call:          "
        f"{statistics.median(total) / statistics.median(first) * 100:7.1f} %",
        flush=True,
    )


def bench_payload(runs: int) -> None:
    import ascend_lab

    tr = ascend_lab.trace(make_net("resnet50"), _tensor(NETS["resnet50"][1]), progress=False)
    none: List[float] = []
    changed: List[float] = []
    size = 0
    for i in range(runs):
        for mode in ("none", "changed") if i % 2 == 0 else ("changed", "none"):
            t0 = time.perf_counter()
            payload = tr.to_payload(passes=mode)
            (none if mode == "none" else changed).append(time.perf_counter() - t0)
            if mode == "changed":
                size = len(json.dumps(payload))
    print(f"ResNet-50 to_payload(), median of {runs}, alternating:")
    print(f"  passes='none':    {_fmt(none)}")
    print(f"  passes='changed': {_fmt(changed)}  ({size / 1e6:.1f} MB of JSON)", flush=True)


def child_course() -> None:
    t0 = time.perf_counter()
    import mindspore  # noqa: F401

    import ascend_lab

    t1 = time.perf_counter()
    tr = ascend_lab.trace(make_net("course"), _tensor(NETS["course"][1]), progress=False)
    tr.to_payload()
    t2 = time.perf_counter()
    print(json.dumps({"import": t1 - t0, "trace": t2 - t1, "total": t2 - t0}))


def child_rss() -> None:
    import ascend_lab

    tr = ascend_lab.trace(make_net("resnet50"), _tensor(NETS["resnet50"][1]), progress=False)
    tr.to_payload(passes="changed")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"peak_mb": peak_kb / 1024.0, "kernels": tr.kernel_count}))


def _child(mode: str) -> Dict[str, float]:
    env = dict(os.environ, ASCEND_LAB_QUIET="1", GLOG_v="3")
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", mode],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - t0
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1]
    data: Dict[str, float] = json.loads(line)
    data["wall"] = wall
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nets", default="course,lenet,resnet50", help="for the overhead")
    parser.add_argument("--child", choices=("course", "rss"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        {"course": child_course, "rss": child_rss}[args.child]()
        return
    os.environ.setdefault("ASCEND_LAB_QUIET", "1")
    nets = [n for n in args.nets.split(",") if n]
    unknown = set(nets) - set(NETS)
    if unknown:
        parser.error(f"unknown nets {sorted(unknown)}; choose from {sorted(NETS)}")
    course = [_child("course") for _ in range(args.runs)]
    print(f"The course's ConvBNReLU (1x3x32x32), fresh process each, median of {args.runs}:")
    print(f"  import mindspore + ascend_lab:     {_fmt([c['import'] for c in course])}")
    print(f"  trace() + to_payload():            {_fmt([c['trace'] for c in course])}")
    print(
        f"  end to end (process wall time):    {_fmt([c['wall'] for c in course])}"
        "  (target < 10 s)",
        flush=True,
    )
    for name in nets:
        bench_overhead(name, args.runs)
    if "resnet50" in nets:
        bench_payload(args.runs)
        rss = [_child("rss") for _ in range(args.runs)]
        print(f"ResNet-50 trace + payload, fresh process each, median of {args.runs}:")
        print(
            f"  peak RSS: {_fmt([r['peak_mb'] for r in rss], 'MB', 0)}  (target < 1536 MB)",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Benchmarks for ascend_lab.trace (prints numbers; no assertions).

    .venv/bin/python benchmarks/bench_trace.py

1. ResNet-50 (batch 1, 224x224): MindSpore's own first call with the same dumps
   (save_graphs=1) vs ``ascend_lab.trace()``; parse + analysis overhead in % (target <= 20%).
2. The course's Conv2d+BatchNorm+ReLU net: ``trace()`` end to end in a fresh process,
   including ``import mindspore`` (target < 10 s).
3. Peak RSS of a ResNet-50 trace (+ payload) in a fresh process (target < 1.5 GB).

CPU timings are noisy: compare the ratios within one run.
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def resnet50():
    from ascend_lab.nets import ResNet50

    net = ResNet50()
    net.set_train(False)
    return net


def course_net():
    from ascend_lab.nets import ConvBNReLU

    net = ConvBNReLU()
    net.set_train(False)
    return net


def _tensor(shape):
    import mindspore as ms
    import numpy as np

    return ms.Tensor(np.random.RandomState(0).rand(*shape).astype(np.float32))


def bench_overhead():
    import mindspore as ms

    import ascend_lab
    from ascend_lab.tracing.capture import _set_context, read_context

    x = _tensor((1, 3, 224, 224))
    # warm-up: kernels, lazy imports (neither side should pay for first use of MindSpore)
    warm = resnet50()
    ms.set_context(mode=ms.GRAPH_MODE)
    warm(x)

    # MindSpore's own first call of a fresh net with the same dumps
    dump = tempfile.mkdtemp(prefix="bench-dumps-")
    saved = read_context(ms)
    net = resnet50()
    _set_context(ms, {"save_graphs": 1, "save_graphs_path": dump})
    t0 = time.perf_counter()
    net(x)
    ms_first = time.perf_counter() - t0
    _set_context(ms, saved, restoring=True)
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(dump) for f in fs)
    shutil.rmtree(dump)

    net2 = resnet50()
    t0 = time.perf_counter()
    tr = ascend_lab.trace(net2, x)
    traced = time.perf_counter() - t0
    t0 = time.perf_counter()
    payload = tr.to_payload(passes="none")
    payload_none = time.perf_counter() - t0
    t0 = time.perf_counter()
    payload = tr.to_payload(passes="changed")
    payload_changed = time.perf_counter() - t0
    text = json.dumps(payload)
    overhead = tr.analysis_seconds / ms_first * 100
    print("ResNet-50 (1x3x224x224, CPU, save_graphs=1):")
    print(f"  dumps: {len(tr.passes)} files, {size / 1e6:.0f} MB")
    print(f"  MindSpore first call with dumps:   {ms_first:7.2f} s")
    print(f"  ascend_lab.trace() total:          {traced:7.2f} s")
    print(f"    of which compile+run (capture):  {tr.compile_seconds:7.2f} s")
    print(f"    of which parse + analysis:       {tr.analysis_seconds:7.2f} s")
    print(f"  parse + analysis overhead:         {overhead:6.1f} %  (target <= 20 %)")
    print(
        f"  parse + analysis vs trace's own compile: "
        f"{tr.analysis_seconds / tr.compile_seconds * 100:5.1f} %"
    )
    print(f"  total vs first call:               {(traced / ms_first - 1) * 100:+6.1f} %")
    print(f"  to_payload(passes='none'):         {payload_none:7.2f} s")
    print(
        f"  to_payload(passes='changed'):      {payload_changed:7.2f} s "
        f"({len(payload['graphs'])} graphs, {len(text) / 1e6:.1f} MB JSON)"
    )
    print(f"  kernels: {tr.kernel_count}")


def child_course():
    t0 = time.perf_counter()
    import mindspore  # noqa: F401

    import ascend_lab

    t1 = time.perf_counter()
    tr = ascend_lab.trace(course_net(), _tensor((1, 3, 16, 16)))
    tr.to_payload()
    t2 = time.perf_counter()
    print(json.dumps({"import": t1 - t0, "trace": t2 - t1, "total": t2 - t0}))


def child_rss():
    import ascend_lab

    tr = ascend_lab.trace(resnet50(), _tensor((1, 3, 224, 224)))
    tr.to_payload(passes="changed")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"peak_mb": peak_kb / 1024.0, "kernels": tr.kernel_count}))


def _child(mode):
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
    data = json.loads(line)
    data["wall"] = wall
    return data


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        {"course": child_course, "rss": child_rss}[sys.argv[2]]()
        return
    os.environ.setdefault("ASCEND_LAB_QUIET", "1")
    course = _child("course")
    print("Course net Conv2d+BN+ReLU (1x3x16x16), fresh process:")
    print(f"  import mindspore + ascend_lab:     {course['import']:7.2f} s")
    print(f"  trace() + to_payload():            {course['trace']:7.2f} s")
    print(f"  end to end (process wall time):    {course['wall']:7.2f} s  (target < 10 s)")
    rss = _child("rss")
    print("ResNet-50 trace + payload, fresh process:")
    print(f"  peak RSS:                          {rss['peak_mb']:7.0f} MB  (target < 1536 MB)")
    bench_overhead()


if __name__ == "__main__":
    main()

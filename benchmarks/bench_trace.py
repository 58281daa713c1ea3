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
    from mindspore import nn

    class Bottleneck(nn.Cell):
        expansion = 4

        def __init__(self, cin, width, stride=1, down=False):
            super().__init__()
            cout = width * 4
            self.conv1 = nn.Conv2d(cin, width, 1)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride=stride, pad_mode="same")
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, cout, 1)
            self.bn3 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.down = down
            if down:
                self.dconv = nn.Conv2d(cin, cout, 1, stride=stride)
                self.dbn = nn.BatchNorm2d(cout)

        def construct(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            idt = self.dbn(self.dconv(x)) if self.down else x
            return self.relu(out + idt)

    class ResNet50(nn.Cell):
        def __init__(self, classes=1000):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, pad_mode="same")
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(3, 2, pad_mode="same")
            layers = []
            cin = 64
            for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                for i in range(blocks):
                    layers.append(Bottleneck(cin, width, stride if i == 0 else 1, down=i == 0))
                    cin = width * 4
            self.layers = nn.SequentialCell(layers)
            self.gap = nn.AdaptiveAvgPool2d(1)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(2048, classes)

        def construct(self, x):
            x = self.pool(self.relu(self.bn1(self.conv1(x))))
            x = self.layers(x)
            return self.fc(self.flatten(self.gap(x)))

    net = ResNet50()
    net.set_train(False)
    return net


def course_net():
    from mindspore import nn

    class ConvBNReLU(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, has_bias=True)
            self.bn = nn.BatchNorm2d(8)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(self.bn(self.conv(x)))

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
    from ascend_lab.trace.capture import _set_context, read_context

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

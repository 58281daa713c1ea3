"""Benchmark the graph viewer in headless Chromium (standalone HTML, layout in a worker).

Prints, median of 3 fresh page loads each:
  * time from navigation to a drawn graph (first paint after layout) for a small
    Conv2d(3->8)+BN+ReLU net and ResNet-50's kernel graph (synthetic ~500 nodes, or both traced
    for real with --real) and a synthetic 10,000-node graph with nested scopes;
  * for the 10,000-node graph: expanding one collapsed group (click -> drawn), and the
    longest main-thread task (PerformanceObserver 'longtask') during load and expand;
  * the size of the ES modules;
  * Python's side, median of --runs: ``check_payload`` (what every view runs on the payload
    it is handed), ``redact_paths`` and the whole standalone page (``render_html``);
  * with --show: ``Trace.show()`` on a real ResNet-50 trace (fusion off) and the share of
    it spent in ``check_payload``.

Usage: .venv/bin/python benchmarks/bench_viewer.py [--real] [--show] [--python-only] [--runs 3]
Needs the built viewer (`jlpm build:viewer` in labextension/) and /usr/bin/chromium.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from ascend_lab.render import to_html  # noqa: E402
from ascend_lab.render.assets import bundle_path  # noqa: E402
from benchmarks.support.browser import block_network, chromium  # noqa: E402
from benchmarks.support.payloads import big_payload, course_payload, resnet_like_payload  # noqa: E402

IDLE_GROUP = ""  # the first collapsed group in view

PROBE = """
window.__longtasks = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longtasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
} catch (e) {}
window.__drawn = new Promise((resolve) => {
  document.addEventListener('al-rendered', () => {
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
  }, { once: true });
});
"""

EXPAND = """
async (group) => {
  const inView = (e) => {
    const r = e.getBoundingClientRect();
    const v = e.closest('svg').getBoundingClientRect();
    return r.bottom > v.top && r.top < v.bottom && r.right > v.left && r.left < v.right;
  };
  const el = group
    ? document.querySelector(`.al-group[data-group="${group}"]`)
    : [...document.querySelectorAll('.al-group')].find(inView);
  if (!el) return -1;
  const before = window.__longtasks.length;
  const t0 = performance.now();
  const done = new Promise((resolve) => document.addEventListener('al-rendered',
      () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)),
      { once: true }));
  el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  const t1 = await done;
  return t1 - t0;
}
"""


def real_course_payload() -> Dict[str, Any]:
    import numpy as np
    from mindspore import Tensor, nn

    import ascend_lab

    class ConvNet(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, has_bias=False)
            self.bn = nn.BatchNorm2d(8)
            self.relu = nn.ReLU()

        def construct(self, x: Any) -> Any:
            return self.relu(self.bn(self.conv(x)))

    net = ConvNet()
    net.set_train(False)
    x = Tensor(np.random.rand(1, 3, 32, 32).astype(np.float32))
    return ascend_lab.trace(net, x, fusion=True).to_payload()


def real_resnet50_payload() -> Dict[str, Any]:
    import numpy as np
    from mindspore import Tensor

    import ascend_lab
    from ascend_lab.course.nets import ResNet50

    net = ResNet50()
    net.set_train(False)
    x = Tensor(np.random.rand(1, 3, 224, 224).astype(np.float32))
    return ascend_lab.trace(net, x, fusion=True).to_payload()


def median_seconds(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def python_side(cases: List[Any], runs: int) -> None:
    from ascend_lab.payload import check_payload
    from ascend_lab.payload.redact import redact_paths
    from ascend_lab.render.standalone import render_html

    for title, payload, _ in cases:
        nodes = sum(len(g["nodes"]) for g in payload["graphs"].values())
        check = median_seconds(lambda p=payload: check_payload(p), runs)
        redact = median_seconds(lambda p=payload: redact_paths(p), runs)
        page = median_seconds(lambda p=payload: render_html(p), runs)
        print(
            f"{title}: {nodes} nodes in {len(payload['graphs'])} graphs; median of {runs}: "
            f"check_payload {check * 1000:.1f} ms, redact_paths {redact * 1000:.1f} ms, "
            f"render_html (redacted page) {page * 1000:.1f} ms",
            flush=True,
        )


def show_side(runs: int) -> None:
    import numpy as np
    from mindspore import Tensor

    import ascend_lab
    from ascend_lab.course.nets import ResNet50
    from ascend_lab.payload import check_payload

    net = ResNet50()
    net.set_train(False)
    trace = ascend_lab.trace(net, Tensor(np.random.rand(1, 3, 224, 224).astype(np.float32)))
    payload = trace.to_payload(passes="none", memory=True)
    nodes = sum(len(g["nodes"]) for g in payload["graphs"].values())
    show = median_seconds(lambda: trace.show().close(), runs)
    check = median_seconds(lambda: check_payload(payload), runs)
    print(
        f"ResNet-50 trace (fusion off), {nodes} nodes in the shown payload; median of {runs}: "
        f"Trace.show() {show * 1000:.0f} ms, of which check_payload {check * 1000:.1f} ms "
        f"({check / show * 100:.1f} %)",
        flush=True,
    )


def measure(browser: Any, path: str, expand: str = "") -> Dict[str, float]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    attempts = block_network(context)
    page = context.new_page()
    page.add_init_script(PROBE)
    page.goto(f"file://{path}")
    drawn = page.evaluate("window.__drawn")
    nodes = page.locator(".al-node, .al-group").count()
    out = {"drawn_ms": drawn, "boxes": float(nodes)}
    if expand:
        # at once (layout of the group in the worker) ...
        out["expand_ms"] = page.evaluate(EXPAND, expand)
        # ... and after two seconds of looking (groups in view were laid out while idle)
        page.wait_for_timeout(2000)
        out["expand_idle_ms"] = page.evaluate(EXPAND, IDLE_GROUP)
        page.wait_for_timeout(100)
    out["longest_task_ms"] = max(page.evaluate("window.__longtasks") or [0.0])
    out["layout_in_worker"] = float(page.evaluate("window.ascendLab.app.layout.usesWorker"))
    context.close()
    if attempts:
        raise RuntimeError(f"the page tried to use the network: {attempts}")
    return out


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--real",
        action="store_true",
        help="trace the Conv2d+BN+ReLU net and ResNet-50 with MindSpore",
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--show", action="store_true", help="time Trace.show() on ResNet-50")
    parser.add_argument("--python-only", action="store_true", help="no browser measurements")
    args = parser.parse_args(argv)
    cases = [
        (
            "Conv2d+BN+ReLU" + (" (traced)" if args.real else " (synthetic)"),
            real_course_payload() if args.real else course_payload(),
            "",
        ),
        (
            "ResNet-50 kernel graph" + (" (traced, fusion on)" if args.real else " (synthetic)"),
            real_resnet50_payload() if args.real else resnet_like_payload(500),
            "",
        ),
        (
            "synthetic 10,000 nodes",
            big_payload(10000),
            "Default/layer8-SequentialCell/0-Bottleneck",  # the one its stack draws
        ),
    ]
    python_side(cases, max(args.runs, 5))
    if args.show:
        show_side(max(args.runs, 5))
    if args.python_only:
        return 0
    for name in ("viewer.js", "standalone.js"):
        size = os.path.getsize(bundle_path(name))
        print(f"{name}: {size / 1024:.1f} KiB ({size} bytes; target < 1.5 MB)")
    with tempfile.TemporaryDirectory() as tmp, chromium() as browser:
        for title, payload, expand in cases:
            path = to_html(payload, os.path.join(tmp, "page.html"))
            n = len(payload["graphs"][payload["views"]["main"]]["nodes"])
            runs = [measure(browser, path, expand) for _ in range(args.runs)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            line = (
                f"{title}: {n} nodes, {int(med['boxes'])} boxes drawn, "
                f"display -> drawn {med['drawn_ms']:.0f} ms (median of {args.runs}), "
                f"longest main-thread task {med['longest_task_ms']:.0f} ms, "
                f"worker={'yes' if med['layout_in_worker'] else 'no'}, "
                f"HTML {os.path.getsize(path) / 1024:.0f} KiB"
            )
            if expand:
                line += (
                    f", expand one group {med['expand_ms']:.0f} ms right after the first view"
                    f" / {med['expand_idle_ms']:.0f} ms after 2 s idle"
                )
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

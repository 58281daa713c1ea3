"""Benchmarks of the ascend-lab server extension and status bar (prints numbers).

1. ``GET {base_url}ascend-lab/api/status`` latency with a warm cache (target < 20 ms),
   sequential, and under 50 concurrent clients; npu-smi runs while doing so.
2. 50 concurrent requests on a cold cache: how many npu-smi runs (target: 1).
3. Time until the NPU status item shows the 910B3 summary, from navigation start and from
   the page's load event (target: visible within 2 s of load), in real Chromium.
4. Size of the built status/panel part of the lab extension, viewer excluded
   (target < 150 KB), raw and gzipped.

Runs a real JupyterLab on 127.0.0.1 with a fake 910B3 x8 npu-smi (tests/server/
fake_machine.py). Needs the extension built into the editable install: ``make`` (or
``cd labextension && ../.venv/bin/jlpm build``), as CONTRIBUTING.md's edit-test loop says.
Usage: .venv/bin/python benchmarks/bench_server.py [--requests N] [--page-loads N]
"""

import argparse
import gzip
import http.client
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.support.browser import chromium  # noqa: E402
from benchmarks.support.fake_machine import call_count, make_fake_machine  # noqa: E402
from benchmarks.support.lab import LabServer  # noqa: E402

STATIC = REPO / "ascend_lab" / "labextension" / "static"
VIEWER_MARKERS = (b"ascend-lab.graph", b"graphlib")


def _pct(values: List[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _ms(values: List[float]) -> str:
    median, p95, worst = statistics.median(values), _pct(values, 0.95), max(values)
    return f"median {median * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, max {worst * 1000:.2f} ms"


def _client(server: LabServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)


def _get(conn: http.client.HTTPConnection, server: LabServer, query: str = "") -> float:
    start = time.perf_counter()
    conn.request(
        "GET",
        server.base_url + "ascend-lab/api/status" + query,
        headers={"Authorization": "token " + server.token},
    )
    response = conn.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - start
    if response.status != 200 or b'"ascend-lab.status/1"' not in body:
        raise RuntimeError(f"bad answer {response.status}: {body[:200]!r}")
    return elapsed


def bench_latency(server: LabServer, calls: str, requests: int) -> None:
    conn = _client(server)
    _get(conn, server)  # warm the cache
    runs_before = call_count(calls)
    times = [_get(conn, server) for _ in range(requests)]
    conn.close()
    print(f"warm cache, 1 client, {requests} requests: {_ms(times)}")

    def worker(n: int) -> List[float]:
        c = _client(server)
        out = [_get(c, server) for _ in range(n)]
        c.close()
        return out

    clients = 50
    per_client = max(1, requests // 10)
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(worker, [per_client] * clients))
    wall = time.perf_counter() - start
    flat = [t for r in results for t in r]
    print(
        f"warm cache, {clients} concurrent clients x {per_client} requests: {_ms(flat)}; "
        f"{len(flat) / wall:.0f} requests/s"
    )
    print(f"npu-smi runs during the warm-cache requests: {call_count(calls) - runs_before}")


def bench_cold(server: LabServer, calls: str) -> None:
    time.sleep(float(server.env["ASCEND_LAB_CACHE_SECONDS"]) + 0.2)  # let the cache expire
    before = call_count(calls)

    def one(_: int) -> float:
        c = _client(server)
        try:
            return _get(c, server)
        finally:
            c.close()

    with ThreadPoolExecutor(50) as pool:
        times = list(pool.map(one, range(50)))
    print(
        f"cold cache, 50 concurrent requests: {_ms(times)}; "
        f"npu-smi runs: {call_count(calls) - before}"
    )


def bench_page(server: LabServer, loads: int) -> None:
    with chromium() as browser:
        for i in range(loads):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.goto(server.lab_url(), wait_until="load", timeout=120000)
            page.wait_for_function(
                "() => { const t = document.querySelector("
                "'#ascend-lab-status .jp-AscendLab-status-text');"
                " return t && t.textContent.startsWith('NPU 8x910B3'); }",
                timeout=120000,
                polling=50,
            )
            shown = page.evaluate("performance.now()")
            nav = page.evaluate(
                "(() => { const n = performance.getEntriesByType('navigation')[0];"
                " return [n.domContentLoadedEventEnd, n.loadEventEnd]; })()"
            )
            print(
                f"page load {i + 1}: status item shows the summary {shown:.0f} ms after "
                f"navigation start, {shown - nav[1]:.0f} ms after the load event "
                f"(DOMContentLoaded {nav[0]:.0f} ms, load {nav[1]:.0f} ms)"
            )
            context.close()


def bundle_sizes() -> Tuple[int, int, int, int]:
    status_raw = status_gz = viewer_raw = viewer_gz = 0
    for f in sorted(STATIC.glob("*.js")):
        data = f.read_bytes()
        gz = len(gzip.compress(data, 9))
        if any(m in data for m in VIEWER_MARKERS):
            viewer_raw += len(data)
            viewer_gz += gz
        else:
            status_raw += len(data)
            status_gz += gz
    return status_raw, status_gz, viewer_raw, viewer_gz


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--page-loads", type=int, default=3)
    args = parser.parse_args()

    prod = "lib_index_js" not in " ".join(p.name for p in STATIC.glob("*.js"))
    s_raw, s_gz, v_raw, v_gz = bundle_sizes()
    print(
        "bundle ({} build): status/panel part {:.1f} KB ({:.1f} KB gzipped); viewer part "
        "(not counted) {:.1f} KB ({:.1f} KB gzipped)".format(
            "production" if prod else "development",
            s_raw / 1024,
            s_gz / 1024,
            v_raw / 1024,
            v_gz / 1024,
        )
    )
    with tempfile.TemporaryDirectory(prefix="ascend-lab-bench-") as tmp:
        folder = Path(tmp)
        env = make_fake_machine(folder / "machine")
        calls = env.pop("CALLS")
        env["ASCEND_LAB_CACHE_SECONDS"] = "2"
        server = LabServer(folder, env)
        start = time.perf_counter()
        server.start()
        print(f"jupyter lab ready in {time.perf_counter() - start:.1f} s")
        try:
            bench_latency(server, calls, args.requests)
            bench_cold(server, calls)
            if args.page_loads:
                bench_page(server, args.page_loads)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

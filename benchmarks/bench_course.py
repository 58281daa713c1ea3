"""Run every course notebook top to bottom and print wall time and the kernel's peak RSS.

    .venv/bin/python benchmarks/bench_course.py              # all notebooks
    .venv/bin/python benchmarks/bench_course.py 03 04        # the ones whose name starts so
    .venv/bin/python benchmarks/bench_course.py --kernel mindspore

Each notebook runs in its own subprocess (nbclient + a fresh kernel), on a temporary copy
of ``notebooks/``; the peak RSS is ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` of that
subprocess after the kernel has exited: the largest process it started (the kernel, or an
msrun worker in notebook 8). Budgets (issue 8): whole course < 10 min, each kernel < 1.5 GB.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.course.nbrun import NOTEBOOKS, execute_in_place  # noqa: E402

BUDGET_TOTAL_S = 600.0
BUDGET_RSS_MB = 1536.0


def run_one(path: str, kernel: str, timeout: int, save: str = "") -> Dict[str, object]:
    """Execute one notebook (in this process); returns seconds and the first error."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    error = None
    try:
        execute_in_place(nb, path, kernel, timeout)
    except Exception as exc:  # noqa: BLE001 - report any failure (error, timeout, dead kernel)
        error = f"{type(exc).__name__}: {exc}"[-3000:]
    seconds = time.perf_counter() - start
    if save:
        nbformat.write(nb, os.path.join(save, os.path.basename(path)))
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": seconds, "peak_rss_mb": rss_kb / 1024.0, "error": error}


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description="time and measure the course notebooks")
    parser.add_argument("prefixes", nargs="*", help="only notebooks whose name starts so")
    parser.add_argument("--kernel", default="python3", help="kernel name (default python3)")
    parser.add_argument("--timeout", type=int, default=600, help="per-cell timeout, s")
    parser.add_argument("--save", default="", help="write executed notebooks to this folder")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.kernel, args.timeout, args.save)))
        return 0

    names = sorted(n for n in os.listdir(NOTEBOOKS) if n.endswith(".ipynb"))
    if args.prefixes:
        names = [n for n in names if any(n.startswith(p) for p in args.prefixes)]
    work = tempfile.mkdtemp(prefix="bench-course-")
    copy = os.path.join(work, "notebooks")
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"))
    rows = []
    failed = 0
    try:
        for name in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--one", os.path.join(copy, name)]
            cmd += ["--kernel", args.kernel, "--timeout", str(args.timeout)]
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                cmd += ["--save", os.path.abspath(args.save)]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                result = {"seconds": float("nan"), "peak_rss_mb": float("nan")}
                result["error"] = (proc.stderr or proc.stdout)[-2000:]
            else:
                result = json.loads(lines[-1])
            rows.append((name, result))
            status = "ok" if not result["error"] else "FAILED"
            failed += bool(result["error"])
            print(
                f"{name:40} {result['seconds']:7.1f} s {result['peak_rss_mb']:8.0f} MB  {status}",
                flush=True,
            )
            if result["error"]:
                print("   ", str(result["error"]).replace("\n", "\n    "), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(float(r["seconds"]) for _, r in rows)
    peak = max((float(r["peak_rss_mb"]) for _, r in rows), default=0.0)
    print("-" * 68)
    print(
        f"{'total':40} {total:7.1f} s {peak:8.0f} MB  "
        f"(budgets: {BUDGET_TOTAL_S:.0f} s total, {BUDGET_RSS_MB:.0f} MB per kernel)"
    )
    print(f"cores: {os.cpu_count()}, kernel: {args.kernel}, failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

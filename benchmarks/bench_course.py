"""Run every course notebook top to bottom and print wall time and the kernel's peak RSS.

    .venv/bin/python benchmarks/bench_course.py              # all notebooks
    .venv/bin/python benchmarks/bench_course.py 03 04        # the ones whose name starts so
    .venv/bin/python benchmarks/bench_course.py --kernel mindspore

Each notebook runs in its own subprocess (nbclient + a fresh kernel), on a temporary copy
of ``notebooks/``. While it runs, this script samples the **process tree** under that
subprocess every 0.25 s: the kernel and everything it starts (AKG's kernel-build server
and its compile pool, the dataset's worker processes, ``msrun``, its scheduler and
workers), all together, the way a Binder container's memory limit sees them. A container
(cgroup) is charged each physical page once, so summed RSS overcounts: every one of these
processes maps the same MindSpore libraries, and forked workers share pages copy-on-write.
Three sums per sample, peak of each over the run:

- ``tree``: private memory (USS) of every process, plus the largest shared part (RSS - USS)
  of any one of them, counted once: the estimate of what the container is charged (the
  shared part is mostly the MindSpore libraries every process maps);
- ``PSS``: proportional set size summed (a shared page split among all processes that map
  it, including ones outside the tree, so it reads low on a busy shared machine);
- ``RSS``: resident memory summed, counting shared pages once per process (upper bound).

Budgets (issue 15): whole course < 10 min, each notebook's ``tree`` < 1.5 GB.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.course.nbrun import NOTEBOOKS, execute_in_place  # noqa: E402

BUDGET_TOTAL_S = 600.0
BUDGET_TREE_MB = 1536.0


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
    return {"seconds": seconds, "error": error}


class TreeSampler:
    """Peak summed RSS and PSS of every descendant of ``pid``, sampled together."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_rss = 0
        self.peak_pss = 0
        self.peak_tree = 0
        self.peak_processes = 0
        self.history: List[Tuple[float, int]] = []  # (time.monotonic(), summed PSS) per sample
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "TreeSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        import psutil

        try:
            tree = psutil.Process(self.pid).children(recursive=True)
        except psutil.Error:
            return
        rss = pss = uss = shared = 0
        for proc in tree:
            try:
                info = proc.memory_full_info()
            except psutil.Error:  # gone between listing and reading, or not readable
                continue
            rss += info.rss
            pss += info.pss
            uss += info.uss
            shared = max(shared, info.rss - info.uss)
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_pss = max(self.peak_pss, pss)
        self.history.append((time.monotonic(), pss))
        self.peak_tree = max(self.peak_tree, uss + shared)
        self.peak_processes = max(self.peak_processes, len(tree))

    def peak_pss_until(self, moment: float) -> int:
        """The peak summed PSS of the samples taken up to ``moment`` (``time.monotonic()``,
        one clock for every process on Linux: a child can say when its phase ended)."""
        return max((pss for when, pss in self.history if when <= moment), default=0)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)


def run_sampled(code: str, cwd: str, timeout: float = 3600) -> Tuple[str, str, TreeSampler]:
    """``python -c code`` in ``cwd`` with its process tree sampled: its stdout, stderr and
    the sampler (the sampler watches the children of a wrapper, so the process itself is
    counted)."""
    wrapper = [
        sys.executable,
        "-c",
        "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))",
    ]
    child = subprocess.Popen(
        wrapper + [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    with TreeSampler(child.pid) as sampler:
        out, err = child.communicate(timeout=timeout)
    return out, err, sampler


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
    print(f"{'notebook':40} {'time':>9} {'tree':>10} {'PSS':>10} {'RSS':>10} {'procs':>5}")
    try:
        for name in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--one", os.path.join(copy, name)]
            cmd += ["--kernel", args.kernel, "--timeout", str(args.timeout)]
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                cmd += ["--save", os.path.abspath(args.save)]
            child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            with TreeSampler(child.pid) as sampler:
                try:
                    out, err = child.communicate(timeout=1800)
                except subprocess.TimeoutExpired:
                    child.kill()
                    out, err = child.communicate()
            lines = [ln for ln in out.splitlines() if ln.startswith("{")]
            if child.returncode != 0 or not lines:
                result = {"seconds": float("nan"), "error": (err or out)[-2000:]}
            else:
                result = json.loads(lines[-1])
            result["tree_mb"] = sampler.peak_tree / 2**20
            result["tree_rss_mb"] = sampler.peak_rss / 2**20
            result["tree_pss_mb"] = sampler.peak_pss / 2**20
            result["processes"] = sampler.peak_processes
            rows.append((name, result))
            status = "ok" if not result["error"] else "FAILED"
            failed += bool(result["error"])
            print(
                f"{name:40} {result['seconds']:7.1f} s {result['tree_mb']:7.0f} MB "
                f"{result['tree_pss_mb']:7.0f} MB {result['tree_rss_mb']:7.0f} MB "
                f"{result['processes']:5}  {status}",
                flush=True,
            )
            if result["error"]:
                print("   ", str(result["error"]).replace("\n", "\n    "), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(float(r["seconds"]) for _, r in rows)
    tree = max((float(r["tree_mb"]) for _, r in rows), default=0.0)
    pss = max((float(r["tree_pss_mb"]) for _, r in rows), default=0.0)
    rss = max((float(r["tree_rss_mb"]) for _, r in rows), default=0.0)
    print("-" * 88)
    print(
        f"{'total':40} {total:7.1f} s {tree:7.0f} MB {pss:7.0f} MB {rss:7.0f} MB  "
        f"(budgets: {BUDGET_TOTAL_S:.0f} s total, {BUDGET_TREE_MB:.0f} MB per notebook tree)"
    )
    print(f"cores: {os.cpu_count()}, kernel: {args.kernel}, failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

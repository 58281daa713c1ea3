"""Run every course notebook top to bottom; print wall time and the process tree's peak memory.

    .venv/bin/python benchmarks/bench_course.py                    # both editions
    .venv/bin/python benchmarks/bench_course.py --edition en 03 04 # English, notebooks 03, 04
    .venv/bin/python benchmarks/bench_course.py --kernel python3   # a plain IPython kernel

Each notebook runs as shipped in its own subprocess (nbclient + a fresh kernel), on a
temporary copy of ``notebooks/``. The default kernel is ascend-lab's own ``mindspore``
kernel (the one Binder's postBuild registers), registered for this run in a private Jupyter
folder. While a notebook runs, this script reads ``/proc/<pid>/smaps_rollup`` of every
process under that subprocess every 0.25 s: the kernel (and its launcher) and everything it
starts (AKG's kernel-build server and its compile pool, the dataset's worker processes,
``msrun``, its scheduler and workers), the way a Binder container's memory limit sees them.
A container (memory cgroup) is charged each physical page once, so summed RSS overcounts:
every one of these processes maps the same MindSpore libraries, and forked workers share
pages copy-on-write. Three sums per sample, peak of each over the run:

- ``PSS``: proportional set size summed (a page shared by n processes counts 1/n in each):
  the issue-28 budget. Pages shared with processes *outside* the tree (other MindSpore
  kernels on a busy shared machine) are split with them too, so PSS can read low there;
- ``tree``: private memory (USS) of every process, plus the largest shared part (RSS - USS)
  of any one of them, counted once: a second estimate that does not depend on what else
  runs on the machine;
- ``RSS``: resident memory summed, counting shared pages once per process (upper bound).

``time`` is wall time; ``CPU`` is the user + system time of the kernel and everything it
waited for (``getrusage(RUSAGE_CHILDREN)`` of the runner): on a shared, loaded machine wall
time grows with the load, CPU time hardly does, and on 2 idle cores wall time is at least
CPU / 2.

Budgets (issues 15, 28): whole course <= 10 min on 2 cores, each notebook's PSS <= 1.5 GB.
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
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.support.nbrun import NOTEBOOKS, execute_in_place  # noqa: E402

BUDGET_TOTAL_S = 600.0
BUDGET_PSS_MB = 1536.0
EDITIONS = {"en": NOTEBOOKS, "zh": os.path.join(NOTEBOOKS, "zh")}
ROLLUP_CAP = 64 * 1024  # smaps_rollup is ~1 KB; never read more than this


def run_one(path: str, kernel: str, timeout: int, save: str = "") -> Dict[str, Any]:
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
    # CPU time of every process this one waited for: the kernel, and what the kernel waited
    # for (msrun and its workers, AKG's compilers): a measure a busy machine does not inflate
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if save:
        nbformat.write(nb, os.path.join(save, os.path.basename(path)))
    return {"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime, "error": error}


def rollup(pid: int) -> Optional[Dict[str, int]]:
    """``/proc/<pid>/smaps_rollup`` as bytes per field (Rss, Pss, Private_*, ...), or None
    when the process is gone or not readable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            text = f.read(ROLLUP_CAP).decode("ascii", "replace")
    except OSError:
        return None
    out = {}
    for line in text.splitlines()[1:]:  # the first line is the address range
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            out[parts[0][:-1]] = int(parts[1]) * 1024  # kB
    return out


def descendants(pid: int) -> List[int]:
    """Every process below ``pid`` (children, grandchildren, ...), from /proc/*/stat."""
    parent: Dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read(4096).decode("ascii", "replace")
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and brackets, so split after ")"
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            parent[int(entry)] = int(fields[1])
    children: Dict[int, List[int]] = {}
    for child, ppid in parent.items():
        children.setdefault(ppid, []).append(child)
    out: List[int] = []
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def tree_memory(pid: int) -> Tuple[int, int, int, int]:
    """(PSS sum, RSS sum, USS sum + largest shared part, processes) below ``pid``."""
    rss = pss = uss = shared = count = 0
    for p in descendants(pid):
        r = rollup(p)
        if not r:
            continue
        count += 1
        private = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
        rss += r.get("Rss", 0)
        pss += r.get("Pss", 0)
        uss += private
        shared = max(shared, r.get("Rss", 0) - private)
    return pss, rss, uss + shared, count


class TreeSampler:
    """Peak summed PSS and RSS of every descendant of ``pid``, sampled together."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_rss = 0
        self.peak_pss = 0
        self.peak_tree = 0
        self.peak_processes = 0
        self.history: List[Tuple[float, int]] = []  # (time.monotonic(), summed PSS) per sample
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "TreeSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        pss, rss, tree, count = tree_memory(self.pid)
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_pss = max(self.peak_pss, pss)
        self.history.append((time.monotonic(), pss))
        self.peak_tree = max(self.peak_tree, tree)
        self.peak_processes = max(self.peak_processes, count)
        self.samples += 1

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


def register_kernel(work: str) -> Dict[str, str]:
    """Register ascend-lab's ``mindspore`` kernel under ``work``; the environment that finds it."""
    prefix = os.path.join(work, "kernel-prefix")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "ascend_lab", "install-kernel", "--prefix", prefix]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)  # noqa: S603
    jupyter_path = os.path.join(prefix, "share", "jupyter")
    return {
        "JUPYTER_PATH": os.pathsep.join(p for p in (jupyter_path, env.get("JUPYTER_PATH")) if p)
    }


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description="time and measure the course notebooks")
    parser.add_argument("prefixes", nargs="*", help="only notebooks whose name starts so")
    parser.add_argument(
        "--kernel",
        default="mindspore",
        help="kernel name (default: ascend-lab's mindspore kernel, registered for this run)",
    )
    parser.add_argument("--edition", choices=("en", "zh", "both"), default="both")
    parser.add_argument("--timeout", type=int, default=600, help="per-cell timeout, s")
    parser.add_argument("--save", default="", help="write executed notebooks to this folder")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.kernel, args.timeout, args.save)))
        return 0

    editions = ["en", "zh"] if args.edition == "both" else [args.edition]
    work = tempfile.mkdtemp(prefix="bench-course-")
    copy = os.path.join(work, "notebooks")
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"))
    env = dict(os.environ)
    if args.kernel == "mindspore":
        env.update(register_kernel(work))
    jobs = []
    for edition in editions:
        folder = os.path.join(copy, os.path.relpath(EDITIONS[edition], NOTEBOOKS))
        names = sorted(n for n in os.listdir(folder) if n.endswith(".ipynb"))
        if args.prefixes:
            names = [n for n in names if any(n.startswith(p) for p in args.prefixes)]
        jobs += [(edition, os.path.join(folder, n)) for n in names]
    rows: List[Tuple[str, Dict[str, Any]]] = []
    failed = 0
    print(
        f"{'notebook':44} {'time':>9} {'CPU':>9} {'PSS':>10} {'RSS':>10} {'tree':>10} {'procs':>5}"
    )
    try:
        for edition, path in jobs:
            name = f"{edition}/{os.path.basename(path)}"
            cmd = [sys.executable, os.path.abspath(__file__), "--one", path]
            cmd += ["--kernel", args.kernel, "--timeout", str(args.timeout)]
            if args.save:
                save = os.path.join(os.path.abspath(args.save), edition)
                os.makedirs(save, exist_ok=True)
                cmd += ["--save", save]
            child = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
            )
            with TreeSampler(child.pid) as sampler:
                try:
                    out, err = child.communicate(timeout=1800)
                except subprocess.TimeoutExpired:
                    child.kill()
                    out, err = child.communicate()
            lines = [ln for ln in out.splitlines() if ln.startswith("{")]
            result: Dict[str, Any]
            if child.returncode != 0 or not lines:
                result = {
                    "seconds": float("nan"),
                    "cpu_s": float("nan"),
                    "error": (err or out)[-2000:],
                }
            else:
                result = json.loads(lines[-1])
            result["tree_mb"] = sampler.peak_tree / 2**20
            result["tree_rss_mb"] = sampler.peak_rss / 2**20
            result["tree_pss_mb"] = sampler.peak_pss / 2**20
            result["processes"] = sampler.peak_processes
            rows.append((name, result))
            over = result["tree_pss_mb"] > BUDGET_PSS_MB
            status = "FAILED" if result["error"] else ("OVER 1.5 GB" if over else "ok")
            failed += bool(result["error"])
            print(
                f"{name:44} {result['seconds']:7.1f} s {result['cpu_s']:7.1f} s "
                f"{result['tree_pss_mb']:7.0f} MB "
                f"{result['tree_rss_mb']:7.0f} MB {result['tree_mb']:7.0f} MB "
                f"{result['processes']:5}  {status}",
                flush=True,
            )
            if result["error"]:
                print("   ", str(result["error"]).replace("\n", "\n    "), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("-" * 92)
    for edition in editions:
        mine = [r for n, r in rows if n.startswith(edition + "/")]
        total = sum(float(r["seconds"]) for r in mine)
        cpu = sum(float(r["cpu_s"]) for r in mine)
        pss = max((float(r["tree_pss_mb"]) for r in mine), default=0.0)
        rss = max((float(r["tree_rss_mb"]) for r in mine), default=0.0)
        tree = max((float(r["tree_mb"]) for r in mine), default=0.0)
        verdict = "within" if total <= BUDGET_TOTAL_S and pss <= BUDGET_PSS_MB else "OVER"
        print(
            f"{'total ' + edition:44} {total:7.1f} s {cpu:7.1f} s {pss:7.0f} MB {rss:7.0f} MB "
            f"{tree:7.0f} MB"
            f"  {verdict} budget ({BUDGET_TOTAL_S:.0f} s, {BUDGET_PSS_MB:.0f} MB PSS per notebook)"
        )
    load = os.getloadavg()
    print(
        f"cores: {os.cpu_count()}, load average at the end: {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f}, kernel: {args.kernel}, failed: {failed}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

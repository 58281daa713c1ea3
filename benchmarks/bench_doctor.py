"""What the doctor costs, from repeated samples. Prints numbers; asserts nothing.

    .venv/bin/python benchmarks/bench_doctor.py [--repeat N] [--sizes MB ...] [--old-rule]

Every case is sampled ``--repeat`` times; the cases take turns, forwards in one round and
backwards in the next, so a change in machine load spreads over all of them. Each line
prints the median, the range (min-max) and the number of samples. Cases:

- ``match_text``: the whole knowledge base applied in this process to a synthetic log of
  each ``--sizes`` (log lines of four kinds, two known errors at the end). Warm: the
  knowledge base is loaded and one call made before sampling.
- ``asnumpy-in-loop`` alone, on code: N-line training loops (4-space body, N = 8, 10, 12)
  followed by an ``.asnumpy()`` after the loop, a 17-line ``train.py`` (nested 8-space
  loop), and 1 MB of loop body. With ``--old-rule`` the same inputs also go through the
  regex the rule replaced, each sample in a child process stopped after ``--old-timeout``
  seconds (that regex is exponential in the loop's length).
- ``ascend-lab doctor FILE --json``: the CLI end to end on the first log size, in a fresh
  interpreter (start-up, reading the tail, matching, machine checks), with its peak RSS.
- ``import ascend_lab.doctor.magic`` in a fresh interpreter.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

LINES = [
    "[INFO] DEVICE(1234,ffff8d9e6010,python):2024-05-01-10:00:00.000.000 "
    "[mindspore/ccsrc/runtime/device/kernel_runtime.cc:120] step {i} launched, stream 3, memory ok",
    "epoch: 1 step: {i}, loss is 0.6931471824645996",
    "[WARNING] ME(3011:281473411063824,MainProcess):2024-07-10-09:12:31.442.000 "
    "[mindspore/train/callback.py:10] step {i} took 12 ms",
    '  File "/home/user/train.py", line {i}, in <module>',
]
ERRORS = (
    "RuntimeError: Malloc device memory failed, size[32212254720], ret[207001]\n"
    "dcmi model initialized failed, because the device is used. ret is -8020\n"
)
TRAIN_PY_PATH = os.path.join(REPO, "tests", "doctor", "fixtures", "train_asnumpy_after_loop.txt")
# The asnumpy-in-loop regex before issue 11 (for --old-rule only).
OLD_RULE = (
    r"(?m)^(?P<indent>[ \t]*)(?:for|while)\b[^\n]*:[ \t]*(?:#[^\n]*)?\n"
    r"(?:(?P=indent)[ \t]+[^\n]*\n|[ \t]*\n){0,40}?(?P=indent)[ \t]+[^\n]*\.asnumpy\(\)"
)
Sampler = Callable[[], float]


def make_log(path: str, megabytes: float) -> int:
    target = int(megabytes * 1e6)
    written = 0
    i = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            line = LINES[i % len(LINES)].format(i=i) + "\n"
            f.write(line)
            written += len(line)
            i += 1
        f.write(ERRORS)
    return os.path.getsize(path)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def loop_inputs() -> Dict[str, str]:
    def loop(n: int) -> str:
        body = "    loss = train_step(x, y)\n" * n
        return "for x, y in dataset:\n" + body + "print(loss.asnumpy())\n"

    megabyte = "for x, y in dataset:\n" + "    loss = train_step(x, y)\n" * 37_000
    return {
        "8-line loop": loop(8),
        "10-line loop": loop(10),
        "12-line loop": loop(12),
        "17-line train.py": _read(TRAIN_PY_PATH),
        f"1 MB loop body ({len(megabyte) / 1e6:.1f} MB)": megabyte + "print(loss.asnumpy())\n",
    }


def _env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


def in_process(fn: Callable[[], object]) -> Sampler:
    def sample() -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    return sample


def old_rule_sampler(text: str, timeout: float) -> Sampler:
    """Time the replaced regex on ``text`` in a child, stopped after ``timeout`` s (inf)."""
    code = (
        "import re, sys, time\n"
        "p = re.compile(sys.argv[1]); text = sys.stdin.read()\n"
        "t = time.perf_counter(); p.search(text); print(time.perf_counter() - t)\n"
    )

    def sample() -> float:
        try:
            r = subprocess.run(
                [sys.executable, "-c", code, OLD_RULE],
                input=text,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=True,
            )
        except subprocess.TimeoutExpired:
            return float("inf")
        return float(r.stdout)

    return sample


# The child's own peak: VmHWM of its address space. ru_maxrss would not do: Linux keeps it
# across exec, so a child forked from this (large) process would report the parent's size.
RSS_WRAPPER = (
    "import runpy, sys\n"
    "sys.argv = ['ascend-lab'] + sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_module('ascend_lab', run_name='__main__')\n"
    "finally:\n"
    "    with open('/proc/self/status') as f:\n"
    "        rss = [int(ln.split()[1]) for ln in f if ln.startswith('VmHWM:')][0]\n"
    "    sys.stderr.write('\\nmaxrss_kb=%d\\n' % rss)\n"
)


def cli_sampler(path: str, peaks: List[int]) -> Sampler:
    def sample() -> float:
        t = time.perf_counter()
        r = subprocess.run(
            [sys.executable, "-c", RSS_WRAPPER, "doctor", path, "--json"],
            capture_output=True,
            text=True,
            env=_env(),
        )
        dt = time.perf_counter() - t
        peaks.append(int(r.stderr.rsplit("maxrss_kb=", 1)[1].split()[0]))
        return dt

    return sample


def import_sampler() -> Sampler:
    code = "import ascend_lab.doctor.magic"

    def sample() -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=_env())
        return time.perf_counter() - t

    return sample


def take_turns(cases: Dict[str, Sampler], repeat: int) -> Dict[str, List[float]]:
    """``repeat`` samples of each case, alternating the order between rounds.

    A case whose sample is infinite (stopped at its timeout) is not sampled again.
    """
    names = list(cases)
    samples: Dict[str, List[float]] = {name: [] for name in names}
    for round_no in range(repeat):
        for name in names if round_no % 2 == 0 else names[::-1]:
            if samples[name] and samples[name][-1] == float("inf"):
                continue
            samples[name].append(cases[name]())
    return samples


def _fmt(seconds: float) -> str:
    if seconds == float("inf"):
        return "stopped"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def summary(values: List[float]) -> Tuple[str, str]:
    finite = [v for v in values if v != float("inf")]
    if not finite:
        return "stopped", ""
    spread = f"{_fmt(min(finite))}-{_fmt(max(finite))}"
    return _fmt(statistics.median(finite)), spread


def report(title: str, samples: Dict[str, List[float]], stopped_after: float = 0.0) -> None:
    print(f"\n{title}")
    print(f"  {'case':44} {'median':>10}  {'min-max':>24}  n")
    for name, values in samples.items():
        median, spread = summary(values)
        if median == "stopped":
            median, spread = f"> {stopped_after:g} s", "(stopped)"
        print(f"  {name:44} {median:>10}  {spread:>24}  {len(values)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=float, nargs="*", default=[1.0, 20.0], metavar="MB")
    parser.add_argument("--old-rule", action="store_true", help="also time the replaced regex")
    parser.add_argument("--old-timeout", type=float, default=60.0, metavar="S")
    args = parser.parse_args()

    from ascend_lab.doctor.knowledge import load_entries
    from ascend_lab.doctor.match import match_text

    t0 = time.perf_counter()
    entries = load_entries()
    print(f"load knowledge base ({len(entries)} entries, cold): {_fmt(time.perf_counter() - t0)}")
    rule = next(e for e in entries if e.id == "asnumpy-in-loop").patterns[0]

    with tempfile.TemporaryDirectory() as tmp:
        texts: Dict[str, str] = {}
        paths = []
        for mb in args.sizes:
            path = os.path.join(tmp, f"log_{mb:g}MB.txt")
            size = make_log(path, mb)
            paths.append(path)
            with open(path, encoding="utf-8") as f:
                texts[f"match_text, {size / 1e6:.1f} MB log"] = f.read()
        for name, text in texts.items():  # warm-up, and the answer
            print(f"{name}: findings {[m.entry.id for m in match_text(text, entries)]}")
        cases = {
            name: in_process(lambda text=text: match_text(text, entries))
            for name, text in texts.items()
        }
        report("Knowledge base on logs (in process, warm)", take_turns(cases, args.repeat))

        loops = loop_inputs()
        answers = {name: rule.search(text) is not None for name, text in loops.items()}
        print(f"\nasnumpy-in-loop found (expected False: .asnumpy() is after the loop): {answers}")
        cases = {
            name: in_process(lambda text=text: rule.search(text)) for name, text in loops.items()
        }
        report("asnumpy-in-loop, line scan (in process)", take_turns(cases, args.repeat))
        if args.old_rule:
            cases = {name: old_rule_sampler(text, args.old_timeout) for name, text in loops.items()}
            samples = take_turns(cases, min(args.repeat, 3))
            report("asnumpy-in-loop, replaced regex (child process)", samples, args.old_timeout)

        peaks: List[int] = []
        size = os.path.getsize(paths[0]) / 1e6
        cases = {
            f"ascend-lab doctor {size:.1f} MB log --json": cli_sampler(paths[0], peaks),
            "import ascend_lab.doctor.magic": import_sampler(),
        }
        report("Fresh interpreters (wall time)", take_turns(cases, args.repeat))
        print(f"  CLI peak RSS: median {statistics.median(peaks) / 1024:.0f} MB")
    code = "import sys, ascend_lab.doctor.magic; print('mindspore' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env())
    print(f"  importing the magic imports MindSpore: {r.stdout.strip()}")


if __name__ == "__main__":
    main()

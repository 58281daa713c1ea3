"""Size and time of ``ascend-lab report`` on this (CPU) machine, with and without
``--with-trace``, and of its replay (``status --from``, ``doctor --from``, trace pages).

Each run is a fresh ``python -m ascend_lab report`` subprocess (wall clock,
``time.perf_counter``), repeated ``--repeat`` times (median, min-max). ``--fake`` runs it on
the fake Ascend machine of ``benchmarks/support/fakes`` (8 x 910B3)
instead of this machine as it is.
Also times the redactor on 1 MB adversarial texts (it must stay linear).

    .venv/bin/python benchmarks/bench_report.py [--repeat 3] [--fake] [--no-trace]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from typing import Dict, List

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(args: List[str], env: Dict[str, str], cwd: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", *args],
        env=env,
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def _fmt(samples: List[float]) -> str:
    return f"{statistics.median(samples):6.2f} s (min {min(samples):.2f}, max {max(samples):.2f})"


def _bundle_facts(path: str) -> str:
    with tarfile.open(path) as tar:
        members = [m for m in tar if m.isfile()]
    raw = sum(m.size for m in members)
    traces = sum(m.size for m in members if "/trace/" in m.name)
    return (
        f"{os.path.getsize(path) / 1024:7.1f} KiB archive, {len(members)} files, "
        f"{raw / 1024:.0f} KiB uncompressed ({traces / 1024:.0f} KiB trace)"
    )


def bench_redactor() -> None:
    sys.path.insert(0, REPO)
    from ascend_lab.report.redact import Redactor

    cases = {
        "1 MB of spaces": " " * 1_000_000,
        "1 MB 'serial: x' lines": ("Serial Number : " + "x" * 40 + "\n") * 17000,
        "1 MB dotted numbers": "1.2.3." * 170000,
        "1 MB /home/ paths": "/home/u" * 150000,
    }
    for name, text in cases.items():
        t0 = time.perf_counter()
        Redactor(hosts=["node-1"], users=["alice"], homes=["/home/alice"]).redact(text)
        print(f"  redact {name:26s} {time.perf_counter() - t0:6.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fake", action="store_true", help="on the fake 8 x 910B3 machine")
    parser.add_argument("--no-trace", action="store_true", help="skip the --with-trace runs")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="bench-report-")
    env = dict(os.environ)
    if args.fake:
        sys.path.insert(0, REPO)
        from benchmarks.support.fakes.ascend_machine import make_fake_machine

        env = make_fake_machine(os.path.join(work, "m")).environ(sourced=True)
    print(
        f"ascend-lab report on {'the fake 8 x 910B3 machine' if args.fake else 'this machine'}"
        f" ({os.cpu_count()} CPUs), {args.repeat} runs each"
    )
    variants = [("report", [])] + (
        [] if args.no_trace else [("report --with-trace", ["--with-trace"])]
    )
    for name, extra in variants:
        out = os.path.join(work, name.replace(" ", "_") + ".tar.gz")
        times = [
            _run(["ascend_lab", "report", "--out", out, *extra], env, work)
            for _ in range(args.repeat)
        ]
        print(f"  {name:22s} {_fmt(times)}  {_bundle_facts(out)}")
        for what, cmd in (
            ("status --from", ["ascend_lab", "status", "--from", out]),
            ("doctor --from", ["ascend_lab", "doctor", "--from", out]),
        ):
            try:
                times = [_run(cmd, env, work) for _ in range(args.repeat)]
            except subprocess.CalledProcessError:  # doctor exits 1 when it finds something
                times = [float("nan")]
            print(f"    replay {what:15s} {_fmt(times)}")
        if extra:
            t0 = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ascend_lab.report",
                    "view",
                    out,
                    "-o",
                    os.path.join(work, "pages"),
                ],
                check=True,
                env=env,
                stdout=subprocess.DEVNULL,
            )
            print(f"    trace pages (view)     {time.perf_counter() - t0:6.2f} s")
    bench_redactor()
    return 0


if __name__ == "__main__":
    sys.exit(main())

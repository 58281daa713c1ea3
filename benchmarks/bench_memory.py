"""Memory planner: quality (peak / lower bound) on real nets and speed on a big synthetic one.

1. A synthetic 10,000-tensor problem (a chain-like schedule: most tensors live a few steps,
   one in ten lives 10-300 steps, sizes from 512 B to 3 MiB): time ``plan_best`` (every
   strategy) and each strategy alone. Target: ``plan_best`` < 1 s.
2. Real kernel graphs compiled on CPU with IR dumps (``tests/memory/dump_nets.py`` in a
   subprocess, compile only for ResNet-50 batch 32, which takes minutes to *run* on CPU):
   ResNet-50 batch 1 and 32, a Transformer encoder block, LeNet with fusion off/on.
   Prints peak, lower bound, ratio (target <= 1.05), no-reuse total, winning strategy.

    .venv/bin/python benchmarks/bench_memory.py
    .venv/bin/python benchmarks/bench_memory.py --synthetic-only
    .venv/bin/python benchmarks/bench_memory.py --dumps DIR    # reuse dumps from an earlier run
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ascend_lab.analysis.actor_set import size_mismatches  # noqa: E402
from ascend_lab.analysis.lifetimes import fmt_bytes, problem_from_intervals  # noqa: E402
from ascend_lab.memory import (  # noqa: E402
    STRATEGIES,
    compare_plans,
    plan,
    plan_best,
    plan_graph,
    validate,
)
from ascend_lab.parsers.ir.ir_text import parse_ir_file  # noqa: E402

REAL_CASES = ["resnet50_compiled", "resnet50_b32_compiled", "encoder", "lenet", "lenet_fusion"]


def synthetic(n: int = 10_000, seed: int = 0):
    rng = random.Random(seed)
    sizes = [512, 4096, 65536, 1 << 20, 3 << 20]
    intervals = []
    for i in range(n):
        step = i // 2
        life = 1 + int(rng.expovariate(1 / 3)) if rng.random() < 0.9 else rng.randint(10, 300)
        intervals.append((rng.choice(sizes) + rng.randint(0, 5000), step, step + life))
    return problem_from_intervals(intervals, alignment=512)


def bench_synthetic(repeat: int = 3) -> None:
    problem = synthetic()
    print(f"synthetic: {len(problem.tensors)} tensors over {problem.steps} steps")
    times = []
    cpu = []
    best = None
    for _ in range(repeat):
        started = time.perf_counter()
        cpu_started = time.process_time()
        best = plan_best(problem)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    assert best is not None
    print(
        f"  plan_best (all {len(STRATEGIES) + 1} strategies): "
        f"median {statistics.median(times):.3f} s"
        f" wall (min {min(times):.3f} s), median {statistics.median(cpu):.3f} s CPU"
        f" (target < 1 s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    print(
        f"  winner {best.strategy}: peak {fmt_bytes(best.peak)}, lower bound "
        f"{fmt_bytes(best.lower_bound)}, ratio {best.ratio:.3f}, valid: {validate(best) == []}"
    )
    for name in STRATEGIES:
        started = time.perf_counter()
        p = plan(problem, name)
        took = time.perf_counter() - started
        print(f"  {name:<28} {took:.3f} s  ratio {p.peak / p.lower_bound:.3f}")


def bench_real(dumps: Path) -> None:
    plans = {}
    for case in REAL_CASES:
        folder = dumps / case
        (path,) = sorted(folder.glob("graph_build_*.ir"))
        started = time.perf_counter()
        graph = parse_ir_file(path)
        parsed = time.perf_counter() - started
        started = time.perf_counter()
        p = plan_graph(graph)
        planned = time.perf_counter() - started
        (actors,) = sorted(folder.glob("actor_set/0_actor_set_pipeline_kernel_graph_*.ir"))
        mismatches = size_mismatches(graph, actors.read_text())
        plans[case] = p
        ratio = f"{p.ratio:.3f}" if p.ratio is not None else "n/a"
        print(
            f"{case:<22} kernels {p.problem.steps:>4}  tensors {len(p.tensors):>4}  "
            f"peak {fmt_bytes(p.peak):>10}  lower bound {fmt_bytes(p.lower_bound):>10}  "
            f"ratio {ratio}  no-reuse {fmt_bytes(p.no_reuse):>10}  [{p.strategy}]  "
            f"parse {parsed:.2f} s, plan {planned:.3f} s, size mismatches vs actor set: "
            f"{len(mismatches)}"
        )
    print()
    print(compare_plans(plans["lenet"], plans["lenet_fusion"], ("LeNet fusion off", "on")).text())
    print()
    print(
        compare_plans(
            plans["resnet50_compiled"], plans["resnet50_b32_compiled"], ("ResNet-50 b1", "b32")
        ).text()
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic-only", action="store_true")
    parser.add_argument("--dumps", help="folder with dumps from tests/memory/dump_nets.py")
    args = parser.parse_args()
    bench_synthetic()
    if args.synthetic_only:
        return 0
    print()
    if args.dumps:
        bench_real(Path(args.dumps))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, str(REPO / "tests" / "memory" / "dump_nets.py"), tmp] + REAL_CASES,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        print(
            f"(compiled {len(REAL_CASES)} nets with dumps in {time.perf_counter() - started:.1f} s)"
        )
        bench_real(Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())

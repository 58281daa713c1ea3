"""Time and peak RSS of one weight's statistics (the node panel's "Statistics" button) on a
``.mindir``: by default its largest weight, each run in a fresh process.

    python benchmarks/bench_weight_stats.py /work/notes/artifacts/resnet50.mindir [--name W]

Prints, per run: seconds for ``weight_stats`` (the wire walk that finds the weight, then
two chunked passes over its bytes), the process's peak RSS (VmHWM) after it, and the peak
RSS of the same process before the call (Python + numpy + ascend_lab imported), so the
difference is what the statistics cost. Also the seconds to precompute every weight
(``ascend-lab view --weight-stats``).
"""

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy  # noqa: F401 (imported before the baseline, as the statistics need it)
from ascend_lab.viewfile.weight_stats import weight_stats, all_weight_stats

def hwm():
    with open("/proc/self/status") as fh:
        return int(next(l for l in fh if l.startswith("VmHWM:")).split()[1]) / 1024

path, name, every = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
before = hwm()
start = time.perf_counter()
stats = weight_stats(path, name)
seconds = time.perf_counter() - start
out = {"seconds": seconds, "peak_rss_mb": hwm(), "baseline_rss_mb": before,
       "shape": stats["shape"], "dtype": stats["dtype"]}
if every:
    start = time.perf_counter()
    out["weights"] = len(all_weight_stats(path))
    out["all_seconds"] = time.perf_counter() - start
print(json.dumps(out))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mindir")
    parser.add_argument("--name", help="the weight (default: the largest)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from ascend_lab.parsers.mindir.mindir_skeleton import weight_records

    records = weight_records(args.mindir)
    if args.name:
        name = args.name
    else:
        largest = max(
            records.values(),
            key=lambda r: r.raw_data[1] if r.raw_data else (r.external.length if r.external else 0),
        )
        name = largest.name.split(":", 1)[-1]
    size = os.path.getsize(args.mindir)
    print(f"{args.mindir}: {size:,} bytes, {len(records)} weights; weight {name}")
    for run in range(args.runs):
        every = "1" if run == args.runs - 1 else "0"
        done = subprocess.run(
            [sys.executable, "-c", CHILD, args.mindir, name, every],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(done.stdout.strip().splitlines()[-1])
        line = (
            f"run {run + 1}: {r['dtype']} {r['shape']}: {r['seconds'] * 1000:.1f} ms, "
            f"peak RSS {r['peak_rss_mb']:.1f} MB (before the call {r['baseline_rss_mb']:.1f} MB)"
        )
        if "all_seconds" in r:
            line += f"; all {r['weights']} weights: {r['all_seconds']:.2f} s"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the viewer endpoints' guards (issue #24) cost, and what a hostile request costs now.

    python benchmarks/bench_viewer_guards.py

In a temporary folder, times (best of 3, seconds):

- one weight-statistics request on a 1 GiB sparse weight (MindSpore's external-data layout):
  refused with 413 by the default ``ASCEND_LAB_VIEW_MAX_STATS_BYTES`` (256 MiB), and, for
  comparison, the statistics of a weight at that limit (the most a request can cost now);
- a request for a FIFO named ``x.ir`` (400: it used to hang its worker thread);
- LeNet's ``.mindir`` payload through the endpoint's work function (the guards: regular-
  file checks, the graph-size pre-walk, node counts) against ``payload_for_path`` alone;
- the size walk of LeNet's dump folder (every ``.ir`` below it, with the link/FIFO checks).
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ascend_lab.server import view_jobs as fh  # noqa: E402
from ascend_lab.viewfile import payload_for_path  # noqa: E402
from ascend_lab.viewfile.weight_stats import weight_stats  # noqa: E402
from benchmarks.support import mindir_writer as mw  # noqa: E402

LENET = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ir" / "lenet"
GIB = 1 << 30


def best(fn, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def sparse_model(folder: Path, nbytes: int) -> Path:
    (folder / "m_variables").mkdir()
    data = folder / "m_variables" / "data_0"
    with open(data, "wb") as f:
        f.write(b"\x01" + bytes(63))
        f.truncate(64 + nbytes)  # sparse: reads return zeros at disk-cache speed
    path = folder / "m_graph.mindir"
    weight = mw.Weight("w", mw.FLOAT, [nbytes // 4], external=("m_variables/data_0", 64, nbytes))
    mw.write_mindir(str(path), [weight])
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "big").mkdir()
        big = sparse_model(root / "big", GIB)
        where = fh.Where(str(big), str(root), False)
        seconds, (status, _) = best(lambda: fh.load_weight_stats(where, "w"))
        print(f"1 GiB weight, stats request: {status} in {seconds:.4f} s")
        (root / "limit").mkdir()
        at_limit = sparse_model(root / "limit", fh.DEFAULT_STATS_MAX_BYTES)
        seconds, _ = best(lambda: weight_stats(str(at_limit), "w"), runs=1)
        print(f"256 MiB weight (the default limit), statistics: {seconds:.2f} s")

        os.mkfifo(root / "x.ir")
        fifo = fh.Where(str(root / "x.ir"), str(root), False)
        seconds, (status, _) = best(lambda: fh.load_payload(fifo))
        print(f"FIFO x.ir, graph request: {status} in {seconds:.5f} s")

        lenet = fh.Where(str(LENET / "lenet.mindir"), str(LENET.parent), False)
        guarded, (status, _) = best(lambda: fh.load_payload(lenet), runs=5)
        plain, _ = best(lambda: payload_for_path(str(LENET / "lenet.mindir")), runs=5)
        print(f"LeNet .mindir payload: {guarded:.4f} s with the guards, {plain:.4f} s without")

        seconds, size = best(lambda: fh.input_size(str(LENET), str(LENET.parent), False))
        print(f"LeNet dump folder size walk: {size:,} bytes in {seconds:.5f} s")


if __name__ == "__main__":
    main()

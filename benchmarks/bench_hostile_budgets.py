"""What the findings of issue #37 cost: each hostile input, run in a child process.

    python benchmarks/bench_hostile_budgets.py [--repo PATH]

``--repo`` runs the children against another checkout's ``ascend_lab`` (for the numbers
before a change: ``git archive <commit> ascend_lab | tar -x -C /tmp/old`` and copy the
built ``ascend_lab/static`` beside it). Each child runs under an 8 GiB address-space limit
and 300 s; printed: seconds, peak RSS, exit code, and the first line of its message.

Inputs (built in a temporary folder):

- ``deep scopes``: a 297 KB ``.ir`` of 40 nodes whose scopes are 1,200 levels deep, one
  class repeated (``ascend-lab view``);
- ``computed db``: a 32 KB profiler database whose ``STRING_IDS.value`` is a generated
  column of 2 MB strings (``ascend-lab view`` on its folder);
- ``csv rows``: an 8 MB ``kernel_details.csv`` of 8-byte rows (``ascend-lab view``);
- ``trace_view``: an 8 MB ``trace_view.json`` of 55-byte events (``ascend-lab view``);
- ``mindir names``: 4,000 and 16,000 ``.mindir`` nodes sharing one name (the parser);
- ``npz``: a 1.5 MB ``.npz`` of 1.6 GB of zeros (``read_reference``).
"""

import argparse
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _ir(path: Path, nodes: int, depth: int) -> None:
    lines = ["# IR entry: @kernel_graph0", "", "%para1_x: <Tensor[Float32], (1, 8)>", ""]
    lines.append("subgraph @kernel_graph0() {")
    prev = "%para1_x"
    for i in range(nodes):
        scope = f"Default/{i}-A/" + "/".join(f"{k}-A" for k in range(depth))
        lines.append(f"  %{i}(CNode_{i}) = ReLU({prev})")
        lines.append("      : (<Tensor[Float32], (1, 8)>) -> (<Tensor[Float32], (1, 8)>)")
        lines.append(f"      # Fullname with scope: ({scope}/ReLU-op{i})")
        prev = f"%{i}"
    lines += [f"  Return({prev})", "}", ""]
    path.write_text("\n".join(lines))


def _db(folder: Path) -> None:
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    conn = sqlite3.connect(str(out / "ascend_mindspore_profiler_0.db"))
    conn.executescript(
        "CREATE TABLE STRING_IDS(id INTEGER, value TEXT GENERATED ALWAYS AS "
        "(printf('%.*c', 2000000, 'x')) VIRTUAL, k INTEGER);"
        "CREATE TABLE TASK(globalTaskId INTEGER, startNs INTEGER, endNs INTEGER, streamId INTEGER);"
        "CREATE TABLE COMPUTE_TASK_INFO(globalTaskId INTEGER, name INTEGER, opType INTEGER,"
        " taskType INTEGER);"
    )
    conn.executemany("INSERT INTO STRING_IDS(id, k) VALUES (?, 0)", [(i,) for i in range(3)])
    conn.executemany("INSERT INTO TASK VALUES (?, ?, ?, 0)", [(i, i, i + 5) for i in range(400)])
    conn.executemany(
        "INSERT INTO COMPUTE_TASK_INFO VALUES (?, ?, ?, 2)", [(i, i % 3, 1) for i in range(400)]
    )
    conn.commit()
    conn.close()


def _csv(folder: Path, mb: int) -> None:
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    row = "a,b,1,1\n"
    rows = row * (mb * (1 << 20) // len(row))
    (out / "kernel_details.csv").write_text("Name,Type,Start Time(us),Duration(us)\n" + rows)


def _trace(folder: Path, mb: int) -> None:
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "kernel_details.csv").write_text("Name,Type,Start Time(us),Duration(us)\na,b,1,1\n")
    event = '{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"a"},'
    count = mb * (1 << 20) // len(event)
    (out / "trace_view.json").write_text("[" + event * count + '{"ph":"M"}]')


MINDIR = """
import sys
from ascend_lab.parsers.mindir.mindir import load_mind_ir_pb2, parse_mindir
pb = load_mind_ir_pb2()
m = pb.ModelProto(); m.ir_version = "0.1.1"; g = m.graph; g.name = "g"
g.input.add().name = "g:x"; prev = "g:x"
for _ in range({n}):
    node = g.node.add(); node.name = "g:same"; node.op_type = "ReLU"
    node.input.append(prev); node.output.append("g:same"); prev = "g:same"
g.output.add().name = prev
data = m.SerializeToString()
print(len(data), "bytes,", len(parse_mindir(data).nodes), "nodes")
"""

NPZ = """
import numpy as np, os, sys
np.savez_compressed(sys.argv[1], a=np.zeros(200_000_000))
print(os.path.getsize(sys.argv[1]), "bytes compressed")
from ascend_lab.numerics.reference import read_reference
arrays = read_reference(sys.argv[1])
print({k: v.nbytes for k, v in arrays.items()})
"""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


# A fresh parent per run, so the peak RSS printed is this run's child's alone.
WRAPPER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print("@@rss", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
"""


def run(name: str, argv: list, repo: str) -> None:
    env = dict(os.environ, PYTHONPATH=repo)
    start = time.monotonic()
    try:
        done = subprocess.run(  # noqa: S603 - fixed argv
            [sys.executable, "-c", WRAPPER, *argv],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            cwd=repo,  # `-m` puts the working folder first on sys.path
            preexec_fn=_limit,
        )
        tail = done.stdout.rsplit("@@rss", 1)
        rss_kb, code = (int(x) for x in tail[1].split())
        said = (done.stderr.strip() or tail[0].strip()).splitlines()
        rss = f"{rss_kb // 1024:,} MB"
    except subprocess.TimeoutExpired:
        code, said, rss = "timeout", [], "?"
    seconds = time.monotonic() - start
    first = said[-1][:110] if said else ""
    print(f"{name:<22} {seconds:7.2f} s  {rss:>9}  exit {code}  {first}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", default=str(REPO))
    args = parser.parse_args()
    python = sys.executable
    repo = args.repo
    with tempfile.TemporaryDirectory(prefix="ascend-lab-bench-") as tmp:
        base = Path(tmp)
        _ir(base / "deep.ir", 40, 1200)
        _db(base / "db" / "h_1_ascend_ms")
        _csv(base / "csv" / "h_1_ascend_ms", 8)
        _trace(base / "trace" / "h_1_ascend_ms", 8)
        view = [python, "-m", "ascend_lab", "view"]
        run("mindir 4,000 names", [python, "-c", MINDIR.format(n=4000)], repo)
        run("mindir 16,000 names", [python, "-c", MINDIR.format(n=16000)], repo)
        run(
            "deep scopes .ir", view + [str(base / "deep.ir"), "-o", str(base / "a.html")], args.repo
        )
        run("trace_view 8 MB", view + [str(base / "trace"), "-o", str(base / "t.html")], repo)
        run(
            "csv 8 MB short rows", view + [str(base / "csv"), "-o", str(base / "c.html")], args.repo
        )
        run("npz 1.5 MB -> 1.6 GB", [python, "-c", NPZ, str(base / "z.npz")], repo)
        run("computed-column db", view + [str(base / "db"), "-o", str(base / "d.html")], repo)


if __name__ == "__main__":
    main()

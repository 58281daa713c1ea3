"""Parse throughput of the .ir parser on a real ResNet-50 dump (batch 1, 224x224, CPU).

Records the dump in a temporary folder (a fresh subprocess compiles the net with
``MS_DEV_SAVE_GRAPHS=1``), then times ``read_ir_header`` and ``parse_ir_text`` on the
``graph_build`` file and on every ``.ir`` file, and the MindIR export with both decoders, and
prints MB/s.

Every time is wall-clock time (``time.perf_counter``), the same clock as the compile it is
compared with; each figure is the median of ``--repeat`` runs (min and max beside it), after
one warm-up run. The machine may be shared: compare medians from the same session.

    .venv/bin/python benchmarks/bench_parse.py                  # ResNet-50
    .venv/bin/python benchmarks/bench_parse.py --fusion         # graph-kernel fusion on
    .venv/bin/python benchmarks/bench_parse.py --keep DIR       # record into DIR and keep it
    .venv/bin/python benchmarks/bench_parse.py --dump DIR       # reuse an existing dump
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

NET_SOURCE = f"""
import sys
import numpy as np
import mindspore as ms

sys.path.insert(0, {str(REPO)!r})
from ascend_lab.course.nets import ResNet50

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
if sys.argv[1].endswith("+fusion"):
    ms.set_context(enable_graph_kernel=True)
net = ResNet50()
net.set_train(False)
x = ms.Tensor(np.zeros((1, 3, 224, 224), np.float32))
print(net(x).shape)
if len(sys.argv) > 2:
    ms.export(net, x, file_name=sys.argv[2], file_format="MINDIR")
"""


def record(net: str, dump: str, work: str) -> float:
    script = os.path.join(work, "resnet.py")
    with open(script, "w") as fh:
        fh.write(NET_SOURCE)
    env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=dump, GLOG_v="3")
    start = time.perf_counter()
    subprocess.run([sys.executable, script, net], cwd=work, env=env, check=True)
    seconds = time.perf_counter() - start
    # A second process exports the net to MindIR (no dumps), for the MindIR parse time.
    env.pop("MS_DEV_SAVE_GRAPHS")
    mindir = os.path.join(dump, "net")
    subprocess.run([sys.executable, script, net, mindir], cwd=work, env=env, check=True)
    return seconds


def ir_files(dump: str) -> List[Path]:
    return sorted(p for p in Path(dump).rglob("*.ir") if "actor_set" not in p.parts)


class Timing:
    """Wall seconds of ``repeat`` runs of one call (after a warm-up run)."""

    def __init__(self, fn: Callable[..., Any], *args: Any, repeat: int) -> None:
        fn(*args)  # warm-up: imports, caches
        self.samples: List[float] = []
        for _ in range(repeat):
            gc.collect()
            start = time.perf_counter()
            fn(*args)
            self.samples.append(time.perf_counter() - start)
        self.median = statistics.median(self.samples)

    def spread(self) -> str:
        return f"min {min(self.samples) * 1000:.0f} ms, max {max(self.samples) * 1000:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="parse this existing dump folder instead of recording")
    parser.add_argument("--keep", help="record into this folder and keep it")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--fusion", action="store_true", help="compile with graph-kernel fusion (AKG) on"
    )
    args = parser.parse_args()

    if args.dump:
        return bench(args.dump, args.repeat)
    with tempfile.TemporaryDirectory(prefix="ascend-lab-bench-") as work:
        dump = args.keep or os.path.join(work, "dump")
        os.makedirs(dump, exist_ok=True)
        seconds = record("resnet50" + ("+fusion" if args.fusion else ""), dump, work)
        print(f"recorded ResNet-50 dump: {seconds:.1f} s wall for the MindSpore process")
        return bench(dump, args.repeat, seconds)


def bench(dump: str, repeat: int, compile_seconds: float = 0.0) -> int:
    from ascend_lab.parsers.ir.ir_text import parse_ir_text, read_ir_header

    files = ir_files(dump)
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    total_mb = sum(len(t.encode("utf-8")) for t in texts.values()) / 1e6
    build = [p for p in files if p.name.startswith("graph_build_")][0]
    build_mb = len(texts[build].encode("utf-8")) / 1e6
    print(f"{len(files)} .ir files, {total_mb:.1f} MB; {build.name}: {build_mb:.2f} MB")
    print(f"wall-clock medians of {repeat} runs each")

    t_build = Timing(parse_ir_text, texts[build], str(build), repeat=repeat)
    g = parse_ir_text(texts[build], str(build))
    print(
        f"graph_build: {t_build.median * 1000:.0f} ms ({t_build.spread()}), "
        f"{build_mb / t_build.median:.1f} MB/s "
        f"({len(g.nodes)} nodes, {len(g.kernels)} kernels, {len(g.subgraphs)} subgraphs)"
    )
    fused = Counter(n.op for n in g.kernels if n.kind == "call")
    if fused:
        print("fused kernels: " + ", ".join(f"{n}x {op}" for op, n in sorted(fused.items())))

    def parse_all() -> int:
        n = 0
        for p, t in texts.items():
            n += len(parse_ir_text(t, str(p)).nodes)
        return n

    def headers_all() -> int:
        return sum(read_ir_header(t)["cnodes"] or 0 for t in texts.values())

    t_all = Timing(parse_all, repeat=repeat)
    print(f"all files: {t_all.median:.2f} s ({t_all.spread()}), {total_mb / t_all.median:.1f} MB/s")
    if compile_seconds:
        print(
            f"parsing every pass = {100 * t_all.median / compile_seconds:.0f}% of the wall time "
            f"of the MindSpore process that wrote them ({compile_seconds:.1f} s)"
        )
    t_hdr = Timing(headers_all, repeat=repeat)
    print(
        f"read_ir_header, all files: {t_hdr.median * 1000:.0f} ms ({t_hdr.spread()}), "
        f"{total_mb / t_hdr.median:.0f} MB/s"
    )

    mindirs = sorted(Path(dump).glob("*.mindir"))
    if mindirs:
        from ascend_lab.parsers.mindir.mindir import parse_mindir

        data = mindirs[0].read_bytes()
        for decoder in ("protobuf", "builtin"):
            t_m = Timing(parse_mindir, data, str(mindirs[0]), decoder, repeat=repeat)
            gm = parse_mindir(data, str(mindirs[0]), decoder=decoder)
            print(
                f"MindIR {mindirs[0].name} ({decoder} decoder): {len(data) / 1e6:.1f} MB, "
                f"{t_m.median * 1000:.0f} ms ({t_m.spread()}), "
                f"{len(gm.nodes)} nodes, {len(gm.kernels)} kernels"
            )

    def read_and_parse_all() -> None:
        for p in files:
            parse_ir_text(p.read_text(encoding="utf-8", errors="replace"), str(p))

    t_io = Timing(read_and_parse_all, repeat=repeat)
    print(f"read + parse all files from disk: {t_io.median:.2f} s ({t_io.spread()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

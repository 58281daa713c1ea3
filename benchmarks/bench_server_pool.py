"""What the viewer's worker processes cost (issue #37: a server that cannot be stuck).

    python benchmarks/bench_server_pool.py

Starts a bare jupyter server with the ascend-lab extension on 127.0.0.1 (time limit 2 s)
and prints, for LeNet's kernel graph (``graph_build_0_0094.ir``, 36 KB of payload):

- the first answer with a cold pool (the worker starts: Python, the readers, numpy), the
  answer from a warm worker, and the parse alone in this process for comparison;
- the PSS of the server and of its workers (Binder counts the container's PSS; 2 GB);
- the PSS of the workers after a 5,000-node graph (0.9 MB of ``.ir``);
- recovery after a kill: a 40,000-node ``.ir`` overruns the limit, its worker is ended
  (504): the time the overrunning request took (limit + 1 s grace), the time from that
  answer to the next LeNet answer; the same with two overruns at once (both workers ended
  and replaced); and how long each replacement took to start (from the server's log).
"""

import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil  # noqa: E402

from benchmarks.support.ir_text import relu_chain_ir  # noqa: E402
from benchmarks.support.lab import ExtensionServer  # noqa: E402

LENET = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ir" / "lenet"
MIB = 1 << 20


def timed(fn: Callable[[], Any]) -> Tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def pss(pids: List[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_full_info().pss
        except psutil.NoSuchProcess:
            pass
    return total


def replacements(server: ExtensionServer) -> List[float]:
    """Seconds each worker started after an overrun took to start (the server's log)."""
    out: List[float] = []
    ended = False
    for line in server.log.read_text(errors="replace").splitlines():
        if "ascend-lab viewer: ended worker" in line:
            ended = True
        elif ended and "ascend-lab viewer: worker" in line and " started in " in line:
            out.append(float(line.split(" started in ", 1)[1].split(" s", 1)[0]))
    return out


def main() -> None:
    from ascend_lab.viewfile import payload_for_path

    local, _ = timed(lambda: payload_for_path(str(LENET / "graph_build_0_0094.ir")))
    local, _ = timed(lambda: payload_for_path(str(LENET / "graph_build_0_0094.ir")))
    with tempfile.TemporaryDirectory() as tmp:
        started, server = timed(
            lambda: ExtensionServer(
                Path(tmp), {"ASCEND_LAB_VIEW_TIMEOUT": "2", "ASCEND_LAB_VIEW_WORKERS": "2"}
            )
        )
        try:
            shutil.copy(LENET / "graph_build_0_0094.ir", server.root / "lenet.ir")
            (server.root / "big.ir").write_text(relu_chain_ir(40_000))
            print(
                f"server start (extension only): {started:.2f} s; pool workers: {server.workers()}"
            )
            cold, (status, _) = timed(lambda: server.graph("lenet.ir"))
            print(f"first answer, cold pool: {status} in {cold:.2f} s")
            warm = min(timed(lambda: server.graph("lenet.ir"))[0] for _ in range(5))
            print(
                f"warm worker: {warm * 1000:.0f} ms (the parse alone here: {local * 1000:.0f} ms)"
            )
            idle_server = pss([server.proc.pid])
            print(
                f"PSS: server {idle_server / MIB:.0f} MiB, one idle worker "
                f"{pss(server.workers()) / MIB:.0f} MiB"
            )
            with ThreadPoolExecutor(2) as client:
                list(client.map(server.graph, ["lenet.ir", "lenet.ir"]))
            workers = server.workers()
            print(
                f"PSS: {len(workers)} warm workers {pss(workers) / MIB:.0f} MiB, "
                f"server + workers {pss([server.proc.pid, *workers]) / MIB:.0f} MiB"
            )

            (server.root / "medium.ir").write_text(relu_chain_ir(5_000))
            status, _ = server.graph("medium.ir")
            print(
                f"PSS after a 5,000-node graph ({status}): workers {pss(workers) / MIB:.0f} MiB, "
                f"server {pss([server.proc.pid]) / MIB:.0f} MiB"
            )

            took, (status, body) = timed(lambda: server.graph("big.ir"))
            recovery, (after, _) = timed(lambda: server.graph("lenet.ir"))
            print(
                f"overrun (limit 2 s): {status} {body.get('reason')} in {took:.2f} s; "
                f"next answer {after} {recovery:.2f} s later (the other worker)"
            )
            with ThreadPoolExecutor(2) as client:
                both, answers = timed(lambda: list(client.map(server.graph, ["big.ir"] * 2)))
            recovery, (after, _) = timed(lambda: server.graph("lenet.ir"))
            print(
                f"two overruns at once: {[a[0] for a in answers]} in {both:.2f} s; "
                f"next answer {after} {recovery:.2f} s later; workers now {server.workers()}"
            )
            time.sleep(3)  # the replacements start
        finally:
            running = server.workers()
            stopped, _ = timed(server.stop)
            left = [pid for pid in running if psutil.pid_exists(pid)]
            print(f"server stopped (SIGTERM) in {stopped:.2f} s; its workers left: {left}")
        print(f"replacement workers started in (s, from the log): {replacements(server)}")


if __name__ == "__main__":
    main()

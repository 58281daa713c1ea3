"""run_workers (ascend_lab.course.launch) on a launcher shaped like msrun: it starts a
scheduler and two workers, each worker in its own session (``os.setsid``) writing
``worker_<n>.log``; when a worker exits non-zero it prints msrun's line and kills the other
worker, then waits on the scheduler, which never exits (what msrun 2.10 does on CPU when a
rank fails before ``init()``). The real msrun runs in notebook 08's course test."""

import sys
import textwrap
import time

import pytest

from ascend_lab.course import launch

LAUNCHER = textwrap.dedent(
    r"""
    import os, signal, subprocess, sys, time
    log_dir, mode = sys.argv[1], sys.argv[2]
    os.makedirs(log_dir, exist_ok=True)
    sched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.path.join(log_dir, "pids"), "w") as f:
        f.write(str(sched.pid))
    WORKER = '''
    import sys, time
    rank, mode = int(sys.argv[1]), sys.argv[2]
    print("rank", rank, "starting", flush=True)
    if mode == "fail" and rank == 1:
        time.sleep(0.5)
        raise RuntimeError("planted: device 1 cannot be opened")
    if mode == "hang":
        time.sleep(600)
    time.sleep(0.3)
    print("rank", rank, "done", flush=True)
    '''
    workers = []
    worker_mode = "fail" if mode == "ignore-sigint" else mode
    for rank in range(2):
        log = open(os.path.join(log_dir, "worker_%d.log" % rank), "w")
        p = subprocess.Popen([sys.executable, "-c", WORKER, str(rank), worker_mode],
                             stdout=log, stderr=subprocess.STDOUT, preexec_fn=os.setsid)
        workers.append(p)
        with open(os.path.join(log_dir, "pids"), "a") as f:
            f.write(" %d" % p.pid)

    def on_sigint(sig, frame):
        for p in workers:
            if p.poll() is None:
                os.killpg(os.getpgid(p.pid), signal.SIGKILL)
        sched.kill()
        sys.exit(0)

    signal.signal(signal.SIGINT, on_sigint)
    if mode == "ignore-sigint":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        codes = [p.poll() for p in workers]
        if any(c not in (None, 0) for c in codes):
            print("Worker process %d exit with exception." % workers[1].pid, flush=True)
            for p in workers:
                if p.poll() is None:
                    os.killpg(os.getpgid(p.pid), signal.SIGKILL)
            break
        if all(c == 0 for c in codes):
            sched.kill()
            sys.exit(0)
        time.sleep(0.1)
    sched.wait()  # the scheduler waits for the dead rank: forever
    """
)


@pytest.fixture
def launcher(tmp_path):
    path = tmp_path / "fake_msrun.py"
    path.write_text(LAUNCHER)
    log_dir = tmp_path / "logs"

    def run(mode, **kw):
        cmd = [sys.executable, str(path), str(log_dir), mode]
        shown = []
        kw.setdefault("progress", lambda s, tails: shown.append((s, dict(tails))))
        result = launch.run_workers(cmd, str(log_dir), **kw)
        pids = [int(p) for p in (log_dir / "pids").read_text().split()]
        return result, pids, shown

    return run


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def test_a_job_that_succeeds_exits_with_its_code(launcher):
    result, pids, shown = launcher("ok", timeout=60)
    assert result.ok and result.reason == "exited" and result.returncode == 0
    assert result.failed is None and result.message == ""
    assert "rank 1 done" in result.logs["worker_1.log"]
    assert wait_gone(pids) == []


def test_a_failed_rank_stops_the_job_after_the_grace_not_at_the_timeout(launcher):
    result, pids, shown = launcher("fail", timeout=120, grace=1.0)
    assert result.reason == "worker-failed" and result.returncode is None and not result.ok
    assert result.failed == "worker_1.log"
    assert "planted: device 1 cannot be opened" in result.logs["worker_1.log"]
    assert result.seconds < 30  # the timeout was 120 s: the scheduler would have held it
    assert "worker_1.log" in result.message and "stopped the job" in result.message
    # the scheduler, and the workers in their own sessions, are gone
    assert wait_gone(pids) == []
    assert shown and all(s >= 0 for s, _ in shown)


def test_a_launcher_that_ignores_sigint_is_killed_with_its_tree(launcher):
    result, pids, _ = launcher("ignore-sigint", timeout=120, grace=0.5)
    assert result.reason == "worker-failed"
    assert wait_gone(pids) == []


def test_a_hanging_job_is_stopped_at_the_timeout_with_every_worker(launcher):
    result, pids, shown = launcher("hang", timeout=2.0, grace=1.0)
    assert result.reason == "timeout" and result.returncode is None
    assert 2.0 <= result.seconds < 20
    assert result.failed is None
    assert "2 s" in result.message
    assert wait_gone(pids) == []
    # progress names each worker's last line
    assert any("rank 0 starting" in tails.get("worker_0.log", "") for _, tails in shown)


def test_failure_is_read_from_the_logs_or_the_launchers_line():
    tb = "rank 1 starting\nTraceback (most recent call last):\n  ...\nRuntimeError: x\n"
    assert launch.failed_worker("", {"worker_0.log": "ok", "worker_1.log": tb}) == "worker_1.log"
    line = "[ERROR] ME(1:2,MainProcess):... Worker process 4242 exit with exception. Error code: 1."
    assert launch.failed_worker(line, {"worker_0.log": "still waiting"}) == "launcher"
    assert launch.failed_worker("All workers successfully exit!", {"worker_0.log": "ok"}) is None


def test_log_reads_are_capped(tmp_path):
    big = tmp_path / "worker_0.log"
    big.write_bytes(b"x" * (launch.TAIL_BYTES * 3) + b"\nlast line\n")
    tails = launch.worker_logs(str(tmp_path))
    assert len(tails["worker_0.log"]) <= launch.TAIL_BYTES
    assert launch.last_line(tails["worker_0.log"]) == "last line"
    assert launch.worker_logs(str(tmp_path / "missing")) == {}


def test_progress_without_ipython_prints_at_most_every_30_s(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)  # as in a plain Python process
    show = launch.print_progress()
    for s in (1.0, 10.0, 29.0, 31.0, 45.0, 62.0):
        show(s, {"worker_0.log": "step 3"})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("worker_0.log: step 3" in line for line in lines)


def test_no_worker_left_when_the_notebook_interrupts(tmp_path):
    path = tmp_path / "fake_msrun.py"
    path.write_text(LAUNCHER)
    log_dir = tmp_path / "logs"

    def interrupt(seconds, tails):
        if "rank 1 starting" in tails.get("worker_1.log", ""):
            raise KeyboardInterrupt  # the learner pressed Stop

    cmd = [sys.executable, str(path), str(log_dir), "hang"]
    with pytest.raises(KeyboardInterrupt):
        launch.run_workers(cmd, str(log_dir), timeout=60, progress=interrupt)
    pids = [int(p) for p in (log_dir / "pids").read_text().split()]
    assert len(pids) == 3 and wait_gone(pids) == []


def test_descendants_include_a_child_in_its_own_session(tmp_path):
    import subprocess

    marker = tmp_path / "grandchild"
    code = (
        "import os, subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
        " preexec_fn=os.setsid)\n"
        f"open({str(marker)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 20
        while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        grandchild = int(marker.read_text())
        assert launch.descendants(parent.pid) == [grandchild]
    finally:
        launch.stop_tree(parent, wait=0.5)
    assert wait_gone([parent.pid, grandchild]) == []

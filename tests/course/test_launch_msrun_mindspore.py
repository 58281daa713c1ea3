"""run_workers with MindSpore's real msrun on CPU: a rank that fails before ``init()`` makes
msrun kill the other worker and then wait for its scheduler (measured: still waiting at
200 s); run_workers stops the job soon after the traceback and leaves no process behind.
The successful path is notebook 08's course test."""

import os
import shutil
import socket
import sys

import pytest

from ascend_lab.course import launch
from tests.course.test_launch import wait_gone

pytestmark = [pytest.mark.mindspore, pytest.mark.slow]

SCRIPT = """
import os
import mindspore as ms
if hasattr(ms, "set_device"):
    ms.set_device("CPU")
else:
    ms.set_context(device_target="CPU")
if os.environ.get("MS_NODE_ID") == "1":
    raise RuntimeError("planted: rank 1 cannot open its device")
from mindspore.communication import init
init()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_rank_that_fails_before_init_does_not_hold_the_notebook(tmp_path):
    msrun = os.path.join(os.path.dirname(sys.executable), "msrun")
    msrun = msrun if os.path.exists(msrun) else shutil.which("msrun")
    assert msrun, "MindSpore's msrun is not installed beside this Python"
    script = tmp_path / "bad_rank.py"
    script.write_text(SCRIPT)
    log_dir = tmp_path / "logs"
    cmd = [
        msrun, "--worker_num=2", "--local_worker_num=2", "--master_addr=127.0.0.1",
        f"--master_port={free_port()}", f"--log_dir={log_dir}", "--join=True", str(script),
    ]  # fmt: skip
    bindir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    # every process msrun started (msrun, scheduler, workers), as seen while it ran; not
    # what this test process had before (a MindSpore AKG build server of an earlier test)
    before = set(launch.descendants(os.getpid()))
    tree = set()

    def progress(seconds, tails):
        tree.update(set(launch.descendants(os.getpid())) - before)

    result = launch.run_workers(
        cmd, str(log_dir), env=env, cwd=str(tmp_path), timeout=180, grace=5, progress=progress
    )
    assert result.reason == "worker-failed", result
    assert result.failed == "worker_1.log"
    assert "planted: rank 1 cannot open its device" in result.logs["worker_1.log"]
    assert result.seconds < 120  # msrun alone would still be waiting at the timeout (180 s)
    assert len(tree) >= 3 and wait_gone(sorted(tree)) == []  # msrun, scheduler, workers

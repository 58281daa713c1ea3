"""The viewer's workers never keep the server from stopping (issue #37): two stuck
requests used to hold both ThreadPoolExecutor threads, which Python joins at exit, so the
server ignored SIGTERM. The workers are daemon threads now."""

import signal
import subprocess
import sys
import time

from tests.support.python import REPO

STUCK = """
import os, signal, sys, threading
from ascend_lab.server import file_handlers as fh
stuck = threading.Event()
for _ in range(2):  # both workers blocked for good
    fh._POOL.submit(stuck.wait)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # as jupyter_server stops
print("ready", flush=True)
stuck.wait()
"""


def test_sigterm_stops_a_process_whose_viewer_workers_are_stuck():
    child = subprocess.Popen(  # noqa: S603 - fixed argv
        [sys.executable, "-c", STUCK], cwd=str(REPO), stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()

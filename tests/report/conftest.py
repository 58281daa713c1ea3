"""A fake Ascend machine with planted secrets, and helpers to run ``ascend-lab`` on it."""

import json
import os
import subprocess
import sys
import tarfile
from typing import Any, Dict, List

import pytest

from ascend_lab.probes import device as probe
from benchmarks.support.fakes.ascend_machine import make_fake_machine

# Values that must never reach a redacted archive.
PLANTED = {
    "host": "plantedhost-q7",
    "user": "planteduser",
    "ip": "10.23.45.67",
    "serial": "SNPLANTED0042X",
}


@pytest.fixture(autouse=True)
def _fresh_status_cache():
    probe.clear_cache()
    yield
    probe.clear_cache()


def plant(machine: Any, base: str) -> Dict[str, str]:
    """Plant host, user, home, IP and serial in npu-smi output, env, version files, a plog.

    Returns the environment to run ``ascend-lab`` in.
    """
    home = os.path.join(base, "home", PLANTED["user"])
    data = os.path.join(base, "npu_smi_data")
    with open(os.path.join(data, "board.txt"), "a", encoding="utf-8") as f:
        f.write(f"Serial Number                  : {PLANTED['serial']}\n")
        f.write(f"Host Name                      : {PLANTED['host']}\n")
    with open(os.path.join(machine.root, "driver", "version.info"), "a", encoding="utf-8") as f:
        f.write(f"Install_Path={home}/driver\ninstaller_host={PLANTED['host']}\n")
    plog = os.path.join(home, "ascend", "log", "debug", "plog")
    os.makedirs(plog)
    with open(os.path.join(plog, "plog-4242_20261130.log"), "w", encoding="utf-8") as f:
        f.write(
            f"[ERROR] HCCL(4242): connect to {PLANTED['ip']}:60000 failed on {PLANTED['host']}\n"
            f"[INFO] user {PLANTED['user']} cwd {home}/work\n" * 3
        )
    env = machine.environ(sourced=True)
    env.update(
        HOME=home,
        USER=PLANTED["user"],
        LOGNAME=PLANTED["user"],
        HOSTNAME=PLANTED["host"],
        MASTER_ADDR=PLANTED["ip"],
        ASCEND_CUSTOM_OPP_PATH=os.path.join(home, "custom_opp"),
    )
    return env


def run_cli(args: List[str], env: Dict[str, str], cwd: str, timeout: float = 120):
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def extract(archive: str, dest: str) -> str:
    with tarfile.open(archive) as tar:
        tar.extractall(dest)  # our own archive, written by the test
    return os.path.join(dest, "ascend-lab-report")


def manifest(folder: str) -> Dict[str, Any]:
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def entries(folder: str, status: str) -> List[str]:
    return [e["item"] for e in manifest(folder)["entries"] if e["status"] == status]


@pytest.fixture
def planted_machine(tmp_path):
    machine = make_fake_machine(tmp_path / "m")
    env = plant(machine, str(tmp_path / "m"))
    return machine, env

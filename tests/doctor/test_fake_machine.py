"""The doctor on a fake Ascend machine (fake npu-smi + install root) with the real probe."""

import json
import os
import subprocess
import sys

from ascend_lab.doctor.checks import CONFIRMED, CONTRADICTED
from ascend_lab.doctor.diagnosis import diagnose
from benchmarks.support.fakes.ascend_machine import make_fake_machine

BUSY = "dcmi model initialized failed, because the device is used. ret is -8020"
NO_LIB = "ImportError: libascendcl.so: cannot open shared object file: No such file or directory"
MISMATCH = (
    "MindSpore version 2.3.1 and Ascend AI software package (Ascend Data Center Solution)"
    "version 7.0 does not match, the version of software package expect one of ['8.0']."
)


def test_busy_device_shows_the_process_holding_it(tmp_path, monkeypatch):
    with make_fake_machine(tmp_path).activated(monkeypatch):
        c = diagnose(BUSY).findings[0].confirmation
    assert c.verdict == CONFIRMED
    assert c.lines[0].startswith("Mode: ascend") and "8 NPU chip(s)" in c.lines[0]
    assert any("is used by pid 1333928 (37709 MB)" in line for line in c.lines)


def test_versions_come_from_the_install_tree(tmp_path, monkeypatch):
    from ascend_lab.probes.device import collect_status

    # MindSpore 2.3.1 pairs with CANN 8.0.RC2 (compat.json); the fake tree has CANN 8.3.RC2.
    with make_fake_machine(tmp_path, mindspore="2.3.1").activated(monkeypatch):
        c = diagnose(MISMATCH).findings[0].confirmation
        compat = collect_status(refresh=True).to_dict()["compatibility"]
    installed = next(line for line in c.lines if line.startswith("Installed:"))
    assert "driver 24.1.rc1" in installed and "cann 8.3.RC2" in installed
    assert compat["verdict"] == "mismatch"
    assert c.verdict == CONFIRMED
    assert any(compat["message"] in line for line in c.lines if line.startswith("Compatibility"))


def test_set_env_sourced_or_not(tmp_path, monkeypatch):
    machine = make_fake_machine(tmp_path)
    with machine.activated(monkeypatch):
        c = diagnose(NO_LIB).findings[0].confirmation
        assert c.verdict == CONFIRMED
        assert (
            "Run: source " + os.path.join(machine.root, "ascend-toolkit", "set_env.sh") in c.lines
        )
    with machine.activated(monkeypatch, sourced=True):
        assert diagnose(NO_LIB).findings[0].confirmation.verdict == CONTRADICTED


def test_cli_environment_only_on_fake_machine(tmp_path):
    machine = make_fake_machine(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=machine.environ(),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["source"] == "environment" and d["recognised"]
    lines = [line for c in d["environment"] for line in c["lines"]]
    assert "ASCEND_HOME_PATH is not set" in lines
    assert d["checked"][0].startswith("Device status: NPU 8x910B3")

"""What each hub user may see of one probe snapshot (pure), and whose a process is."""

import os
import subprocess
import sys

from ascend_lab.device.npu_smi import parse_info
from ascend_lab.hub.allocator import Assignment
from ascend_lab.hub.views import Snapshot, is_instructor, pid_user_from_proc, status_for
from tests.fakes.ascend_machine import fixture_path


def _snapshot():
    with open(fixture_path("info_910b3_x8_npu-smi-25.2.0.txt"), encoding="utf-8") as f:
        info = parse_info(f.read())
    return Snapshot(info, "", at=100.0, seconds=0.2, runs=3, interval=5.0)


SEATS = {
    "ann": Assignment("ann", 2, "", 1.0),
    "bob": Assignment("bob", 2, "", 2.0),
    "cat": Assignment("cat", 5, "", 3.0),
    "dan": Assignment("dan", None, "all chips full; CPU mode", 4.0),
}


def test_a_learner_sees_only_their_chip_and_not_other_learners_processes():
    owners = {1333928: "bob"}
    ann = status_for(_snapshot(), SEATS, "ann", False, owners.get, now=101.0)
    assert [c["id"] for c in ann["chips"]] == [2]
    assert ann["chips"][0]["hbm_used_mb"] == 41052
    assert ann["chips"][0]["processes"] == [] and ann["chips"][0]["other_processes"] == 1
    assert [s["server"] for s in ann["seats"]] == ["ann"]
    assert ann["probe"] == {
        "ok": True,
        "reason": "",
        "at": 100.0,
        "age_s": 1.0,
        "npu_smi_seconds": 0.2,
        "interval_s": 5.0,
        "runs": 3,
    }
    bob = status_for(_snapshot(), SEATS, "bob", False, owners.get, now=101.0)
    assert [p["pid"] for p in bob["chips"][0]["processes"]] == [1333928]
    dan = status_for(_snapshot(), SEATS, "dan", False, owners.get)
    assert dan["chips"] == [] and dan["seats"][0]["reason"] == "all chips full; CPU mode"
    assert status_for(_snapshot(), SEATS, "an", False, owners.get)["seats"] == []  # no prefix match


def test_an_instructor_sees_every_chip_learner_and_process_owner():
    doc = status_for(_snapshot(), SEATS, "teacher", True, lambda pid: None)
    assert [c["id"] for c in doc["chips"]] == list(range(8))
    assert doc["chips"][2]["learners"] == ["ann", "bob"]
    assert doc["chips"][5]["learners"] == ["cat"]
    assert doc["chips"][2]["processes"][0]["user"] is None  # shared chip, owner unknown
    assert [s["server"] for s in doc["seats"]] == ["ann", "bob", "cat", "dan"]
    only_cat = {"cat": Assignment("cat", 2, "", 1.0)}
    doc = status_for(_snapshot(), only_cat, "teacher", True, lambda pid: None)
    assert doc["chips"][2]["processes"][0]["user"] == "cat"  # the chip's only learner


def test_no_probe_yet_or_a_failed_probe_gives_the_reason_and_no_chips():
    doc = status_for(
        Snapshot(None, "npu-smi timed out after 10 s"), SEATS, "ann", False, dict().get
    )
    assert doc["chips"] == [] and doc["probe"]["ok"] is False
    assert doc["probe"]["reason"] == "npu-smi timed out after 10 s"


def test_pid_user_reads_jupyterhub_user_from_the_process_environment():
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(os.environ, JUPYTERHUB_USER="learner7"),
    )
    try:
        assert child.stdout.readline() == b"ready\n"  # running, not half-way through exec
        assert pid_user_from_proc(child.pid) == "learner7"
    finally:
        child.communicate(b"")
    assert pid_user_from_proc(os.getpid()) == os.environ.get("JUPYTERHUB_USER")
    assert pid_user_from_proc(2**22 + 12345) is None  # no such process


def test_who_is_an_instructor():
    assert is_instructor({"name": "t", "scopes": ["custom:ascend-lab:admin"]})
    assert is_instructor({"name": "h", "admin": True, "scopes": []})
    assert is_instructor({"name": "h", "scopes": ["admin:users"]})
    assert not is_instructor({"name": "l", "scopes": ["access:services!service=ascend-lab"]})
    assert not is_instructor({"name": "l", "admin": False, "scopes": None})

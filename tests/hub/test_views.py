"""What each hub user may see of one probe snapshot (pure), and whose a process is."""

import os
import subprocess
import sys

from ascend_lab.hub.allocator import Assignment
from ascend_lab.hub.owners import parse_stat, process_owners, start_time_of
from ascend_lab.hub.views import Snapshot, is_instructor, status_for
from ascend_lab.parsers.npu_smi import parse_info
from benchmarks.support.fakes.ascend_machine import fixture_path


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
    # not pinned on the chip's only learner: any learner can open any chip on one server
    assert doc["chips"][2]["processes"][0]["user"] is None
    doc = status_for(_snapshot(), only_cat, "cat", False, lambda pid: None)
    assert doc["chips"][0]["processes"] == [] and doc["chips"][0]["other_processes"] == 1


def test_no_probe_yet_or_a_failed_probe_gives_the_reason_and_no_chips():
    doc = status_for(
        Snapshot(None, "npu-smi timed out after 10 s"), SEATS, "ann", False, dict().get
    )
    assert doc["chips"] == [] and doc["probe"]["ok"] is False
    assert doc["probe"]["reason"] == "npu-smi timed out after 10 s"


def _child(env):
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert child.stdout.readline() == b"ready\n"  # running, not half-way through exec
    return child


def _server_seat(user, pid, started):
    return {user: Assignment(user, 2, "", 1.0, server_pid=pid, server_started=started)}


def test_a_spoofed_jupyterhub_user_names_no_owner_the_server_tree_does():
    # a learner's process claims to be learner7's (its environment is the learner's to set)
    child = _child(dict(os.environ, JUPYTERHUB_USER="learner7"))
    try:
        me = os.getpid()
        # learner7's server is some other process: the child is not in its tree
        assert process_owners(_server_seat("learner7", 1, None))(child.pid) is None
        # this test process plays ann's server: its child is ann's, whatever it claims
        owners = process_owners(_server_seat("ann", me, start_time_of(me)))
        assert owners(child.pid) == "ann" and owners(me) == "ann"
        # a reused pid (another start time) is not ann's server
        assert process_owners(_server_seat("ann", me, start_time_of(me) + 1))(child.pid) is None
        # in the status a learner sees: learner7 does not get ann's process pinned on them
        doc = status_for(
            _snapshot(),
            {**SEATS, "learner7": Assignment("learner7", 2)},
            "learner7",
            False,
            process_owners(_server_seat("learner7", 1, None)),
        )
        assert doc["chips"][0]["processes"] == []
    finally:
        child.communicate(b"")
    assert process_owners(_server_seat("ann", me, None))(2**22 + 12345) is None  # no process


def test_a_process_of_another_unix_user_is_theirs_when_they_hold_a_seat():
    child = _child(dict(os.environ))
    try:
        seats = {"ann": Assignment("ann", 2)}
        uid = os.getuid()
        # the hub's own uid (the trial: every learner shares it) and root never name an owner
        assert process_owners(seats, user_name=lambda u: "ann")(child.pid) is None
        # a spawner with a Unix user per learner: the process's real uid is ann's
        names = {uid: "ann"}
        assert (
            process_owners(seats, shared_uids=frozenset(), user_name=names.get)(child.pid) == "ann"
        )
        assert process_owners({}, shared_uids=frozenset(), user_name=names.get)(child.pid) is None
    finally:
        child.communicate(b"")


def test_stat_fields_come_after_the_last_parenthesis_of_the_command_name():
    assert parse_stat(b"77 (a) b) S 12 " + b" ".join(b"%d" % i for i in range(5, 23))) == (12, 22)
    assert parse_stat(b"77 (no end") is None and parse_stat(b"77 (x) S 1 2") is None
    assert start_time_of(os.getpid()) == parse_stat(open("/proc/self/stat", "rb").read())[1]


def test_who_is_an_instructor():
    assert is_instructor({"name": "t", "scopes": ["custom:ascend-lab:admin"]})
    assert is_instructor({"name": "h", "admin": True, "scopes": []})
    assert is_instructor({"name": "h", "scopes": ["admin:users"]})
    assert not is_instructor({"name": "l", "scopes": ["access:services!service=ascend-lab"]})
    assert not is_instructor({"name": "l", "admin": False, "scopes": None})

"""The instructor's class view: learners, their chip, its HBM, their processes, idle time."""

from ascend_lab.hub.allocator import Assignment
from ascend_lab.hub.views import (
    Snapshot,
    class_view,
    last_activity_of,
    parse_hub_time,
    status_for,
)
from ascend_lab.parsers import npu_smi
from benchmarks.support.fakes.ascend_machine import DEFAULT_INFO, fixture_path


def _instructor_status():
    with open(fixture_path(DEFAULT_INFO), encoding="utf-8") as f:
        info = npu_smi.parse_info(f.read())
    seats = {
        "ann": Assignment("ann", 2, since=1.0),
        "bob": Assignment("bob", 2, since=1.0),
        "carl": Assignment("carl", None, reason="no NPU free", since=1.0),
    }
    owners = {1333928: "bob"}
    return status_for(Snapshot(info, "", 1000.0, 0.4, 3, 5.0), seats, "teach", True, owners.get)


def test_hub_times():
    assert parse_hub_time("1970-01-01T00:01:40Z") == 100.0
    assert parse_hub_time("1970-01-01T00:01:40.500000Z") == 100.5
    assert parse_hub_time("1970-01-01T00:01:40") == 100.0  # the hub writes UTC
    for bad in (None, "", "yesterday", 5, "9" * 100):
        assert parse_hub_time(bad) is None


def test_last_activity_skips_odd_rows():
    users = [
        {"name": "ann", "last_activity": "1970-01-01T00:01:40Z"},
        {"name": "bob", "last_activity": None},
        {"last_activity": "1970-01-01T00:01:40Z"},
        "carl",
    ]
    assert last_activity_of(users) == {"ann": 100.0, "bob": None}
    assert last_activity_of({"not": "a list"}) == {}


def test_one_row_per_learner_with_chip_hbm_processes_and_idle():
    rows = class_view(_instructor_status(), {"ann": 940.0, "bob": None}, now=1000.0)
    by_user = {r["user"]: r for r in rows}
    assert sorted(by_user) == ["ann", "bob", "carl"]
    ann, bob, carl = by_user["ann"], by_user["bob"], by_user["carl"]
    assert ann["chip"] == 2 and ann["idle_s"] == 60.0 and ann["processes"] == []
    assert bob["processes"] == [{"pid": 1333928, "name": "", "memory_mb": 37709}]
    assert bob["idle_s"] is None  # never active: unknown, not zero
    # both learners share chip 2's HBM figures, read from npu-smi's table
    assert ann["hbm_used_mb"] == bob["hbm_used_mb"] and isinstance(ann["hbm_used_mb"], int)
    assert ann["hbm_total_mb"] > ann["hbm_used_mb"] > 0
    assert carl["chip"] is None and carl["reason"] == "no NPU free"
    assert carl["hbm_used_mb"] is None and carl["processes"] == []

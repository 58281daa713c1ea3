"""The device allocator: seats on chips, never more than per_chip, kept across restarts."""

import json
import logging
import multiprocessing
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_lab.hub.allocator import DeviceAllocator, StateFileError, parse_state


def test_least_loaded_fills_every_chip_before_sharing_and_then_gives_cpu_mode(tmp_path):
    alloc = DeviceAllocator(str(tmp_path / "seats.json"), range(8), per_chip=2)
    first = [alloc.acquire(f"u{i}").chip for i in range(8)]
    assert sorted(first) == list(range(8))  # one learner per chip before any chip is shared
    second = [alloc.acquire(f"v{i}").chip for i in range(8)]
    assert sorted(second) == list(range(8))
    late = alloc.acquire("late")
    assert late.chip is None
    assert "CPU mode" in late.reason and "2 learner(s)" in late.reason
    assert alloc.load() == {c: 2 for c in range(8)}


def test_respawn_keeps_its_seat_and_release_frees_it(tmp_path):
    alloc = DeviceAllocator(str(tmp_path / "seats.json"), [0, 1], per_chip=1)
    a = alloc.acquire("alice")
    b = alloc.acquire("bob")
    assert alloc.acquire("alice").chip == a.chip  # idempotent: no second seat
    assert alloc.acquire("carol").chip is None
    assert alloc.release("bob").chip == b.chip
    assert alloc.release("bob") is None
    assert alloc.acquire("carol").chip == b.chip  # a CPU-mode learner gets the freed chip


def test_state_survives_a_new_allocator_on_the_same_file(tmp_path):
    path = str(tmp_path / "sub" / "seats.json")
    before = DeviceAllocator(path, range(4), per_chip=1)
    seats = {u: before.acquire(u).chip for u in ("a", "b", "c")}
    after = DeviceAllocator(path, range(4), per_chip=1)  # the hub restarted
    assert {k: v.chip for k, v in after.assignments().items()} == seats
    assert after.acquire("d").chip == ({0, 1, 2, 3} - set(seats.values())).pop()
    with open(path) as f:
        doc = json.load(f)
    assert doc["version"] == 1 and set(doc["seats"]) == {"a", "b", "c", "d"}
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.startswith(".ascend-lab-seats")]


def test_fixed_map_gives_the_mapped_chip_and_cpu_mode_otherwise(tmp_path):
    alloc = DeviceAllocator(
        str(tmp_path / "s.json"), range(4), 1, "fixed", {"ann": 3, "ben": 3, "cat": 0}
    )
    assert alloc.acquire("ann").chip == 3
    ben = alloc.acquire("ben")
    assert ben.chip is None and "chip 3" in ben.reason
    assert alloc.acquire("cat").chip == 0
    stranger = alloc.acquire("dan")
    assert stranger.chip is None and "dan" in stranger.reason
    assert alloc.acquire("ann/gpu-free").chip is None  # a named server shares ann's one seat


def test_bad_configuration_is_refused_with_a_clear_message(tmp_path):
    p = str(tmp_path / "s.json")
    with pytest.raises(ValueError, match="per_chip"):
        DeviceAllocator(p, [0], per_chip=0)
    with pytest.raises(ValueError, match="policy"):
        DeviceAllocator(p, [0], policy="random")
    with pytest.raises(ValueError, match=r"\[9\]"):
        DeviceAllocator(p, [0, 1], policy="fixed", fixed_map={"a": 9})


def test_no_chips_means_cpu_mode_not_an_error(tmp_path):
    seat = DeviceAllocator(str(tmp_path / "s.json"), []).acquire("a")
    assert seat.chip is None and "no NPU" in seat.reason


@pytest.mark.parametrize(
    "content, message",
    [
        (b"{not json", "not JSON"),
        (b'{"version": 7, "seats": {}}', "not an ascend-lab seat file"),
        (b'{"version": 1, "seats": {"a": {"chip": "zero"}}}', "not an integer"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_a_damaged_state_file_is_reported_kept_aside_and_the_seats_start_afresh(
    tmp_path, content, message, caplog
):
    with pytest.raises(StateFileError, match=message):
        parse_state(content, "s.json")
    path = tmp_path / "s.json"
    path.write_bytes(content)
    alloc = DeviceAllocator(str(path), [0, 1])
    with caplog.at_level(logging.WARNING, logger="ascend_lab.hub.allocator"):
        assert alloc.acquire("a").chip == 0  # the spawn works
    assert message in caplog.text and "start afresh" in caplog.text
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("s.json.damaged-")]
    assert [p.read_bytes() for p in kept] == [content]  # nothing lost: the admin can look at it
    assert set(json.loads(path.read_text())["seats"]) == {"a"}


def _truncated_seat_file(path):
    alloc = DeviceAllocator(str(path), range(4), per_chip=1)
    for user in ("ann", "bob", "cat"):
        alloc.acquire(user)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])  # a full disk, a crash mid-copy, a bad restore
    return alloc


def test_a_truncated_seat_file_does_not_fail_the_next_spawn(tmp_path, caplog):
    path = tmp_path / "seats.json"
    alloc = _truncated_seat_file(path)
    with caplog.at_level(logging.WARNING, logger="ascend_lab.hub.allocator"):
        seat = alloc.acquire("dan")
    assert seat.chip == 0 and seat.reason == ""
    assert "is not JSON" in caplog.text and "start afresh" in caplog.text
    assert {k: a.chip for k, a in alloc.assignments().items()} == {"dan": 0}
    assert alloc.release("ann") is None  # releasing a seat the damaged file held: no error


def test_a_400_digit_since_does_not_fail_the_next_spawn(tmp_path, caplog):
    path = tmp_path / "seats.json"
    huge = "9" * 400  # float() of it raises OverflowError
    path.write_text('{"version": 1, "seats": {"ann": {"chip": 1, "since": ' + huge + "}}}")
    alloc = DeviceAllocator(str(path), range(2), per_chip=1)
    with caplog.at_level(logging.WARNING, logger="ascend_lab.hub.allocator"):
        assert alloc.acquire("bob").chip == 0
    assert "not a time" in caplog.text and "start afresh" in caplog.text
    with pytest.raises(StateFileError, match="not a time"):
        parse_state(b'{"version": 1, "seats": {"a": {"chip": 0, "since": NaN}}}')


def test_the_lock_file_is_never_opened_through_a_symbolic_link(tmp_path, caplog):
    path = tmp_path / "seats.json"
    victim = tmp_path / "elsewhere" / "victim"  # a file the hub's user may write
    victim.parent.mkdir()
    lock = tmp_path / "seats.json.lock"
    lock.symlink_to(victim)
    alloc = DeviceAllocator(str(path), range(2), per_chip=1)
    with caplog.at_level(logging.WARNING, logger="ascend_lab.hub.allocator"):
        assert alloc.acquire("ann").chip == 0
    assert not victim.exists()  # not created through the link
    assert not lock.is_symlink() and lock.is_file()
    assert "symbolic link" in caplog.text
    victim.write_text("keep me")
    os.remove(lock)
    lock.symlink_to(victim)
    assert alloc.release("ann").chip == 0
    assert victim.read_text() == "keep me" and not lock.is_symlink()


def test_a_seat_file_that_is_a_symbolic_link_is_not_read_through(tmp_path, caplog):
    elsewhere = tmp_path / "other.json"
    elsewhere.write_text('{"version": 1, "seats": {"mallory": {"chip": 0, "since": 1}}}')
    path = tmp_path / "seats.json"
    path.symlink_to(elsewhere)
    alloc = DeviceAllocator(str(path), range(1), per_chip=1)
    with caplog.at_level(logging.WARNING, logger="ascend_lab.hub.allocator"):
        assert alloc.acquire("ann").chip == 0  # mallory's seat from the other file is not read
    assert "symbolic link" in caplog.text
    assert elsewhere.read_text().startswith('{"version": 1, "seats": {"mallory"')
    assert not path.is_symlink()


def test_a_seat_notes_its_server_pid_and_keeps_it_across_restarts(tmp_path):
    path = str(tmp_path / "seats.json")
    alloc = DeviceAllocator(path, range(2), per_chip=1)
    alloc.acquire("ann")
    assert alloc.record_server("ann", 4242, 123456) is True
    assert alloc.record_server("nobody", 1, 1) is False
    seat = DeviceAllocator(path, range(2), per_chip=1).assignments()["ann"]
    assert (seat.chip, seat.server_pid, seat.server_started) == (0, 4242, 123456)
    assert "server_pid" not in seat.to_dict()  # the status service does not show it


def _spawn(args):
    path, user = args
    return DeviceAllocator(path, range(8), per_chip=2).acquire(user).chip


def test_concurrent_spawns_in_separate_processes_never_overfill_a_chip(tmp_path):
    path = str(tmp_path / "seats.json")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(6) as pool:
        chips = pool.map(_spawn, [(path, f"user{i}") for i in range(24)])
    seated = [c for c in chips if c is not None]
    assert len(seated) == 16 and chips.count(None) == 8
    assert all(seated.count(c) == 2 for c in range(8))
    assert DeviceAllocator(path, range(8), per_chip=2).load() == {c: 2 for c in range(8)}


USERS = [f"learner{i}" for i in range(12)]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n_chips=st.integers(min_value=0, max_value=8),
    per_chip=st.integers(min_value=1, max_value=3),
    ops=st.lists(st.tuples(st.booleans(), st.sampled_from(USERS)), max_size=60),
)
def test_random_spawn_stop_sequences_never_exceed_per_chip(tmp_path, n_chips, per_chip, ops):
    path = str(tmp_path / f"prop-{os.getpid()}-{n_chips}-{per_chip}-{len(ops)}.json")
    if os.path.exists(path):
        os.remove(path)
    alloc = DeviceAllocator(path, range(n_chips), per_chip)
    model = {}  # user -> chip (None: CPU mode), what the allocator must agree with
    for spawn, user in ops:
        if spawn:
            seat = alloc.acquire(user)
            load = {c: list(model.values()).count(c) for c in range(n_chips)}
            if model.get(user) is not None:
                assert seat.chip == model[user]  # a running learner keeps their chip
            elif seat.chip is None:
                assert all(n >= per_chip for n in load.values())  # CPU only when all full
                assert seat.reason
            else:
                assert load[seat.chip] < per_chip
                assert load[seat.chip] == min(load.values())  # least loaded
            model[user] = seat.chip
        else:
            alloc.release(user)
            model.pop(user, None)
        counts = alloc.load()
        assert all(n <= per_chip for n in counts.values())
        assert {k: a.chip for k, a in alloc.assignments().items()} == model

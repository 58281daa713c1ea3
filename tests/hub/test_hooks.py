"""Spawner hooks and configure_hub, with a stand-in spawner and the fake npu-smi machine."""

import asyncio
import logging
import os
from types import SimpleNamespace

from traitlets.config import Config

from ascend_lab.hub import ADMIN_SCOPE, DeviceAllocator, configure_hub
from ascend_lab.hub.chips import discover_chips
from ascend_lab.hub.owners import start_time_of
from ascend_lab.hub.spawner import CPU_REASON, make_hooks
from benchmarks.support.fakes.ascend_machine import make_fake_machine


def _spawner(user, name="", environment=None):
    return SimpleNamespace(
        user=SimpleNamespace(name=user),
        name=name,
        environment=environment if environment is not None else {},
        log=logging.getLogger("test-spawner"),
    )


def test_hooks_set_the_chip_then_cpu_mode_and_free_the_seat_on_stop(tmp_path):
    shared = {"TZ": "UTC"}  # a config value every spawner sees: it must not be mutated
    pre, post = make_hooks(
        DeviceAllocator(str(tmp_path / "s.json"), [5], 1), "http://h:1/services/x/"
    )
    a, b = _spawner("a", environment=shared), _spawner("b", environment=shared)
    pre(a)
    assert a.environment["ASCEND_RT_VISIBLE_DEVICES"] == "5"
    assert a.environment["ASCEND_LAB_CHIP"] == "5" and a.environment["DEVICE_ID"] == "0"
    assert a.environment["ASCEND_LAB_HUB_SERVICE_URL"] == "http://h:1/services/x/"
    assert a.environment["TZ"] == "UTC" and CPU_REASON not in a.environment
    pre(b)
    assert b.environment["ASCEND_RT_VISIBLE_DEVICES"] == ""
    assert "CPU mode" in b.environment[CPU_REASON]
    assert shared == {"TZ": "UTC"}
    post(a)
    pre(b)  # b restarts once a's seat is free
    assert b.environment["ASCEND_RT_VISIBLE_DEVICES"] == "5"
    assert CPU_REASON not in b.environment


def test_discover_chips_reads_the_fake_8_chip_machine(tmp_path):
    machine = make_fake_machine(tmp_path)
    assert discover_chips(machine.npu_smi) == (list(range(8)), "")
    assert discover_chips(str(tmp_path / "missing")) == (
        [],
        f"npu-smi not found at {tmp_path}/missing",
    )
    broken = make_fake_machine(tmp_path / "f", behaviour="fail")
    chips, why = discover_chips(broken.npu_smi)
    assert chips == [] and "exited with code 255" in why


def test_configure_hub_wires_hooks_service_scopes_and_roles(tmp_path):
    machine = make_fake_machine(tmp_path)
    c = Config()
    alloc = configure_hub(
        c,
        str(tmp_path / "seats.json"),
        per_chip=2,
        instructors=["teacher"],
        npu_smi=machine.npu_smi,
        service_port=10999,
    )
    assert alloc.chips == list(range(8)) and alloc.per_chip == 2
    sp = _spawner("learner")
    c.Spawner.pre_spawn_hook(sp)
    assert sp.environment["ASCEND_RT_VISIBLE_DEVICES"] == "0"
    c.Spawner.post_stop_hook(sp)
    assert alloc.assignments() == {}
    hub = c.JupyterHub
    services = hub.services.get_value([])
    assert [s["name"] for s in services] == ["ascend-lab"]
    assert services[0]["url"] == "http://127.0.0.1:10999"
    assert services[0]["command"][1:3] == ["-m", "ascend_lab.hub.service"]
    assert "--npu-smi" in services[0]["command"]
    assert ADMIN_SCOPE in hub.custom_scopes.get_value({})
    roles = {r["name"]: r for r in hub.load_roles.get_value([])}
    assert "access:services!service=ascend-lab" in roles["user"]["scopes"]
    assert "access:services!service=ascend-lab" in roles["server"]["scopes"]
    assert sp.environment["ASCEND_LAB_HUB_SERVICE_URL"] == (
        "http://127.0.0.1:10999/services/ascend-lab/"
    )
    assert roles["ascend-lab-instructor"]["users"] == ["teacher"]


def test_the_server_pid_is_noted_with_the_seat_once_start_returns(tmp_path):
    alloc = DeviceAllocator(str(tmp_path / "s.json"), [0, 1], 1)
    pre, post = make_hooks(alloc)
    spawner = _spawner("ann")
    started = []

    async def start():  # a local process spawner: pid is set once the server runs
        spawner.pid = os.getpid()
        started.append(1)
        return ("127.0.0.1", 1234)

    spawner.start = start
    pre(spawner)
    assert alloc.assignments()["ann"].server_pid is None  # not started yet
    assert asyncio.run(spawner.start()) == ("127.0.0.1", 1234) and started == [1]
    seat = alloc.assignments()["ann"]
    assert seat.server_pid == os.getpid() and seat.server_started == start_time_of(os.getpid())
    pre(spawner)  # a respawn: start is not wrapped twice
    asyncio.run(spawner.start())
    assert started == [1, 1]
    post(spawner)
    assert alloc.assignments() == {}

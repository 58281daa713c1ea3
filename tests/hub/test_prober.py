"""The service's probe: one npu-smi run per call, a failure kept as a reason."""

import asyncio

from ascend_lab.hub.service import Prober
from benchmarks.support.fakes.ascend_machine import make_fake_machine


def test_a_probe_runs_npu_smi_once_and_keeps_the_snapshot(tmp_path):
    machine = make_fake_machine(tmp_path)
    prober = Prober(machine.npu_smi, interval=5.0, timeout=10.0)
    asyncio.run(prober.probe_once())
    snap = prober.snapshot
    assert machine.calls() == ["info"]
    assert snap.runs == 1 and snap.reason == "" and len(snap.info.chips) == 8


def test_a_failing_or_hanging_npu_smi_gives_a_reason_not_an_error(tmp_path):
    failing = make_fake_machine(tmp_path / "fail", behaviour="fail")
    prober = Prober(failing.npu_smi, interval=5.0, timeout=10.0)
    asyncio.run(prober.probe_once())
    assert prober.snapshot.info is None and "exited with code 255" in prober.snapshot.reason
    hanging = make_fake_machine(tmp_path / "hang", behaviour="hang", hang_seconds=600)
    prober = Prober(hanging.npu_smi, interval=5.0, timeout=1.0)
    asyncio.run(prober.probe_once())
    assert prober.snapshot.reason == "npu-smi timed out after 1 s"
    assert hanging.live_processes() == []
    garbage = make_fake_machine(tmp_path / "garbage", behaviour="garbage")
    prober = Prober(garbage.npu_smi, interval=5.0, timeout=10.0)
    asyncio.run(prober.probe_once())
    assert prober.snapshot.reason == "npu-smi info listed no chips"

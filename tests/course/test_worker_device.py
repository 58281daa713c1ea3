"""course_nets.worker_device: the device for notebook 08's workers, on a fake Ascend machine.

A notebook instance often has one 910B: starting two HCCL workers there fails. The helper
counts the NPUs MindSpore can see (npu-smi's chips, narrowed by ASCEND_RT_VISIBLE_DEVICES)
and falls back to CPU with a message in the reader's language.
"""

import pytest

from ascend_lab import i18n
from ascend_lab.probes import device as probe
from benchmarks.support.fakes.ascend_machine import make_fake_machine
from tests.course.test_exercises import course_nets

pytestmark = pytest.mark.mindspore  # course_nets imports MindSpore (it does not run it here)


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """8 x 910B3 (the recorded npu-smi table), nothing hidden yet."""
    m = make_fake_machine(tmp_path).activated(monkeypatch)
    probe.clear_cache()
    yield m
    probe.clear_cache()


def test_visible_npus_counts_chips_narrowed_by_the_variable():
    cn = course_nets()
    assert cn.visible_npus(8, None) == 8
    assert cn.visible_npus(8, "4,5") == 2
    assert cn.visible_npus(8, "0") == 1
    assert cn.visible_npus(8, "0,9") == 1  # 9 is not a chip here
    assert cn.visible_npus(8, "3,3") == 1  # one NPU listed twice
    assert cn.visible_npus(8, "") == 0
    assert cn.visible_npus(0, None) == 0


def test_eight_npus_keep_the_workers_on_ascend(machine, capsys):
    cn = course_nets()
    import ascend_lab

    assert len(ascend_lab.status().chips) == 8
    assert cn.worker_device("Ascend", workers=2) == "Ascend"
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "lang, visible, said",
    [
        ("en", "0", ["2 workers need one visible NPU each", "(ASCEND_RT_VISIBLE_DEVICES=0)"]),
        ("zh", "0,9", ["个 worker 各需要一个可见的 NPU", "本机只有 1 个"]),  # 9: no such chip
    ],
)
def test_one_visible_npu_falls_back_to_cpu_and_says_why(
    machine, monkeypatch, capsys, lang, visible, said
):
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", visible)
    with i18n.using(lang):
        assert course_nets().worker_device("Ascend", workers=2) == "CPU"
    out = capsys.readouterr().out
    assert all(s in out for s in said) and "HCCL" in out, out


def test_more_workers_than_chips_falls_back_naming_npu_smi(machine, capsys):
    cn = course_nets()
    with i18n.using("en"):
        assert cn.worker_device("Ascend", workers=16) == "CPU"
    assert "shows 8 (npu-smi lists 8 chip(s))" in capsys.readouterr().out


def test_cpu_stays_cpu_without_probing(tmp_path, monkeypatch, capsys):
    # no npu-smi at all: a CPU notebook never asks
    monkeypatch.setenv("PATH", str(tmp_path))
    assert course_nets().worker_device("CPU") == "CPU"
    assert capsys.readouterr().out == ""


def test_fusion_backend_is_named_from_what_npu_smi_reports(tmp_path, monkeypatch, machine):
    cn = course_nets()
    assert cn.fusion_backend("CPU") == "AKG, CPU"
    assert cn.fusion_backend("Ascend") == "DVM, 910B3"  # Atlas A2: DVM at O1


def test_fusion_backend_on_a_310p_is_akg(tmp_path, monkeypatch):
    make_fake_machine(tmp_path, info="info_310p3_npu-smi-22.0.0.txt").activated(monkeypatch)
    probe.clear_cache()
    try:
        assert course_nets().fusion_backend("Ascend").startswith("AKG, 310P")
    finally:
        probe.clear_cache()

"""npu-smi printing a failure instead of a table (#36): the status names the cause and the
next step from the doctor's code tables, for real failure outputs (tests/fixtures/npu_smi,
fail_*.txt, provenance in the README there)."""

import json
import os
import subprocess
import sys

import pytest

from ascend_lab.doctor.codes import find_codes
from ascend_lab.i18n import using
from ascend_lab.parsers.npu_smi import failure_of
from ascend_lab.probes import device as probe
from ascend_lab.probes import smi_failure
from benchmarks.support.fakes.ascend_machine import NPU_SMI_FIXTURES, REPO, make_fake_machine

CASES = [
    ("fail_dcmi_-8005_vllm_ascend_2698.txt", "dcmi", "DCMI error -8005 (DCMI_ERR_CODE_INNER_ERR)",
     "lsmod | grep drv_davinci"),
    ("fail_dcmi_-8020_cann_container_image_46.txt", "dcmi",
     "DCMI error -8020 (DCMI_ERR_CODE_RESOURCE_OCCUPIED)", "docker ps"),
    ("fail_libc_sec_hami_615.txt", "library", "the library libc_sec.so did not load",
     "LD_LIBRARY_PATH"),
]  # fmt: skip


def _read(name):
    with open(os.path.join(NPU_SMI_FIXTURES, name), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("name, kind, cause, step", CASES)
def test_the_failure_is_recognised_and_explained(name, kind, cause, step):
    failure = failure_of(_read(name))
    assert failure is not None and failure.kind == kind
    got_cause, got_step = smi_failure.explain_failure(failure)
    assert got_cause.startswith(cause) and step in got_step


@pytest.mark.parametrize("name, kind, cause, step", CASES)
def test_status_names_cause_and_next_step(tmp_path, monkeypatch, name, kind, cause, step):
    machine = make_fake_machine(tmp_path, behaviour="print_fail", info_text=_read(name))
    machine.activated(monkeypatch)
    s = probe.collect_status()
    assert s.mode == "cpu" and s.chips == []
    assert "npu-smi exited with code 255" in s.reason
    assert cause in s.reason and step in s.reason  # the status bar shows the reason
    (w,) = [w for w in s.warnings if w.component == "npu"]
    assert w.severity == "error" and cause in w.message and step in w.fix


def test_status_and_doctor_give_one_meaning_for_a_dcmi_code():
    text = _read("fail_dcmi_-8020_cann_container_image_46.txt")
    (note,) = find_codes(text)
    cause, step = smi_failure.explain_failure(failure_of(text))
    assert note.meaning in cause and note.next_steps[0] == step
    assert note.topics[0] == "device-busy"


def test_status_cli_and_chinese(tmp_path):
    machine = make_fake_machine(
        tmp_path, behaviour="print_fail",
        info_text=_read("fail_dcmi_-8005_vllm_ascend_2698.txt"),
    )  # fmt: skip
    env = dict(machine.environ(), LANG="C.UTF-8", PYTHONIOENCODING="utf-8")
    env.pop("ASCEND_LAB_LANG", None)
    run = [sys.executable, "-m", "ascend_lab", "status"]
    kw = dict(env=env, cwd=str(REPO), capture_output=True, text=True, timeout=120)
    out = subprocess.run(run, **kw)
    assert "DCMI error -8005" in out.stdout and "lsmod | grep drv_davinci" in out.stdout
    data = json.loads(subprocess.run(run + ["--json"], **kw).stdout)
    assert "DCMI_ERR_CODE_INNER_ERR" in data["reason"]
    zh = subprocess.run(run + ["--lang", "zh_CN"], **kw).stdout
    assert "DCMI 内部错误" in zh and "原因" in zh


def test_what_is_not_a_failure():
    assert failure_of("") is None
    assert failure_of(_read_table()) is None
    assert failure_of("temperature -8005 C") is None


def _read_table():
    return _read("info_910b3_x8_npu-smi-25.2.0.txt")


def test_a_dcmi_code_the_tables_do_not_list():
    cause, step = smi_failure.explain_failure(
        failure_of("dcmi module initialize failed. ret is -8099")
    )
    assert "-8099" in cause and "drv_davinci" in step
    with using("zh_CN"):
        from ascend_lab.i18n import localize

        zh = localize(smi_failure.smi_failure_reason("npu-smi exited with code 255", cause, step))
    assert "DCMI 错误 -8099" in zh and "下一步" in zh


def test_a_failure_printed_with_exit_code_0_and_the_magic_card(tmp_path, monkeypatch):
    """Some npu-smi builds print the DCMI line and exit 0: no table, the same cause."""
    from ascend_lab.device.magic import status_magic

    text = _read("fail_dcmi_-8020_cann_container_image_46.txt")
    make_fake_machine(tmp_path, behaviour="print", info_text=text).activated(monkeypatch)
    s = probe.collect_status()
    assert "npu-smi printed no NPU table" in s.reason
    assert "DCMI error -8020 (DCMI_ERR_CODE_RESOURCE_OCCUPIED)" in s.reason
    shown = status_magic(None, "--refresh")
    page = shown._repr_html_()
    assert "DCMI_ERR_CODE_RESOURCE_OCCUPIED" in page and "docker ps" in page
    zh = status_magic(None, "--lang zh").to_text()
    assert "DCMI 错误 -8020" in zh and "设备资源被其他进程或容器占用" in zh


REAL_SMI = os.path.join(REPO, "tests", "fixtures", "real", "npu_smi")
NEW_KINDS = [
    # dev texts of the real corpus's batch 5: what the card and its Chinese show
    ("fail_command_not_found_ci_log_vllm_ascend_report.txt", "there is no npu-smi to run",
     "/usr/local/sbin/npu-smi", "没有可运行的 npu-smi"),
    ("hccs_t_unsupported_atlas200ia2_24.1.0_doc.txt", "this device does not support hccs topo",
     "npu-smi info -h", "此设备不支持 hccs topo"),
]  # fmt: skip


@pytest.mark.parametrize("name,cause,step,zh_cause", NEW_KINDS, ids=[c[0] for c in NEW_KINDS])
def test_the_card_names_cause_and_step_of_npu_smi_s_other_failures(
    name, cause, step, zh_cause, tmp_path, monkeypatch
):
    from ascend_lab.device.magic import status_magic

    with open(os.path.join(REAL_SMI, name), encoding="utf-8") as f:
        text = f.read()
    make_fake_machine(tmp_path, behaviour="print", info_text=text).activated(monkeypatch)
    s = probe.collect_status()
    assert "npu-smi printed no NPU table" in s.reason and cause in s.reason
    page = status_magic(None, "--refresh")._repr_html_()
    assert cause in page and step in page
    assert zh_cause in status_magic(None, "--lang zh").to_text()


def test_each_chip_gets_its_own_block_of_an_npu_s_answer():
    from ascend_lab.parsers.npu_smi import parse_key_value_records
    from ascend_lab.probes.smi_reading import _chip_record

    with open(
        os.path.join(REAL_SMI, "power_t_blank_indented_line_atlas200ia2_2520_doc.txt"),
        encoding="utf-8",
    ) as f:
        text = f.read()
    block = text.split("\n", 3)[3]  # chip 0's block, from its "Chip ID" on
    records = parse_key_value_records(text + block.replace(": 0", ": 1"))
    assert _chip_record(records, 0)["Chip ID"] == "0"
    one = _chip_record(records, 1)
    assert (one["Chip ID"], one["NPU ID"], one["Chip Count"]) == ("1", "0", "1")
    assert _chip_record(records, 7) == {} and _chip_record(records[:1], 5)["Chip ID"] == "0"

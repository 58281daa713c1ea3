"""Machine confirmations, with the machine state given as data."""

import os
import sys

import pytest

from ascend_lab.doctor import checks
from ascend_lab.doctor.checks import CONFIRMED, CONTRADICTED, INFO, UNKNOWN, Environment
from ascend_lab.doctor.diagnosis import diagnose

ASCEND_TREE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "ascend_tree")
MISMATCH = "MindSpore version 2.3.1 and Ascend AI software package (Ascend Data Center Solution)version 7.0 does not match"  # noqa: E501


def _status(verdict="mismatch", chips=1, processes=(), hbm=(3000, 65536)):
    return {
        "mode": "ascend" if chips else "cpu",
        "reason": "" if chips else "npu-smi not found",
        "summary": "test status",
        "chips": [
            {"npu": i, "chip": 0, "hbm_used_mb": hbm[0], "hbm_total_mb": hbm[1]}
            for i in range(chips)
        ],
        "processes": [dict(p) for p in processes],
        "versions": {"driver": "23.0.0", "cann": "7.0.0", "mindspore": "2.3.1"},
        "compatibility": {
            "verdict": verdict,
            "message": "MindSpore 2.3.1 expects CANN 8.0.RC2" if verdict == "mismatch" else "",
            "install": ["pip install mindspore==2.2.14"] if verdict == "mismatch" else [],
        },
        "warnings": [],
        "root": ASCEND_TREE,
    }


def _facts(status=None, env=None, **kw):
    base = dict(
        env=env or {},
        status=status,
        status_error="" if status else "device status unavailable (test)",
        packages={"mindspore": "2.3.1", "numpy": "1.26.4"},
        root=ASCEND_TREE,
        groups=["users"],
        user="alice",
        is_root=False,
        hwhiaiuser_group_exists=True,
    )
    base.update(kw)
    return Environment(**base)


def test_version_mismatch_is_confirmed_with_installed_versions():
    diag = diagnose(MISMATCH, facts=_facts(_status("mismatch")))
    f = diag.findings[0]
    assert f.id == "version-mismatch"
    c = f.confirmation
    assert c.check == "versions" and c.verdict == CONFIRMED
    text = "\n".join(c.lines)
    assert "driver 23.0.0" in text and "cann 7.0.0" in text and "MISMATCH" in text
    assert "pip install mindspore==2.2.14" in text
    assert "confirmed on this machine" in diag.to_text()


def test_version_match_is_not_confirmed_and_unknown_without_status():
    c = diagnose(MISMATCH, facts=_facts(_status("match"))).findings[0].confirmation
    assert c.verdict == CONTRADICTED
    c = diagnose(MISMATCH, facts=_facts(None)).findings[0].confirmation
    assert c.verdict == UNKNOWN and any("unavailable" in line for line in c.lines)


def test_numpy_finding_checks_the_installed_numpy():
    text = "RuntimeError: numpy.core.multiarray failed to import"
    facts = _facts(packages={"mindspore": "2.10.0", "numpy": "2.4.6"})
    assert diagnose(text, facts=facts).findings[0].confirmation.verdict == CONFIRMED
    facts = _facts(packages={"mindspore": "2.10.0", "numpy": "1.26.4"})
    assert diagnose(text, facts=facts).findings[0].confirmation.verdict == CONTRADICTED


def test_set_env_confirmed_when_cann_installed_but_not_sourced():
    text = "ImportError: libascendcl.so: cannot open shared object file: No such file or directory"
    c = diagnose(text, facts=_facts(env={"PATH": "/usr/bin"})).findings[0].confirmation
    assert c.verdict == CONFIRMED
    joined = "\n".join(c.lines)
    assert "ASCEND_HOME_PATH is not set" in joined
    assert "source " + os.path.join(ASCEND_TREE, "ascend-toolkit", "set_env.sh") in joined


def test_suggested_source_command_survives_a_path_with_spaces(tmp_path):
    import shlex
    import shutil

    root = tmp_path / "Ascend root; rm -rf ~"
    shutil.copytree(ASCEND_TREE, str(root))
    text = "ImportError: libascendcl.so: cannot open shared object file: No such file or directory"
    facts = _facts(env={"PATH": "/usr/bin"}, root=str(root))
    c = diagnose(text, facts=facts).findings[0].confirmation
    command = next(line for line in c.lines if line.startswith("Run: "))[len("Run: ") :]
    set_env = os.path.join(str(root), "ascend-toolkit", "set_env.sh")
    assert shlex.split(command) == ["source", set_env]


def test_set_env_not_confirmed_when_environment_is_set(tmp_path):
    home = tmp_path / "latest"
    opp = home / "opp"
    opp.mkdir(parents=True)
    env = {
        "ASCEND_HOME_PATH": str(home),
        "ASCEND_OPP_PATH": str(opp),
        "LD_LIBRARY_PATH": "/usr/local/Ascend/ascend-toolkit/latest/lib64",
    }
    text = "ModuleNotFoundError: No module named 'te'"
    c = diagnose(text, facts=_facts(env=env)).findings[0].confirmation
    assert c.verdict == CONTRADICTED


def test_device_checks():
    busy = "dcmi model initialized failed, because the device is used. ret is -8020"
    proc = {"npu": 0, "chip": 0, "pid": 4242, "name": "python", "memory_mb": 3000}
    c = diagnose(busy, facts=_facts(_status(processes=[proc]))).findings[0].confirmation
    assert c.verdict == CONFIRMED and any("pid 4242" in line for line in c.lines)

    gone = "RuntimeError: Ascend kernel runtime initialization failed, device id: 0."
    assert (
        diagnose(gone, facts=_facts(_status(chips=0))).findings[0].confirmation.verdict == CONFIRMED
    )
    # chips present and free: the cause is in the lines before the error, not confirmed either way
    assert diagnose(gone, facts=_facts(_status(chips=2))).findings[0].confirmation.verdict == INFO
    held = _facts(_status(chips=2, processes=[proc]))
    assert diagnose(gone, facts=held).findings[0].confirmation.verdict == CONFIRMED

    bad_id = "EE8888  [PID: 3187] Invalid device id 8, device count is 8."
    c = (
        diagnose(bad_id, facts=_facts(_status(chips=8), env={"DEVICE_ID": "8"}))
        .findings[0]
        .confirmation
    )
    assert c.verdict == CONFIRMED and any("DEVICE_ID=8 but only 8" in line for line in c.lines)

    oom = "RuntimeError: Malloc device memory failed, size[1024]"
    c = diagnose(oom, facts=_facts(_status(hbm=(60000, 65536)))).findings[0].confirmation
    assert c.verdict == CONFIRMED and any("HBM 60000 / 65536 MB" in line for line in c.lines)


def test_group_check():
    text = "DrvMngGetConsoleLogLevel failed. (ret=4)\ndcmi module initialize failed. ret is -8005"
    c = diagnose(text, facts=_facts()).findings[0].confirmation
    assert c.verdict == CONFIRMED and "usermod -aG HwHiAiUser alice" in c.lines[-1]
    c = diagnose(text, facts=_facts(groups=["users", "HwHiAiUser"])).findings[0].confirmation
    assert c.verdict == CONTRADICTED
    c = diagnose(text, facts=_facts(is_root=True)).findings[0].confirmation
    assert c.verdict == CONTRADICTED
    c = diagnose(text, facts=_facts(hwhiaiuser_group_exists=False)).findings[0].confirmation
    assert c.verdict == UNKNOWN


def test_hccl_checks_show_timeouts():
    text = "Communication_Error_Get_Socket(EI0006)"
    env = {"HCCL_CONNECT_TIMEOUT": "120"}
    c = diagnose(text, facts=_facts(env=env)).findings[0].confirmation
    assert "HCCL_CONNECT_TIMEOUT=120" in c.lines
    text = "[RanktableConfig]errNo[0x0000000005010001] path /nope.json is not a valid real path"
    c = diagnose(text, facts=_facts(env={"RANK_TABLE_FILE": "/nope.json"})).findings[0].confirmation
    assert c.verdict == CONFIRMED


def test_doctor_works_when_device_probe_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "ascend_lab.probes.device", None)
    status, error = checks.device_status()
    assert status is None and "unavailable" in error
    diag = diagnose("Malloc device memory failed")
    assert diag.findings[0].id == "device-oom"
    assert diag.findings[0].confirmation.verdict == UNKNOWN


def test_doctor_works_when_device_probe_fails(monkeypatch):
    import ascend_lab.probes.device as probe

    def boom(**kwargs):
        raise OSError("npu-smi exploded")

    monkeypatch.setattr(probe, "collect_status", boom)
    status, error = checks.device_status()
    assert status is None and "npu-smi exploded" in error
    assert "npu-smi exploded" in diagnose(None).to_text()


@pytest.mark.mindspore  # reads the installed MindSpore
def test_real_device_probe_is_used():
    facts = checks.gather()
    assert facts.status is not None, facts.status_error
    assert facts.status["mode"] in ("cpu", "ascend", "gpu")
    assert facts.packages["mindspore"]


def test_environment_only_reports_sourcing_problem_and_status_warnings():
    status = _status("match")
    status["warnings"] = [
        {
            "message": "Chip 3 health is Alarm",
            "fix": "npu-smi info -t health -i 3",
            "severity": "warning",
        }
    ]  # noqa: E501
    diag = diagnose(None, facts=_facts(status, env={}))
    assert diag.source == "environment" and not diag.findings
    text = diag.to_text()
    assert "ASCEND_HOME_PATH is not set" in text
    assert "Chip 3 health is Alarm Fix: npu-smi info -t health -i 3" in text
    assert diag.recognised


def test_confirmed_environment_problems_are_shown_beside_findings():
    shape_error = "ValueError: For 'MatMul' the input dimensions must be equal, but got 'x1_col': 5"
    diag = diagnose(shape_error, facts=_facts(_status("mismatch"), env={}))
    assert diag.findings[0].id == "shape-matmul"
    verdicts = [c.verdict for c in diag.environment]
    assert verdicts and set(verdicts) == {CONFIRMED}
    text = diag.to_text()
    assert "ASCEND_HOME_PATH is not set" in text and "MISMATCH" in text


def test_malformed_status_does_not_hide_findings():
    status = {"mode": "ascend", "warnings": "not-a-list", "chips": None, "compatibility": []}
    diag = diagnose("Malloc device memory failed", facts=_facts(status))
    assert diag.findings[0].id == "device-oom"
    assert "device out of memory" in diag.to_text()


def test_pasted_text_with_machine_checks_does_not_say_this_machine_is_not_shown():
    """The note said "this machine's environment is not shown" above findings whose machine
    checks show this machine (issue #41): it says what is left out instead."""
    from ascend_lab.doctor.diagnosis import NOT_FROM_HERE
    from ascend_lab.doctor.render import render_html, render_text

    diag = diagnose(MISMATCH, facts=_facts(_status("mismatch")), environment_section=False)
    assert NOT_FROM_HERE in diag.notes and diag.findings[0].confirmation is not None
    for shown in (render_text(diag), render_html(diag)):
        assert "environment is not shown" not in shown
        assert "left out (add --env to show it)" in shown

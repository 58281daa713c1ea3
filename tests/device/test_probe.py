"""collect_status() on fake machines, in-process: modes, reasons, warnings, cache, threads."""

import json
import os
import threading
import time

import jsonschema
import pytest

from ascend_lab.model.device_status import SCHEMA_PATH as STATUS_SCHEMA_PATH
from ascend_lab.model.device_status import DeviceStatus
from ascend_lab.probes import device as probe
from benchmarks.support.fakes.ascend_machine import make_fake_machine

SCHEMA_PATH = STATUS_SCHEMA_PATH
with open(SCHEMA_PATH) as _f:
    SCHEMA = json.load(_f)


def validate(status: DeviceStatus) -> dict:
    d = status.to_dict()
    jsonschema.validate(d, SCHEMA)
    json.dumps(d)  # JSON-serialisable
    return d


@pytest.fixture
def machine(tmp_path, monkeypatch):
    return make_fake_machine(tmp_path).activated(monkeypatch)


def test_fake_910b3_machine(machine):
    s = probe.collect_status()
    d = validate(s)
    assert s.mode == "ascend" and s.reason == "8 NPU chips found by npu-smi"
    assert len(s.chips) == 8 and {c.name for c in s.chips} == {"910B3"}
    assert s.npu_smi_path == machine.npu_smi
    assert s.versions.to_dict() == {
        "driver": "24.1.rc1",
        "firmware": "7.1.0.11.220",
        "cann": "8.3.RC2",
        "mindspore": "2.8.0",  # pinned by the fake machine, whatever is installed here
        "npu_smi": "25.2.0",
    }
    assert s.summary() == "NPU 8x910B3 · HBM 12% · OK"  # 64862 / 524288 MB
    assert d["processes"] == [{"npu": 2, "chip": 0, "pid": 1333928, "name": "", "memory_mb": 37709}]
    # not sourced: exactly that one environment warning, with the script to source
    env_warnings = [w for w in s.warnings if w.component == "environment"]
    assert len(env_warnings) == 1
    assert "set_env.sh" in env_warnings[0].message
    assert env_warnings[0].fix.startswith("source " + machine.root)
    assert machine.calls() == ["info"]


def test_sourced_environment_has_no_environment_warnings(tmp_path, monkeypatch):
    make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    s = probe.collect_status()
    assert [w for w in s.warnings if w.component == "environment"] == []
    assert s.environment["ASCEND_HOME_PATH"].endswith("8.3.RC2")


def test_kernel_that_failed_to_source_set_env_is_reported(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    script = os.path.join(m.root, "ascend-toolkit", "set_env.sh")
    monkeypatch.setenv("ASCEND_LAB_SET_ENV", script)
    monkeypatch.setenv("ASCEND_LAB_SET_ENV_ERROR", "set_env.sh exited with status 1")
    s = probe.collect_status(refresh=True)
    (warning,) = [w for w in s.warnings if "could not source" in w.message]
    assert script in warning.message and "exited with status 1" in warning.message
    assert warning.severity == "error" and "install-kernel" in warning.fix


def test_environment_checks_each_with_a_fix(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    monkeypatch.setenv("ASCEND_OPP_PATH", os.path.join(m.root, "missing-opp"))
    monkeypatch.setenv("LD_LIBRARY_PATH", "/usr/lib")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", "/nonexistent/custom")
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "0,9")
    s = probe.collect_status()
    messages = [(w.component, w.message) for w in s.warnings]
    assert ("npu", "ASCEND_RT_VISIBLE_DEVICES names device(s) 9 but only 8 chip(s) exist") in (
        messages
    )
    env = [m for c, m in messages if c == "environment"]
    assert any(m.startswith("ASCEND_OPP_PATH=") and "does not exist" in m for m in env)
    assert any(m.startswith("LD_LIBRARY_PATH does not contain") for m in env)
    assert any("ASCEND_CUSTOM_OPP_PATH" in m for m in env)
    assert all(w.fix for w in s.warnings)
    # firmware/driver/npu first, then CANN/environment, then MindSpore
    ranks = [probe_rank(w.component) for w in s.warnings]
    assert ranks == sorted(ranks)
    validate(s)


def probe_rank(component):
    from ascend_lab.model.device_status import COMPONENT_ORDER

    return COMPONENT_ORDER.index(component)


def test_visible_devices_not_a_list(machine, monkeypatch):
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "all")
    s = probe.collect_status()
    (w,) = [w for w in s.warnings if "ASCEND_RT_VISIBLE_DEVICES" in w.message]
    assert w.severity == "error" and "not a comma-separated list" in w.message


def test_firmware_outside_driver_range_comes_first(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch)
    with open(os.path.join(m.root, "firmware", "version.info"), "w") as f:
        f.write("Version=6.4.0.1.220\n")
    s = probe.collect_status()
    assert s.warnings[0].component == "firmware"
    assert "outside what driver 24.1.rc1 supports (7.0.0–7.2.99)" in s.warnings[0].message


def test_cann_mismatch_warning(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    monkeypatch.setattr(probe, "mindspore_version", lambda: ("2.3.1", "mindspore"))
    s = probe.collect_status()
    assert s.compatibility.verdict == "mismatch"
    assert s.compatibility.install == ["CANN 8.0.RC2"]  # no MindSpore row for 8.3.RC2
    (w,) = [w for w in s.warnings if w.component == "cann"]
    assert w.severity == "error" and "CANN 8.3.RC2 is installed" in w.message
    assert m.root in s.root


def test_match_verdict(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    info = os.path.join(
        m.root, "ascend-toolkit", "8.3.RC2", "aarch64-linux", "ascend_toolkit_install.info"
    )
    with open(info, "w") as f:
        f.write("version=8.0.RC2\n")
    with open(os.path.join(m.root, "driver", "version.info"), "w") as f:
        f.write("Version=24.1.rc2\n")
    monkeypatch.setattr(probe, "mindspore_version", lambda: ("2.3.1", "mindspore"))
    s = probe.collect_status()
    assert s.compatibility.verdict == "match", s.compatibility
    assert s.warnings == []
    assert s.summary() == "NPU 8x910B3 · HBM 12% · OK"


def test_plain_cpu_machine_has_no_wall_of_warnings(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no npu-smi anywhere
    monkeypatch.setattr("ascend_lab.probes.npu_smi_runner._EXTRA_DIRS", ())
    for k in ("ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_RT_VISIBLE_DEVICES"):
        monkeypatch.delenv(k, raising=False)
    s = probe.collect_status(root=str(tmp_path / "no-ascend"))
    assert (s.mode, s.reason) == ("cpu", "npu-smi not found on PATH")
    assert s.warnings == [] and s.chips == [] and s.summary() == "CPU mode"
    assert s.compatibility.verdict == "unknown"
    validate(s)


@pytest.mark.parametrize(
    "behaviour, reason",
    [
        ("fail", "npu-smi exited with code 255: dcmi model initialized failed"),
        ("garbage", "npu-smi printed no NPU table (unrecognised output)"),
        ("empty", "npu-smi printed nothing"),
        ("not_executable", "is not executable"),
    ],
)
def test_broken_npu_smi_gives_cpu_mode_with_reason(tmp_path, monkeypatch, behaviour, reason):
    make_fake_machine(tmp_path, behaviour=behaviour).activated(monkeypatch)
    s = probe.collect_status()
    assert s.mode == "cpu" and reason in s.reason and s.chips == []
    (w,) = [w for w in s.warnings if w.component == "npu"]
    assert w.severity == "error" and reason in w.message and "npu-smi info" in w.fix
    validate(s)


def test_table_without_chips(tmp_path, monkeypatch):
    text = (
        "| NPU   Name | Health | Power(W) Temp(C) |\n"
        "| Chip       | Bus-Id | AICore(%) Memory-Usage(MB) |\n"
        "+======+\n"
    )
    make_fake_machine(tmp_path, info_text=text).activated(monkeypatch)
    s = probe.collect_status()
    assert (s.mode, s.reason) == ("cpu", "npu-smi found no NPU chips")


def test_hanging_npu_smi_times_out(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path, behaviour="hang", hang_seconds=600)
    m.activated(monkeypatch)
    t = time.monotonic()
    s = probe.collect_status(timeout=1.0)
    elapsed = time.monotonic() - t
    assert s.mode == "cpu" and s.reason == "npu-smi timed out after 1 s"
    # the warning names the likely cause of a hang and the next step
    (w,) = [w for w in s.warnings if w.component == "npu" and w.message == s.reason]
    assert "driver is busy or stuck" in w.fix and "dmesg" in w.fix
    # a 600 s hang against a 1 s timeout: answering at all within 60 s means it was cut off
    assert elapsed < 60, elapsed
    assert m.calls() == ["info"] and m.live_processes() == []  # its sleeping child killed too
    validate(s)


def test_alarm_health_is_a_warning_and_in_summary(tmp_path, monkeypatch):
    make_fake_machine(tmp_path, info="info_310b4_alarm_npu-smi-23.0.0.txt").activated(monkeypatch)
    s = probe.collect_status()
    assert s.summary() == "NPU 1x310B4 · Mem 33% · 1 Alarm"
    (w,) = [w for w in s.warnings if w.component == "npu"]
    assert w.message == "NPU 0 chip 0 health is Alarm"
    assert w.fix.startswith("npu-smi info -t health -i 0 -c 0")


def test_details_queries_board_usages_health(machine):
    s = probe.collect_status(details=True)
    assert s.chips[0].details["board"]["Software Version"] == "23.0.5"
    assert s.chips[0].details["usages"]["HBM Capacity(MB)"] == "32768"
    assert s.chips[7].details["health"]["Health Status"] == "OK"
    calls = machine.calls()
    assert calls[0] == "info" and "info -t board -i 3" in calls
    assert "info -t health -i 7 -c 0" in calls and len(calls) == 1 + 8 * 3
    validate(s)


def test_cache_and_refresh(machine):
    a = probe.collect_status()
    b = probe.collect_status()
    assert a is b and machine.calls() == ["info"]
    c = probe.collect_status(refresh=True)
    assert c is not a and machine.calls() == ["info", "info"]


def test_cache_expires(machine, monkeypatch):
    monkeypatch.setattr(probe, "CACHE_SECONDS", 0.0)
    probe.collect_status()
    probe.collect_status()
    assert machine.calls() == ["info", "info"]


def test_threads_share_one_collection(machine):
    results = []

    def worker():
        results.append(probe.collect_status())

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 6 and all(r is results[0] for r in results)
    assert machine.calls() == ["info"]


def test_root_argument_and_env(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch)
    assert probe.collect_status().root == m.root
    other = tmp_path / "elsewhere"
    other.mkdir()
    s = probe.collect_status(root=str(other))
    assert s.root == str(other) and s.versions.cann is None
    assert not any("NPUs found but no Ascend install" in w.message for w in s.warnings)
    s = probe.collect_status(root=str(tmp_path / "missing"))
    (w,) = [w for w in s.warnings if "NPUs found but no Ascend install" in w.message]
    assert w.component == "driver" and "ASCEND_LAB_ASCEND_ROOT" in w.fix


def test_root_not_a_directory(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch)
    s = probe.collect_status(root=m.npu_smi)
    assert s.mode == "ascend"
    assert any("is not a directory" in w.message for w in s.warnings)
    validate(s)


def test_internal_error_becomes_a_warning(machine, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(probe.ascend_install, "read_install", boom)
    s = probe.collect_status()
    assert s.mode == "cpu" and "RuntimeError: bug" in s.reason
    assert s.warnings[0].severity == "error"
    validate(s)


def test_never_imports_mindspore(machine):
    import subprocess
    import sys

    code = (
        "import sys; from ascend_lab.probes.device import collect_status; "
        "s = collect_status(); s.to_dict(); s.to_text(); s._repr_html_(); "
        "print(s.mode, 'mindspore' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=machine.environ(), capture_output=True, text=True
    )
    assert out.stdout.split() == ["ascend", "False"], out.stderr


@pytest.mark.mindspore  # reads the installed MindSpore
def test_mindspore_version_matches_importlib_metadata():
    from importlib import metadata

    assert probe.mindspore_version() == (metadata.version("mindspore"), "mindspore")


def test_mindspore_version_from_a_site_dir(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    assert probe.mindspore_version([str(site), "/nonexistent"]) == (None, None)
    (site / "mindspore_gpu-2.2.14.dist-info").mkdir()
    (site / "mindspore_lite-2.2.0.dist-info").mkdir()  # not MindSpore itself
    assert probe.mindspore_version([str(site)]) == ("2.2.14", "mindspore-gpu")
    (site / "mindspore-2.3.0rc2.dist-info").mkdir()
    assert probe.mindspore_version([str(site)]) == ("2.3.0rc2", "mindspore")


def test_gpu_mode_when_gpu_mindspore_and_nvidia_device(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("ascend_lab.probes.npu_smi_runner._EXTRA_DIRS", ())
    real_exists = os.path.exists
    monkeypatch.setattr(probe.os.path, "exists", lambda p: p == "/dev/nvidiactl" or real_exists(p))
    monkeypatch.setattr(probe, "mindspore_version", lambda: ("2.2.14", "mindspore-gpu"))
    s = probe.collect_status(root=str(tmp_path / "none"))
    assert s.mode == "gpu" and s.summary() == "GPU mode"
    assert s.reason.startswith("no NPU (npu-smi not found on PATH); NVIDIA GPU")
    validate(s)


def test_no_gpu_mode_without_nvidia_device(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("ascend_lab.probes.npu_smi_runner._EXTRA_DIRS", ())
    monkeypatch.setattr(
        probe.os.path, "exists", lambda p, _e=os.path.exists: p != "/dev/nvidiactl" and _e(p)
    )
    monkeypatch.setattr(probe, "mindspore_version", lambda: ("2.2.14", "mindspore-gpu"))
    assert probe.collect_status(root=str(tmp_path / "none")).mode == "cpu"


def test_cann_found_through_ascend_home_path(tmp_path, monkeypatch):
    m = make_fake_machine(tmp_path).activated(monkeypatch, sourced=True)
    s = probe.collect_status(root=str(tmp_path / "not-here"))
    assert s.versions.cann == "8.3.RC2" and s.versions.driver == "25.2.0"  # from npu-smi
    (w,) = [w for w in s.warnings if "NPUs found but no Ascend install" in w.message]
    assert m.root not in w.message


def test_hub_cpu_reason_is_the_mode_and_hides_no_chip_error(machine, monkeypatch):
    # what the hub's spawner hook gives a server when every chip is full
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "")
    monkeypatch.setenv("ASCEND_LAB_CPU_REASON", "no NPU free: 8 chips x 2 learners taken")
    s = probe.collect_status(refresh=True)
    validate(s)
    assert s.mode == "cpu"
    assert s.reason == "no NPU free: 8 chips x 2 learners taken"
    assert [w for w in s.warnings if "ASCEND_RT_VISIBLE_DEVICES" in w.message] == []


def test_empty_visible_devices_without_the_hub_is_still_an_error(machine, monkeypatch):
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "")
    s = probe.collect_status(refresh=True)
    (w,) = [w for w in s.warnings if "ASCEND_RT_VISIBLE_DEVICES" in w.message]
    assert w.severity == "error" and s.mode == "ascend"


def test_hub_chip_is_named_in_the_subject(machine, monkeypatch):
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "5")
    monkeypatch.setenv("ASCEND_LAB_CHIP", "5")
    d = validate(probe.collect_status(refresh=True))
    assert d["subject"]["hub_chip"] == "5"
    assert d["mode"] == "ascend"


def test_without_npu_smi_query_no_npu_smi_runs(machine):
    s = probe.collect_status(refresh=True, query_npu_smi=False)
    validate(s)
    assert machine.calls() == []
    assert s.chips == [] and s.npu_smi_path is None
    assert s.versions.cann == "8.3.RC2" and s.versions.mindspore == "2.8.0"
    assert not [w for w in s.warnings if "not on PATH" in w.message]

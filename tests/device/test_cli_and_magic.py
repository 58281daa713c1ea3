"""End to end: `ascend-lab status` as a subprocess, `%ascend_status` in IPython and a kernel."""

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from ascend_lab.model.device_status import SCHEMA_PATH as STATUS_SCHEMA_PATH
from benchmarks.support.fakes.ascend_machine import REPO, make_fake_machine

SCHEMA_PATH = STATUS_SCHEMA_PATH
with open(SCHEMA_PATH) as _f:
    SCHEMA = json.load(_f)


def _status(env, *args, timeout=60, cwd=REPO):
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", "status", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_cli_json_on_fake_910b3_machine(tmp_path):
    m = make_fake_machine(tmp_path)
    out = _status(m.environ(), "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    jsonschema.validate(d, SCHEMA)
    assert d["mode"] == "ascend"
    assert [c["name"] for c in d["chips"]] == ["910B3"] * 8
    assert d["chips"][2]["hbm_used_mb"] == 41052 and d["chips"][2]["hbm_total_mb"] == 65536
    assert d["versions"]["cann"] == "8.3.RC2" and d["root"] == m.root
    # the machine's pinned MindSpore, not the one installed here; 2.8.0 has no table row
    assert d["versions"]["mindspore"] == "2.8.0"
    assert d["compatibility"]["verdict"] == "unknown"
    assert d["subject"] == {"kind": "process", "python": sys.executable, "set_env": None}


def test_cli_text_and_root_option(tmp_path):
    m = make_fake_machine(tmp_path)
    env = m.environ()
    del env["ASCEND_LAB_ASCEND_ROOT"]
    out = _status(env, "--root", m.root, "--refresh")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ascend-lab status: NPU 8x910B3 · HBM 12% · OK\n")
    assert "CANN       8.3.RC2" in out.stdout and out.stderr == ""


def test_cli_hanging_npu_smi_respects_timeout(tmp_path):
    m = make_fake_machine(tmp_path, behaviour="hang", hang_seconds=600)
    # a 600 s hang against --timeout 1: _status raises TimeoutExpired unless the command
    # answers within 60 s, interpreter start-up included
    out = _status(m.environ(), "--json", "--timeout", "1", timeout=60)
    d = json.loads(out.stdout)
    assert (d["mode"], d["reason"]) == ("cpu", "npu-smi timed out after 1 s")
    assert m.calls() == ["info"] and m.live_processes() == []  # the hung child was killed


def test_cli_failing_npu_smi(tmp_path):
    m = make_fake_machine(tmp_path, behaviour="fail")
    d = json.loads(_status(m.environ(), "--json").stdout)
    assert d["mode"] == "cpu" and d["reason"].startswith("npu-smi exited with code 255")
    assert d["warnings"][0]["component"] == "npu" and d["warnings"][0]["severity"] == "error"


def test_cli_bad_timeout_is_a_clear_message(tmp_path):
    m = make_fake_machine(tmp_path)
    out = _status(m.environ(), "--timeout", "0")
    assert out.returncode == 2 and "--timeout must be a positive" in out.stderr
    assert "Traceback" not in out.stderr
    out = _status(m.environ(), "--timeout", "abc")
    assert out.returncode == 2 and "invalid float value" in out.stderr


def test_cli_plain_cpu_machine(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}
    env["PATH"] = str(tmp_path)  # no npu-smi (python is run by absolute path)
    env["ASCEND_LAB_ASCEND_ROOT"] = str(tmp_path / "none")
    env["PYTHONPATH"] = REPO
    assert not os.path.exists("/usr/local/sbin/npu-smi"), "expects a machine without npu-smi"
    out = _status(env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == [
        "ascend-lab status: CPU mode",
        "Mode: cpu (npu-smi not found on PATH)",
    ]
    assert "Warnings" not in out.stdout


# -- %ascend_status in-process ---------------------------------------------------------


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "ascend_lab")
    yield sh


def test_magic_in_process(shell, tmp_path, monkeypatch, capsys):
    make_fake_machine(tmp_path).activated(monkeypatch)
    s = shell.run_line_magic("ascend_status", "")
    assert s.mode == "ascend" and len(s.chips) == 8
    j = shell.run_line_magic("ascend_status", "--json --refresh")
    assert j._repr_json_()["chips"][7]["bus_id"] == "0000:42:00.0"
    assert json.loads(repr(j))["mode"] == "ascend"
    # text for terminal IPython, HTML for notebooks
    fmt = shell.display_formatter.format(s)[0]
    assert fmt["text/plain"].startswith("ascend-lab status: NPU 8x910B3")
    assert "<table" in fmt["text/html"]
    assert shell.run_line_magic("ascend_status", "--bogus") is None
    assert "Usage: %ascend_status" in capsys.readouterr().out


# -- %ascend_status through a real kernel -------------------------------------------------


def _run(kc, code, timeout=60):
    outputs = []

    def hook(msg):
        if msg["msg_type"] in ("execute_result", "display_data", "stream", "error"):
            outputs.append(msg)

    reply = kc.execute_interactive(code, output_hook=hook, timeout=timeout)
    return reply, outputs


def test_magic_through_a_real_kernel(tmp_path):
    from jupyter_client.manager import KernelManager

    m = make_fake_machine(tmp_path)
    km = KernelManager(kernel_name="python3")
    km.start_kernel(env=m.environ(), cwd=str(tmp_path))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply, out = _run(kc, "import sys; print(sys.executable)")
        assert reply["content"]["status"] == "ok"
        assert out[0]["content"]["text"].strip() == sys.executable

        reply, _ = _run(kc, "%load_ext ascend_lab")
        assert reply["content"]["status"] == "ok"
        reply, out = _run(kc, "%ascend_status --json")
        assert reply["content"]["status"] == "ok", reply
        (result,) = [o for o in out if o["msg_type"] == "execute_result"]
        d = result["content"]["data"]["application/json"]
        jsonschema.validate(d, SCHEMA)
        assert d["mode"] == "ascend" and [c["name"] for c in d["chips"]] == ["910B3"] * 8

        reply, out = _run(kc, "%ascend_status")
        (result,) = [o for o in out if o["msg_type"] == "execute_result"]
        assert "NPU 8x910B3 · HBM 12% · OK" in result["content"]["data"]["text/html"]

        reply, out = _run(kc, "print('mindspore' in sys.modules)")
        assert out[0]["content"]["text"].strip() == "False"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.mindspore
@pytest.mark.slow
def test_run_check_option(tmp_path):
    m = make_fake_machine(tmp_path)
    out = _status(m.environ(), "--json", "--check", timeout=300, cwd=str(tmp_path))
    d = json.loads(out.stdout)
    assert d["run_check"]["ok"] is True, d["run_check"]
    assert "MindSpore version" in d["run_check"]["output"]
    assert "successfully" in d["run_check"]["output"]


def test_run_check_failure_is_reported():
    from ascend_lab.probes.runcheck import run_check

    r = run_check(python="/nonexistent/python")
    assert r.ok is False and "could not start Python" in r.output

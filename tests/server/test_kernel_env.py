"""The server's status describes the registered MindSpore kernel's environment, not its own.

Two virtualenvs: the server runs in the project venv (its MindSpore pinned to 2.8.0 by the
fake machine); the kernel's is a fresh venv whose only MindSpore is a pinned
``mindspore-2.3.1.dist-info`` (no code: the status never imports MindSpore).
"""

import json
import os
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor

import pytest

from ascend_lab.kernel import spec
from ascend_lab.probes import device as probe
from ascend_lab.server import kernel_env
from benchmarks.support.fake_machine import apply, make_fake_machine
from benchmarks.support.fakes.ascend_machine import REPO, pin_mindspore


@pytest.fixture(autouse=True)
def _fresh_probe_cache():
    probe.clear_cache()
    yield
    probe.clear_cache()


@pytest.fixture(scope="module")
def kernel_venv(tmp_path_factory):
    """A second virtualenv with ascend-lab importable (a .pth to this checkout) and a pinned
    MindSpore 2.3.1 that differs from the server's."""
    venv = tmp_path_factory.mktemp("kernel-venv") / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    assert purelib != sysconfig.get_paths()["purelib"]  # really another environment
    with open(os.path.join(purelib, "ascend_lab_checkout.pth"), "w") as f:
        f.write(REPO + "\n")
    pin_mindspore(purelib, "2.3.1")
    return python


@pytest.fixture
def machine(tmp_path, monkeypatch):
    return apply(make_fake_machine(tmp_path / "machine"), monkeypatch)


def register(kernels_dir, python, set_env, name="mindspore"):
    folder = os.path.join(str(kernels_dir), name)
    os.makedirs(folder)
    with open(os.path.join(folder, "kernel.json"), "w") as f:
        json.dump(spec.build_kernel_json(set_env, python=python), f)


async def get_status(jp_fetch):
    response = await jp_fetch("ascend-lab", "api", "status", params={"refresh": "1"})
    assert response.code == 200
    return json.loads(response.body.decode("utf-8"))


async def test_status_describes_the_kernels_environment(
    jp_fetch, jp_kernel_dir, machine, kernel_venv, monkeypatch
):
    # the suite exports its own sys.path as PYTHONPATH (for child kernels); a kernel started
    # from this server would inherit it and see the server's packages: not the case tested
    monkeypatch.delenv("PYTHONPATH", raising=False)
    set_env = os.path.join(machine["ASCEND_LAB_ASCEND_ROOT"], "ascend-toolkit", "set_env.sh")
    register(jp_kernel_dir, kernel_venv, set_env)
    status = await get_status(jp_fetch)
    assert status["subject"] == {
        "kind": "kernel",
        "kernel": "mindspore",
        "display_name": "MindSpore (Ascend)",
        "python": kernel_venv,
        "set_env": set_env,
    }
    assert status["mode"] == "ascend" and len(status["chips"]) == 8  # same machine
    assert status["versions"]["mindspore"] == "2.3.1"  # the kernel's, not the server's 2.8.0
    assert status["versions"]["cann"] == "8.3.RC2"
    # MindSpore 2.3.1 wants CANN 8.0.RC2 (compat.json's 2.3.0-2.3.1 row)
    assert status["compatibility"]["verdict"] == "mismatch"
    # set_env.sh was sourced for the kernel, as its launcher does
    assert status["environment"]["ASCEND_HOME_PATH"] == "/usr/local/Ascend/ascend-toolkit/latest"
    # while the server's own Python still has its own MindSpore
    assert probe.collect_status(refresh=True).versions.mindspore == "2.8.0"


async def test_without_the_kernel_the_server_says_it_describes_itself(jp_fetch, machine):
    status = await get_status(jp_fetch)
    assert status["subject"]["kind"] == "server"
    assert status["subject"]["python"] == sys.executable
    assert "no kernel named 'mindspore' is registered" in status["subject"]["note"]
    assert status["versions"]["mindspore"] == "2.8.0"


async def test_a_kernel_whose_python_is_gone_is_reported(jp_fetch, jp_kernel_dir, machine):
    missing = os.path.join(str(jp_kernel_dir), "deleted-venv", "bin", "python")
    register(jp_kernel_dir, missing, None)
    status = await get_status(jp_fetch)
    assert status["mode"] == "cpu"
    assert status["reason"] == (
        f"could not read the 'mindspore' kernel's environment: "
        f"the 'mindspore' kernel's Python not found at {missing}"
    )
    assert "install-kernel --force" in status["warnings"][0]["fix"]
    assert status["subject"]["kind"] == "kernel" and status["subject"]["python"] == missing


def test_hanging_kernel_python_is_cut_off(tmp_path, monkeypatch):
    """A kernel 'Python' that hangs for 600 s is stopped after timeout + START_SECONDS."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nsleep 600\n")
    fake.chmod(0o755)
    kernel = kernel_env.KernelEnv(name="mindspore", python=str(fake))
    monkeypatch.setattr(kernel_env, "START_SECONDS", 1.0)
    with ThreadPoolExecutor(1) as pool:  # an answer within 60 s: it was cut off at 2 s
        status = pool.submit(kernel_env.probe_kernel, kernel, 1.0).result(timeout=60)
    assert status["reason"] == (
        "could not read the 'mindspore' kernel's environment: "
        "the 'mindspore' kernel's Python timed out after 2 s"
    )

"""Start the installed kernel with jupyter_client and look inside it (a few seconds each)."""

import json
import os

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

from ascend_lab.cli import main

from .conftest import kernels_dir

PROBE = """
import json, os, sys
print("PROBE" + json.dumps({
    "home": os.environ.get("ASCEND_HOME_PATH"),
    "ld": os.environ.get("LD_LIBRARY_PATH", ""),
    "device_id": os.environ.get("DEVICE_ID"),
    "ascend_device_id": os.environ.get("ASCEND_DEVICE_ID"),
    "set_env": os.environ.get("ASCEND_LAB_SET_ENV"),
    "error": os.environ.get("ASCEND_LAB_SET_ENV_ERROR"),
    "mode": os.environ.get("ASCEND_LAB_KERNEL_MODE"),
    "magic": get_ipython().find_line_magic("ascend_status") is not None,
    "trace_magic": get_ipython().find_line_magic("ascend_trace") is not None,
    "mindspore_imported": "mindspore" in sys.modules,
    "pid": os.getpid(),
}))
"""


def _run_kernel(prefix, cwd, name="mindspore", cells=(PROBE,)):
    """Start kernel ``name`` from ``prefix``, run ``cells``; return (outputs per cell, pid)."""
    manager = KernelSpecManager(kernel_dirs=[str(kernels_dir(prefix))])
    km = KernelManager(kernel_name=name, kernel_spec_manager=manager)
    km.start_kernel(env=dict(os.environ), cwd=str(cwd))
    outputs = []
    try:
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            for code in cells:
                texts = []

                def hook(msg, texts=texts):
                    if msg["msg_type"] == "stream":
                        texts.append((msg["content"]["name"], msg["content"]["text"]))
                    elif msg["msg_type"] == "error":
                        texts.append(("error", "\n".join(msg["content"]["traceback"])))

                reply = kc.execute_interactive(code, output_hook=hook, timeout=60)
                assert reply["content"]["status"] == "ok", texts
                outputs.append(texts)
        finally:
            kc.stop_channels()
        pid = km.provisioner.pid if km.provisioner is not None else None
    finally:
        km.shutdown_kernel(now=True)
    return outputs, pid


def _probe_result(texts):
    stdout = "".join(text for stream, text in texts if stream == "stdout")
    line = next(x for x in stdout.splitlines() if x.startswith("PROBE"))
    return json.loads(line[len("PROBE") :])


def test_ascend_kernel_sources_set_env_and_loads_magics(jupyter_dirs, fake_root, capsys):
    prefix = jupyter_dirs / "prefix"
    set_env = str(fake_root / "ascend-toolkit" / "set_env.sh")
    rc = main(["install-kernel", "--prefix", str(prefix), "--set-env", set_env, "--device-id", "5"])
    assert rc == 0
    work = jupyter_dirs / "work"
    work.mkdir()
    outputs, pid = _run_kernel(prefix, work)
    result = _probe_result(outputs[0])
    assert result["home"] == "/usr/local/Ascend/ascend-toolkit/latest"  # from set_env.sh
    assert result["ld"].startswith("/usr/local/Ascend/ascend-toolkit/latest/lib64")
    assert result["device_id"] == "5" and result["ascend_device_id"] == "5"
    assert result["set_env"] == set_env and result["error"] is None
    assert result["mode"] == "ascend"
    assert result["magic"] is True and result["trace_magic"] is True
    assert result["mindspore_imported"] is False
    assert result["pid"] == pid  # the launcher exec'd ipykernel: signals reach the kernel
    assert not any(stream == "stderr" for stream, _ in outputs[0])
    # the hostile directory name was never run as shell code
    assert not (work / "pwned").exists() and not list(jupyter_dirs.rglob("pwned"))

    capsys.readouterr()
    assert main(["uninstall-kernel", "--prefix", str(prefix)]) == 0
    assert not (kernels_dir(prefix) / "mindspore").exists()


def test_cpu_kernel_starts_without_ascend(jupyter_dirs):
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix)]) == 0
    outputs, _ = _run_kernel(prefix, jupyter_dirs)
    result = _probe_result(outputs[0])
    assert result["mode"] == "cpu"
    assert result["home"] is None and result["set_env"] is None and result["error"] is None
    assert result["device_id"] is None
    assert result["magic"] is True and result["mindspore_imported"] is False


def test_failing_set_env_still_gives_a_kernel_with_a_warning(jupyter_dirs):
    broken = jupyter_dirs / "broken" / "set_env.sh"
    broken.parent.mkdir()
    broken.write_text('echo "driver not loaded" >&2\nexit 7\n')
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix), "--set-env", str(broken)]) == 0
    outputs, _ = _run_kernel(prefix, jupyter_dirs, cells=(PROBE, "print('second')"))
    result = _probe_result(outputs[0])
    assert result["magic"] is True and result["home"] is None
    assert result["error"] is not None
    assert "exit status 7" in result["error"] and "driver not loaded" in result["error"]
    warning = "".join(text for stream, text in outputs[0] if stream == "stderr")
    assert f"ascend-lab: WARNING: sourcing {broken} failed" in warning
    assert "restart the kernel" in warning
    # shown once, in the first cell only
    assert outputs[1] == [("stdout", "second\n")]

"""install-kernel / uninstall-kernel / kernels, run in-process through the real CLI."""

import json
import struct
import sys

from ascend_lab.cli import main
from ascend_lab.kernel import launcher, spec

from .conftest import kernels_dir


def _kernel_json(prefix, name="mindspore"):
    return json.loads((kernels_dir(prefix) / name / "kernel.json").read_text())


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _write_foreign(prefix, name="mindspore"):
    folder = kernels_dir(prefix) / name
    folder.mkdir(parents=True)
    foreign = {"argv": ["/opt/other/python", "-m", "ipykernel"], "display_name": "Theirs"}
    (folder / "kernel.json").write_text(json.dumps(foreign))
    return folder


def test_install_with_auto_detected_set_env(jupyter_dirs, fake_root, monkeypatch, capsys):
    monkeypatch.setenv("ASCEND_LAB_ASCEND_ROOT", str(fake_root))
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix), "--device-id", "3"]) == 0
    set_env = str(fake_root / "ascend-toolkit" / "set_env.sh")
    data = _kernel_json(prefix)
    assert data["argv"] == [
        sys.executable,
        "-m",
        "ascend_lab.kernel.launcher",
        "--set-env",
        set_env,  # one argv element, spaces, $ and ; included
        "--device-id",
        "3",
        "-f",
        "{connection_file}",
    ]
    assert data["display_name"] == "MindSpore (Ascend)"
    assert data["language"] == "python"
    meta = data["metadata"]["ascend_lab"]
    assert meta["set_env"] == set_env and meta["device_id"] == 3 and meta["mode"] == "ascend"
    from ascend_lab import __version__

    assert meta["version"] == __version__
    folder = kernels_dir(prefix) / "mindspore"
    assert _png_size(folder / "logo-32x32.png") == (32, 32)
    assert _png_size(folder / "logo-64x64.png") == (64, 64)
    out = capsys.readouterr().out
    assert "Installed kernel 'mindspore' (MindSpore (Ascend))" in out
    assert "It sources " + set_env in out


def test_install_without_ascend_is_cpu_mode(jupyter_dirs, capsys):
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix)]) == 0
    data = _kernel_json(prefix)
    assert data["argv"] == [
        sys.executable,
        "-m",
        "ascend_lab.kernel.launcher",
        "-f",
        "{connection_file}",
    ]
    assert data["display_name"] == "MindSpore (CPU)"
    assert data["metadata"]["ascend_lab"]["mode"] == "cpu"
    assert data["metadata"]["ascend_lab"]["set_env"] is None
    assert "CPU mode: no set_env.sh under" in capsys.readouterr().out


def test_explicit_set_env_display_name_and_user_location(jupyter_dirs, fake_root):
    script = fake_root / "ascend-toolkit" / "set_env.sh"
    rc = main(
        [
            "install-kernel",
            "--user",
            "--name",
            "MS-Lab",
            "--set-env",
            str(script),
            "--display-name",
            "My NPU",
        ]
    )
    assert rc == 0
    folder = jupyter_dirs / "jupyter-data" / "kernels" / "ms-lab"
    data = json.loads((folder / "kernel.json").read_text())
    assert data["display_name"] == "My NPU"
    assert data["argv"][data["argv"].index("--set-env") + 1] == str(script)


def test_cpu_flag_ignores_an_installed_toolkit(jupyter_dirs, fake_root, monkeypatch):
    monkeypatch.setenv("ASCEND_LAB_ASCEND_ROOT", str(fake_root))
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix), "--cpu"]) == 0
    data = _kernel_json(prefix)
    assert "--set-env" not in data["argv"]
    assert data["display_name"] == "MindSpore (CPU)"


def test_bad_input_gives_clear_errors(jupyter_dirs, capsys):
    prefix = str(jupyter_dirs / "prefix")
    assert main(["install-kernel", "--prefix", prefix, "--set-env", "/no/such/set_env.sh"]) == 1
    assert "set_env.sh not found: /no/such/set_env.sh" in capsys.readouterr().err
    assert main(["install-kernel", "--prefix", prefix, "--name", "bad name!"]) == 1
    assert "invalid kernel name 'bad name!'" in capsys.readouterr().err
    assert main(["install-kernel", "--prefix", prefix, "--device-id", "-1"]) == 1
    assert "--device-id must be 0 or more" in capsys.readouterr().err
    assert not (jupyter_dirs / "prefix").exists()


def test_refuses_to_overwrite_a_foreign_kernel_unless_forced(jupyter_dirs, capsys):
    prefix = jupyter_dirs / "prefix"
    folder = _write_foreign(prefix)
    assert main(["install-kernel", "--prefix", str(prefix)]) == 1
    err = capsys.readouterr().err
    assert "ascend-lab did not install" in err and "--force" in err
    assert _kernel_json(prefix)["display_name"] == "Theirs"
    assert main(["install-kernel", "--prefix", str(prefix), "--force"]) == 0
    assert spec.ours(_kernel_json(prefix)) is not None
    assert not (folder / "kernel.json").read_text().count("Theirs")
    # replacing our own kernel needs no --force
    assert main(["install-kernel", "--prefix", str(prefix), "--device-id", "1"]) == 0
    assert _kernel_json(prefix)["metadata"]["ascend_lab"]["device_id"] == 1


def test_uninstall_removes_only_ours(jupyter_dirs, capsys):
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix)]) == 0
    _write_foreign(prefix, name="other")
    capsys.readouterr()
    assert main(["uninstall-kernel", "--prefix", str(prefix), "--name", "other"]) == 1
    assert "was not installed by ascend-lab; not removing it" in capsys.readouterr().err
    assert (kernels_dir(prefix) / "other" / "kernel.json").is_file()
    assert main(["uninstall-kernel", "--prefix", str(prefix)]) == 0
    assert "Removed kernel 'mindspore'" in capsys.readouterr().out
    assert not (kernels_dir(prefix) / "mindspore").exists()
    assert main(["uninstall-kernel", "--prefix", str(prefix)]) == 1
    assert "no kernel named 'mindspore'" in capsys.readouterr().err


def test_uninstall_without_location_uses_what_jupyter_sees(jupyter_dirs, monkeypatch, capsys):
    prefix = jupyter_dirs / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix), "--name", "ms-x"]) == 0
    monkeypatch.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
    assert main(["uninstall-kernel", "--name", "ms-x"]) == 0
    assert not (kernels_dir(prefix) / "ms-x").exists()


def test_kernels_lists_and_marks_ours(jupyter_dirs, fake_root, monkeypatch, capsys):
    prefix = jupyter_dirs / "prefix"
    script = fake_root / "ascend-toolkit" / "set_env.sh"
    assert main(["install-kernel", "--prefix", str(prefix), "--set-env", str(script)]) == 0
    _write_foreign(prefix, name="other")
    monkeypatch.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
    capsys.readouterr()
    assert main(["kernels", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["mindspore"]["ascend_lab"] is True
    assert rows["mindspore"]["set_env"] == str(script)
    assert rows["mindspore"]["mode"] == "ascend"
    assert rows["mindspore"]["python"] == sys.executable
    assert rows["mindspore"]["resource_dir"] == str(kernels_dir(prefix) / "mindspore")
    assert rows["other"]["ascend_lab"] is False and rows["other"]["set_env"] is None
    assert main(["kernels"]) == 0
    text = capsys.readouterr().out
    assert "* mindspore" in text and "sources " + str(script) in text
    assert "  other" in text and "* other" not in text


def test_prepare_environment_sets_device_and_error_variables(tmp_path):
    bad = tmp_path / "set_env.sh"
    bad.write_text("exit 2\n")
    env, warning = launcher.prepare_environment(str(bad), 4, {"PATH": "/usr/bin"})
    assert env["DEVICE_ID"] == "4" and env["ASCEND_DEVICE_ID"] == "4"
    assert env["ASCEND_LAB_SET_ENV"] == str(bad)
    assert warning is not None and env["ASCEND_LAB_SET_ENV_ERROR"] == warning
    env, warning = launcher.prepare_environment(
        None, None, {"PATH": "/usr/bin", "ASCEND_LAB_SET_ENV_ERROR": "stale"}
    )
    assert warning is None
    assert env == {"PATH": "/usr/bin", "ASCEND_LAB_KERNEL_MODE": "cpu"}

"""``ascend-lab course``: kernel registration, finding/copying notebooks, the Lab command."""

import json
import os
import sys
import types
from pathlib import Path

import pytest

from ascend_lab.cli import main
from ascend_lab.course import command as course

REPO_ROOT = Path(__file__).resolve().parents[2]
NB = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


@pytest.fixture
def env(tmp_path, monkeypatch):
    """Private Jupyter/home folders, no Ascend install, a temporary cwd."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "jupyter-config"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "jupyter-runtime"))
    monkeypatch.delenv("JUPYTER_PATH", raising=False)
    monkeypatch.delenv(course.COURSE_DIR_ENV, raising=False)
    monkeypatch.delenv(course.PREFIX_ENV, raising=False)
    monkeypatch.setenv("ASCEND_LAB_ASCEND_ROOT", str(tmp_path / "no-ascend"))
    # keep the device probe out of these tests: they are about the command, not the probe
    monkeypatch.setattr(course, "device_mode", lambda: ("cpu", "CPU mode (test)."))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return tmp_path


def _installed_layout(tmp_path, monkeypatch):
    """Make the command believe it runs from a wheel installed under tmp_path/prefix."""
    share = tmp_path / "prefix" / "share" / "ascend-lab" / "notebooks"
    (share / "data").mkdir(parents=True)
    (share / "00_stack.ipynb").write_text(NB)
    (share / "01_conv.ipynb").write_text(NB)
    (share / "data" / "x.csv").write_text("a,b\n")
    (share / ".ipynb_checkpoints").mkdir()
    (share / ".ipynb_checkpoints" / "00_stack-checkpoint.ipynb").write_text(NB)
    site_packages = tmp_path / "site-packages"  # no pyproject.toml, no notebooks/
    site_packages.mkdir()
    monkeypatch.setattr(course, "_package_parent", lambda: str(site_packages))
    monkeypatch.setattr(course, "_share_prefixes", lambda: [str(tmp_path / "prefix")])
    return share


def _would_run(out):
    line = next(x for x in out.splitlines() if x.startswith("Would run: "))
    return line[len("Would run: ") :]


def _opens(command):
    """The URL path the printed URL (and the browser) opens."""
    return next(a for a in command.split(" ") if a.startswith("--LabApp.default_url="))[
        len("--LabApp.default_url=") :
    ]


def test_find_notebooks_source_installed_and_missing(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "notebooks").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    share = tmp_path / "prefix" / "share" / "ascend-lab" / "notebooks"
    share.mkdir(parents=True)
    prefixes = [str(tmp_path / "other"), str(tmp_path / "prefix")]
    found = course.find_notebooks(str(checkout), prefixes)
    assert found == (str(checkout / "notebooks"), "source")
    site_packages = tmp_path / "site-packages"
    site_packages.mkdir()
    assert course.find_notebooks(str(site_packages), prefixes) == (str(share), "installed")
    assert course.find_notebooks(str(site_packages), [str(tmp_path / "other")]) is None


def test_first_notebook(tmp_path):
    folder = tmp_path / "nb"
    folder.mkdir()
    assert course.first_notebook(str(folder)) is None
    (folder / "01_b.ipynb").write_text(NB)
    assert course.first_notebook(str(folder)) is None
    (folder / "00_z.ipynb").write_text(NB)
    (folder / "00_a.ipynb").write_text(NB)
    assert course.first_notebook(str(folder)) == str(folder / "00_a.ipynb")
    assert course.first_notebook(str(tmp_path / "missing")) is None


def test_copy_never_overwrites_a_learners_edits(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "00_a.ipynb").write_text("original")
    (src / "sub" / "f.txt").write_text("data")
    (src / ".ipynb_checkpoints").mkdir()
    (src / ".ipynb_checkpoints" / "junk").write_text("x")
    dst = tmp_path / "dst"
    copied = course.copy_course(str(src), str(dst))
    assert sorted(copied) == ["00_a.ipynb", os.path.join("sub", "f.txt")]
    assert not (dst / ".ipynb_checkpoints").exists()
    (dst / "00_a.ipynb").write_text("my edits")
    (src / "01_new.ipynb").write_text("new")
    assert course.copy_course(str(src), str(dst)) == ["01_new.ipynb"]
    assert (dst / "00_a.ipynb").read_text() == "my edits"
    assert (dst / "01_new.ipynb").read_text() == "new"


def test_package_parent_is_the_checkout():
    assert course._package_parent() == str(REPO_ROOT)
    assert (REPO_ROOT / "pyproject.toml").is_file()


def test_dry_run_from_source_checkout_registers_kernel_in_prefix(env, monkeypatch, capsys):
    checkout = env / "checkout"
    notebooks = checkout / "notebooks"
    notebooks.mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    (notebooks / "01_conv.ipynb").write_text(NB)
    (notebooks / "00_stack.ipynb").write_text(NB)
    monkeypatch.setattr(course, "_package_parent", lambda: str(checkout))
    prefix = env / "kprefix"
    assert main(["course", "--dry-run", "--prefix", str(prefix), "--port", "8899"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "CPU mode (test)."
    kernel_json = prefix / "share" / "jupyter" / "kernels" / "mindspore" / "kernel.json"
    data = json.loads(kernel_json.read_text())
    assert data["metadata"]["ascend_lab"]["mode"] == "cpu"
    assert data["argv"][0] == sys.executable
    assert f"Registered kernel 'mindspore' (MindSpore (CPU)) in {kernel_json.parent}" in out
    # a source checkout is copied too (autosave never rewrites the repository's notebooks)
    copy = env / "home" / "ascend-lab-course"
    assert f"Copied 2 course file(s) from {notebooks} to {copy}." in out
    command = _would_run(out)
    assert command.startswith(f"{sys.executable} -m jupyterlab ")
    assert f"--ServerApp.root_dir={copy}" in command
    assert "--ServerApp.port=8899" in command
    assert "--MappingKernelManager.default_kernel_name=mindspore" in command
    # the printed URL opens the first notebook, not the Launcher
    assert _opens(command) == "/lab/tree/00_stack.ipynb"
    assert "The URL JupyterLab prints opens 00_stack.ipynb." in out
    # idle kernels nobody is connected to are culled; closing a tab shuts its kernel
    assert "--MappingKernelManager.cull_idle_timeout=600" in command
    assert "--MappingKernelManager.cull_connected=False" in command
    settings = env / "jupyter-data" / "ascend-lab" / "course-lab-settings"
    assert f"--LabApp.app_settings_dir={settings}" in command
    overrides = json.loads((settings / "overrides.d" / "zz-ascend-lab-course.json").read_text())
    assert overrides["@jupyterlab/notebook-extension:tracker"] == {"kernelShutdown": True}
    assert ("--allow-root" in command) == (os.geteuid() == 0)
    assert f"with JUPYTER_PATH={prefix / 'share' / 'jupyter'}" in out
    assert sorted(os.listdir(notebooks)) == ["00_stack.ipynb", "01_conv.ipynb"]
    # a second run finds the kernel and does not rewrite it
    mtime = kernel_json.stat().st_mtime_ns
    assert main(["course", "--dry-run", "--prefix", str(prefix)]) == 0
    assert "Kernel 'mindspore' is registered" in capsys.readouterr().out
    assert kernel_json.stat().st_mtime_ns == mtime
    # without a 00_ notebook, just the folder is opened
    (copy / "00_stack.ipynb").unlink()
    (notebooks / "00_stack.ipynb").unlink()
    assert main(["course", "--dry-run", "--prefix", str(prefix)]) == 0
    assert _opens(_would_run(capsys.readouterr().out)) == "/lab"


def test_missing_mindspore_is_said_with_the_install_command(env, monkeypatch, capsys):
    checkout = env / "checkout"
    (checkout / "notebooks").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    monkeypatch.setattr(course, "_package_parent", lambda: str(checkout))
    real_find_spec = course.importlib.util.find_spec
    monkeypatch.setattr(
        course.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "mindspore" else real_find_spec(name, *a),
    )
    assert main(["course", "--dry-run", "--prefix", str(env / "kprefix")]) == 0
    err = capsys.readouterr().err
    assert "MindSpore is not installed in this Python" in err
    assert f"{sys.executable} -m pip install 'ascend-lab[mindspore]'" in err


def test_dry_run_from_installed_wheel_copies_once(env, monkeypatch, capsys):
    share = _installed_layout(env, monkeypatch)
    prefix = env / "kprefix"
    monkeypatch.setenv(course.PREFIX_ENV, str(prefix))  # the env var instead of --prefix
    argv = ["course", "--dry-run", "--no-browser", "--ip", "127.0.0.1", "--", "--ServerApp.token=t"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    copy = env / "home" / "ascend-lab-course"  # the default, under the (temporary) HOME
    assert f"Copied 3 course file(s) from {share} to {copy}." in out
    assert sorted(p.name for p in copy.iterdir()) == ["00_stack.ipynb", "01_conv.ipynb", "data"]
    command = _would_run(out)
    assert f"--ServerApp.root_dir={copy}" in command
    assert "--no-browser" in command and "--ServerApp.ip=127.0.0.1" in command
    assert command.endswith(" --ServerApp.token=t")
    assert _opens(command) == "/lab/tree/00_stack.ipynb"
    assert (prefix / "share" / "jupyter" / "kernels" / "mindspore" / "kernel.json").is_file()

    (copy / "00_stack.ipynb").write_text("learner's work")
    assert main(["course", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "Copied" not in out
    assert (copy / "00_stack.ipynb").read_text() == "learner's work"


def test_dir_option_and_foreign_kernel_left_alone(env, monkeypatch, capsys):
    _installed_layout(env, monkeypatch)
    prefix = env / "kprefix"
    foreign = prefix / "share" / "jupyter" / "kernels" / "mindspore"
    foreign.mkdir(parents=True)
    (foreign / "kernel.json").write_text('{"argv": ["x"], "display_name": "Theirs"}')
    target = env / "my course"
    assert main(["course", "--dry-run", "--prefix", str(prefix), "--dir", str(target)]) == 0
    out = capsys.readouterr().out
    assert "was not installed by ascend-lab; leaving it alone" in out
    assert json.loads((foreign / "kernel.json").read_text())["display_name"] == "Theirs"
    assert (target / "00_stack.ipynb").is_file()
    assert f"--ServerApp.root_dir={target}" in _would_run(out).replace("'", "")


def test_missing_notebooks_is_a_clear_error(env, monkeypatch, capsys):
    empty = env / "site-packages"
    empty.mkdir()
    monkeypatch.setattr(course, "_package_parent", lambda: str(empty))
    monkeypatch.setattr(course, "_share_prefixes", lambda: [str(env / "nowhere")])
    assert main(["course", "--dry-run", "--prefix", str(env / "kprefix")]) == 1
    err = capsys.readouterr().err
    assert "the course notebooks were not found" in err
    assert os.path.join(str(env / "nowhere"), "share", "ascend-lab", "notebooks") in err


def test_device_mode_lines(monkeypatch):
    class Npu:
        mode = "ascend"
        reason = ""

        def summary(self):
            return "NPU 8x910B3 · HBM 12% · OK"

    fake = types.ModuleType("ascend_lab.probes.device")
    fake.collect_status = lambda: Npu()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ascend_lab.probes.device", fake)
    assert course.device_mode() == (
        "ascend",
        "Ascend NPU mode: NPU 8x910B3 · HBM 12% · OK. Cells run on the NPU.",
    )

    cpu = types.SimpleNamespace(mode="cpu", reason="npu-smi not found")
    fake.collect_status = lambda: cpu  # type: ignore[attr-defined]
    mode, line = course.device_mode()
    assert mode == "cpu" and line.startswith("CPU mode (npu-smi not found).")

    def broken():
        raise RuntimeError("boom")

    fake.collect_status = broken  # type: ignore[attr-defined]
    assert course.device_mode() == ("cpu", "CPU mode (could not read the device status: boom).")


def _our_kernel(prefix, python):
    folder = prefix / "share" / "jupyter" / "kernels" / "mindspore"
    folder.mkdir(parents=True)
    data = {
        "argv": [python, "-m", "ascend_lab.kernel.launcher", "-f", "{connection_file}"],
        "display_name": "MindSpore (CPU)",
        "language": "python",
        "metadata": {"ascend_lab": {"version": "0.0.1", "mode": "cpu", "set_env": None}},
    }
    (folder / "kernel.json").write_text(json.dumps(data))
    return folder


def test_stale_kernel_from_a_deleted_venv_is_replaced(env):
    prefix = env / "kprefix"
    folder = _our_kernel(prefix, str(env / "deleted-venv" / "bin" / "python"))
    message, where = course.ensure_kernel("mindspore", {"user": False, "prefix": str(prefix)})
    assert where == str(folder)
    assert "its Python no longer exists" in message
    data = json.loads((folder / "kernel.json").read_text())
    assert data["argv"][0] == sys.executable


def test_without_a_prefix_the_kernel_jupyter_uses_counts(env, monkeypatch):
    other = env / "other"
    folder = _our_kernel(other, sys.executable)
    monkeypatch.setenv("JUPYTER_PATH", str(other / "share" / "jupyter"))
    target = env / "target"
    message, where = course.ensure_kernel(
        "mindspore", {"user": False, "prefix": str(target)}, explicit=False
    )
    assert message == f"Kernel 'mindspore' is registered ({folder})."
    assert where == str(folder)
    assert not target.exists()


# -- the Chinese edition -------------------------------------------------------------------


def _with_zh(share):
    """Add the Chinese edition the way the repository has it: notebooks + symlinks."""
    zh = share / "zh"
    zh.mkdir()
    (zh / "00_stack.ipynb").write_text(NB.replace("[]", '[{"cell_type": "markdown"}]', 1))
    (share / "course_nets.py").write_text("NETS = 1\n")
    os.symlink(os.path.join("..", "course_nets.py"), zh / "course_nets.py")
    os.symlink(os.path.join("..", "data"), zh / "data")
    return zh


def test_copy_follows_the_editions_symlinks_as_files(tmp_path):
    src = tmp_path / "src"
    (src / "data").mkdir(parents=True)
    (src / "data" / "x.txt").write_text("recorded")
    (src / "00_a.ipynb").write_text(NB)
    zh = _with_zh(src)
    os.symlink("..", zh / "loop")  # would copy the course into itself forever
    os.symlink(str(tmp_path), zh / "outside")  # leaves the course
    os.symlink("missing.py", zh / "dangling.py")
    dst = tmp_path / "dst"
    copied = course.copy_course(str(src), str(dst))
    assert sorted(copied) == sorted(
        [
            "00_a.ipynb",
            "course_nets.py",
            os.path.join("data", "x.txt"),
            os.path.join("zh", "00_stack.ipynb"),
            os.path.join("zh", "course_nets.py"),
            os.path.join("zh", "data", "x.txt"),
        ]
    )
    for rel in ("zh/course_nets.py", "zh/data", "zh/data/x.txt"):
        assert not (dst / rel).is_symlink(), rel  # real files: the copy stands on its own
    assert (dst / "zh" / "course_nets.py").read_text() == "NETS = 1\n"
    assert (dst / "zh" / "data" / "x.txt").read_text() == "recorded"
    assert not (dst / "zh" / "loop").exists() and not (dst / "zh" / "outside").exists()


def test_the_repositorys_notebooks_copy_with_both_editions(tmp_path):
    notebooks = REPO_ROOT / "notebooks"
    dst = tmp_path / "course"
    course.copy_course(str(notebooks), str(dst))
    for name in ("course_nets.py", os.path.join("data", "npu_smi_info_910b3_x8.txt")):
        original = (notebooks / name).read_bytes()
        assert (dst / name).read_bytes() == original
        assert (dst / "zh" / name).read_bytes() == original
        assert not (dst / "zh" / name).is_symlink()
    zh_first = course.edition_folder(str(dst), "zh")
    assert zh_first == (str(dst / "zh"), None)
    assert course.first_notebook(zh_first[0]) == str(dst / "zh" / "00_stack_and_machine.ipynb")


def test_lang_zh_opens_the_chinese_edition_in_the_copy(env, monkeypatch, capsys):
    share = _installed_layout(env, monkeypatch)
    _with_zh(share)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("ASCEND_LAB_LANG", raising=False)
    assert main(["course", "--dry-run", "--lang", "zh", "--prefix", str(env / "kp")]) == 0
    out = capsys.readouterr().out
    copy = env / "home" / "ascend-lab-course"
    command = _would_run(out)
    assert f"--ServerApp.root_dir={copy} " in command  # both editions under the root
    assert _opens(command) == "/lab/tree/zh/00_stack.ipynb"
    assert f"Edition: 中文版 (Chinese), {copy / 'zh'}" in out
    assert (copy / "zh" / "course_nets.py").read_text() == "NETS = 1\n"
    assert (copy / "zh" / "data" / "x.csv").read_text() == "a,b\n"
    # --lang en on the same copy: the English notebook
    assert main(["course", "--dry-run", "--lang", "en", "--prefix", str(env / "kp")]) == 0
    out = capsys.readouterr().out
    assert _opens(_would_run(out)) == "/lab/tree/00_stack.ipynb"
    assert "Edition: English" in out


@pytest.mark.parametrize(
    "environ, want",
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"ASCEND_LAB_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"ASCEND_LAB_LANG": "zh", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_without_lang_the_locale_decides(env, monkeypatch, capsys, environ, want):
    share = _installed_layout(env, monkeypatch)
    _with_zh(share)
    for name in ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["course", "--dry-run", "--prefix", str(env / "kp")]) == 0
    opened = _opens(_would_run(capsys.readouterr().out))
    assert opened == ("/lab/tree/zh/00_stack.ipynb" if want == "zh" else "/lab/tree/00_stack.ipynb")


def test_lang_zh_without_the_chinese_edition_says_so_and_opens_english(env, monkeypatch, capsys):
    _installed_layout(env, monkeypatch)
    assert main(["course", "--dry-run", "--lang", "zh", "--prefix", str(env / "kp")]) == 0
    captured = capsys.readouterr()
    copy = env / "home" / "ascend-lab-course"
    assert f"The Chinese edition is not in {copy / 'zh'}; opening the English one." in captured.err
    assert _opens(_would_run(captured.out)) == "/lab/tree/00_stack.ipynb"


def test_bad_lang_is_refused_by_argparse(env, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["course", "--dry-run", "--lang", "fr"])
    assert exc.value.code == 2
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_binder_gets_the_course_servers_settings(tmp_path):
    written = course.install_course_settings(str(tmp_path))
    server = json.loads(
        (
            tmp_path / "etc" / "jupyter" / "jupyter_server_config.d" / "ascend-lab-course.json"
        ).read_text()
    )
    assert server["MappingKernelManager"]["cull_idle_timeout"] == course.CULL_IDLE_SECONDS
    assert server["MappingKernelManager"]["cull_connected"] is False
    lab = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
    assert json.loads((lab / "ascend-lab-course.json").read_text()) == course.LAB_OVERRIDES
    assert len(written) == 2
    # binder/postBuild and the CI check of it call it
    for script in ("binder/postBuild", "scripts/binder_check.sh"):
        assert "install_course_settings" in (REPO_ROOT / script).read_text()

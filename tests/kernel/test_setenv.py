"""Finding and sourcing set_env.sh: real bash, real files, hostile paths."""

import os

from ascend_lab.kernel import setenv


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_find_set_env_prefers_toolkit_then_nnae_then_cann(tmp_path, jupyter_dirs):
    root = tmp_path / "Ascend"
    assert setenv.find_set_env(str(root)) is None
    cann = _write(root / "cann" / "set_env.sh", "export A=1\n")
    assert setenv.find_set_env(str(root)) == str(cann)
    nnae = _write(root / "nnae" / "set_env.sh", "export A=1\n")
    assert setenv.find_set_env(str(root)) == str(nnae)
    latest = _write(root / "ascend-toolkit" / "latest" / "set_env.sh", "export A=1\n")
    assert setenv.find_set_env(str(root)) == str(latest)
    top = _write(root / "ascend-toolkit" / "set_env.sh", "export A=1\n")
    assert setenv.find_set_env(str(root)) == str(top)


def test_root_comes_from_env_var(fake_root, monkeypatch):
    monkeypatch.setenv(setenv.ROOT_ENV_VAR, str(fake_root))
    assert setenv.ascend_root() == str(fake_root)
    assert setenv.find_set_env() == str(fake_root / "ascend-toolkit" / "set_env.sh")
    monkeypatch.delenv(setenv.ROOT_ENV_VAR)
    assert setenv.ascend_root() == "/usr/local/Ascend"


def test_sourcing_fixture_under_hostile_path(fake_root, tmp_path, monkeypatch, jupyter_dirs):
    monkeypatch.chdir(tmp_path)
    base = {"PATH": os.environ["PATH"], "LD_LIBRARY_PATH": "/opt/x/lib"}
    changed, error = setenv.source_set_env(
        str(fake_root / "ascend-toolkit" / "set_env.sh"), base_env=base
    )
    assert error is None
    assert changed["ASCEND_HOME_PATH"] == "/usr/local/Ascend/ascend-toolkit/latest"
    assert changed["ASCEND_OPP_PATH"] == "/usr/local/Ascend/ascend-toolkit/latest/opp"
    assert changed["LD_LIBRARY_PATH"] == "/usr/local/Ascend/ascend-toolkit/latest/lib64:/opt/x/lib"
    # bash's own bookkeeping and unchanged variables are not reported
    assert "SHLVL" not in changed and "PWD" not in changed and "PATH" not in changed
    # the directory name was never run as shell code
    assert not (tmp_path / "pwned").exists()
    assert not any(p.name == "pwned" for p in tmp_path.rglob("pwned"))


def test_script_sees_no_positional_arguments_and_multiline_values_survive(tmp_path):
    script = _write(
        tmp_path / "a b" / "set_env.sh",
        'export GOT_ARGS="${#}:${1-none}"\nexport MULTI="line1\nline2"\n',
    )
    changed, error = setenv.source_set_env(str(script), base_env={"PATH": os.environ["PATH"]})
    assert error is None
    assert changed["GOT_ARGS"] == "0:none"
    assert changed["MULTI"] == "line1\nline2"


def test_script_that_exits_gives_message_and_nothing(tmp_path):
    script = _write(tmp_path / "set_env.sh", 'export HALF=1\necho "CANN says no" >&2\nexit 7\n')
    changed, error = setenv.source_set_env(str(script), base_env={"PATH": os.environ["PATH"]})
    assert changed == {}
    assert error is not None
    assert "exit status 7" in error and "CANN says no" in error


def test_failing_last_command_keeps_exports_and_warns(tmp_path):
    script = _write(tmp_path / "set_env.sh", "export KEPT=yes\nfalse\n")
    changed, error = setenv.source_set_env(str(script), base_env={"PATH": os.environ["PATH"]})
    assert changed == {"KEPT": "yes"}
    assert error is not None and "exit status 1" in error and "kept" in error


def test_missing_and_hanging_scripts(tmp_path):
    changed, error = setenv.source_set_env(str(tmp_path / "nope.sh"))
    assert changed == {} and error == "set_env.sh not found: {}".format(tmp_path / "nope.sh")
    script = _write(tmp_path / "slow.sh", "sleep 30 &\nwait\n")
    changed, error = setenv.source_set_env(str(script), timeout=0.5)
    assert changed == {}
    assert error is not None and "timed out after 0.5 s" in error

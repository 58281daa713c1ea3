"""This machine's "Environment" section: only for text from here, or when asked (--env)."""

import json
import os
import subprocess
import sys

from ascend_lab.doctor.diagnosis import NOT_FROM_HERE
from ascend_lab.doctor.magic import doctor_magic, split_options
from ascend_lab.doctor.origin import is_local_log
from benchmarks.support.fakes.ascend_machine import make_fake_machine

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAIN = "epoch: 1 step: 1, loss is 0.5\n"  # nothing to recognise: every env problem shows
UNSET = "ASCEND_HOME_PATH is not set"  # the fake machine's own problem (no set_env.sh)


class FakeShell:
    _last_traceback = None


def _doctor(machine, *args, home=None, **extra):
    env = machine.environ()
    env.update(PYTHONIOENCODING="utf-8", PYTHONPATH=REPO, ASCEND_LAB_LANG="en")
    if home is not None:
        env["HOME"] = str(home)
    env.pop("ASCEND_PROCESS_LOG_PATH", None)
    env.update(extra)
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _env_lines(d):
    return [line for c in d["environment"] for line in c["lines"]]


def test_a_log_file_from_elsewhere_gets_no_environment_section(tmp_path):
    machine = make_fake_machine(tmp_path / "m")
    log = tmp_path / "copied_from_another_machine.log"
    log.write_text(PLAIN, encoding="utf-8")
    d = _doctor(machine, str(log), home=tmp_path / "home")
    assert d["environment"] == [] and NOT_FROM_HERE in d["notes"]
    asked = _doctor(machine, str(log), "--env", home=tmp_path / "home")
    assert UNSET in _env_lines(asked) and NOT_FROM_HERE not in asked["notes"]


def test_a_local_plog_gets_the_environment_section(tmp_path):
    machine = make_fake_machine(tmp_path / "m")
    home = tmp_path / "home"
    plog = home / "ascend" / "log" / "debug" / "plog" / "plog-1234_20261201.log"
    plog.parent.mkdir(parents=True)
    plog.write_text(PLAIN, encoding="utf-8")
    d = _doctor(machine, str(plog), home=home)
    assert UNSET in _env_lines(d) and NOT_FROM_HERE not in d["notes"]
    custom = tmp_path / "joblogs" / "run.log"
    custom.parent.mkdir()
    custom.write_text(PLAIN, encoding="utf-8")
    assert _doctor(machine, str(custom), home=home)["environment"] == []
    d = _doctor(machine, str(custom), home=home, ASCEND_PROCESS_LOG_PATH=str(custom.parent))
    assert UNSET in _env_lines(d)


def test_stdin_gets_no_environment_section_but_keeps_machine_checks(tmp_path):
    machine = make_fake_machine(tmp_path / "m")
    env = machine.environ()
    env.update(PYTHONIOENCODING="utf-8", PYTHONPATH=REPO)
    busy = "dcmi model initialized failed, because the device is used. ret is -8020\n"
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", "-", "--json"],
        input=PLAIN + busy,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    d = json.loads(r.stdout)
    assert d["environment"] == [] and NOT_FROM_HERE in d["notes"]
    # a finding's own check says "on this machine" and stays
    assert d["findings"][0]["confirmation"]["verdict"] == "confirmed"


def test_no_input_is_this_machine():
    machine_free = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=REPO),
        timeout=120,
    )
    assert NOT_FROM_HERE not in json.loads(machine_free.stdout)["notes"]


def test_local_log_paths(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    inside = home / "ascend" / "log" / "debug" / "plog" / "p.log"
    inside.parent.mkdir(parents=True)
    inside.write_text("x")
    assert is_local_log(str(inside), {})
    assert not is_local_log(str(tmp_path / "other.log"), {})
    lookalike = home / "ascend" / "logs_copy" / "p.log"  # a prefix, not the folder
    lookalike.parent.mkdir(parents=True)
    lookalike.write_text("x")
    assert not is_local_log(str(lookalike), {})
    link = tmp_path / "link.log"
    link.symlink_to(inside)
    assert is_local_log(str(link), {})
    assert is_local_log(str(tmp_path / "x.log"), {"ASCEND_PROCESS_LOG_PATH": str(tmp_path)})


def test_magic_text_and_cell_are_pasted_unless_env(tmp_path, monkeypatch):
    monkeypatch.delattr(sys, "last_value", raising=False)
    monkeypatch.delattr(sys, "last_exc", raising=False)
    with make_fake_machine(tmp_path).activated(monkeypatch):
        for line, cell in (('"loss is 0.5"', None), ("", PLAIN)):
            pasted = doctor_magic(FakeShell(), line, cell)
            assert pasted.environment == [] and NOT_FROM_HERE in pasted.notes
            asked = doctor_magic(FakeShell(), "--env " + line, cell)
            lines = [x for c in asked.environment for x in c.lines]
            assert UNSET in lines and NOT_FROM_HERE not in asked.notes
        zh = doctor_magic(FakeShell(), '--env --lang zh "loss is 0.5"')
        assert zh.lang == "zh_CN" and zh.environment


def test_magic_last_exception_is_from_here(tmp_path, monkeypatch):
    try:
        raise RuntimeError("epoch 1 failed")
    except RuntimeError as exc:
        monkeypatch.setattr(sys, "last_value", exc, raising=False)
        monkeypatch.setattr(sys, "last_exc", exc, raising=False)
    with make_fake_machine(tmp_path).activated(monkeypatch):
        diag = doctor_magic(FakeShell(), "", None)
    assert diag.source == "last exception"
    assert UNSET in [x for c in diag.environment for x in c.lines]


def test_split_options():
    assert split_options('--env --lang zh "x"') == ("zh", True, '"x"')
    assert split_options('--lang zh --env "x"') == ("zh", True, '"x"')
    assert split_options('"--env is text here"') == (None, False, '"--env is text here"')
    assert split_options("--environment") == (None, False, "--environment")

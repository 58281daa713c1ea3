"""The trial hub's checks (passwords, binding) and its login, without starting a hub; and the
deploy config itself, read the way JupyterHub reads it."""

import asyncio
import os
import runpy

import pytest
from traitlets.config import Config

from ascend_lab.hub.trial import (
    INSTRUCTOR_PASSWORD,
    PASSWORD,
    TrialConfigError,
    bind_warning,
    trial_passwords,
)
from tests.hub.hub_runner import DEPLOY_CONFIG

LEARNERS_PW = "learners-password"
TEACHERS_PW = "teachers-password-0123"


def test_no_learners_password_no_hub():
    with pytest.raises(TrialConfigError, match=f"{PASSWORD} is not set"):
        trial_passwords({}, [])
    with pytest.raises(TrialConfigError, match="shorter than 8"):
        trial_passwords({PASSWORD: "short"}, [])
    assert trial_passwords({PASSWORD: LEARNERS_PW}, []) == (LEARNERS_PW, "")


def test_instructors_and_admins_need_a_password_of_their_own():
    with pytest.raises(TrialConfigError, match=f"teacher.*{INSTRUCTOR_PASSWORD} is not set"):
        trial_passwords({PASSWORD: LEARNERS_PW}, ["teacher"])
    same = {PASSWORD: "x" * 20, INSTRUCTOR_PASSWORD: "x" * 20}
    with pytest.raises(TrialConfigError, match="must differ"):
        trial_passwords(same, ["boss"])
    with pytest.raises(TrialConfigError, match="shorter than 16"):
        trial_passwords({PASSWORD: LEARNERS_PW, INSTRUCTOR_PASSWORD: "short-but-8"}, ["t"])
    env = {PASSWORD: LEARNERS_PW, INSTRUCTOR_PASSWORD: TEACHERS_PW}
    assert trial_passwords(env, ["teacher", "boss"]) == (LEARNERS_PW, TEACHERS_PW)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_binding_to_this_machine_gives_no_warning(host):
    assert bind_warning(host) == ""


@pytest.mark.parametrize("host", ["0.0.0.0", "", "10.1.2.3", "::", "class.example.org"])
def test_binding_beyond_this_machine_warns_about_tls_and_the_shared_unix_user(host):
    warning = bind_warning(host)
    assert "WARNING" in warning and "TLS" in warning and "Unix user" in warning


def _authenticator():
    from ascend_lab.hub.trial_auth import TrialPasswordAuthenticator  # needs jupyterhub

    return TrialPasswordAuthenticator(
        password=LEARNERS_PW,
        instructor_password=TEACHERS_PW,
        instructor_users={"Teacher"},
        admin_users={"boss"},
    )


@pytest.mark.hub  # the authenticator is a jupyterhub class
@pytest.mark.parametrize(
    "name, password, who",
    [
        ("learner1", LEARNERS_PW, "learner1"),
        ("Learner1", LEARNERS_PW, "learner1"),
        ("teacher", TEACHERS_PW, "teacher"),
        ("TEACHER", TEACHERS_PW, "teacher"),
        ("boss", TEACHERS_PW, "boss"),
        ("teacher", LEARNERS_PW, None),  # the learners' password never logs in an instructor
        ("TeAcHeR", LEARNERS_PW, None),
        ("boss", LEARNERS_PW, None),  # nor an admin
        ("learner1", TEACHERS_PW, None),  # each password is for its own names only
        ("learner1", "", None),
        ("", LEARNERS_PW, None),
    ],
)
def test_each_password_logs_in_only_its_own_names(name, password, who):
    data = {"username": name, "password": password}
    assert asyncio.run(_authenticator().authenticate(None, data)) == who


def _read_deploy_config(tmp_path, monkeypatch, capsys, **settings):
    """The deploy config as JupyterHub reads it: ``get_config()`` gives the Config."""
    for key in list(os.environ):
        if key.startswith("ASCEND_LAB_HUB_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("ASCEND_LAB_HUB_DIR", str(tmp_path / "hub"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npu-smi: the class starts in CPU mode
    for key, value in settings.items():
        monkeypatch.setenv("ASCEND_LAB_HUB_" + key, value)
    c = Config()
    runpy.run_path(DEPLOY_CONFIG, init_globals={"get_config": lambda: c})
    return c, capsys.readouterr().err


@pytest.mark.hub  # the deploy config names jupyterhub classes
def test_the_deploy_config_uses_the_two_passwords_and_warns_on_a_wide_bind(
    tmp_path, monkeypatch, capsys
):
    from ascend_lab.hub.trial_auth import TrialPasswordAuthenticator

    with pytest.raises(SystemExit, match="refuses to start.*PASSWORD is not set"):
        _read_deploy_config(tmp_path, monkeypatch, capsys)
    with pytest.raises(SystemExit, match="INSTRUCTOR_PASSWORD is not set"):
        _read_deploy_config(
            tmp_path, monkeypatch, capsys, PASSWORD=LEARNERS_PW, INSTRUCTORS="teacher"
        )
    c, err = _read_deploy_config(
        tmp_path,
        monkeypatch,
        capsys,
        PASSWORD=LEARNERS_PW,
        INSTRUCTOR_PASSWORD=TEACHERS_PW,
        INSTRUCTORS="teacher",
        ADMINS="boss",
    )
    assert c.JupyterHub.ip == "127.0.0.1" and "WARNING" not in err
    assert "no isolation between learners" in err  # said at every start
    assert c.JupyterHub.authenticator_class.endswith("TrialPasswordAuthenticator")
    auth = TrialPasswordAuthenticator(config=c)
    assert auth.privileged() == {"teacher", "boss"}
    data = {"username": "teacher", "password": LEARNERS_PW}
    assert asyncio.run(auth.authenticate(None, data)) is None
    c, err = _read_deploy_config(tmp_path, monkeypatch, capsys, PASSWORD=LEARNERS_PW, IP="0.0.0.0")
    assert c.JupyterHub.ip == "0.0.0.0" and "WARNING: the trial hub listens on 0.0.0.0" in err

"""The trial hub's login, for real (JupyterHub + configurable-http-proxy on 127.0.0.1, the
deploy config as shipped): no password, no hub; the learners' shared password never logs in
an instructor's or an admin's name.

Needs scripts/hub_deps.sh (jupyterhub in the venv, configurable-http-proxy from npm).
"""

import os

import pytest

from tests.hub.hub_runner import INSTRUCTOR_PASSWORD, LEARNER_PASSWORD, Hub

pytestmark = [pytest.mark.slow, pytest.mark.hub]

INSTRUCTOR = "teacher"
ADMIN = "boss"


@pytest.fixture
def class_hub(tmp_path):
    hub = Hub(
        str(tmp_path),
        dict(os.environ),
        {"ASCEND_LAB_HUB_INSTRUCTORS": INSTRUCTOR, "ASCEND_LAB_HUB_ADMINS": ADMIN},
    )
    try:
        yield hub.start()
    finally:
        hub.stop()


def _logged_in(hub, name, password):
    r, session = hub.login(name, password)
    if r.status_code == 302:
        assert session.cookies.get("jupyterhub-session-id") or session.cookies.get(
            "jupyterhub-hub-login"
        )
        return True
    assert r.status_code == 403, (r.status_code, r.text[:300])  # the form again, refused
    assert not session.cookies.get("jupyterhub-hub-login")
    return False


def test_the_learners_password_never_logs_in_an_instructor_or_an_admin(class_hub):
    hub = class_hub
    # a learner tries the shared password under the instructor's and the admin's names
    assert not _logged_in(hub, INSTRUCTOR, LEARNER_PASSWORD)
    assert not _logged_in(hub, "Teacher", LEARNER_PASSWORD)  # the hub lower-cases names
    assert not _logged_in(hub, ADMIN, LEARNER_PASSWORD)
    # each logs in with the password of their own
    assert _logged_in(hub, INSTRUCTOR, INSTRUCTOR_PASSWORD)
    assert _logged_in(hub, ADMIN, INSTRUCTOR_PASSWORD)
    assert _logged_in(hub, "learner1", LEARNER_PASSWORD)
    # and a wrong password, or the instructors' one under a learner's name, is refused
    assert not _logged_in(hub, "learner2", INSTRUCTOR_PASSWORD)
    assert not _logged_in(hub, "learner3", "not-the-password")
    users = {u["name"]: u for u in hub.api("GET", "/users").json()}
    assert users[ADMIN]["admin"] is True and users["learner1"]["admin"] is False
    assert "learner2" not in users and "learner3" not in users  # refused: no user made


def test_the_trial_hub_refuses_to_start_without_a_password(tmp_path):
    # the other refusals (no instructors' password, the same one twice): tests/hub/test_trial.py
    hub = Hub(str(tmp_path), dict(os.environ), {"ASCEND_LAB_HUB_PASSWORD": ""})
    try:
        with pytest.raises(RuntimeError, match="jupyterhub exited") as refused:
            hub.start()
    finally:
        hub.stop()
    assert "the trial hub refuses to start" in str(refused.value)
    assert "ASCEND_LAB_HUB_PASSWORD is not set" in str(refused.value)

"""The checks of the one-server trial hub (``deploy/jupyterhub/jupyterhub_config.py``): pure.

- **Passwords.** Learners share ``ASCEND_LAB_HUB_PASSWORD``; instructors and hub admins log
  in with ``ASCEND_LAB_HUB_INSTRUCTOR_PASSWORD``, a different one. Without the learners'
  password the hub does not start; with instructors or admins named, not without theirs.
- **Binding.** The hub listens on 127.0.0.1 unless told otherwise; anything wider gets a
  warning (shared passwords in clear text, every learner under one Unix user).
"""

import ipaddress
from typing import Iterable, Mapping, Tuple

from ascend_lab import settings
from ascend_lab.errors import AscendLabError

PASSWORD = "ASCEND_LAB_HUB_PASSWORD"
INSTRUCTOR_PASSWORD = "ASCEND_LAB_HUB_INSTRUCTOR_PASSWORD"
MIN_PASSWORD = 8  # learners' shared password
MIN_INSTRUCTOR_PASSWORD = 16  # it grants the class view, and hub admin to admins


class TrialConfigError(AscendLabError):
    """The trial hub must not start like this (the message says what to set)."""


def trial_passwords(environ: Mapping[str, str], privileged: Iterable[str]) -> Tuple[str, str]:
    """``(learners' password, instructors' password)``, or ``TrialConfigError``.

    ``privileged`` are the instructor and admin names; the second password is ``""`` when
    there are none.
    """
    learners = settings.get(PASSWORD, environ) or ""
    instructors = settings.get(INSTRUCTOR_PASSWORD, environ) or ""
    if not learners:
        raise TrialConfigError(
            f"{PASSWORD} is not set: the trial hub does not start without a password "
            f"(learners log in with it; set {INSTRUCTOR_PASSWORD} too for instructors)"
        )
    if len(learners) < MIN_PASSWORD:
        raise TrialConfigError(f"{PASSWORD} is shorter than {MIN_PASSWORD} characters")
    names = sorted(set(privileged))
    if names and not instructors:
        raise TrialConfigError(
            f"instructors or admins are named ({', '.join(names)}) but "
            f"{INSTRUCTOR_PASSWORD} is not set: they log in with a password of their own, "
            f"never the learners' one"
        )
    if instructors and len(instructors) < MIN_INSTRUCTOR_PASSWORD:
        raise TrialConfigError(
            f"{INSTRUCTOR_PASSWORD} is shorter than {MIN_INSTRUCTOR_PASSWORD} characters"
        )
    if instructors and instructors == learners:
        raise TrialConfigError(f"{INSTRUCTOR_PASSWORD} must differ from {PASSWORD}")
    return learners, instructors


def is_loopback(host: str) -> bool:
    """Is ``host`` (an address, ``localhost`` or empty) this machine only?"""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # "" (every address), a host name: assume it reaches beyond


def bind_warning(host: str) -> str:
    """A warning when the hub would listen beyond 127.0.0.1 (``""`` when it does not)."""
    if is_loopback(host):
        return ""
    shown = host or "every address"
    return (
        f"ascend-lab: WARNING: the trial hub listens on {shown}, beyond this machine. "
        "Put TLS in front of it (passwords travel in clear text over plain HTTP), and know "
        "that every learner's server runs as the hub's own Unix user: learners can read each "
        "other's files, tokens and the hub's database. For untrusted learners use a spawner "
        "with a Unix user per learner, or Kubernetes (deploy/kubernetes)."
    )

"""The trial hub's login: one password for learners, another for instructors and admins.

``c.JupyterHub.authenticator_class = "ascend_lab.hub.trial_auth.TrialPasswordAuthenticator"``
(``deploy/jupyterhub/jupyterhub_config.py`` does it). A name in ``admin_users`` or
``instructor_users`` logs in only with ``instructor_password``; any other name only with
``password``. Names are normalised (lower case, ``username_map``) before they are compared,
as the hub does before it looks the user up. Imports JupyterHub: load it only in a hub.
"""

import hmac
from typing import Any, FrozenSet, Optional

from jupyterhub.auth import Authenticator
from traitlets import Set, Unicode


def _same(given: str, expected: str) -> bool:
    return bool(expected) and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class TrialPasswordAuthenticator(Authenticator):  # type: ignore[misc]
    """Shared passwords for a trial class: learners' and instructors' (never interchangeable)."""

    password = Unicode("", config=True, help="The learners' shared password.")
    instructor_password = Unicode(
        "", config=True, help="The password of instructors and hub admins (and only theirs)."
    )
    instructor_users = Set(
        Unicode(), config=True, help="Instructors: they log in with instructor_password."
    )

    def privileged(self) -> FrozenSet[str]:
        names = set(self.admin_users) | set(self.instructor_users)
        return frozenset(self.normalize_username(n) for n in names)

    async def authenticate(self, handler: Any, data: Any) -> Optional[str]:
        name = self.normalize_username(str(data.get("username", "")))
        given = str(data.get("password", ""))
        if not name:
            return None
        if name in self.privileged():
            ok = _same(given, self.instructor_password)
        else:
            ok = _same(given, self.password)
        if not ok:
            self.log.warning("ascend-lab: refused login for %r", name)
            return None
        return name

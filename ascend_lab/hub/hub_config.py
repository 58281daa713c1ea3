"""``configure_hub(c, …)``: the few lines of ``jupyterhub_config.py`` that enable ascend-lab.

It installs the spawner hooks (one seat per learner), registers the status service
(``python -m ascend_lab.hub.service``, managed by the hub), lets every user reach it, and
defines the ``custom:ascend-lab:admin`` scope that shows an instructor every chip.
"""

import sys
from typing import Any, Iterable, Mapping, Optional, Sequence

from ascend_lab.hub.allocator import DeviceAllocator
from ascend_lab.hub.chips import discover_chips
from ascend_lab.hub.spawner import make_hooks
from ascend_lab.hub.views import ADMIN_SCOPE

SERVICE_NAME = "ascend-lab"


def configure_hub(
    c: Any,
    state_path: str,
    per_chip: int = 2,
    policy: str = "least-loaded",
    fixed_map: Optional[Mapping[str, int]] = None,
    chips: Optional[Sequence[int]] = None,
    instructors: Iterable[str] = (),
    interval: float = 5.0,
    service_port: int = 10101,
    npu_smi: Optional[str] = None,
) -> DeviceAllocator:
    """Configure ``c`` (the hub's config object); return the allocator it uses.

    ``chips=None`` asks ``npu-smi`` once, now (an empty list: every server in CPU mode, and
    the hub log says why). ``npu_smi`` is its path when it is not on ``PATH``.
    """
    if chips is None:
        found, why = discover_chips(npu_smi)
        if why:
            print(
                f"ascend-lab: no NPU for the class ({why}); servers start in CPU mode",
                file=sys.stderr,
            )
        chips = found
    allocator = DeviceAllocator(state_path, chips, per_chip, policy, fixed_map)
    service_url = f"http://127.0.0.1:{service_port}"
    pre, post = make_hooks(allocator, f"{service_url}/services/{SERVICE_NAME}/")
    c.Spawner.pre_spawn_hook = pre
    c.Spawner.post_stop_hook = post

    command = [
        sys.executable,
        "-m",
        "ascend_lab.hub.service",
        "--state",
        state_path,
        "--interval",
        str(interval),
    ]
    if npu_smi:
        command += ["--npu-smi", npu_smi]
    c.JupyterHub.services.append(
        {
            "name": SERVICE_NAME,
            "url": service_url,
            "command": command,
            "display": False,
            # the class's own status page: no "authorize this service?" page for learners
            "oauth_no_confirm": True,
            # tokens the service gets through OAuth may carry the admin scope, when the user has it
            "oauth_client_allowed_scopes": [ADMIN_SCOPE],
        }
    )
    c.JupyterHub.custom_scopes.update(
        {ADMIN_SCOPE: {"description": "See every chip of the class and which learner runs what."}}
    )
    access = f"access:services!service={SERVICE_NAME}"
    c.JupyterHub.load_roles.append({"name": "user", "scopes": ["self", access]})
    # the servers' own tokens (JUPYTERHUB_API_TOKEN) too, so they ask the service, not npu-smi
    # (the admin scope stays only on an instructor's server: a token never exceeds its owner)
    c.JupyterHub.load_roles.append(
        {
            "name": "server",
            "scopes": ["users:activity!user", "access:servers!server", access, ADMIN_SCOPE],
        }
    )
    # the service reads each learner's last_activity for the instructor's class view
    c.JupyterHub.load_roles.append(
        {
            "name": "ascend-lab-service",
            "scopes": ["list:users", "read:users:activity"],
            "services": [SERVICE_NAME],
        }
    )
    c.JupyterHub.load_roles.append(
        {
            "name": "ascend-lab-instructor",
            "description": "Sees every chip and learner in the ascend-lab service",
            "scopes": [ADMIN_SCOPE, access],
            "users": list(instructors),
        }
    )
    return allocator

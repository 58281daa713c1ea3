"""ascend-lab on JupyterHub: a seat on an NPU chip per learner, one probe for the class.

In ``jupyterhub_config.py``::

    from ascend_lab.hub import configure_hub
    configure_hub(c, state_path="/srv/jupyterhub/ascend-lab-seats.json", per_chip=2)

Nothing here imports JupyterHub at import time; only the service does, when it runs.
"""

from ascend_lab.hub.allocator import Assignment, DeviceAllocator, StateFileError
from ascend_lab.hub.hub_config import ADMIN_SCOPE, SERVICE_NAME, configure_hub

__all__ = [
    "ADMIN_SCOPE",
    "SERVICE_NAME",
    "Assignment",
    "DeviceAllocator",
    "StateFileError",
    "configure_hub",
]

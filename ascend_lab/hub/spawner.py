"""JupyterHub spawner hooks: a seat on a chip when a server starts, freed when it stops.

``pre_spawn_hook`` asks the allocator for a seat and puts it in the server's environment
(``ASCEND_RT_VISIBLE_DEVICES`` and the device id the kernel uses); with no free seat it
sets ``ASCEND_LAB_CPU_REASON`` instead, so the server starts in CPU mode and its status and
course say why. ``post_stop_hook`` gives the seat back.

Once the spawner's ``start`` returns, the server's pid (``spawner.pid``: local process
spawners) is noted with the seat, so the status service can tell whose an NPU process is from
the server's process tree (``owners``) instead of the process's forgeable environment.
"""

import inspect
from typing import Any, Callable, Dict, Tuple

from ascend_lab.hub.allocator import Assignment, DeviceAllocator
from ascend_lab.hub.owners import start_time_of

# Names of the variables a learner's server gets; the status and the course read them.
VISIBLE_DEVICES = "ASCEND_RT_VISIBLE_DEVICES"
CPU_REASON = "ASCEND_LAB_CPU_REASON"
CHIP = "ASCEND_LAB_CHIP"  # the chip's id on the machine (inside, the chip is device 0)
SERVICE_URL = "ASCEND_LAB_HUB_SERVICE_URL"  # the hub service, for the server extension


def seat_key(spawner: Any) -> str:
    """``user`` for a default server, ``user/name`` for a named one."""
    name = getattr(spawner, "name", "") or ""
    return spawner.user.name + ("/" + name if name else "")


def seat_env(seat: Assignment) -> Dict[str, str]:
    """The environment of a server holding ``seat``."""
    if seat.chip is None:
        # An empty list hides every chip, so a CPU-mode learner cannot take a seated one.
        return {VISIBLE_DEVICES: "", CPU_REASON: seat.reason}
    # Inside the server only the one chip is visible, as logical device 0.
    return {VISIBLE_DEVICES: str(seat.chip), CHIP: str(seat.chip), "DEVICE_ID": "0"}


def make_hooks(
    allocator: DeviceAllocator, service_url: str = ""
) -> Tuple[Callable[[Any], None], Callable[[Any], None]]:
    """``(pre_spawn_hook, post_stop_hook)`` for ``c.Spawner``."""

    def record_server(spawner: Any) -> None:
        pid = getattr(spawner, "pid", 0)
        if isinstance(pid, int) and pid > 0:
            allocator.record_server(seat_key(spawner), pid, start_time_of(pid))

    def pre_spawn_hook(spawner: Any) -> None:
        _after_start(spawner, record_server)
        seat = allocator.acquire(seat_key(spawner))
        env = {k: v for k, v in dict(spawner.environment).items() if k not in (CPU_REASON, CHIP)}
        env.update(seat_env(seat))
        if service_url:
            env[SERVICE_URL] = service_url
        spawner.environment = env  # a new dict: config values may be shared between spawners
        if seat.chip is None:
            spawner.log.warning("ascend-lab: %s starts in CPU mode: %s", seat.key, seat.reason)
        else:
            spawner.log.info("ascend-lab: %s gets NPU chip %s", seat.key, seat.chip)

    def post_stop_hook(spawner: Any) -> None:
        held = allocator.release(seat_key(spawner))
        if held is not None and held.chip is not None:
            spawner.log.info("ascend-lab: %s gave back NPU chip %s", held.key, held.chip)

    return pre_spawn_hook, post_stop_hook


_WRAPPED = "_ascend_lab_after_start"


def _after_start(spawner: Any, then: Callable[[Any], None]) -> None:
    """Make ``spawner.start`` call ``then(spawner)`` once it has returned (once per spawner:
    the hub keeps one spawner object per server across restarts)."""
    start = getattr(spawner, "start", None)
    if start is None or getattr(spawner, _WRAPPED, False):
        return

    async def start_then(*args: Any, **kwargs: Any) -> Any:
        result = start(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        try:
            then(spawner)
        except Exception:  # noting the pid must never fail a spawn
            spawner.log.exception("ascend-lab: could not note the server's pid")
        return result

    spawner.start = start_then
    setattr(spawner, _WRAPPED, True)

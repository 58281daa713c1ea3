"""The status of the environment learners' code runs in: the registered MindSpore kernel.

On notebook images the Jupyter server often runs in one Python and the MindSpore kernel in
another (a conda env, the image's MindSpore Python), with CANN's ``set_env.sh`` sourced
only at kernel start. The server's status therefore describes that kernel: its Python runs
``ascend-lab status --json`` in the environment the kernel would get (``set_env.sh``
sourced, device id set), in a child process with a timeout and an output cap. Without
such a kernel, the server describes its own Python and says so.
"""

import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional

from ascend_lab.i18n import N_, Msg, msg

# Seconds allowed for the kernel's Python to start and source set_env.sh, on top of the
# npu-smi timeout (a cold conda Python on a network disk can take several seconds).
START_SECONDS = 15.0
_MAX_OUTPUT = 4 * 1024 * 1024  # the status JSON is ~10 KB; the caps keep it far below this


@dataclass
class KernelEnv:
    """What a kernelspec says about the environment its kernels run in."""

    name: str
    python: str
    set_env: Optional[str] = None
    device_id: Optional[int] = None
    display_name: str = ""
    ours: bool = False  # written by ascend-lab (so ascend_lab is importable in its Python)


def find_kernel(name: str, find_specs: Callable[[], Dict[str, str]]) -> Optional[KernelEnv]:
    """The kernelspec ``name`` among ``find_specs()`` (``{name: resource_dir}``), or None."""
    from ascend_lab.kernel import spec

    resource_dir = find_specs().get(name)
    if not resource_dir:
        return None
    data = spec.read_kernel_json(resource_dir)
    argv = (data or {}).get("argv")
    if not isinstance(argv, list) or not argv or not isinstance(argv[0], str):
        return None
    block = spec.ours(data) or {}
    device_id = block.get("device_id")
    return KernelEnv(
        name=name,
        python=argv[0],
        set_env=block.get("set_env") if isinstance(block.get("set_env"), str) else None,
        device_id=device_id if isinstance(device_id, int) else None,
        display_name=str((data or {}).get("display_name", "")),
        ours=bool(block),
    )


def subject_of(kernel: KernelEnv) -> Dict[str, Optional[str]]:
    return {
        "kind": "kernel",
        "kernel": kernel.name,
        "display_name": kernel.display_name,
        "python": kernel.python,
        "set_env": kernel.set_env,
    }


def probe_kernel(kernel: KernelEnv, timeout: float) -> Dict[str, Any]:
    """The status JSON dict as ``kernel`` would see it; a CPU-mode status naming the problem
    when its Python cannot tell (missing, not ascend-lab's, too slow, bad output)."""
    from ascend_lab.kernel.launcher import prepare_environment
    from ascend_lab.probes.npu_smi_runner import run_capped

    env, _warning = prepare_environment(kernel.set_env, kernel.device_id, dict(os.environ))
    result = run_capped(
        kernel.python,
        ["-m", "ascend_lab", "status", "--json", "--refresh", "--timeout", f"{timeout:g}"],
        timeout + START_SECONDS,
        _MAX_OUTPUT,
        env=env,
        label=msg("the {} kernel's Python", repr(kernel.name)),
    )
    data: Optional[Dict[str, Any]] = None
    if result.ok:
        try:
            parsed = json.loads(result.stdout)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("schema") == "ascend-lab.status/1":
            data = parsed
    if data is None:
        why = result.reason or N_("it printed no ascend-lab status")
        if not isinstance(why, Msg):
            why = why[:300]
        fix = (
            "Re-register the kernel with `ascend-lab install-kernel --force` from the Python "
            "that has MindSpore"
            if kernel.ours
            else msg(
                "Install ascend-lab into that Python ({} -m pip install ascend-lab)", kernel.python
            )
        )
        data = failed_status(
            msg("could not read the {} kernel's environment: {}", repr(kernel.name), why), fix
        )
    data["subject"] = subject_of(kernel)
    return data


def failed_status(reason: str, fix: str) -> Dict[str, Any]:
    from ascend_lab.model.device_status import DeviceStatus, StatusWarning

    status = DeviceStatus(
        mode="cpu",
        reason=reason,
        warnings=[StatusWarning(reason, fix, "warning", "environment")],
        collected_at=time.time(),
    )
    return status.to_dict()


def server_probe(
    kernel_name: str, find_specs: Callable[[], Dict[str, str]]
) -> Callable[[float], Dict[str, Any]]:
    """The probe the server's status cache runs: the kernel ``kernel_name`` if registered,
    else this server's own Python (``subject.kind == "server"``, with a note)."""

    def probe(timeout: float) -> Dict[str, Any]:
        kernel = find_kernel(kernel_name, find_specs) if kernel_name else None
        if kernel is not None:
            return probe_kernel(kernel, timeout)
        from ascend_lab.probes.device import collect_status

        data = collect_status(refresh=True, timeout=timeout).to_dict()
        data["subject"] = {
            "kind": "server",
            "python": sys.executable,
            "set_env": None,
            "note": (
                f"no kernel named {kernel_name!r} is registered: this is the Jupyter "
                "server's own Python (`ascend-lab install-kernel` registers one)"
                if kernel_name
                else "the Jupyter server's own Python (kernel_name is empty)"
            ),
        }
        return data

    return probe

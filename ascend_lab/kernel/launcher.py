"""Start the MindSpore kernel: source CANN's ``set_env.sh``, set the device, exec ipykernel.

``python -m ascend_lab.kernel.launcher [--set-env PATH] [--device-id N] -f CONNECTION_FILE``

The environment must be in place before the kernel process starts (``LD_LIBRARY_PATH`` is
read by the dynamic loader at start-up only), so this small process prepares it and then
replaces itself with ``python -m ipykernel_launcher``, which loads
:mod:`ascend_lab.kernel.startup` (the ascend_lab magics, plus a one-time warning in the
first cell if ``set_env.sh`` failed). Kept light: no Jupyter or MindSpore imports here.
"""

import argparse
import os
import sys
from typing import Dict, List, Optional, Tuple

from ascend_lab.kernel.setenv import source_set_env

STARTUP_EXTENSION = "ascend_lab.kernel.startup"

# What the kernel can read to say how it was started (``%ascend_status`` may show these).
ENV_SET_ENV = "ASCEND_LAB_SET_ENV"
ENV_SET_ENV_ERROR = "ASCEND_LAB_SET_ENV_ERROR"
ENV_KERNEL_MODE = "ASCEND_LAB_KERNEL_MODE"


def _parse(argv: List[str]) -> Tuple[argparse.Namespace, List[str]]:
    parser = argparse.ArgumentParser(
        prog="python -m ascend_lab.kernel.launcher",
        description="Source set_env.sh, set the NPU device id, then start ipykernel.",
    )
    parser.add_argument("--set-env", metavar="PATH", help="CANN set_env.sh to source first")
    parser.add_argument("--device-id", metavar="N", type=int, help="NPU device id to use")
    return parser.parse_known_args(argv)


def prepare_environment(
    set_env: Optional[str], device_id: Optional[int], base: Dict[str, str]
) -> Tuple[Dict[str, str], Optional[str]]:
    """The kernel's environment (a new dict) and a warning message, or None if all went well."""
    env = dict(base)
    env.pop(ENV_SET_ENV_ERROR, None)
    warning = None
    if set_env:
        changed, error = source_set_env(set_env, base_env=env)
        env.update(changed)
        env[ENV_SET_ENV] = set_env
        if error:
            warning = error
            env[ENV_SET_ENV_ERROR] = error
        env[ENV_KERNEL_MODE] = "ascend"
    else:
        env[ENV_KERNEL_MODE] = "cpu"
    if device_id is not None:
        env["DEVICE_ID"] = str(device_id)
        env["ASCEND_DEVICE_ID"] = str(device_id)
    return env, warning


def kernel_argv(rest: List[str]) -> List[str]:
    """The ipykernel command line: this Python, the launcher module, our extension."""
    return [
        sys.executable,
        "-m",
        "ipykernel_launcher",
        f"--IPKernelApp.extra_extensions={STARTUP_EXTENSION}",
    ] + rest


def main(argv: Optional[List[str]] = None) -> int:
    args, rest = _parse(list(sys.argv[1:] if argv is None else argv))
    env, warning = prepare_environment(args.set_env, args.device_id, dict(os.environ))
    if warning:
        sys.stderr.write(f"ascend-lab: WARNING: {warning}\n")
        sys.stderr.write("ascend-lab: the kernel starts anyway; Ascend devices may not work.\n")
        sys.stderr.flush()
    command = kernel_argv(rest)
    if os.name == "posix":
        # Replace this process, so the kernel's PID is the one Jupyter started and signals
        # (interrupt, shutdown) reach it directly.
        os.execve(command[0], command, env)
    import subprocess  # pragma: no cover - Windows has no real exec

    return subprocess.call(command, env=env)  # noqa: S603 - fixed argv, no shell


if __name__ == "__main__":
    sys.exit(main())

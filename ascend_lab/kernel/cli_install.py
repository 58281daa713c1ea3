"""``ascend-lab install-kernel``: register the MindSpore Jupyter kernel."""

import argparse
import os
import shlex
import sys
from typing import Any, Dict, Optional

from ascend_lab.i18n import N_, msg
from ascend_lab.kernel import setenv, spec
from ascend_lab.kernel.cli_common import add_location_arguments, fail, location_from_args
from ascend_lab.probes import ascend_install


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--name", default=spec.DEFAULT_NAME, help="kernel name (default: %(default)s)"
    )
    parser.add_argument(
        "--display-name",
        help=msg(
            'name shown in Jupyter (default: "{}" or "{}")',
            spec.DISPLAY_NAME_ASCEND,
            spec.DISPLAY_NAME_CPU,
        ),
    )
    add_location_arguments(parser, N_(" (default outside a venv/conda env)"))
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--set-env",
        metavar="PATH",
        help=msg(
            "CANN set_env.sh to source at kernel start (default: the one `ascend-lab status` "
            "finds: under ${} if set, else where CANN is installed)",
            setenv.ROOT_ENV_VAR,
        ),
    )
    source.add_argument(
        "--cpu", action="store_true", help="register a CPU-mode kernel even if CANN is installed"
    )
    parser.add_argument("--device-id", metavar="N", type=int, help="NPU device id for the kernel")
    parser.add_argument(
        "--force", action="store_true", help="replace a kernel of this name not made by ascend-lab"
    )


def resolve_set_env(
    args: argparse.Namespace, locations: ascend_install.Locations = ascend_install.SYSTEM
) -> Optional[str]:
    """``--set-env``, else the set_env.sh of the CANN ``ascend-lab status`` finds."""
    if getattr(args, "cpu", False):
        return None
    if getattr(args, "set_env", None):
        return os.path.abspath(args.set_env)
    return setenv.find_set_env(locations=locations)


def install_from_args(
    args: argparse.Namespace,
    location: Dict[str, Any],
    quiet: bool = False,
    locations: ascend_install.Locations = ascend_install.SYSTEM,
) -> str:
    """Install as the options say and print what happened; raises spec.KernelSpecError."""
    set_env = resolve_set_env(args, locations)
    destination = spec.install(
        name=args.name,
        set_env=set_env,
        device_id=getattr(args, "device_id", None),
        display_name=getattr(args, "display_name", None),
        user=location["user"],
        prefix=location["prefix"],
        force=getattr(args, "force", False),
    )
    if quiet:
        return destination
    written = spec.read_kernel_json(destination) or {}
    print(
        "Installed kernel {!r} ({}) in {}".format(
            spec.check_name(args.name), written.get("display_name", ""), destination
        )
    )
    if set_env:
        print(f"  It sources {set_env} at start.")
    elif getattr(args, "cpu", False):
        print("  CPU mode (--cpu).")
    else:
        places = setenv.looked_in(locations=locations)
        print(
            "  CPU mode: no set_env.sh under {} (looked for CANN in: {}). "
            "Use --set-env PATH if CANN is installed elsewhere.".format(
                setenv.ascend_root(), ", ".join(places[:8]) + (" …" if len(places) > 8 else "")
            )
        )
    if getattr(args, "device_id", None) is not None:
        print(f"  Device id: {args.device_id} (DEVICE_ID and ASCEND_DEVICE_ID).")
    used = spec.find_installed(args.name)
    if location["prefix"] and not used:
        print(
            "  Note: Jupyter does not search {}; add it to Jupyter's path to use it: "
            "export JUPYTER_PATH={}".format(
                location["prefix"],
                shlex.quote(os.path.join(location["prefix"], "share", "jupyter")),
            )
        )
    elif used and os.path.realpath(used) != os.path.realpath(destination):
        print(f"  Note: Jupyter will use another kernel of the same name first: {used}")
    return destination


def run(args: argparse.Namespace) -> int:
    try:
        install_from_args(args, location_from_args(args))
    except spec.KernelSpecError as exc:
        return fail("install-kernel", str(exc))
    sys.stdout.flush()
    return 0

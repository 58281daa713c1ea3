"""``ascend-lab uninstall-kernel``: remove a kernelspec that ascend-lab installed."""

import argparse

from ascend_lab.i18n import N_
from ascend_lab.kernel import spec
from ascend_lab.kernel.cli_common import (
    add_location_arguments,
    fail,
    location_from_args,
    location_given,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--name", default=spec.DEFAULT_NAME, help="kernel name (default: %(default)s)"
    )
    add_location_arguments(parser, N_(" (default: the one Jupyter would use)"))


def run(args: argparse.Namespace) -> int:
    try:
        name = spec.check_name(args.name)
        if location_given(args):
            where = location_from_args(args)
            resource_dir = spec.find_installed(
                name, user=where["user"], prefix=where["prefix"], anywhere=False
            )
            place = spec.kernels_dir(user=where["user"], prefix=where["prefix"])
            allowed = [place]
        else:
            resource_dir = spec.find_installed(name)
            place = "any Jupyter kernel folder"
            allowed = spec.search_dirs()
        if resource_dir is None:
            return fail("uninstall-kernel", f"no kernel named {name!r} in {place}")
        spec.uninstall(resource_dir, name, allowed)
    except spec.KernelSpecError as exc:
        return fail("uninstall-kernel", str(exc))
    print(f"Removed kernel {name!r} from {resource_dir}")
    return 0

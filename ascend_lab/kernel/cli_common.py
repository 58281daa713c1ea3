"""Options shared by the kernel subcommands: where a kernelspec lives, how errors print."""

import argparse
import sys
from typing import Any, Dict

from ascend_lab.i18n import msg
from ascend_lab.kernel import spec


def add_location_arguments(parser: argparse.ArgumentParser, default_help: str) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--user", action="store_true", help=msg("your user's Jupyter data folder{}", default_help)
    )
    where.add_argument(
        "--sys-prefix",
        action="store_true",
        help=msg("this Python environment ({})", sys.prefix),
    )
    where.add_argument(
        "--prefix", metavar="P", help="P/share/jupyter/kernels (Jupyter must be told about P)"
    )


def location_from_args(args: argparse.Namespace) -> Dict[str, Any]:
    """``{"user": bool, "prefix": str or None}`` from --user / --sys-prefix / --prefix."""
    if getattr(args, "user", False):
        return {"user": True, "prefix": None}
    if getattr(args, "sys_prefix", False):
        return {"user": False, "prefix": sys.prefix}
    if getattr(args, "prefix", None):
        return {"user": False, "prefix": args.prefix}
    return spec.default_location()


def location_given(args: argparse.Namespace) -> bool:
    return bool(
        getattr(args, "user", False)
        or getattr(args, "sys_prefix", False)
        or getattr(args, "prefix", None)
    )


def fail(command: str, message: str, code: int = 1) -> int:
    sys.stderr.write(f"ascend-lab {command}: error: {message}\n")
    return code

"""``%ascend_profile net x [y ...] [--steps N] [--warmup N] [--keep] [--no-trace] [-o var]``.

Names (or Python expressions) are evaluated in the user's namespace, as ``%ascend_trace``
does; the Profile is stored in ``_profile`` (or the ``-o`` name) and displayed.
"""

import argparse
from typing import Any, List, Optional

from ascend_lab.i18n import _
from ascend_lab.i18n.magic_args import MagicArgumentParser, with_usage
from ascend_lab.magic_support import check_output_name, run_net_magic, split_words

USAGE = "%ascend_profile net x [y ...] [--steps N] [--warmup N] [--keep] [--no-trace] [-o var]"


def parse_line(line: str) -> argparse.Namespace:
    words = split_words(line, USAGE)
    p = MagicArgumentParser("%ascend_profile", usage=USAGE, show_usage=True)
    p.add_argument("net")
    p.add_argument("inputs", nargs="*")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--no-trace", action="store_true")
    p.add_argument("-o", "--output", default="_profile")
    args = p.parse_args(words)
    check_output_name(args.output)
    if args.steps < 1 or args.warmup < 0:
        raise ValueError(with_usage(_("--steps must be >= 1 and --warmup >= 0"), USAGE))
    return args


def profile_magic(shell: Any, line: str) -> Optional[Any]:
    """Run a profile from the magic line; print a clear message on bad input."""
    from ascend_lab.errors.profile import ProfileError
    from ascend_lab.profiling.api import (
        profile_net,
    )  # not the package root's profile(): no import cycle

    def call(net: Any, inputs: List[Any], args: argparse.Namespace) -> Any:
        trace = False if args.no_trace else None
        return profile_net(net, list(inputs), args.steps, args.warmup, args.keep, trace, None)

    run_net_magic(
        shell, line, "%ascend_profile", parse_line, call, (ProfileError, TypeError, ValueError)
    )
    return None

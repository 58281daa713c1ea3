"""``%ascend_profile net x [y ...] [--steps N] [--warmup N] [--keep] [--no-trace] [-o var]``.

Names (or Python expressions) are evaluated in the user's namespace, as ``%ascend_trace``
does; the Profile is stored in ``_profile`` (or the ``-o`` name) and displayed.
"""

import argparse
import shlex
from typing import Any, List, Optional

from ..tracing.magic import run_net_magic

USAGE = "%ascend_profile net x [y ...] [--steps N] [--warmup N] [--keep] [--no-trace] [-o var]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ValueError(f"{message}\nusage: {USAGE}")


def parse_line(line: str) -> argparse.Namespace:
    try:
        words: List[str] = shlex.split(line)
    except ValueError as exc:
        raise ValueError(f"cannot read the arguments: {exc}\nusage: {USAGE}") from None
    if not words:
        raise ValueError(f"name the net and its inputs\nusage: {USAGE}")
    p = _Parser(prog="%ascend_profile", add_help=False, usage=USAGE)
    p.add_argument("net")
    p.add_argument("inputs", nargs="*")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--no-trace", action="store_true")
    p.add_argument("-o", "--output", default="_profile")
    args = p.parse_args(words)
    if not args.output.isidentifier():
        raise ValueError(f"-o needs a Python name, got {args.output!r}")
    if args.steps < 1 or args.warmup < 0:
        raise ValueError(f"--steps must be >= 1 and --warmup >= 0\nusage: {USAGE}")
    return args


def profile_magic(shell: Any, line: str) -> Optional[Any]:
    """Run a profile from the magic line; print a clear message on bad input."""
    from .. import profile
    from .errors import ProfileError

    def call(net: Any, inputs: List[Any], args: argparse.Namespace) -> Any:
        return profile(
            net,
            *inputs,
            steps=args.steps,
            warmup=args.warmup,
            keep=args.keep,
            trace=False if args.no_trace else None,
        )

    run_net_magic(
        shell, line, "%ascend_profile", parse_line, call, (ProfileError, TypeError, ValueError)
    )
    return None

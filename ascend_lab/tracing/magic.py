"""``%ascend_trace net x [y ...] [--fusion] [--level N] [--keep-dumps] [--no-run] [-o var]``.

Names (or Python expressions) are evaluated in the user's namespace; the Trace is stored in
``_trace`` (or the ``-o`` name) and displayed.
"""

import argparse
from typing import Any, List, Optional

from ascend_lab.i18n.magic_args import MagicArgumentParser
from ascend_lab.magic_support import check_output_name, run_net_magic, split_words

USAGE = "%ascend_trace net x [y ...] [--fusion] [--level N] [--keep-dumps] [--no-run] [-o var]"


def _parser() -> argparse.ArgumentParser:
    p = MagicArgumentParser("%ascend_trace", usage=USAGE, show_usage=True)
    p.add_argument("net")
    p.add_argument("inputs", nargs="*")
    p.add_argument("--fusion", action="store_true")
    p.add_argument("--level", type=int, default=1, choices=(1, 2, 3))
    p.add_argument("--keep-dumps", action="store_true")
    p.add_argument("--no-run", action="store_true")
    p.add_argument("-o", "--output", default="_trace")
    return p


def parse_line(line: str) -> argparse.Namespace:
    args = _parser().parse_args(split_words(line, USAGE))
    check_output_name(args.output)
    return args


def trace_magic(shell: Any, line: str) -> Optional[Any]:
    """Run a trace from the magic line; print a clear message on bad input."""
    # tracing.api, not the root package's ``trace``: tracing sits below the root (no cycle)
    from ascend_lab.errors.trace import TraceError
    from ascend_lab.tracing.api import trace_net

    def call(net: Any, inputs: List[Any], args: argparse.Namespace) -> Any:
        # progress=None: the default of ascend_lab.trace (shown in notebooks only)
        return trace_net(
            net, list(inputs), args.fusion, args.level, args.keep_dumps, not args.no_run, None
        )

    run_net_magic(
        shell, line, "%ascend_trace", parse_line, call, (TraceError, TypeError, ValueError)
    )
    return None

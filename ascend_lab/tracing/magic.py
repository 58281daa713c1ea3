"""``%ascend_trace net x [y ...] [--fusion] [--level N] [--keep-dumps] [--no-run] [-o var]``.

Names (or Python expressions) are evaluated in the user's namespace; the Trace is stored in
``_trace`` (or the ``-o`` name) and displayed.
"""

import argparse
import shlex
from typing import Any, Callable, List, Optional, Tuple, Type

from ascend_lab.i18n import _, localize
from ascend_lab.i18n.magic_args import MagicArgumentParser, with_usage

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


def split_words(line: str, usage: str) -> List[str]:
    """The magic's words (shell quoting); a clear ``ValueError`` for none or an open quote."""
    try:
        words: List[str] = shlex.split(line)
    except ValueError as exc:
        why = _("cannot read the arguments: {}").format(localize(str(exc)))
        raise ValueError(with_usage(why, usage)) from None
    if not words:
        raise ValueError(with_usage(_("name the net and its inputs"), usage))
    return words


def check_output_name(name: str) -> None:
    if not name.isidentifier():
        raise ValueError(_("-o needs a Python name, got {!r}").format(name))


def parse_line(line: str) -> argparse.Namespace:
    args = _parser().parse_args(split_words(line, USAGE))
    check_output_name(args.output)
    return args


def _evaluate(shell: Any, expr: str) -> Any:
    namespace = getattr(shell, "user_ns", {}) if shell is not None else {}
    try:
        return eval(expr, namespace)  # noqa: S307 - the user's own expression, like %timeit
    except NameError:
        raise ValueError(_("{!r} is not defined in the notebook").format(expr)) from None


def run_net_magic(
    shell: Any,
    line: str,
    name: str,
    parse: Callable[[str], argparse.Namespace],
    call: Callable[[Any, List[Any], argparse.Namespace], Any],
    errors: Tuple[Type[BaseException], ...],
) -> None:
    """The body of ``%ascend_trace`` / ``%ascend_profile``: parse ``net x [y ...] [-o var]``,
    evaluate the net and inputs in the user's namespace, ``call`` the tool, store the result
    under ``-o`` and display it. Bad input and the tool's own ``errors`` are printed, never
    raised, so "Run All" goes on."""
    try:
        args = parse(line)
        net = _evaluate(shell, args.net)
        inputs = [_evaluate(shell, e) for e in args.inputs]
    except ValueError as exc:
        print(f"{name}: {exc}")
        return None
    try:
        result = call(net, inputs, args)
    except errors as exc:
        print(f"{name}: {exc}")
        return None
    if shell is not None:
        shell.user_ns[args.output] = result
    try:
        from IPython.display import display

        display(result)
    except ImportError:  # pragma: no cover
        print(result.summary())
    return None


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

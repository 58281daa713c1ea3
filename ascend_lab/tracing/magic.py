"""``%ascend_trace net x [y ...] [--fusion] [--level N] [--keep-dumps] [--no-run] [-o var]``.

Names (or Python expressions) are evaluated in the user's namespace; the Trace is stored in
``_trace`` (or the ``-o`` name) and displayed.
"""

import argparse
import shlex
from typing import Any, Callable, List, Optional, Tuple, Type

USAGE = "%ascend_trace net x [y ...] [--fusion] [--level N] [--keep-dumps] [--no-run] [-o var]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ValueError(f"{message}\nusage: {USAGE}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="%ascend_trace", add_help=False, usage=USAGE)
    p.add_argument("net")
    p.add_argument("inputs", nargs="*")
    p.add_argument("--fusion", action="store_true")
    p.add_argument("--level", type=int, default=1, choices=(1, 2, 3))
    p.add_argument("--keep-dumps", action="store_true")
    p.add_argument("--no-run", action="store_true")
    p.add_argument("-o", "--output", default="_trace")
    return p


def parse_line(line: str) -> argparse.Namespace:
    try:
        words: List[str] = shlex.split(line)
    except ValueError as exc:
        raise ValueError(f"cannot read the arguments: {exc}\nusage: {USAGE}") from None
    if not words:
        raise ValueError(f"name the net and its inputs\nusage: {USAGE}")
    args = _parser().parse_args(words)
    if not args.output.isidentifier():
        raise ValueError(f"-o needs a Python name, got {args.output!r}")
    return args


def _evaluate(shell: Any, expr: str) -> Any:
    namespace = getattr(shell, "user_ns", {}) if shell is not None else {}
    try:
        return eval(expr, namespace)  # noqa: S307 - the user's own expression, like %timeit
    except NameError:
        raise ValueError(f"{expr!r} is not defined in the notebook") from None


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
    from .. import trace
    from .errors import TraceError

    def call(net: Any, inputs: List[Any], args: argparse.Namespace) -> Any:
        return trace(
            net,
            *inputs,
            fusion=args.fusion,
            level=args.level,
            keep_dumps=args.keep_dumps,
            run=not args.no_run,
        )

    run_net_magic(
        shell, line, "%ascend_trace", parse_line, call, (TraceError, TypeError, ValueError)
    )
    return None

"""What every ``%ascend_*`` magic does the same way: read its words, name its output,
evaluate the user's expressions and run a tool on a net, printing (never raising) bad input.

The features' magics (``%ascend_trace``, ``%ascend_profile``, ``%ascend_compare``, ...) share
these, so no feature imports another for them. Imports only i18n.
"""

import argparse
import shlex
from typing import Any, Callable, List, Tuple, Type

from ascend_lab.i18n import _, localize
from ascend_lab.i18n.magic_args import with_usage

__all__ = ["check_output_name", "evaluate", "run_net_magic", "split_words"]


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


def evaluate(shell: Any, expr: str) -> Any:
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
        net = evaluate(shell, args.net)
        inputs = [evaluate(shell, e) for e in args.inputs]
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

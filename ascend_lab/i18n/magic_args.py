"""Argument errors of the line magics (``%ascend_status``, ``%ascend_trace``, ...) in the
reader's language.

A magic parses its line with argparse, whose error messages come from Python's own
``argparse`` gettext domain (no Chinese ships with Python). :class:`MagicArgumentParser`
raises them as ``ValueError`` (a magic prints it; "Run All" goes on), translated through our
catalogue: the templates below are argparse's messages (Python 3.8 to 3.13) with ``{}`` for
each value, which :func:`ascend_lab.i18n.localize` matches the formatted message against.
The magics' usage lines (``%ascend_trace net x [--fusion] ...``) are syntax and stay as
they are; ``%magic?`` shows the English docstrings IPython reads from the code.
"""

import argparse
from typing import NoReturn, Optional

from ascend_lab.i18n import N_, _, localize

ARGPARSE_ERRORS = (
    N_("the following arguments are required: {}"),
    N_("unrecognized arguments: {}"),
    N_("argument {}: {}"),
    N_("invalid choice: {} (choose from {})"),
    N_("invalid {} value: {}"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("not allowed with argument {}"),
    N_("ignored explicit argument {}"),
    N_("one of the arguments {} is required"),
    N_("ambiguous option: {} could match {}"),
    # shlex.split's errors, for a line with an open quote or a trailing backslash
    N_("No closing quotation"),
    N_("No escaped character"),
)


def with_usage(message: str, usage: str) -> str:
    """``message``, then ``usage: <usage>`` on its own line."""
    return f"{message}\n{_('usage: ')}{usage}"


def usage_error(prog: str, message: str, usage: str) -> str:
    """One line: ``%ascend_status: <message>. Usage: <usage>`` (``message`` translated if it
    is one of ours or argparse's / shlex's)."""
    return _("{}: {}. Usage: {}").format(prog, localize(message), usage)


class MagicArgumentParser(argparse.ArgumentParser):
    """argparse for a line magic: no ``-h``, errors raised as ``ValueError`` in the reader's
    language (with the usage line under them when ``show_usage``), never ``SystemExit``."""

    def __init__(self, prog: str, usage: Optional[str] = None, show_usage: bool = False) -> None:
        super().__init__(prog=prog, usage=usage, add_help=False)
        self.show_usage = show_usage

    def error(self, message: str) -> NoReturn:
        text = localize(message)
        raise ValueError(with_usage(text, self.usage or "") if self.show_usage else text)

"""Argument errors of the line magics (``%ascend_status``, ``%ascend_trace``, ...) in the
reader's language.

A magic parses its line with argparse, whose error messages come from Python's own
``argparse`` gettext domain (no Chinese ships with Python). :class:`MagicArgumentParser`
raises them as ``ValueError`` (a magic prints it; "Run All" goes on), translated through our
catalogue: the templates below are argparse's messages (Python 3.8 to 3.13) with ``{}`` for
each value. argparse formats them in English before we see them (through its own gettext
domain), so :func:`argparse_text` finds which of these few templates a message was made from
and translates that: the one place a message is matched back to its template, and only
against argparse's and shlex's own messages (ours carry their template: :func:`msg`).
The magics' usage lines (``%ascend_trace net x [--fusion] ...``) are syntax and stay as
they are; ``%magic?`` shows the English docstrings IPython reads from the code.
"""

import argparse
from typing import List, NoReturn, Optional, Tuple

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


MAX_CHARS = 4000  # longer messages are shown as they are
MAX_DEPTH = 2  # "argument --port: invalid int value: 'abc'": a message inside a message


def split(text: str, pieces: Tuple[str, ...]) -> Optional[List[str]]:
    """The values that turn ``pieces`` (a template split at ``{}``) into ``text``: plain
    ``startswith`` / ``find`` from the left, linear in the text, no regular expression."""
    first, last = pieces[0], pieces[-1]
    if not text.startswith(first) or not text.endswith(last):
        return None
    end = len(text) - len(last)
    pos = len(first)
    args: List[str] = []
    for piece in pieces[1:-1]:
        i = text.find(piece, pos, end)
        if i < 0:
            return None
        args.append(text[pos:i])
        pos = i + len(piece)
    if end < pos:
        return None
    args.append(text[pos:end])
    return args


# the most literal text first: the most specific template wins
_PIECES = sorted(
    ((tuple(t.split("{}")), t) for t in ARGPARSE_ERRORS),
    key=lambda p: -sum(len(x) for x in p[0]),
)


def argparse_text(message: str, depth: int = 0) -> str:
    """An error message of argparse or shlex in the current language (any other message
    through :func:`ascend_lab.i18n.localize`: a :func:`msg` by its template, a plain one
    looked up whole); a message none of them knows is shown as it is."""
    text = str(message)
    if depth > MAX_DEPTH or len(text) > MAX_CHARS:
        return localize(message)
    for pieces, template in _PIECES:
        args = split(text, pieces) if len(pieces) > 1 else None
        if args is not None:
            shown = [argparse_text(a, depth + 1) for a in args]
            try:
                return _(template).format(*shown)
            except (IndexError, KeyError, ValueError):  # a broken translation: English
                return text
    return localize(message)


def with_usage(message: str, usage: str) -> str:
    """``message``, then ``usage: <usage>`` on its own line."""
    return f"{message}\n{_('usage: ')}{usage}"


def usage_error(prog: str, message: str, usage: str) -> str:
    """One line: ``%ascend_status: <message>. Usage: <usage>`` (``message`` translated if it
    is one of ours or argparse's / shlex's)."""
    return _("{}: {}. Usage: {}").format(prog, argparse_text(message), usage)


class MagicArgumentParser(argparse.ArgumentParser):
    """argparse for a line magic: no ``-h``, errors raised as ``ValueError`` in the reader's
    language (with the usage line under them when ``show_usage``), never ``SystemExit``."""

    def __init__(self, prog: str, usage: Optional[str] = None, show_usage: bool = False) -> None:
        super().__init__(prog=prog, usage=usage, add_help=False)
        self.show_usage = show_usage

    def error(self, message: str) -> NoReturn:
        text = argparse_text(message)
        raise ValueError(with_usage(text, self.usage or "") if self.show_usage else text)

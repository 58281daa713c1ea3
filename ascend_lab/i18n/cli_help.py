"""``--help`` of the ``ascend-lab`` command line in the reader's language.

Help and description strings are written in English where the parsers are built; this
formatter shows them through the catalogue (:func:`ascend_lab.i18n.localize`) when the help
is printed, in the language of the enclosing :func:`ascend_lab.i18n.using` block.
``scripts/i18n_extract.py`` collects every ``help=`` / ``description=`` of the command's
parsers, so a new option without a translation fails the catalogue test.

argparse's own words ("usage:", "options", "show this help message and exit") come from
Python's ``argparse`` gettext domain, which ships no Chinese; the few that frame every help
page are in our catalogue too.
"""

import argparse
import re
import sys
from typing import Any, Iterable, List, NoReturn, Optional

from ascend_lab.i18n import N_, _, display_width, localize, normalize
from ascend_lab.i18n.magic_args import argparse_text

ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),  # Python 3.10+
    N_("optional arguments"),  # Python 3.8, 3.9
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
)


# A Chinese character (or full-width sign) on its own, a run of anything else but spaces,
# or one space: the pieces a line may break between.
_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_PIECE = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+| ")
_WIDE = re.compile(f"[{_CJK}]")
# a section title that ends in a Chinese character, then argparse's colon, alone on its line
_HEADING = re.compile(f"^([^\\n:]{{0,120}}[{_CJK}]):$", re.M)


def wrap(text: str, width: int) -> List[str]:
    """``text`` in lines of at most ``width`` terminal columns, breaking at spaces and between
    Chinese characters (textwrap counts characters and only breaks at spaces)."""
    lines: List[str] = []
    line, used = "", 0
    for piece in _PIECE.findall(" ".join(text.split())):
        size = display_width(piece)
        if piece != " " and used + size > width and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0
        if piece == " " and not line:
            continue
        line += piece
        used += size
    if line.strip():
        lines.append(line.rstrip())
    return lines


class LocalizedHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with help, descriptions and section titles translated, and
    Chinese text wrapped by terminal columns."""

    def _split_lines(self, text: str, width: int) -> List[str]:
        if not _WIDE.search(text):
            return super()._split_lines(text, width)
        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not _WIDE.search(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap(text, width - len(indent)))

    def _get_help_string(self, action: argparse.Action) -> Optional[str]:
        text = action.help
        return localize(text) if text and text is not argparse.SUPPRESS else text

    def add_text(self, text: Optional[str]) -> None:
        if text and text is not argparse.SUPPRESS:
            text = localize(text)
        super().add_text(text)

    def start_section(self, heading: Optional[str]) -> None:
        super().start_section(_(heading) if heading else heading)

    def format_help(self) -> str:
        # argparse ends each section's title with an ASCII colon; a Chinese title takes the
        # full-width one, as 用法： on the same page (zh review 2026-12-06)
        return _HEADING.sub("\\1：", super().format_help())

    def add_usage(
        self,
        usage: Optional[str],
        actions: Iterable[argparse.Action],
        groups: Iterable[Any],
        prefix: Optional[str] = None,
    ) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)


class LocalizedArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors (``ascend-lab view x --lang fr``) are in the
    reader's language: argparse's own messages through the catalogue
    (:mod:`.magic_args` lists their templates), then the same exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, _("{}: error: {}").format(self.prog, argparse_text(message)) + "\n")


def lang_in_argv(argv: List[str]) -> Optional[str]:
    """The language a command line asks for with ``--lang X`` / ``--lang=X`` (read before
    parsing, so ``--help`` anywhere on the line is shown in it); None if absent or unknown."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            return normalize(argv[i + 1][:64])
        if arg.startswith("--lang="):
            return normalize(arg[len("--lang=") :][:64])
    return None

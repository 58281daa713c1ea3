"""``%ascend_doctor`` (last exception), ``%ascend_doctor "text"``, ``%%ascend_doctor`` (cell).

``--lang zh`` shows it in Chinese; ``--env`` adds this machine's environment section to a
pasted text or cell (which may come from another machine: without ``--env`` it has none).

Returns the :class:`~ascend_lab.doctor.diagnosis.Diagnosis`; as the cell's result it shows
as HTML in notebooks and as text in terminal IPython. Does not import MindSpore.
"""

import argparse
import re
import sys
import traceback
from typing import Any, Optional, Tuple

from ascend_lab.doctor.diagnosis import Diagnosis, diagnose
from ascend_lab.doctor.intake import ENV_MAX_MB, limits_from_env, tail_note, tail_of_text
from ascend_lab.i18n import choose, language_argument, msg

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LANG = re.compile(r"\A\s*--lang(?:=|\s+)([A-Za-z_.@-]{1,40})(?:\s+|\Z)")
_ENV = re.compile(r"\A\s*--env(?:\s+|\Z)")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def last_exception_text(shell: Any) -> Optional[str]:
    """The formatted last exception of the session (with chained causes), or None."""
    value = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if value is not None:
        etype = type(value)
        tb = getattr(value, "__traceback__", None) or getattr(sys, "last_traceback", None)
        try:
            return "".join(traceback.format_exception(etype, value, tb))
        except Exception:
            return f"{etype.__name__}: {value}"
    structured = getattr(shell, "_last_traceback", None)
    if structured:
        return strip_ansi("\n".join(str(s) for s in structured))
    return None


def _unquote(line: str) -> str:
    line = line.strip()
    if len(line) >= 2 and line[0] == line[-1] and line[0] in "\"'":
        return line[1:-1]
    for q in ('"""', "'''"):
        if len(line) >= 6 and line.startswith(q) and line.endswith(q):
            return line[3:-3]
    return line


def parse(line: str, cell: Optional[str]) -> Tuple[str, Optional[str]]:
    """(source, text) for the magic's arguments; text None means the last exception."""
    if cell is not None:
        return "cell", cell
    text = _unquote(line or "")
    if text:
        return "text", text.replace("\\n", "\n")
    return "last exception", None


def split_lang(line: str) -> Tuple[Optional[str], str]:
    """``("zh", rest)`` for a line starting with ``--lang zh``; ``(None, line)`` otherwise."""
    m = _LANG.match(line or "")
    if m is None:
        return None, line
    return m.group(1), line[m.end() :]


def split_env(line: str) -> Tuple[bool, str]:
    """``(True, rest)`` for a line starting with ``--env``; ``(False, line)`` otherwise."""
    m = _ENV.match(line or "")
    if m is None:
        return False, line
    return True, line[m.end() :]


def split_options(line: str) -> Tuple[Optional[str], bool, str]:
    """``--lang X`` and ``--env`` at the start of the line, in either order."""
    lang, line = split_lang(line)
    env, line = split_env(line)
    if lang is None:
        lang, line = split_lang(line)
    return lang, env, line


def doctor_magic(shell: Any, line: str, cell: Optional[str] = None) -> Diagnosis:
    """The Diagnosis, shown in the language of ``--lang`` (else :func:`~ascend_lab.i18n.choose`)."""
    lang, env, line = split_options(line)
    diag = _diagnose(shell, line, cell, env)
    try:
        diag.lang = choose(language_argument(lang) if lang else None)
    except argparse.ArgumentTypeError as exc:  # shown in the default language, saying why
        diag.lang = choose()
        diag.notes.insert(0, msg("--lang: {}", exc))
    return diag


def _diagnose(shell: Any, line: str, cell: Optional[str], env: bool = False) -> Diagnosis:
    source, text = parse(line, cell)
    limits, notes = limits_from_env()
    if text is None:
        text = last_exception_text(shell)
        if text is None:
            notes.append(
                msg(
                    "No exception in this session yet: checked the environment only. "
                    'Pass an error text with `%ascend_doctor "..."` '
                    "or paste a log into a `%%ascend_doctor` cell."
                )
            )
            source = "environment"
    if text is not None:  # the same tail cap as `ascend-lab doctor`
        text, total, truncated = tail_of_text(text, limits.max_bytes)
        if truncated:
            notes.append(tail_note(source, total, limits.max_bytes, ENV_MAX_MB))
    here = env or source in ("last exception", "environment")  # this session's own error
    diag = diagnose(
        text,
        source=source,
        notes=notes,
        max_line_chars=limits.max_line_chars,
        environment_section=here,
    )
    # a graph compile failure: the analyze_fail.ir the traceback names, when it is here
    from ascend_lab.doctor.compile_failure import attach_compile_failure, compile_failure_from

    return attach_compile_failure(diag, compile_failure_from(text))

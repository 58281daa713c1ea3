"""Translate an English message made elsewhere (``f"NPU {n} chip {c} health is {h}"``) by
finding the catalogue template it was formatted from (``"NPU {} chip {} health is {}"``).

Status warnings and reasons are made as English strings (they travel as JSON between
processes, in report bundles and to the browser), so the view cannot ask them for their
template. Matching is plain ``str.startswith`` / ``str.find`` over the template's literal
pieces, leftmost first: linear in the text per template, no regular expressions.
"""

import gettext
from typing import Dict, List, Optional, Tuple

MAX_CHARS = 4000  # longer texts are shown as they are
MIN_LITERAL = 6  # templates with less fixed text are only used through msg()
MAX_DEPTH = 2  # a template's argument may itself be a translatable message, once or twice

_Template = Tuple[Tuple[str, ...], str]  # (literal pieces, msgstr)
_index: Dict[int, List[_Template]] = {}


def _templates(cat: gettext.NullTranslations) -> List[_Template]:
    key = id(cat)
    found = _index.get(key)
    if found is None:
        catalog = getattr(cat, "_catalog", {}) or {}
        found = []
        for msgid, msgstr in catalog.items():
            if not isinstance(msgid, str) or "{}" not in msgid or not msgstr:
                continue
            pieces = tuple(msgid.split("{}"))
            if sum(len(p) for p in pieces) >= MIN_LITERAL:  # "{} is {}" would match anything
                found.append((pieces, msgstr))
        # the most literal text first: the most specific template wins
        found.sort(key=lambda t: -sum(len(p) for p in t[0]))
        _index[key] = found
    return found


def split(text: str, pieces: Tuple[str, ...]) -> Optional[List[str]]:
    """The arguments that turn ``pieces`` (a template split at ``{}``) into ``text``."""
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


def translate_string(text: str, cat: gettext.NullTranslations, depth: int = 0) -> str:
    """``text`` translated by ``cat``: whole, or as an instance of a template."""
    if not text.strip():  # gettext("") is the catalogue's header
        return text
    found = cat.gettext(text)
    if found is not text and found != text:
        return found
    if len(text) > MAX_CHARS or depth > MAX_DEPTH:
        return text
    for pieces, msgstr in _templates(cat):
        args = split(text, pieces)
        if args is None:
            continue
        args = [translate_string(a, cat, depth + 1) for a in args]
        try:
            return msgstr.format(*args)
        except (IndexError, KeyError, ValueError):
            return text
    return _by_sentence(text, cat, depth) if depth == 0 else text


def _by_sentence(text: str, cat: gettext.NullTranslations, depth: int) -> str:
    """Two messages joined into one ("X is not in the table. CANN Y pairs with Z.")."""
    start = 0
    for _ in range(4):
        i = text.find(". ", start)
        if i < 0:
            break
        head, tail = text[: i + 1], text[i + 1 :]  # an appended sentence keeps its space
        head_zh = translate_string(head, cat, depth + 1)
        tail_zh = translate_string(tail, cat, depth + 1)
        if tail_zh == tail:
            tail_zh = translate_string(tail[1:], cat, depth + 1)
        if head_zh != head and tail_zh not in (tail, tail[1:]):
            return head_zh + tail_zh
        start = i + 2
    return text

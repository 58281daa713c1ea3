"""The matcher: knowledge-base entries applied to a text. Pure: text in, findings out.

Two passes. First every entry's patterns are applied to the text as it is. Then the entries
that did not match are applied once more to the text *unwrapped*: every line break, with the
white space around it, made one space (:class:`Unwrapped`). The same error reaches a user
wrapped at column 72 or 80 (a forum post, a documentation page, a terminal copy), and a
rule's phrase must not depend on where the line broke. Patterns that speak about lines
(``(?m)``, ``^``, ``$``, a literal ``\n``) are not applied to the unwrapped text. A match
found only there is ranked below a match of the same priority found in the text as it is.
"""

import operator
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from ascend_lab.doctor.knowledge import Entry, load_entries

MAX_EVIDENCE_CHARS = 300
MAX_EVIDENCE_LINES = 3


@dataclass(frozen=True)
class Match:
    """One entry that matched: where, and which patterns."""

    entry: Entry
    evidence: Tuple[Tuple[int, str], ...]  # (1-based line number, line text), first = best
    patterns_matched: int
    first_offset: int
    detail: Optional[str] = None  # e.g. the operator name captured by a pattern's (?P<op>)
    unwrapped: bool = False  # matched only once line breaks were read as spaces
    generic: bool = False  # the entry is generic, or only its generic patterns matched

    @property
    def line(self) -> int:
        return self.evidence[0][0]

    @property
    def evidence_line(self) -> str:
        return self.evidence[0][1]


def _line_at(text: str, pos: int, anchor: Optional[int] = None) -> Tuple[int, str]:
    """The 1-based number and the text of the line holding character ``pos``.

    A line longer than MAX_EVIDENCE_CHARS is cut to a window around ``anchor`` (the start
    of the match, when it is on this line), marked with "…" where it was cut.
    """
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    if end < 0:
        end = len(text)
    raw = text[start:end]
    lead = len(raw) - len(raw.lstrip())
    line = raw.strip()
    if len(line) > MAX_EVIDENCE_CHARS:
        at = (anchor if anchor is not None and start <= anchor <= end else pos) - start - lead
        left = max(0, min(at - 60, len(line) - MAX_EVIDENCE_CHARS))
        window = line[left : left + MAX_EVIDENCE_CHARS - 2]
        line = ("…" if left > 0 else "") + window + ("…" if left + len(window) < len(line) else "")
    return text.count("\n", 0, start) + 1, line


# A run of white space that is not one plain space (nothing follows it: linear).
_RUN = re.compile(r"\s{2,}|[^\S ]")
# What launchers, loggers and tools put before every line of a program's output: torchrun's
# "[rank0]: ", mpirun's "[1,0]<stderr>:", Ray's "(RayWorker pid=48211) ", pytest's "E   ",
# a mail or forum quote's "> ", a logger's "2025-03-14 09:26:53,589 - ERROR - ".
_LINE_PREFIX = re.compile(
    r"(?:\[rank ?\d{1,6}\]:"
    r"|\[\d{1,6},\d{1,6}\]<std(?:out|err)>:"
    r"|\([\w.-]{1,60} pid=\d{1,10}(?:, ip=[\d.]{1,40})?\)"
    r"|E {2,4}"
    r"|>"
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,9})? - [A-Z]{3,8} -"
    r")[ \t]{0,4}"
)
_LINE_SYNTAX = re.compile(r"\(\?[a-z]*m|\^|\$|\\n")
# Quotes as they reach a user: straight in a terminal, double in another release's wording,
# curly in a forum post or a rendered page. Read as the straight single quote the rules use
# (one character for one: positions do not move).
_QUOTES = str.maketrans({'"': "'", "\u2018": "'", "\u2019": "'", "\u201c": "'", "\u201d": "'"})
_CHAR_CLASS = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")  # a character class: [^'\n], [\w.]
_READS_LINES: Dict[str, bool] = {}


class Unwrapped:
    """``text`` with every run of white space (a line break, an indent, a double space, a
    tab) made one space, a known log prefix at the start of a line left out
    (:data:`_LINE_PREFIX`), every quote mark a straight single quote (:data:`_QUOTES`), and
    the way back from a position in it to a position in ``text``. Linear in the text's
    length: each white space run is read once, each prefix once."""

    def __init__(self, text: str) -> None:
        parts: List[str] = []
        pos = self._after_prefix(text, 0)
        flat = 0
        self.starts: List[int] = [0]  # where each piece starts in the unwrapped text ...
        self.origins: List[int] = [pos]  # ... and in ``text``
        for m in _RUN.finditer(text):
            start = max(m.start(), pos)  # a run inside a prefix left out is left out too
            if start >= m.end():
                continue
            if start > pos or not parts or parts[-1] != " ":
                parts.append(text[pos:start])
                flat += start - pos
                parts.append(" ")
                flat += 1
            pos = m.end()
            if text.find("\n", start, pos) >= 0:
                pos = self._after_prefix(text, pos)
            self.starts.append(flat)
            self.origins.append(pos)
        parts.append(text[pos:])
        self.text = "".join(parts).translate(_QUOTES)
        self.lowered: Optional[str] = None

    @staticmethod
    def _after_prefix(text: str, pos: int) -> int:
        """Where the line starting at ``pos`` starts once a known log prefix is left out."""
        prefix = _LINE_PREFIX.match(text, pos)
        if not prefix:
            return pos
        pos = prefix.end()
        while pos < len(text) and text[pos] in " \t":  # the indent after a prefix
            pos += 1
        return pos

    def origin(self, flat_pos: int) -> int:
        """The position in the original text of position ``flat_pos`` of the unwrapped one
        (the joining space maps to the first white space character it replaced)."""
        k = bisect_right(self.starts, flat_pos) - 1
        return self.origins[k] + (flat_pos - self.starts[k])


_FOLDED: Dict[Tuple[str, int], Any] = {}


def _folded(pattern: Any) -> Any:
    """``pattern`` ignoring case (compiled once): another release capitalises differently."""
    key = (pattern.pattern, pattern.flags)
    found = _FOLDED.get(key)
    if found is None:
        found = _FOLDED[key] = re.compile(pattern.pattern, operator.or_(pattern.flags, re.I))
    return found


def lowered_where(unwrapped: "Unwrapped") -> str:
    """The unwrapped text in lower case (computed once)."""
    if unwrapped.lowered is None:
        unwrapped.lowered = unwrapped.text.lower()
    return unwrapped.lowered


_KEEPS_UNWRAPPED = re.compile(r"[\s'\"\u2018\u2019\u201c\u201d]")


_WORD = re.compile(r"\w+")
_KEYWORDS: Dict[str, Optional[str]] = {}


def text_words(lowered: str) -> "FrozenSet[str]":
    r"""The words (runs of ``\w``) of a lower-cased text, digits-only runs left out: an index
    that answers "can this literal occur?" without reading the text again (see
    :func:`_may_occur`). One pass over the text, however many literals are asked."""
    return frozenset(w for w in _WORD.findall(lowered) if not w.isdigit())


def _keyword(literal: str) -> Optional[str]:
    """The longest word inside ``literal``, lower-cased, with a non-word character on both
    sides within the literal: wherever the literal occurs, that word is a whole word of the
    text. None when there is none (a word at the literal's edge may be part of a longer
    word of the text). Kept per literal: the matcher asks for each on every text."""
    found = _KEYWORDS.get(literal, "")
    if found == "":
        lowered = literal.lower()
        inner = [
            m.group()
            for m in _WORD.finditer(lowered)
            if 0 < m.start() and m.end() < len(lowered) and not m.group().isdigit()
        ]
        found = _KEYWORDS[literal] = max(inner, key=len) if inner else None
    return found


def _may_occur(literal: str, words: "Optional[FrozenSet[str]]") -> bool:
    """False when ``literal`` cannot occur in the text whose :func:`text_words` is ``words``."""
    if words is None:
        return True
    key = _keyword(literal)
    return key is None or key in words


def _in_unwrapped(
    literal: str,
    unwrapped: "Unwrapped",
    lowered: Optional[str],
    words: "Optional[FrozenSet[str]]" = None,
) -> bool:
    """Whether lower-case ``literal`` occurs in the unwrapped text. A literal without white
    space or quote marks occurs there only if it occurs in the text as it is (unwrapping
    changes only white space, quotes and line prefixes, each after a line break), so when
    ``lowered`` (the text in lower case) lacks it, the unwrapped text is not searched. Its
    inner words are words of the text as it is either way (unwrapping joins no words)."""
    if not _may_occur(literal, words):
        return False
    if lowered is not None and not _KEEPS_UNWRAPPED.search(literal) and literal not in lowered:
        return False
    return literal in lowered_where(unwrapped)


def reads_lines(pattern: Any) -> bool:
    """Whether a pattern speaks about lines (it is then not applied to unwrapped text)."""
    source = getattr(pattern, "pattern", None)
    if not isinstance(source, str):
        return True  # a loop-body pattern: about lines of code
    found = _READS_LINES.get(source)
    if found is None:  # a class such as [^'\n] keeps a match on a line, but unwrapped is fine
        found = _READS_LINES[source] = bool(_LINE_SYNTAX.search(_CHAR_CLASS.sub("", source)))
    return found


def match_entry(
    entry: Entry,
    text: str,
    lowered: Optional[str] = None,
    unwrapped: Optional[Unwrapped] = None,
    words: "Optional[FrozenSet[str]]" = None,
) -> Optional[Match]:
    """Apply one entry to ``text``; None when none of its patterns occurs.

    ``lowered`` is ``text.lower()`` when the caller already has it (for the pre-checks,
    in both passes: :func:`_in_unwrapped`), and ``words`` its :func:`text_words`. With
    ``unwrapped`` (an :class:`Unwrapped` of ``text``) only the patterns that do not speak
    about lines are applied, to the unwrapped text and ignoring case; the evidence still
    points at lines of ``text``.
    """
    hits = []
    detail = None
    needles = entry.needles or (None,) * len(entry.patterns)
    where = text if unwrapped is None else unwrapped.text
    generic_only = True
    for index, (pattern, needle) in enumerate(zip(entry.patterns, needles)):
        if unwrapped is not None:
            if reads_lines(pattern):
                continue
            if needle is not None and not any(
                _in_unwrapped(lit.lower(), unwrapped, lowered, words) for lit in needle[0]
            ):
                continue
            pattern = _folded(pattern)  # compiled only for a pattern that may match
        elif needle is not None:
            literals, ignorecase = needle
            if ignorecase:
                if lowered is None:
                    lowered = where.lower()
                hay = lowered
            else:
                hay = where
            if not any(_may_occur(lit, words) and lit in hay for lit in literals):
                continue
        m = pattern.search(where)
        if m is None:
            continue
        # Evidence is the line where the match ends (a multi-line match, such as a loop
        # body containing .asnumpy(), points at its last line: the one that matters).
        first, last = m.start(), max(m.start(), m.end() - 1)
        if unwrapped is not None:
            first, last = unwrapped.origin(first), unwrapped.origin(last)
        hits.append((first, last))
        generic_only = generic_only and index in entry.generic_patterns
        if detail is None and "op" in pattern.groupindex and m.group("op"):
            detail = m.group("op")
    if not hits:
        return None
    hits.sort()
    evidence: List[Tuple[int, str]] = []
    for first, last in hits:
        item = _line_at(text, last, first)
        if item not in evidence:
            evidence.append(item)
        if len(evidence) >= MAX_EVIDENCE_LINES:
            break
    return Match(
        entry=entry,
        evidence=tuple(evidence),
        patterns_matched=len(hits),
        first_offset=hits[0][0],
        detail=detail,
        unwrapped=unwrapped is not None,
        generic=entry.generic or generic_only,
    )


def rank_key(m: Match) -> Tuple[int, int, int, int, int]:
    """Most specific first: entry priority, errors before pitfalls, a match in the text as
    it is before one found only unwrapped, more patterns, earlier."""
    return (
        -m.entry.priority,
        0 if m.entry.kind == "error" else 1,
        1 if m.unwrapped else 0,
        -m.patterns_matched,
        m.first_offset,
    )


def match_text(text: str, entries: Optional[Sequence[Entry]] = None) -> List[Match]:
    """All entries matching ``text``, ranked (most specific first)."""
    if entries is None:
        entries = load_entries()
    lowered = text.lower()
    words = text_words(lowered)
    found = []
    missed = []
    for e in entries:
        m = match_entry(e, text, lowered, words=words)
        if m is not None:
            found.append(m)
        else:
            missed.append(e)
    flat = Unwrapped(text) if missed else None
    if flat is not None:
        for e in missed:
            m = match_entry(e, text, lowered, unwrapped=flat, words=words)
            if m is not None:
                found.append(m)
    found.sort(key=rank_key)
    return found

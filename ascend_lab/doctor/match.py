"""The matcher: knowledge-base entries applied to a text. Pure: text in, findings out."""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

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


def match_entry(entry: Entry, text: str, lowered: Optional[str] = None) -> Optional[Match]:
    """Apply one entry to ``text``; None when none of its patterns occurs.

    ``lowered`` is ``text.lower()`` when the caller already has it (for the pre-checks).
    """
    hits = []
    detail = None
    needles = entry.needles or (None,) * len(entry.patterns)
    for pattern, needle in zip(entry.patterns, needles):
        if needle is not None:
            literal, ignorecase = needle
            if ignorecase:
                if lowered is None:
                    lowered = text.lower()
                if literal not in lowered:
                    continue
            elif literal not in text:
                continue
        m = pattern.search(text)
        if m is None:
            continue
        # Evidence is the line where the match ends (a multi-line match, such as a loop
        # body containing .asnumpy(), points at its last line: the one that matters).
        last = max(m.start(), m.end() - 1)
        hits.append((m.start(), last))
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
    )


def rank_key(m: Match) -> Tuple[int, int, int, int]:
    """Most specific first: entry priority, errors before pitfalls, more patterns, earlier."""
    return (
        -m.entry.priority,
        0 if m.entry.kind == "error" else 1,
        -m.patterns_matched,
        m.first_offset,
    )


def match_text(text: str, entries: Optional[Sequence[Entry]] = None) -> List[Match]:
    """All entries matching ``text``, ranked (most specific first)."""
    if entries is None:
        entries = load_entries()
    lowered = text.lower()
    found = [m for m in (match_entry(e, text, lowered) for e in entries) if m is not None]
    found.sort(key=rank_key)
    return found

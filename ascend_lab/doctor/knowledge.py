r"""Load and validate the knowledge base (``knowledge.json``): data, not code branches.

Each entry of ``knowledge.json`` is one troubleshooting rule::

    {
      "id": "device-busy",                      # stable, kebab-case
      "title": "The NPU is already in use ...",
      "term": "device occupied (设备被占用)",    # English term with the Chinese term
      "category": "device", "kind": "error",    # kind: "error" or "pitfall"
      "priority": 90,                           # higher = more specific, ranked first
      "patterns": ["because the device is used\\. ret is -8020", ...],  # Python regexes
      "cause": "...", "fix": ["concrete command or setting", ...], "explanation": "...",
      "confirm": "devices",                     # optional machine check: versions|env|devices|group
      "examples": ["real error text", ...],     # tests: each must be recognised, ranked first,
                                                # and together they must exercise every pattern
      "sources": ["where the example texts come from", ...]
    }

Patterns are searched over the whole text (use ``[^\\n]`` to stay on one line); a named
group ``(?P<op>...)`` is shown next to the title (e.g. the operator name).
"""

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Pattern, Tuple

KB_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "knowledge.json")
KB_FORMAT = "ascend-lab.doctor-kb/1"
KINDS = ("error", "pitfall")
CONFIRM_CHECKS = ("versions", "env", "devices", "group")
_REQUIRED: Tuple[str, ...] = ("id", "title", "term", "category", "kind", "priority")
_REQUIRED += ("patterns", "cause", "fix", "explanation", "examples")


try:  # the regex parser: re._parser on Python >= 3.11, sre_parse before
    import re._parser as _sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse as _sre_parse  # type: ignore[no-redef]

MIN_NEEDLE = 3


def required_literal(pattern: "Pattern[str]") -> Optional[Tuple[str, bool]]:
    """The longest literal text every match of ``pattern`` must contain, or None.

    Returns ``(text, ignorecase)``; with ``ignorecase`` the text is lower-case and must be
    looked for in the lower-cased input. Used only as a fast pre-check: a pattern whose
    needle is absent from the text cannot match, so the regex is not run at all.
    """
    try:
        parsed = _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # an unknown construct: no pre-check, the regex decides
        return None
    ignorecase = bool(pattern.flags & re.IGNORECASE)  # includes inline (?i)
    best = ""
    run: List[str] = []
    for op, arg in list(parsed):
        if op == _sre_parse.LITERAL:
            run.append(chr(arg))
            continue
        if len("".join(run)) > len(best):
            best = "".join(run)
        run = []
    if len("".join(run)) > len(best):
        best = "".join(run)
    if len(best) < MIN_NEEDLE:
        return None
    return (best.lower(), True) if ignorecase else (best, False)


class KnowledgeBaseError(ValueError):
    """The knowledge base file is malformed (message says which entry and why)."""


@dataclass(frozen=True)
class Entry:
    """One troubleshooting rule: patterns over error text -> cause, fix, explanation."""

    id: str
    title: str
    term: str  # English term with the Chinese term, e.g. "version mismatch (版本不匹配)"
    category: str
    kind: str  # "error" | "pitfall"
    priority: int  # higher = more specific; ranks findings when several entries match
    patterns: Tuple[Pattern[str], ...]
    cause: str
    fix: Tuple[str, ...]
    explanation: str
    examples: Tuple[str, ...]
    confirm: Optional[str] = None
    raw_patterns: Tuple[str, ...] = field(default=(), repr=False)
    needles: Tuple[Optional[Tuple[str, bool]], ...] = field(default=(), repr=False)


def parse_entries(doc: Any) -> List[Entry]:
    """Validate a parsed knowledge-base document and compile its patterns."""
    if not isinstance(doc, dict) or doc.get("format") != KB_FORMAT:
        raise KnowledgeBaseError("knowledge base must be an object with format " + KB_FORMAT)
    items = doc.get("entries")
    if not isinstance(items, list) or not items:
        raise KnowledgeBaseError("knowledge base has no entries")
    entries: List[Entry] = []
    seen: Dict[str, int] = {}
    for index, item in enumerate(items):
        where = f"entry {index}"
        if not isinstance(item, dict):
            raise KnowledgeBaseError(where + " is not an object")
        missing = [k for k in _REQUIRED if k not in item]
        if missing:
            raise KnowledgeBaseError(
                "{} ({}) lacks {}".format(where, item.get("id"), ", ".join(missing))
            )
        entry_id = item["id"]
        where = f"entry {entry_id!r}"
        if entry_id in seen:
            raise KnowledgeBaseError(where + " is defined twice")
        seen[entry_id] = index
        if item["kind"] not in KINDS:
            raise KnowledgeBaseError(where + ": kind must be one of " + ", ".join(KINDS))
        confirm = item.get("confirm")
        if confirm is not None and confirm not in CONFIRM_CHECKS:
            raise KnowledgeBaseError(where + f": unknown confirm check {confirm!r}")
        if not isinstance(item["priority"], int):
            raise KnowledgeBaseError(where + ": priority must be an integer")
        for key in ("patterns", "fix", "examples"):
            value = item[key]
            if (
                not isinstance(value, list)
                or not value
                or not all(isinstance(v, str) for v in value)
            ):
                raise KnowledgeBaseError(where + f": {key} must be a non-empty list of strings")
        compiled = []
        for pattern in item["patterns"]:
            try:
                compiled.append(re.compile(pattern))
            except re.error as exc:
                raise KnowledgeBaseError(f"{where}: bad pattern {pattern!r}: {exc}") from exc
        entries.append(
            Entry(
                id=entry_id,
                title=item["title"],
                term=item["term"],
                category=item["category"],
                kind=item["kind"],
                priority=item["priority"],
                patterns=tuple(compiled),
                cause=item["cause"],
                fix=tuple(item["fix"]),
                explanation=item["explanation"],
                examples=tuple(item["examples"]),
                confirm=confirm,
                raw_patterns=tuple(item["patterns"]),
                needles=tuple(required_literal(p) for p in compiled),
            )
        )
    return entries


_cache: Optional[List[Entry]] = None


def load_entries(path: Optional[str] = None) -> List[Entry]:
    """The knowledge base entries (the packaged file by default; cached)."""
    global _cache
    if path is None and _cache is not None:
        return _cache
    with open(path or KB_PATH, encoding="utf-8") as f:
        entries = parse_entries(json.load(f))
    if path is None:
        _cache = entries
    return entries

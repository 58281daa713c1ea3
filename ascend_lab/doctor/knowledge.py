r"""Load and validate the knowledge base (``knowledge/*.json``): data, not code branches.

The base is one JSON file per category (``knowledge/graph.json``, ``knowledge/distributed.json``
...), each ``{"format": KB_FORMAT, "category": name, "entries": [...]}``; the loader reads them
in name order as one list (:func:`read_knowledge`), and an entry's ``category`` must be its
file's. Each entry is one troubleshooting rule::

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
      "sources": ["where the example texts come from", ...],
      "topics": ["oom-device"],                 # optional: what the failure is, in the closed
                                                # vocabulary of topics.json (shared with the
                                                # real-error corpus that measures the doctor)
      "zh": {"title": "...", "term": "...", "cause": "...", "fix": [...], "explanation": "..."},
      "generic": true,                          # optional: the rule reads a line that any
                                                # failure prints on its way up (a wrapper)
      "consequence": true,                      # optional: the failure usually follows another
                                                # one (a collective timeout after a rank died)
      "generic_patterns": ["E39999: Inner Error"]  # optional: patterns (of "patterns") that
                                                # alone are generic: a match by these only
                                                # ranks as a generic one
    }

How ``generic`` and ``consequence`` rank findings: :func:`.diagnosis.order_findings`.

``zh`` is the entry's Chinese text (shown when the language is Chinese: :mod:`ascend_lab.i18n`).
It lives beside the English so an entry stays one piece of data that a contributor edits in
one place; the loader checks it has every field, one fix step per English step, and the same
`code` spans in each step (commands are not translated).

Patterns are searched over the whole text (use ``[^\\n]{0,N}`` to stay on one line); a named
group ``(?P<op>...)`` is shown next to the title (e.g. the operator name). A pattern
``{"in_loop_body": regex}`` matches a line inside the body of a ``for``/``while`` loop
(:mod:`.loops`). Every regex must run in linear time: the loader refuses back-references,
repeats inside repeats and unbounded repeats of ``.``/``[^...]``/``\S``
(:func:`.pattern_text.backtracking_risks`).
"""

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Pattern, Tuple, Union

from ascend_lab.doctor.loops import LoopBodyPattern
from ascend_lab.doctor.pattern_text import backtracking_risks, required_literals
from ascend_lab.errors import AscendLabError

KB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "knowledge")
TOPICS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "topics.json")
KB_FORMAT = "ascend-lab.doctor-kb/1"
KINDS = ("error", "pitfall")
CONFIRM_CHECKS = ("versions", "env", "devices", "group")
_REQUIRED: Tuple[str, ...] = ("id", "title", "term", "category", "kind", "priority")
_REQUIRED += ("patterns", "cause", "fix", "explanation", "examples")
TRANSLATED = ("title", "term", "cause", "fix", "explanation")
LANGUAGE_KEYS = {"zh": "zh_CN"}  # key in an entry -> language code of ascend_lab.i18n
_CODE = re.compile(r"`[^`]{1,500}`")


class KnowledgeBaseError(AscendLabError, ValueError):
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
    patterns: Tuple[Union[Pattern[str], LoopBodyPattern], ...]
    cause: str
    fix: Tuple[str, ...]
    explanation: str
    examples: Tuple[str, ...]
    confirm: Optional[str] = None
    raw_patterns: Tuple[str, ...] = field(default=(), repr=False)
    # per pattern: literals of which every match holds one (lower-case when the bool says
    # so), or None (:func:`.pattern_text.required_literals`)
    needles: Tuple[Optional[Tuple[Tuple[str, ...], bool]], ...] = field(default=(), repr=False)
    translations: Tuple[Tuple[str, Any], ...] = field(default=(), repr=False)  # (lang, texts)
    topics: Tuple[str, ...] = ()  # what the failure is (topics.json); first = the main one
    generic: bool = False  # matches a wrapper line any failure prints ("Call aclnnX failed")
    consequence: bool = False  # usually follows another failure (a timeout after a crash)
    generic_patterns: Tuple[int, ...] = ()  # indices of patterns that alone are generic

    def text(self, name: str, lang: str = "en") -> Any:
        """Field ``name`` (title, term, cause, fix, explanation) in ``lang``, else English."""
        for code, texts in self.translations:
            if code == lang:
                value = texts[name]
                return tuple(value) if name == "fix" else value
        return getattr(self, name)


def compile_pattern(spec: Any, where: str) -> "Union[Pattern[str], LoopBodyPattern]":
    """A knowledge-base pattern: a regex string, or ``{"in_loop_body": regex}``.

    Refuses a regex that could make ``re.search`` super-linear (see
    :func:`~.pattern_text.backtracking_risks`): the doctor runs on pasted logs and scripts.
    """
    in_loop = isinstance(spec, dict) and set(spec) == {"in_loop_body"}
    source = spec["in_loop_body"] if in_loop else spec
    if not isinstance(source, str):
        raise KnowledgeBaseError(
            f'{where}: a pattern is a regex string or {{"in_loop_body": regex}}, got {spec!r}'
        )
    try:
        regex = re.compile(source)
    except re.error as exc:
        raise KnowledgeBaseError(f"{where}: bad pattern {source!r}: {exc}") from exc
    risks = backtracking_risks(source)
    if risks:
        raise KnowledgeBaseError(
            f"{where}: pattern {source!r} can backtrack on long input: " + "; ".join(risks)
        )
    return LoopBodyPattern(regex) if in_loop else regex


def _needle(pattern: Any) -> Optional[Tuple[Tuple[str, ...], bool]]:
    return required_literals(getattr(pattern, "line_regex", pattern))


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
        for key in ("fix", "examples"):
            value = item[key]
            if (
                not isinstance(value, list)
                or not value
                or not all(isinstance(v, str) for v in value)
            ):
                raise KnowledgeBaseError(where + f": {key} must be a non-empty list of strings")
        if not isinstance(item["patterns"], list) or not item["patterns"]:
            raise KnowledgeBaseError(where + ": patterns must be a non-empty list")
        compiled = [compile_pattern(pattern, where) for pattern in item["patterns"]]
        topics = item.get("topics", [])
        unknown = [t for t in topics if not isinstance(t, str) or t not in known_topics()]
        if not isinstance(topics, list) or unknown:
            raise KnowledgeBaseError(where + f": unknown topics {unknown!r} (see topics.json)")
        flags = {k: item.get(k, False) for k in ("generic", "consequence")}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise KnowledgeBaseError(where + ": generic and consequence must be true or false")
        generic_patterns = item.get("generic_patterns", [])
        if not isinstance(generic_patterns, list) or any(
            p not in item["patterns"] for p in generic_patterns
        ):
            raise KnowledgeBaseError(where + ": generic_patterns must be some of its patterns")
        translations = tuple(
            (code, _translation(item, key, where))
            for key, code in LANGUAGE_KEYS.items()
            if key in item
        )
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
                raw_patterns=tuple(p.pattern for p in compiled),
                needles=tuple(_needle(p) for p in compiled),
                translations=translations,
                topics=tuple(topics),
                generic=flags["generic"],
                consequence=flags["consequence"],
                generic_patterns=tuple(
                    i for i, p in enumerate(item["patterns"]) if p in generic_patterns
                ),
            )
        )
    return entries


def _translation(item: Dict[str, Any], key: str, where: str) -> Dict[str, Any]:
    """An entry's text in another language, checked against its English."""
    texts = item[key]
    where = f"{where} ({key})"
    if not isinstance(texts, dict) or set(texts) != set(TRANSLATED):
        raise KnowledgeBaseError(where + ": needs exactly " + ", ".join(TRANSLATED))
    for name in TRANSLATED:
        value, english = texts[name], item[name]
        if name == "fix":
            if not isinstance(value, list) or len(value) != len(english):
                raise KnowledgeBaseError(where + ": fix needs one step per English step")
            pairs = list(zip(value, english))
        else:
            pairs = [(value, english)]
        for text, source in pairs:
            if not isinstance(text, str) or not text.strip():
                raise KnowledgeBaseError(where + f": {name} must be a non-empty string")
            if sorted(_CODE.findall(text)) != sorted(_CODE.findall(source)):
                raise KnowledgeBaseError(
                    where + f": {name} must keep the English `code` spans as they are: {text!r}"
                )
    return dict(texts)


_topics: Optional[Dict[str, str]] = None


def known_topics() -> Dict[str, str]:
    """The closed vocabulary of what a failure is: topic -> one-line meaning (topics.json)."""
    global _topics
    if _topics is None:
        with open(TOPICS_PATH, encoding="utf-8") as f:
            _topics = dict(json.load(f)["topics"])
    return _topics


_cache: Optional[List[Entry]] = None


def knowledge_files(folder: str = KB_DIR) -> List[str]:
    """The knowledge base's files, in the order they are read (by name)."""
    return [
        os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".json")
    ]


def read_knowledge(folder: str = KB_DIR) -> Dict[str, Any]:
    """The knowledge base's files as one document ``{"format", "entries"}`` (not validated:
    :func:`parse_entries` does that). A file's entries must carry its category."""
    entries: List[Any] = []
    for path in knowledge_files(folder):
        with open(path, encoding="utf-8") as f:
            part = json.load(f)
        name = os.path.basename(path)
        if not isinstance(part, dict) or part.get("format") != KB_FORMAT:
            raise KnowledgeBaseError(f"{name} must be an object with format {KB_FORMAT}")
        category = part.get("category")
        items = part.get("entries")
        if not isinstance(items, list):
            raise KnowledgeBaseError(f"{name} has no list of entries")
        for item in items:
            if isinstance(item, dict) and item.get("category") != category:
                raise KnowledgeBaseError(
                    f"{name}: entry {item.get('id')!r} has category "
                    f"{item.get('category')!r}, the file {category!r}"
                )
        entries.extend(items)
    return {"format": KB_FORMAT, "entries": entries}


def load_entries(folder: Optional[str] = None) -> List[Entry]:
    """The knowledge base entries (the packaged folder by default; cached)."""
    global _cache
    if folder is None and _cache is not None:
        return _cache
    entries = parse_entries(read_knowledge(folder or KB_DIR))
    if folder is None:
        _cache = entries
    return entries

r"""Reading a knowledge-base regex's source: its required literal and its backtracking risk.

No private ``re`` parser: a small tokenizer for the regex syntax the knowledge base uses.
It is conservative both ways: an unknown construct gives no pre-check literal (the regex
then always runs) and counts as a risk (the knowledge base refuses the pattern).

Why the rules in :func:`backtracking_risks` keep ``re.search`` linear: a search tries every
start position, and each try costs as much as the text the pattern can walk over from
there. Bounded "wide" repeats (``[^\n]{0,80}``) cap that walk; unbounded repeats are left
only for narrow classes (``\w+``, ``\s*``), whose runs end at the next character outside the
class; a repeat inside a repeat, or a back-reference, can multiply the ways to match a line
and is refused outright.
"""

import re
from functools import lru_cache
from typing import List, NamedTuple, Optional, Tuple

from ascend_lab.errors import AscendLabError

MIN_NEEDLE = 3  # shorter literals are too common to be worth a pre-check
MAX_WIDE_REPEAT = 1000  # longest walk allowed for ".", "[^...]", "\S", "\D", "\W"

_REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_NARROW_ESCAPES = "dws"
_WIDE_ESCAPES = "DWS"
_ANCHOR_ESCAPES = "bBAZ"
_NAMED_GROUP = re.compile(r"\?P<\w{1,100}>")
_FLAGS_ONLY = re.compile(r"\?[aiLmsux]{1,7}\)")
_CODE_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|0[0-7]{0,2})")
_SCOPED_FLAGS = re.compile(r"\?[aiLmsux]{0,7}(?:-[imsx]{1,4})?:")


class Item(NamedTuple):
    """One regex element with its repeat count (``high`` None: unbounded)."""

    kind: str  # char | class | escape | any | anchor | group | backref | bar | other
    text: str  # the character for "char"; the source otherwise
    low: int = 1
    high: Optional[int] = 1
    inner: Tuple["Item", ...] = ()  # a group's items
    wide: bool = False  # matches almost anything: ".", "[^...]", \S, \D, \W


class PatternSyntaxUnknown(AscendLabError, ValueError):
    """The tokenizer does not know a construct used by the pattern."""


def _class_end(source: str, i: int) -> int:
    j = i + 1
    if source[j : j + 1] == "^":
        j += 1
    if source[j : j + 1] == "]":  # a leading ']' is a member
        j += 1
    while j < len(source):
        if source[j] == "\\":
            j += 2
        elif source[j] == "]":
            return j + 1
        else:
            j += 1
    raise PatternSyntaxUnknown("unclosed character class")


def _group_end(source: str, i: int) -> int:
    depth = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = _class_end(source, i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise PatternSyntaxUnknown("unbalanced parenthesis")


def _escape(source: str, i: int) -> Tuple[Item, int]:
    nxt = source[i + 1 : i + 2]
    if not nxt:
        raise PatternSyntaxUnknown("trailing backslash")
    if not nxt.isalnum():
        return Item("char", nxt), i + 2
    if nxt in _CHAR_ESCAPES:
        return Item("char", _CHAR_ESCAPES[nxt]), i + 2
    if nxt in _NARROW_ESCAPES or nxt in _WIDE_ESCAPES:
        return Item("escape", "\\" + nxt, wide=nxt in _WIDE_ESCAPES), i + 2
    if nxt in _ANCHOR_ESCAPES:
        return Item("anchor", "\\" + nxt), i + 2
    if nxt in "123456789":
        return Item("backref", "\\" + nxt), i + 2
    m = _CODE_ESCAPE.match(source, i)
    if m is not None:  # \x1b, \u00e9, \U0001f600, \0
        digits = m.group(0)[2:] or "0"
        return Item("char", chr(int(digits, 8 if nxt == "0" else 16))), m.end()
    raise PatternSyntaxUnknown("escape \\" + nxt)


def _group(source: str, i: int) -> Tuple[Item, int]:
    end = _group_end(source, i)
    body = source[i + 1 : end - 1]
    if not body.startswith("?"):
        return Item("group", source[i:end], inner=tokenize(body)), end
    m = _NAMED_GROUP.match(body) or _SCOPED_FLAGS.match(body)
    if m is not None:
        return Item("group", source[i:end], inner=tokenize(body[m.end() :])), end
    if _FLAGS_ONLY.match(body + ")"):
        return Item("anchor", source[i:end]), end  # global flags: match nothing
    if body.startswith("?P="):
        return Item("backref", source[i:end]), end
    for look in ("?=", "?!", "?<=", "?<!"):
        if body.startswith(look):
            return Item("anchor", source[i:end], inner=tokenize(body[len(look) :])), end
    raise PatternSyntaxUnknown("group " + source[i:end][:20])


def _repeat(source: str, i: int) -> Optional[Tuple[int, Optional[int], int]]:
    """(low, high, end) of a repeat at ``i``, or None when there is none."""
    ch = source[i : i + 1]
    high: Optional[int]
    if ch in ("*", "+", "?"):
        low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
        end = i + 1
    else:
        m = _REPEAT.match(source, i) if ch == "{" else None
        if m is None:
            return None
        low = int(m.group(1) or 0)
        most = m.group(2)  # None: "{m}"; "": "{m,}"
        high = low if most is None else (int(most) if most else None)
        end = m.end()
    if source[end : end + 1] in ("?", "+"):  # lazy or possessive
        end += 1
    return low, high, end


@lru_cache(maxsize=None)
def tokenize(source: str) -> Tuple[Item, ...]:
    """The items of ``source`` (one level; groups carry their own items). Kept per source:
    the loader asks for each pattern's risks and its literals."""
    items: List[Item] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            item, i = _escape(source, i)
        elif ch == "(":
            item, i = _group(source, i)
        elif ch == "[":
            end = _class_end(source, i)
            wide = source[i + 1 : i + 2] == "^"
            item, i = Item("class", source[i:end], wide=wide), end
        elif ch == ".":
            item, i = Item("any", ".", wide=True), i + 1
        elif ch in "^$":
            item, i = Item("anchor", ch), i + 1
        elif ch == "|":
            item, i = Item("bar", ch), i + 1
        elif ch in "*+?" or (ch == "{" and _REPEAT.match(source, i)):
            raise PatternSyntaxUnknown(f"repeat of nothing at {i}")
        elif ch == ")":
            raise PatternSyntaxUnknown("unbalanced parenthesis")
        else:
            item, i = Item("char", ch), i + 1
        rep = _repeat(source, i)
        if rep is not None:
            low, high, i = rep
            item = item._replace(low=low, high=high)
        items.append(item)
    return tuple(items)


def required_literal(pattern: "re.Pattern[str]") -> Optional[Tuple[str, bool]]:
    """The longest literal text every match of ``pattern`` must contain, or None.

    Returns ``(text, ignorecase)``; with ``ignorecase`` the text is lower-case and must be
    looked for in the lower-cased input. Used only as a fast pre-check: a pattern whose
    needle is absent from the text cannot match, so the regex is not run at all.
    """
    if pattern.flags & re.VERBOSE:  # spaces would not count
        return None
    try:
        items = tokenize(pattern.pattern)
    except PatternSyntaxUnknown:
        return None
    if any(item.kind == "bar" for item in items):  # top-level alternation
        return None
    best = _longest_run(items)
    if len(best) < MIN_NEEDLE:
        return None
    if pattern.flags & re.IGNORECASE:  # includes inline (?i)
        return best.lower(), True
    return best, False


MAX_NEEDLES = 24  # more alternatives than this: the regex is cheaper than the pre-check
_SCOPED_IGNORECASE = re.compile(r"\(\?[aiLmsux]{0,6}i")


def required_literals(pattern: "re.Pattern[str]") -> Optional[Tuple[Tuple[str, ...], bool]]:
    """Literals of which every match of ``pattern`` contains at least one, or None.

    Alternations are read at every level: ``A|B`` needs a literal from each branch, and a
    sequence needs its longest literal run or what one of its required groups needs,
    whichever gives the longer shortest literal (so ``\bEZ(?:9999|1001)`` gives "9999" and
    "1001"). None when a branch has no literal of :data:`MIN_NEEDLE` characters. With a
    case-insensitive pattern, or one with a ``(?i:...)`` group, the literals are lower-case
    and must be looked for in the lower-cased input (lowering keeps the check sound for the
    case-sensitive parts too)."""
    if pattern.flags & re.VERBOSE:
        return None
    try:
        found = _alternatives(tokenize(pattern.pattern))
    except PatternSyntaxUnknown:
        return None
    if found is None:
        return None
    if pattern.flags & re.IGNORECASE or _SCOPED_IGNORECASE.search(pattern.pattern):
        return tuple(dict.fromkeys(f.lower() for f in found)), True
    return found, False


def _alternatives(items: Tuple[Item, ...]) -> Optional[Tuple[str, ...]]:
    """What every match of ``items`` (which may hold ``|``) contains one of, or None."""
    branches: List[List[Item]] = [[]]
    for item in items:
        if item.kind == "bar":
            branches.append([])
        else:
            branches[-1].append(item)
    found: List[str] = []
    for branch in branches:
        needs = _sequence_needs(tuple(branch))
        if needs is None:
            return None
        found.extend(needs)
    unique = tuple(dict.fromkeys(found))
    return unique if len(unique) <= MAX_NEEDLES else None


def _sequence_needs(items: Tuple[Item, ...]) -> Optional[Tuple[str, ...]]:
    """The best requirement of a sequence without ``|``: a run of literal text (where a
    group of literal alternatives multiplies the run: ``EZ(?:9999|1001)``), or the
    requirement of a group it must match at least once."""
    best: Optional[Tuple[str, ...]] = None
    for run in _literal_runs(items):
        if min(len(r) for r in run) >= MIN_NEEDLE and (
            best is None or _strength(run) > _strength(best)
        ):
            best = run
    for item in items:
        if item.kind != "group" or item.low < 1:
            continue
        needs = _alternatives(item.inner)
        if needs is not None and (best is None or _strength(needs) > _strength(best)):
            best = needs
    return best


def _literal_runs(items: Tuple[Item, ...]) -> List[Tuple[str, ...]]:
    """Each stretch of ``items`` that is literal text, as the set of strings it can be."""
    runs: List[Tuple[str, ...]] = []
    current: Tuple[str, ...] = ("",)
    for item in items + (Item("anchor", ""),):
        choices = _literal_choices(item) if item.low >= 1 else None
        if choices is not None and len(current) * len(choices) <= MAX_NEEDLES:
            current = tuple(c + x for c in current for x in choices)
            if item.high == 1:
                continue  # a repeated piece ends the run after its first copy
        if current != ("",):
            runs.append(current)
        current = ("",)
    return runs


def _literal_choices(item: Item) -> Optional[Tuple[str, ...]]:
    """The strings one copy of ``item`` can be, when it is literal text: a character, or a
    group whose branches are all plain characters (``(?:9999|1001)``)."""
    if item.kind == "char":
        return (item.text,)
    if item.kind != "group":
        return None
    choices = [""]
    for inner in item.inner:
        if inner.kind == "bar":
            choices.append("")
        elif inner.kind == "char" and inner.low == inner.high == 1:
            choices[-1] += inner.text
        else:
            return None
    return tuple(choices) if all(choices) else None


def _strength(needs: Tuple[str, ...]) -> Tuple[int, int]:
    """Longer shortest literal first, then fewer alternatives."""
    return min(len(n) for n in needs), -len(needs)


def _longest_run(items: Tuple[Item, ...]) -> str:
    """The longest run of literal characters every match of ``items`` must contain."""
    best = ""
    run: List[str] = []
    for item in items + (Item("anchor", ""),):
        if item.kind == "char" and item.low >= 1:
            run.append(item.text)
            if item.high == 1:
                continue  # a repeated character ends the run after its first copy
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best


def _repeats(item: Item) -> bool:
    return item.high is None or item.high > 1


def _contains_repeat(items: Tuple[Item, ...]) -> bool:
    return any(_repeats(item) or _contains_repeat(item.inner) for item in items)


def backtracking_risks(source: str) -> List[str]:
    """Why ``re.search`` with this pattern might not run in linear time (empty: it does)."""
    try:
        items = tokenize(source)
    except PatternSyntaxUnknown as exc:
        return [f"{exc}: not a construct the knowledge base can check"]
    risks: List[str] = []
    _collect_risks(items, risks)
    return risks


def _collect_risks(items: Tuple[Item, ...], risks: List[str]) -> None:
    for item in items:
        if item.kind == "backref":
            risks.append(f"back-reference {item.text}")
        if _repeats(item) and _contains_repeat(item.inner):
            risks.append(f"repeat inside a repeat: {item.text}")
        if item.wide and item.high is None:
            risks.append(f"unbounded repeat of {item.text}: bound it, e.g. {{0,200}}")
        elif item.wide and item.high is not None and item.high > MAX_WIDE_REPEAT:
            risks.append(f"repeat of {item.text} up to {item.high} (at most {MAX_WIDE_REPEAT})")
        _collect_risks(item.inner, risks)

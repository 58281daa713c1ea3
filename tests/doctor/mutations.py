"""Seeded variants of a real error text that keep its meaning (for generalization measures).

A rule that reads only the sentence it was written from is memorised, not general: the same
failure reaches a user with another user's paths, other shapes, numbers, dtypes and operator
names, another release's version strings, other quote marks, a log prefix on every line
(torch's ``[rank0]:``, a logger's timestamp, mpirun's ``[1,0]<stderr>:``), Windows line
ends, lines wrapped at column 72-100, words capitalised another way, doubled spaces, or
inside a longer traceback. :func:`mutants` makes such variants of a text; the error codes
in it (``EI0004``, ``507035``, ``0x...``, the number after ``ret``/``code``/``errno``) are
kept, since a code is part of the meaning.

Pure functions of (text, seed): the same seed gives the same variants.
"""

import random
import re
from typing import Callable, Dict, List, Sequence, Tuple

NAMES = ("alice", "zhang_wei", "ma-user", "w00512345", "HwHiAiUser", "dev1")
DTYPES = (
    ("Float32", "Float16"),
    ("float32", "bfloat16"),
    ("Float16", "BFloat16"),
    ("float16", "float32"),
    ("Int64", "Int32"),
    ("int64", "int32"),
)
OPS = (
    "MatMul",
    "BatchMatMul",
    "Conv2D",
    "ReduceSum",
    "Transpose",
    "Softmax",
    "LayerNorm",
    "Gather",
    "Concat",
    "FlashAttentionScore",
)
PREFIXES = (
    "[rank0]: ",
    "2025-03-14 09:26:53,589 - ERROR - ",
    "[1,0]<stderr>:",
    "(RayWorker pid=48211) ",
    "E   ",
    "  ",
    "> ",
)
CONTEXT_BEFORE = (
    "Traceback (most recent call last):\n"
    '  File "/home/{name}/project/train.py", line 87, in <module>\n'
    "    main()\n"
)
CONTEXT_AFTER = "\n[INFO] the job exited; see the log above\n"

# What may vary in a code example (a pitfall's source text): not its operators, dtypes (they
# are what the pitfall is about) nor log prefixes (a script has none).
CODE_MUTATORS = ("context", "crlf", "numbers", "paths", "versions")

# Digits that are (part of) a code: kept as they are.
_CODE = re.compile(
    r"0x[0-9A-Fa-f]+"
    r"|\b[A-Z]{1,3}[0-9]{4,6}\b"  # EI0004, EE9999, E40021
    r"|\b[0-9]{6}\b"  # ACL / runtime return codes (507035)
    r"|(?i:(?:ret(?:urn)?|code|errno|error|status|result|signal|rc)\b[^0-9\n]{0,12})"
    r"-?(?:0x[0-9A-Fa-f]+|[0-9]+)"
    r"|(?i:(?:failed|execution)\()-?[0-9]+\)"  # a status in parentheses: NNAdapter's failed(5)
)
_NUMBER = re.compile(r"(?<![0-9A-Za-z_.])[0-9]{1,5}(?![0-9A-Za-z_])|(?<![0-9])[0-9]{7,}")
_VERSION = re.compile(r"\b([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{1,2})(?:\.?(rc|RC|alpha|beta)[0-9])?")
_HOME = re.compile(r"/(home|Users)/[A-Za-z0-9_.-]+|/root(?=/)")


def _protected_spans(text: str) -> List[Tuple[int, int]]:
    return [m.span() for m in _CODE.finditer(text)] + [m.span() for m in _VERSION.finditer(text)]


def _outside(spans: List[Tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= a or start >= b for a, b in spans)


def numbers(text: str, rng: random.Random) -> str:
    """Other shapes, sizes, ids, line numbers and timestamps (codes and versions kept)."""
    spans = _protected_spans(text)

    def repl(m: "re.Match[str]") -> str:
        if not _outside(spans, m.start(), m.end()):
            return m.group(0)
        n = len(m.group(0))
        if n == 1:  # 0 and 1 often carry meaning: "(1,)", "mode=1", "with 1 operator"
            keep = m.group(0) in "01" or text[m.start() - 1 : m.start()] == "-"  # shape2[-2]
            return m.group(0) if keep else str(rng.randint(2, 9))
        return str(rng.randint(10 ** (n - 1), 10**n - 1))

    return _NUMBER.sub(repl, text)


def versions(text: str, rng: random.Random) -> str:
    """Another release's version strings (2.3.1 -> 2.5.0, 8.0.RC2 kept in its form)."""
    spans = [m.span() for m in _CODE.finditer(text)]

    def repl(m: "re.Match[str]") -> str:
        if not _outside(spans, m.start(), m.end()):
            return m.group(0)
        major = int(m.group(1))
        out = f"{major}.{rng.randint(0, 9)}.{rng.randint(0, 3)}"
        return out + m.group(0)[m.end(3) - m.start(0) :]

    return _VERSION.sub(repl, text)


def paths(text: str, rng: random.Random) -> str:
    """Another user's home folder."""
    name = rng.choice(NAMES)
    return _HOME.sub(lambda m: f"/home/{name}", text)


def dtypes(text: str, rng: random.Random) -> str:
    """Other dtypes, in the spelling the text uses."""
    pairs = list(DTYPES)
    rng.shuffle(pairs)
    for a, b in pairs:
        if re.search(rf"\b{a}\b", text):
            return re.sub(rf"\b{a}\b", b, text)
    return text


def ops(text: str, rng: random.Random, keep: Tuple[str, ...] = ()) -> str:
    """Another operator's name where the text names a common one (not one in ``keep``)."""
    present = [op for op in OPS if op not in keep and re.search(rf"\b{op}\b", text)]
    if not present:
        return text
    old = rng.choice(present)
    new = rng.choice([op for op in OPS if op != old])
    return re.sub(rf"\b{old}\b", new, text)


def prefix(text: str, rng: random.Random) -> str:
    """A log prefix on every line (a launcher, a logger, pytest)."""
    p = rng.choice(PREFIXES)
    return "\n".join(p + line if line else line for line in text.split("\n"))


def wrap(text: str, rng: random.Random) -> str:
    """Long lines wrapped at a space near column 80 (a forum post, a terminal copy)."""
    width = rng.choice((72, 80, 100))
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            cut = line.rfind(" ", width // 2, width)
            if cut < 0:
                break
            out.append(line[:cut])
            line = line[cut + 1 :]
        out.append(line)
    return "\n".join(out)


def quotes(text: str, rng: random.Random) -> str:
    """Other quote marks: "double" (another release), ‘curly’ or “curly” (a forum, a page)."""
    left, right = rng.choice((('"', '"'), ("\u2018", "\u2019"), ("\u201c", "\u201d")))
    return re.sub(r"'([^'\n]{0,200})'", lambda m: left + m.group(1) + right, text)


def case(text: str, rng: random.Random) -> str:
    """A few words capitalised the other way (another release: "Failed to" / "failed to")."""
    words = [m for m in re.finditer(r"\b[A-Za-z][a-z]{3,}\b", text)]
    if not words:
        return text
    chosen = sorted(rng.sample(words, min(3, len(words))), key=lambda m: m.start())
    out, pos = [], 0
    for m in chosen:
        w = m.group(0)
        out += [text[pos : m.start()], w[0].swapcase() + w[1:]]
        pos = m.end()
    return "".join(out) + text[pos:]


def spacing(text: str, rng: random.Random) -> str:
    """A few spaces doubled or made tabs (a rendered page, column-aligned log fields)."""
    spaces = [m.start() for m in re.finditer(r"(?<=\S) (?=\S)", text)]
    if not spaces:
        return text
    out = list(text)
    for at in rng.sample(spaces, min(3, len(spaces))):
        out[at] = rng.choice(("  ", "\t", "   "))
    return "".join(out)


def crlf(text: str, rng: random.Random) -> str:
    """Windows line ends (a log copied from a Windows editor)."""
    return text.replace("\n", "\r\n")


def context(text: str, rng: random.Random) -> str:
    """The text inside a longer output: a traceback before it, a line after it."""
    return CONTEXT_BEFORE.format(name=rng.choice(NAMES)) + text + CONTEXT_AFTER


MUTATORS: Dict[str, Callable[..., str]] = {
    "numbers": numbers,
    "versions": versions,
    "paths": paths,
    "dtypes": dtypes,
    "ops": ops,
    "prefix": prefix,
    "crlf": crlf,
    "context": context,
    "wrap": wrap,
    "quotes": quotes,
    "case": case,
    "spacing": spacing,
}


def mutants(
    text: str,
    n: int,
    seed: int,
    keep: Tuple[str, ...] = (),
    names: Sequence[str] = tuple(MUTATORS),
) -> List[Tuple[str, str]]:
    """``n`` variants of ``text`` that differ from it: [(what changed, variant)].

    Each variant applies one to three of the mutators ``names`` (seeded); a combination that
    changes nothing is skipped, so fewer than ``n`` may come back for a text with little to
    vary. ``keep``: operator names that are the meaning (a rule about MatMul) and stay.
    """
    rng = random.Random(seed)
    names = sorted(names)
    out: List[Tuple[str, str]] = []
    seen = {text}
    for _ in range(n * 4):
        if len(out) >= n:
            break
        chosen = rng.sample(names, rng.randint(1, 3))
        variant = text
        for name in chosen:
            if name == "ops":
                variant = ops(variant, rng, keep)
            else:
                variant = MUTATORS[name](variant, rng)
        if variant not in seen:
            seen.add(variant)
            out.append(("+".join(sorted(chosen)), variant))
    return out

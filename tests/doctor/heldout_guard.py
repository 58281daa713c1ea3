"""Keep the held-out half of the real-error corpus unseen while rules are written.

    .venv/bin/python tests/doctor/heldout_guard.py FILE [FILE ...]

For each candidate text (a file someone wants to add as a dev case, or a snippet a rule is
about to be written from) prints ``clear`` or ``overlaps the held-out half``, and exits 1
when any overlaps. It never prints a held-out text, id, source or answer.

Two texts overlap when they are near copies (half of the shorter one's 48-character runs,
after whitespace is collapsed and case folded, are in the other), or when a documentation
snippet's lines (``doc_lines_overlap``) meet the lines a held-out case was copied from.
Used by ``scripts``/helpers that sweep documentation pages for error texts: those pages are
where part of the held-out half came from, so a sweep skips what the held-out half holds
and the held-out measure stays a measure of what the rules were not written from.
"""

import json
import os
import re
import sys
from typing import Dict, Iterable, List, Set, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(REPO, "tests", "fixtures", "real", "corpus")
WINDOW = 48
_SPACE = re.compile(r"\s+")
_LINES = re.compile(r"#L(\d+)(?:-L(\d+))?$")


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _windows(text: str) -> Set[str]:
    norm = _normal(text)
    if len(norm) <= WINDOW:
        return {norm} if norm else set()
    return {norm[i : i + WINDOW] for i in range(len(norm) - WINDOW + 1)}


def _heldout_cases() -> List[Dict]:
    with open(os.path.join(CORPUS, "manifest.json"), encoding="utf-8") as f:
        return [c for c in json.load(f)["cases"] if c["half"] == "heldout"]


_cases: List[Set[str]] = []


def _load() -> List[Set[str]]:
    if not _cases:
        for case in _heldout_cases():
            with open(os.path.join(CORPUS, case["file"]), encoding="utf-8") as f:
                _cases.append(_windows(f.read()))
    return _cases


def overlaps_heldout(text: str, share: float = 0.5) -> bool:
    """Whether ``text`` and a held-out case are near copies: at least ``share`` of the
    shorter one's 48-character runs are in the other. Lines every log has (a traceback's
    head, a site-packages path) are a small share of either, so they do not count."""
    mine = _windows(text)
    if not mine:
        return False
    for theirs in _load():
        if theirs and len(mine & theirs) >= share * min(len(mine), len(theirs)):
            return True
    return False


def heldout_doc_ranges() -> Dict[str, List[Tuple[int, int]]]:
    """Documentation path (inside its repository) -> line ranges held-out cases come from."""
    ranges: Dict[str, List[Tuple[int, int]]] = {}
    for case in _heldout_cases():
        url = case["source"].get("url", "")
        found = _LINES.search(url)
        if "/blob/" not in url or not found:
            continue
        path = url.split("/blob/", 1)[1].split("/", 1)[1].split("#", 1)[0]
        first = int(found.group(1))
        ranges.setdefault(path, []).append((first, int(found.group(2) or first)))
    return ranges


def doc_lines_overlap(path: str, first: int, last: int) -> bool:
    """Whether lines ``first``-``last`` of documentation file ``path`` (e.g.
    ``docs/mindspore/source_en/faq/network_compilation.md``) meet a held-out case's lines."""
    return any(a <= last and first <= b for a, b in heldout_doc_ranges().get(path, []))


def main(paths: Iterable[str]) -> int:
    status = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            hit = overlaps_heldout(f.read())
        print(f"{path}: {'overlaps the held-out half' if hit else 'clear'}")
        status |= hit
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Line-based scan for code inside the body of a ``for``/``while`` loop.

A knowledge-base pattern written ``{"in_loop_body": "<regex>"}`` matches a line that the
regex matches and that sits, by indentation, inside a loop. A single regex spanning a
loop header and its body needs a back-reference and nested repeats, which backtrack
exponentially on ordinary training scripts; this scan reads each line once (linear time)
and runs the per-line regex only on body lines.
"""

import re
from typing import Dict, List, Optional, Pattern

_TAB = 8  # Python's tab stops


def _indent_width(line: str) -> int:
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += _TAB - width % _TAB
        elif ch in "\f\r":
            continue
        else:
            break
    return width


def _is_loop_header(code: str) -> bool:
    """``code`` (a stripped line) opens a loop block: ``for``/``while`` ... ``:``."""
    if code.startswith("async "):
        code = code[6:].lstrip()
    for keyword in ("for", "while"):
        if code.startswith(keyword):
            rest = code[len(keyword) :]
            if rest[:1] in (" ", "\t", "(", "["):
                break
    else:
        return False
    head = code.split("#", 1)[0].rstrip()  # a trailing comment; '#' in strings is rare here
    return head.endswith(":")


class LoopBodyPattern:
    """Searches like a compiled regex; matches ``line_regex`` only on lines inside a loop.

    ``search`` returns the ``re.Match`` of ``line_regex`` on the first such line (offsets
    in the whole text), so callers treat it as any other pattern's match.
    """

    def __init__(self, line_regex: "Pattern[str]") -> None:
        self.line_regex = line_regex
        self.pattern = "in_loop_body: " + line_regex.pattern
        self.flags = line_regex.flags
        self.groupindex: Dict[str, int] = dict(line_regex.groupindex)

    def search(self, text: str) -> "Optional[re.Match[str]]":
        loops: List[int] = []  # indent widths of the loop headers enclosing this line
        start = 0
        size = len(text)
        while start <= size:
            end = text.find("\n", start)
            if end < 0:
                end = size
            line = text[start:end]
            code = line.strip()
            if code and not code.startswith("#"):  # blank and comment lines end no block
                width = _indent_width(line)
                while loops and loops[-1] >= width:
                    loops.pop()
                if loops:
                    m = self.line_regex.search(text, start, end)
                    if m is not None:
                        return m
                if _is_loop_header(code):
                    loops.append(width)
            start = end + 1
        return None

    def __repr__(self) -> str:
        return f"LoopBodyPattern({self.line_regex.pattern!r})"

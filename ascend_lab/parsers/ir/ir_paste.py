"""IR text pasted into a doc or a bug report -> text the ``.ir`` parser reads, and what was
changed to get there (so the view can say the graph is partial).

What pastes look like (MindSpore's own tutorials do all of these):

- ``vi`` line numbers: ``  12   %1(CNode_3) = ...`` (a number right-aligned, one space, then
  the line as it was); a blank line is the number alone;
- ``...`` (or ``……``) lines where the writer left nodes out;
- no ``# IR entry: @<graph>`` header, and sometimes no ``subgraph @g() {`` block at all:
  bare node lines.

:func:`clean_pasted_ir` undoes these; it never runs on a real dump (one with its header at a
line start), so those parse exactly as before. Pure text in, text out; every regular
expression here is linear (no nested quantifiers).
"""

import re
import textwrap
from typing import Dict, List, Tuple

__all__ = [
    "clean_pasted_ir",
    "has_entry_header",
    "strip_paste_marks",
    "PASTED_GRAPH",
    "PARTIAL_ATTR",
]

ENTRY_PREFIX = "# IR entry: @"
PASTED_GRAPH = "pasted"  # the name of the block wrapped around bare node lines
PARTIAL_ATTR = "partial"  # Graph.attrs key: what was missing from a pasted text

_LINE_NUMBER = re.compile(r" *(\d{1,9})(?: |$)")
_ELISION = re.compile(r"\s*(?:\.{3,}|…+)\s*$")
_SUBGRAPH = re.compile(r"subgraph @([^\s(]+)\(")
_NODE = re.compile(r"\s*%\d+(?:\([^)\n]*\))? = ")
_RETURN = re.compile(r"\s*Return\(")
_MAX_WRAPPED = 64  # lines one wrapped node line may have become


def has_entry_header(text: str) -> bool:
    """Whether ``text`` has ``# IR entry: @`` at the start of a line (every real dump)."""
    return text.startswith(ENTRY_PREFIX) or ("\n" + ENTRY_PREFIX) in text


def _strip_line_numbers(lines: List[str]) -> Tuple[List[str], int]:
    """The lines without their ``vi`` numbers and how many there were (0: not numbered,
    the lines unchanged). Numbered means: at least four of five non-blank lines start with
    a number, and the numbers only grow."""
    numbered = 0
    last = -1
    out = []
    for line in lines:
        m = _LINE_NUMBER.match(line)
        if m is None:
            out.append(line)  # a line the editor wrapped, or text around the paste
            continue
        number = int(m.group(1))
        if number <= last:
            return lines, 0
        last = number
        numbered += 1
        out.append(line[m.end() :])
    content = sum(1 for line in lines if line.strip())
    return (out, numbered) if content and numbered * 5 >= content * 4 else (lines, 0)


def _balance(line: str) -> int:
    return sum(map(line.count, "{[(")) - sum(map(line.count, "}])"))


def _join_wrapped(lines: List[str]) -> Tuple[List[str], int]:
    """Node lines a page wrapped (an attribute list cut inside its brackets) joined again,
    at most ``_MAX_WRAPPED`` lines each; and how many lines were joined."""
    out: List[List[str]] = []  # each line's parts, joined once at the end
    joined = 0
    open_ = 0
    for line in lines:
        node = _NODE.match(line) is not None
        if open_ > 0 and not node and line.strip() and len(out[-1]) <= _MAX_WRAPPED:
            out[-1].append(line.strip())
            open_ += _balance(line)
            joined += 1
            continue
        out.append([line])
        open_ = _balance(line) if node else 0
    return [" ".join(parts) for parts in out], joined


def _rename_repeated_graphs(lines: List[str]) -> Tuple[List[str], int]:
    """A graph printed twice (analyze_fail.ir prints each graph of the evaluation stack)
    -> the later copies are ``@<name>~2``, ``~3``..., so that each is drawn once."""
    seen: Dict[str, int] = {}
    renamed = 0
    for i, line in enumerate(lines):
        m = _SUBGRAPH.match(line)
        if m is None:
            continue
        name = m.group(1)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            lines[i] = f"subgraph @{name}~{seen[name]}(" + line[m.end() :]
            renamed += 1
    return lines, renamed


_DUMP_STARTS = ("subgraph @", "# IR entry", "# Params:", "funcgraph fg_", "# [No.")


def _dedent_dump(lines: List[str], notes: List[str]) -> List[str]:
    """A dump pasted with every line indented (a page's list item, a quote): the common
    indent removed when a dump's own column-0 line (``subgraph @``, ``# Params:``,
    ``funcgraph fg_``) is under it; the lines unchanged otherwise (node lines alone keep
    their indent)."""
    text_lines = [line for line in lines if line.strip()]
    if not text_lines:
        return lines
    depth = min(len(line) - len(line.lstrip(" ")) for line in text_lines)
    if depth == 0 or not any(line[depth:].startswith(_DUMP_STARTS) for line in text_lines):
        return lines
    notes.append(f"every line indented {depth} spaces: the indent removed")
    return [line[depth:] for line in lines]


def _strip_marks(lines: List[str], notes: List[str]) -> List[str]:
    """The lines without ``vi`` numbers and ``...`` elision lines; a note for each kind."""
    lines, numbered = _strip_line_numbers(lines)
    if numbered:
        notes.append(f"{numbered} editor line numbers removed")
    kept = [line for line in lines if not _ELISION.match(line)]
    if len(kept) != len(lines):
        notes.append(f"{len(lines) - len(kept)} '...' lines: nodes left out of the paste")
    return kept


def strip_paste_marks(text: str) -> Tuple[str, List[str]]:
    """``(text, notes)``: ``text`` without an editor's line numbers and ``...`` lines (what
    a paste of any IR form may carry), and what was removed."""
    notes: List[str] = []
    lines = _strip_marks(text.replace("\r\n", "\n").split("\n"), notes)
    lines = _dedent_dump(lines, notes)
    return "\n".join(lines), notes


def clean_pasted_ir(text: str) -> Tuple[str, List[str]]:
    """``(text, notes)``: ``text`` as a dump the parser reads, and one note for each kind
    of change made (empty when nothing was changed)."""
    notes: List[str] = []
    lines = _strip_marks(text.replace("\r\n", "\n").split("\n"), notes)
    lines = _dedent_dump(lines, notes)
    lines, joined = _join_wrapped(lines)
    if joined:
        notes.append(f"{joined} wrapped lines joined")
    lines, renamed = _rename_repeated_graphs(lines)
    if renamed:
        notes.append(f"{renamed} graphs printed twice: the later copies are named @<graph>~2")
    body = "\n".join(lines)
    if has_entry_header(body):
        return body, notes
    graphs = [m.group(1) for line in lines for m in [_SUBGRAPH.match(line)] if m]
    if graphs:
        entry = graphs[-1]  # MindSpore prints the entry graph last
        notes.append(f"no '# IR entry' header: @{entry} (the last graph) is shown")
        opened = body.count("{") - body.count("}")
        if opened > 0:  # the paste stops inside a block
            body += "\n}" * opened
            notes.append("the paste ends inside a graph")
        return f"{ENTRY_PREFIX}{entry}\n\n{body}\n", notes
    if not any(_NODE.match(line) for line in lines):
        return text, []  # not IR: let the parser say so
    notes.append("no '# IR entry' header and no graph block: the node lines are shown")
    nodes = ["  " + line for line in textwrap.dedent("\n".join(lines)).split("\n")]
    if not any(_RETURN.match(line) for line in lines):
        last = [m.group(0).split("=")[0].strip() for m in map(_NODE.match, lines) if m][-1]
        nodes.append(f"  Return({last.split('(')[0]})")
    return (
        f"{ENTRY_PREFIX}{PASTED_GRAPH}\n\nsubgraph @{PASTED_GRAPH}() {{\n"
        + "\n".join(nodes)
        + "\n}\n",
        notes,
    )

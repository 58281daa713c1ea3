"""How well the IR reader reads real IR text it was not written against (issue #36).

    PYTHONPATH=. .venv/bin/python tests/parsers/measure_ir_real.py [--batch 2] [--show-heldout]

Material: the users' committed ``analyze_fail`` files in tests/fixtures/real/analyze_fail
(``--batch 2``: only those collected in the second batch) and the documentation's IR text of
several MindSpore versions in tests/fixtures/real/ir_docs. Each case's ``expect`` was read off
the text with a few regexes independent of the reader (graph headers, node lines, the last
``------------------------>`` mark and the node after it), before the reader was measured.

A case is read right when ``ascend-lab view`` draws it (no refusal, no traceback), the number
of graphs and of op nodes fall in the expected ranges, no more lines than ``unread_max`` are
flagged, and for a compile failure the node selected is the one after the last mark with its
source file named in the first note. Prints one line per dev case and only counts for the
held-out half (``--show-heldout`` prints its lines too: use it once, at the end).
Asserts nothing.
"""

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.ir.ir_text import parse_ir_file, unread_lines
from ascend_lab.viewfile.sources import ViewFileError, payload_for_path

_IN_FILE = re.compile(r"In file (.+?)(?::\d+|\(\d+\))")
REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def node_id(printed: str) -> Optional[str]:
    """``%3(CNode_137) = ...`` / ``%1 : Bool = ...`` -> ``%3`` / ``%1``; None for a Return."""
    head = printed.split("(")[0].split(" ")[0].strip()
    return head if head.startswith("%") else None


def source_file(line: str) -> Optional[str]:
    """``# In file /a/b/c.py:12, 3~9/...`` or ``#  In file C:\\a\\c.py(12)/...`` -> ``c.py``."""
    found = _IN_FILE.search(line)
    return found.group(1).replace("\\", "/").rsplit("/", 1)[-1] if found else None


def cases(batch: Optional[int]) -> List[Tuple[str, Dict[str, Any]]]:
    """(kind, case) of both manifests; the expected stop as ``want_node`` / ``want_file``."""
    out = []
    manifest = json.loads((REAL / "analyze_fail" / "manifest.json").read_text(encoding="utf-8"))
    for case in manifest["cases"]:
        if batch is not None and case.get("batch", 1) != batch:
            continue
        case = dict(case, path=REAL / "analyze_fail" / case["file"])
        case["want_node"] = node_id(case["failure"]["node"])
        source = case["failure"]["source_line"]
        case["want_file"] = source_file(source)
        out.append(("analyze_fail", case))
    docs = json.loads((REAL / "ir_docs" / "manifest.json").read_text(encoding="utf-8"))
    for case in docs["cases"]:
        case = dict(case, path=REAL / "ir_docs" / case["file"])
        stop = case["expect"].get("stop")
        case["want_node"] = stop["node"] if stop else None
        case["want_file"] = stop["source_file"] if stop else None
        out.append(("ir_docs", case))
    return out


def measure(case: Dict[str, Any]) -> Tuple[str, str]:
    """('right' | 'wrong' | 'refused' | 'traceback', what was seen)."""
    path = str(case["path"])
    try:
        graph = parse_ir_file(path)
        payload = payload_for_path(path)
    except (ViewFileError, GraphParseError) as exc:
        return "refused", str(exc)[:160]
    except Exception as exc:  # noqa: BLE001 - a traceback is what this counts
        return "traceback", f"{type(exc).__name__}: {str(exc)[:160]}"
    graphs = [graph, *graph.subgraphs.values()]
    ops = sum(1 for g in graphs for n in g.nodes if n.kind in ("op", "call"))
    unread = len(unread_lines(graph))
    # the first batch of analyze_fail files has no ``expect``: only the stop is checked
    expect = case.get("expect", {"graphs": [0, 10**9], "ops": [0, 10**9], "unread_max": 0})
    seen = f"graphs {len(graphs)} {expect['graphs']}, ops {ops} {expect['ops']}, unread {unread}"
    problems = []
    lo, hi = expect["graphs"]
    if not lo <= len(graphs) <= hi:
        problems.append("graphs")
    lo, hi = expect["ops"]
    if not lo <= ops <= hi:
        problems.append("ops")
    if unread > expect["unread_max"]:
        problems.append("unread")
    meta = payload.get("meta", {})
    if case["want_node"]:
        notes = meta.get("notes") or [""]
        seen += f", select {meta.get('select')} (want {case['want_node']})"
        if meta.get("select") != case["want_node"]:
            problems.append("stop")
        elif case["want_file"] and case["want_file"] not in notes[0]:
            problems.append("source")
    return ("wrong" if problems else "right"), seen + (
        f" -> {','.join(problems)}" if problems else ""
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--heldout", action="store_true", help="count the held-out half too")
    parser.add_argument("--show-heldout", action="store_true", help="and print its lines")
    args = parser.parse_args(argv)
    counts: Dict[Tuple[str, str], Dict[str, int]] = {}
    for kind, case in cases(args.batch):
        if case["half"] != "dev" and not (args.heldout or args.show_heldout):
            continue
        verdict, seen = measure(case)
        key = (kind, case["half"])
        counts.setdefault(key, {}).setdefault(verdict, 0)
        counts[key][verdict] += 1
        if case["half"] == "dev" or args.show_heldout:
            print(f"{case['half']:7} {verdict:9} {kind}/{case['id']}: {seen}")
    for (kind, half), c in sorted(counts.items()):
        total = sum(c.values())
        print(
            f"{kind} {half}: {c.get('right', 0)}/{total} right; "
            + ", ".join(f"{v} {k}" for k, v in sorted(c.items()) if k != "right")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

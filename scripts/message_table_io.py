"""What the message-table scripts share: writing a table (a JSON head, then one message per line,
so a diff shows the templates that changed) and their command line (``--extract`` / ``--list`` /
the check). Used by scripts/cann_message_table.py and scripts/stack_message_table.py (whose
--extract takes one mirrors folder); the MindSpore and torch_npu scripts take git snapshots
instead and keep their own command line."""

import argparse
import json
from typing import Any, Callable, Dict, List, Optional, Sequence


def write_table(path: str, head: Dict[str, Any], rows: Sequence[List[Any]]) -> None:
    """``head`` (format, description, snapshots, columns ...) and ``rows`` under "messages"."""
    out = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "messages": [\n'
    out += ",\n".join("  " + json.dumps(row, ensure_ascii=False) for row in rows)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(out + "\n ]\n}\n")


def cli_main(
    doc: str,
    do_extract: Callable[[str], int],
    do_check: Callable[[Optional[str]], int],
    list_metavar: str,
    argv: Optional[List[str]] = None,
) -> int:
    """``--extract MIRRORS_DIR`` reads the snapshots; ``--list X`` shows one group as read;
    without options the mapped templates are checked."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--extract", metavar="MIRRORS_DIR")
    ap.add_argument("--list", metavar=list_metavar)
    args = ap.parse_args(argv)
    if args.extract:
        return do_extract(args.extract)
    return do_check(args.list)

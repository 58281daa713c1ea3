"""How many of the real error texts (tests/fixtures/real/errors) a knowledge base names right.

    .venv/bin/python tests/doctor/measure_real_errors.py [REV]

Compares the knowledge base at git revision REV (default: the one before issue #26's
rules, 5c890ab^) with the working tree's, both with today's matcher, against the expected
diagnosis of each file (``EXPECTED`` in test_real_errors.py). "Right" is the expected rule
ranked first; for a file whose expectation is a code family, a knowledge base is right when
no rule claims it and the family table names it (the old doctor had no family table, so
those count as not named before). Prints numbers; asserts nothing.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)

from ascend_lab.doctor.knowledge import KB_FORMAT, load_entries, parse_entries  # noqa: E402
from ascend_lab.doctor.match import match_text  # noqa: E402
from tests.doctor.test_real_errors import ERRORS, EXPECTED  # noqa: E402


def old_entries(rev):
    """The knowledge base of revision ``rev``: one knowledge.json, or (since the split by
    category) the knowledge/ folder's files."""

    def show(path):
        return subprocess.run(
            ["git", "-C", REPO, "show", f"{rev}:ascend_lab/doctor/{path}"],
            capture_output=True,
        )

    single = show("knowledge.json")
    if single.returncode == 0:
        return parse_entries(json.loads(single.stdout.decode("utf-8")))
    names = subprocess.run(
        ["git", "-C", REPO, "ls-tree", "--name-only", f"{rev}:ascend_lab/doctor/knowledge"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout.split()
    entries = []
    for name in sorted(n for n in names if n.endswith(".json")):
        shown = show("knowledge/" + name)
        entries.extend(json.loads(shown.stdout.decode("utf-8"))["entries"])
    return parse_entries({"format": KB_FORMAT, "entries": entries})


def score(entries, families):
    right, wrong, unnamed = [], [], []
    for name, want in sorted(EXPECTED.items()):
        text = (ERRORS / name).read_text(encoding="utf-8")
        found = [m.entry.id for m in match_text(text, entries)]
        if want[0] == "rule":
            ok = bool(found) and found[0] == want[1]
        else:
            ok = not found and families
        (right if ok else wrong if found else unnamed).append((name, found[:1]))
    return right, wrong, unnamed


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else "5c890ab^"
    for label, entries, families in (
        (f"before ({rev})", old_entries(rev), False),
        ("after (working tree)", load_entries(), True),
    ):
        right, wrong, unnamed = score(entries, families)
        print(
            f"{label}: {len(right)} of {len(EXPECTED)} named right, "
            f"{len(wrong)} wrong, {len(unnamed)} not recognised"
        )
        for name, first in wrong:
            print(f"  wrong: {name} -> {first[0]}")


if __name__ == "__main__":
    main()

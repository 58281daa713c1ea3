"""Measure the install probe on the real CANN layouts (issue #36).

    PYTHONPATH=. python tests/device/measure_install_layouts.py            # dev half, case by case
    PYTHONPATH=. python tests/device/measure_install_layouts.py --held-out # the held-out half
    PYTHONPATH=. python tests/device/measure_install_layouts.py --json out.json

Each case of ``tests/fixtures/real/cann/layouts/`` is laid out as a fake machine under a
temporary folder and read by :func:`ascend_lab.probes.ascend_install.discover`, the code
path a real machine takes (see ``tests/device/layout_cases.py``). A case counts as right
when every field its source states (version, arch, the folder used, what ``latest``
chooses, the versions side by side, driver, firmware, NNAL/ATB and its match with CANN)
is read so; wrong when a field holds another value; refused when something is missing
and a problem says why; missing when nothing says why. A traceback counts as wrong.

The halves are fixed by the sha1 of the case's name (even: dev). Without ``--held-out``
the held-out half is not run at all.
"""

import argparse
import json
import os
import sys
import tempfile
import traceback
from collections import Counter
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.device import layout_cases  # noqa: E402


def measure(half: str) -> List[Dict[str, Any]]:
    out = []
    for name in layout_cases.names():
        if layout_cases.half(name) != half:
            continue
        case = layout_cases.load(name)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                machine, info = layout_cases.read(case, os.path.join(tmp, "machine"))
                result = layout_cases.judge(case, info, machine)
            except Exception:  # a traceback is a defect: counted as wrong, shown
                result = {"outcome": "wrong", "fields": {}, "reasons": [traceback.format_exc()]}
        result["name"] = name
        out.append(result)
    return out


def show(half: str, results: List[Dict[str, Any]], detail: bool) -> None:
    counts = Counter(r["outcome"] for r in results)
    print(
        f"{half}: {len(results)} layouts: {counts['right']} right, {counts['wrong']} wrong, "
        f"{counts['refused']} refused with a reason, {counts['missing']} missing without one"
    )
    per_field: Counter = Counter()
    asked: Counter = Counter()
    for r in results:
        for field, (_want, _got, ok) in r["fields"].items():
            asked[field] += 1
            per_field[field] += ok is True
    print("  fields read right: " + ", ".join(f"{f} {per_field[f]}/{asked[f]}" for f in asked))
    if not detail:
        return
    for r in results:
        print(f"  {r['outcome']:8} {r['name']}")
        for field, (want, got, ok) in r["fields"].items():
            if ok is not True:
                print(f"           {field}: want {want!r}, got {got!r}")
        if r["outcome"] != "right":
            for why in r["reasons"][:3]:
                print(f"           why: {why}")


def main(argv: Any = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="measure the held-out half")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--summary", action="store_true", help="counts only, no case names")
    args = parser.parse_args(argv)
    half = "held-out" if args.held_out else "dev"
    results = measure(half)
    show(half, results, detail=not args.summary)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())

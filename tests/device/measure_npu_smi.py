"""Measure the npu-smi reader on the real corpus (tests/fixtures/real/npu_smi, issue #36).

    python -m tests.device.measure_npu_smi            # dev: per file; held-out: counts only
    python -m tests.device.measure_npu_smi --json     # the same as JSON

Each text has its expectations in the corpus's manifest.json, written before the held-out
half was measured. What is checked, per kind:

- ``info`` (an ``npu-smi info`` table): the chips (NPU and chip ids, in order), each chip's
  name, health, HBM and memory used/total, the process ids, the npu-smi and driver versions;
- ``map`` (``npu-smi info -m``): the compute chips (NPU, chip, logic id), their names, and
  how many other rows (the Mcu) there are;
- ``list`` (``npu-smi info -l``): the total count and each NPU's chip count;
- ``watch`` (``npu-smi info watch``): the number of samples, the first's and the last's
  NPU, chip, power, temperature and AI Core use;
- ``keyvalue`` (``npu-smi info -t ...``): the listed keys and values;
- ``topo`` (``npu-smi info -t topo``): the NPUs in the header's order, each row's CPU
  affinity, and how many links of each kind the matrix holds (the diagonal ``X`` aside);
- ``failure``: the failure kind and DCMI code, and that the status names a cause and a next
  step for it.

A case is ``right`` when everything matches, ``unread`` when the reader returns nothing for
it, ``wrong`` when it returns something that does not match; a traceback is counted apart.
The held-out half prints counts only, so measuring it does not show what to change.
"""

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "real", "npu_smi")


def _load() -> List[Dict[str, Any]]:
    with open(os.path.join(ROOT, "manifest.json"), encoding="utf-8") as f:
        return list(json.load(f)["cases"])


def _text(case: Dict[str, Any]) -> str:
    with open(os.path.join(ROOT, case["file"]), encoding="utf-8") as f:
        return f.read()


def _pair(a: Optional[int], b: Optional[int]) -> Optional[List[Optional[int]]]:
    return None if a is None and b is None else [a, b]


def _check_info(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    parsed = npu_smi.parse_info(text)
    if not parsed.chips:
        return "unread", ["no chips read"]
    got = {
        "chips": [[c.npu, c.chip] for c in parsed.chips],
        "names": [c.name for c in parsed.chips],
        "devices": [c.device for c in parsed.chips],
        "health": [c.health for c in parsed.chips],
        "hbm": [_pair(c.hbm_used_mb, c.hbm_total_mb) for c in parsed.chips],
        "memory": [_pair(c.memory_used_mb, c.memory_total_mb) for c in parsed.chips],
        "processes": [p.pid for p in parsed.processes],
        "process_memory": [p.memory_mb for p in parsed.processes],
        "npu_smi_version": parsed.npu_smi_version,
        "driver_version": parsed.driver_version,
    }
    want = {k: _unset_pairs(v) if k in ("hbm", "memory") else v for k, v in want.items()}
    bad = [f"{k}: want {want[k]!r}, got {got[k]!r}" for k in want if got.get(k) != want[k]]
    return ("wrong" if bad else "right"), bad


def _unset_pairs(pairs: List[Any]) -> List[Any]:
    """``[None, None]`` (neither number printed) means the same as ``None`` (no column)."""
    return [None if p == [None, None] else p for p in pairs]


def _check_map(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    parse = getattr(npu_smi, "parse_map", None)
    rows = parse(text) if parse is not None else []
    if not rows:
        return "unread", ["no chip map read"]
    compute = [r for r in rows if r.logic_id is not None]
    got = {
        "compute": [[r.npu, r.chip, r.logic_id] for r in compute],
        "names": [r.name for r in compute],
        "other": len(rows) - len(compute),
    }
    bad = [f"{k}: want {want[k]!r}, got {got[k]!r}" for k in want if got.get(k) != want[k]]
    return ("wrong" if bad else "right"), bad


def _check_list(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    parse = getattr(npu_smi, "parse_list", None)
    listed = parse(text) if parse is not None else None
    if listed is None or (listed.total is None and not listed.npus):
        return "unread", ["no device list read"]
    got = {"total": listed.total, "npus": [[n, c] for n, c in listed.npus]}
    bad = [f"{k}: want {want[k]!r}, got {got[k]!r}" for k in want if got.get(k) != want[k]]
    return ("wrong" if bad else "right"), bad


def _check_watch(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    parse = getattr(npu_smi, "parse_watch", None)
    samples = parse(text) if parse is not None else []
    if not samples:
        return "unread", ["no watch samples read"]

    def row(s: Any) -> List[Any]:
        return [s.npu, s.chip, s.power_w, s.temp_c, s.aicore_percent]

    got = {"samples": len(samples), "first": row(samples[0]), "last": row(samples[-1])}
    bad = [f"{k}: want {want[k]!r}, got {got[k]!r}" for k in want if got.get(k) != want[k]]
    return ("wrong" if bad else "right"), bad


def _check_keyvalue(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    values = npu_smi.parse_key_values(text)
    if not values:
        return "unread", ["no values read"]
    bad = [
        f"{k}: want {v!r}, got {values.get(k)!r}"
        for k, v in want["values"].items()
        if values.get(k) != v
    ]
    return ("wrong" if bad else "right"), bad


def _status_of_failure(text: str) -> Tuple[str, str]:
    """The status's reason and next step when ``npu-smi info`` prints ``text`` and fails."""
    from ascend_lab.probes import npu_smi_runner, smi_reading

    def run(exe: str, argv: List[str], timeout: float) -> npu_smi_runner.RunResult:
        return npu_smi_runner.RunResult(
            ok=False, stdout=text, reason="npu-smi exited with code 255", returncode=255
        )

    smi = smi_reading.read_npu_smi("/usr/local/sbin/npu-smi", True, run, 5.0)
    return str(smi.reason), str(smi.fix)


def _check_failure(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    failure = npu_smi.failure_of(text)
    if failure is None:
        return "unread", ["no failure recognised"]
    bad = []
    if failure.kind != want["failure"]:
        bad.append(f"kind: want {want['failure']!r}, got {failure.kind!r}")
    if want.get("code") and failure.code != want["code"]:
        bad.append(f"code: want {want['code']!r}, got {failure.code!r}")
    if want.get("detail") and getattr(failure, "detail", "") != want["detail"]:
        bad.append(f"detail: want {want['detail']!r}, got {getattr(failure, 'detail', '')!r}")
    reason, fix = _status_of_failure(text)
    if "cause:" not in reason or not fix:
        bad.append(f"status names no cause and next step: {reason!r}")
    return ("wrong" if bad else "right"), bad


def _check_topo(text: str, want: Dict[str, Any]) -> Tuple[str, List[str]]:
    from ascend_lab.parsers import npu_smi

    parse = getattr(npu_smi, "parse_topo", None)
    topo = parse(text) if parse is not None else None
    if topo is None or not topo.npus:
        return "unread", ["no topology read"]
    links: Dict[str, int] = {}
    for row in topo.links:
        for kind in row:
            if kind and kind != "X":
                links[kind] = links.get(kind, 0) + 1
    got = {"npus": list(topo.npus), "affinity": list(topo.affinity), "links": links}
    bad = [f"{k}: want {want[k]!r}, got {got[k]!r}" for k in want if got.get(k) != want[k]]
    return ("wrong" if bad else "right"), bad


CHECKS = {
    "info": _check_info,
    "map": _check_map,
    "list": _check_list,
    "watch": _check_watch,
    "keyvalue": _check_keyvalue,
    "topo": _check_topo,
    "failure": _check_failure,
}


def measure(case: Dict[str, Any]) -> Tuple[str, List[str]]:
    try:
        return CHECKS[case["kind"]](_text(case), case["expect"])
    except Exception as exc:  # a traceback is a result here, counted apart
        return "traceback", [f"{type(exc).__name__}: {exc}"]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument(
        "--heldout", action="store_true", help="also count the held-out half (counts only)"
    )
    args = ap.parse_args(argv)
    report: Dict[str, Any] = {}
    for half in ("dev", "heldout") if args.heldout else ("dev",):
        counts = {"right": 0, "wrong": 0, "unread": 0, "traceback": 0}
        lines = []
        for case in _load():
            if case["half"] != half:
                continue
            outcome, why = measure(case)
            counts[outcome] += 1
            if half == "dev":
                lines.append({"file": case["file"], "outcome": outcome, "why": why})
        report[half] = {"counts": counts, "total": sum(counts.values())}
        if half == "dev":
            report[half]["cases"] = lines
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for half, r in report.items():
        c = r["counts"]
        print(
            f"{half}: {c['right']}/{r['total']} right, {c['wrong']} wrong, "
            f"{c['unread']} unread, {c['traceback']} tracebacks"
        )
        for line in r.get("cases", []):
            if line["outcome"] != "right":
                print(f"  {line['outcome']:9} {line['file']}")
                for why in line["why"]:
                    print(f"            {why[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

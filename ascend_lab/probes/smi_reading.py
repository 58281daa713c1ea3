"""Read ``npu-smi info``: the chips, or why there are none, and the next step.

A job of its own inside :mod:`.device`'s status collection: run the tool, parse its table,
say what the parser could not read, and name a recognised failure's cause and fix (from
:mod:`.smi_failure`'s code tables). ``add_details`` asks for each chip's board, usages and
health on request.
"""

import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from ascend_lab.i18n import msg
from ascend_lab.model.device_status import DeviceStatus, StatusWarning
from ascend_lab.parsers import npu_smi
from ascend_lab.probes import npu_smi_runner, smi_failure

# Where the status reads npu-smi: live by default; ascend_lab.report passes a recorded
# bundle's npu-smi texts to replay it.
Runner = Callable[[str, List[str], float], npu_smi_runner.RunResult]


@dataclass
class SmiReading:
    """What ``npu-smi info`` said: its table, or why there is none and the next step."""

    reason: str = ""
    failed: bool = False  # npu-smi exists but did not give a table
    fix: str = ""  # the next step for the failure, when it is recognised
    parsed: Optional[npu_smi.NpuSmiInfo] = None
    warnings: List[StatusWarning] = field(default_factory=list)


def read_npu_smi(
    exe: Optional[str], query_npu_smi: bool, run: Runner, timeout: float
) -> SmiReading:
    """The chips come from ``npu-smi info``; a failure gets its cause and fix named."""
    if not query_npu_smi:
        return SmiReading(reason="npu-smi not run here (the hub service probes the chips)")
    if exe is None:
        return SmiReading(reason="npu-smi not found on PATH")
    result = run(exe, ["info"], timeout)
    printed = result.stdout + "\n" + getattr(result, "stderr", "")
    if not result.ok:
        smi = SmiReading(reason=result.reason, failed=True)
        failure = npu_smi.failure_of(printed)
    else:
        smi, failure = _read_table(result.stdout), None
        if smi.parsed is not None and not smi.parsed.has_table and result.stdout.strip():
            failure = npu_smi.failure_of(printed)
    if failure is not None:  # name the cause and the next step, from the code tables
        cause, smi.fix = smi_failure.explain_failure(failure)
        smi.reason = smi_failure.smi_failure_reason(smi.reason, cause, smi.fix)
    elif not result.ok and getattr(result, "timed_out", False):  # it printed nothing to read
        smi.fix = smi_failure.timeout_fix()  # the likely cause and the next step
    return smi


def _read_table(stdout: str) -> SmiReading:
    """A table npu-smi printed: its chips, or which part of a table is missing."""
    parsed = npu_smi.parse_info(stdout)
    smi = SmiReading(parsed=parsed, warnings=_parse_warnings(parsed))
    if not stdout.strip():
        smi.reason, smi.failed = "npu-smi printed nothing", True
    elif not parsed.has_table:
        smi.reason, smi.failed = "npu-smi printed no NPU table (unrecognised output)", True
        first = npu_smi_runner.first_line(stdout)
        if first:  # what it printed instead, so the reason says more than "unrecognised"
            smi.reason = msg("{}: {}", smi.reason, first)
    elif not parsed.chips:
        smi.reason, smi.failed = "npu-smi found no NPU chips", True
    return smi


def _parse_warnings(parsed: npu_smi.NpuSmiInfo) -> List[StatusWarning]:
    """What the parser left out or could not read, so a short table is not taken as whole."""
    warnings = []
    # the counts come first, so they survive the cap on the number of warnings
    if parsed.more_processes:
        warnings.append(
            StatusWarning(
                msg(
                    "{} more processes on the NPUs are not shown (the first {} are)",
                    parsed.more_processes,
                    len(parsed.processes),
                ),
                "Run `npu-smi info` in a terminal to see them all",
                "info",
                "npu",
            )
        )
    if parsed.more_problems:
        total = len(parsed.problems) + parsed.more_problems
        warnings.append(
            StatusWarning(
                msg(
                    "{} parts of npu-smi's output could not be read (the first {} follow)",
                    total,
                    len(parsed.problems),
                ),
                "Please report your `npu-smi info` output to ascend-lab",
                "info",
                "npu",
            )
        )
    for problem in parsed.problems:
        warnings.append(
            StatusWarning(
                msg("Could not read part of npu-smi's output: {}", problem[:200]),
                "Please report your `npu-smi info` output to ascend-lab",
                "info",
                "npu",
            )
        )
    return warnings


def add_details(status: DeviceStatus, exe: str, timeout: float, start: float, run: Runner) -> None:
    """``-t board`` and ``-t usages`` per NPU, ``-t health`` per chip, within ~2x timeout.

    A board with several chips per NPU (A3, 310P Duo) prints one block per chip in the NPU's
    answer: each chip gets its own block (by its ``Chip ID``), the NPU's lines with it."""
    per_npu: dict = {}
    for c in status.chips:
        queries = []
        if c.npu not in per_npu:
            per_npu[c.npu] = {}
            queries.append(("board", ["info", "-t", "board", "-i", str(c.npu)]))
            queries.append(("usages", ["info", "-t", "usages", "-i", str(c.npu)]))
        queries.append(("health", ["info", "-t", "health", "-i", str(c.npu), "-c", str(c.chip)]))
        for name, argv in queries:
            if time.monotonic() - start > 2 * timeout:
                return
            res = run(exe, argv, timeout)
            if res.ok:
                records = npu_smi.parse_key_value_records(res.stdout)
                if records and name != "health":
                    per_npu[c.npu][name] = records
                elif records:
                    c.details[name] = npu_smi.parse_key_values(res.stdout)
            if res.timed_out:
                return
        for name, records in per_npu[c.npu].items():
            values = _chip_record(records, c.chip)
            if values:
                c.details[name] = values


def _chip_record(records: List[Dict[str, str]], chip: int) -> Dict[str, str]:
    """The block of ``chip`` in an NPU's answer (the first block's NPU lines included), or
    the whole answer when it has no per-chip blocks."""
    if len(records) < 2:
        return dict(records[0]) if records else {}
    shared: Dict[str, str] = {}
    for key, value in records[0].items():  # the NPU's lines: those before the first Chip ID
        if key == "Chip ID":
            break
        shared[key] = value
    for record in records:
        if record.get("Chip ID", "").strip() == str(chip):
            merged = dict(shared) if record is not records[0] else {}
            merged.update(record)
            return merged
    return {}

"""``ascend-lab report [--out FILE] [--with-trace] [--redact/--no-redact] [--log FILE] ...``."""

import argparse
import sys
from typing import Any

from ascend_lab.i18n import N_, msg
from ascend_lab.report.make import (
    DEFAULT_BUDGET_SECONDS,
    DEFAULT_MAX_MB,
    DEFAULT_NPU_SMI_TIMEOUT,
    DEFAULT_TRACE_BUDGET_SECONDS,
)

DESCRIPTION = N_(
    "Write one .tar.gz with what a helper needs to see of this machine: every npu-smi view, "
    "driver/firmware/CANN version files, set_env.sh's effect, OS/CPU/Python, versions and "
    "the compatibility verdict, the status and doctor checks, the newest plog tails. "
    "Read-only, no root needed. Host names, user names, home paths, IP addresses and serial "
    "numbers are replaced by tokens unless --no-redact; MANIFEST.txt inside lists what was "
    "collected and redacted. Replay it with `ascend-lab status --from FILE`, "
    "`ascend-lab doctor --from FILE` and `python -m ascend_lab.report view FILE`."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="archive to write (default: ./ascend-lab-report-<UTC time>.tar.gz)",
    )
    parser.add_argument(
        "--with-trace",
        action="store_true",
        help="also trace the course's Conv+BN+ReLU net at each jit_level, "
        "profile it and export its MindIR (imports MindSpore, ~15-60 s)",
    )
    parser.add_argument(
        "--course",
        action="store_true",
        help="record the course's Conv+BN+ReLU for notebooks 03, 05 and 10: --with-trace "
        "(jit_level O0 and O1, and O2 on an NPU; its profile), labelled recorded_on: ascend or "
        "cpu with the device, chip, versions and date, written into the course's "
        "notebooks/bundles/ unless --out is given",
    )
    parser.add_argument(
        "--redact",
        dest="redact",
        action="store_true",
        default=True,
        help="replace identifying values by tokens (default)",
    )
    parser.add_argument(
        "--no-redact", dest="redact", action="store_false", help="keep them (a warning is printed)"
    )
    parser.add_argument(
        "--log",
        metavar="FILE",
        action="append",
        default=[],
        help="also record the tail (last 1 MiB) of this log or exception file; repeatable",
    )
    parser.add_argument(
        "--budget",
        metavar="S",
        type=float,
        default=None,
        help=msg(
            "time budget for the whole run in seconds (default {}, {} with --with-trace); "
            "what is left out is marked skipped/timed out",
            f"{DEFAULT_BUDGET_SECONDS:g}",
            f"{DEFAULT_TRACE_BUDGET_SECONDS:g}",
        ),
    )
    parser.add_argument(
        "--max-mb",
        metavar="N",
        type=float,
        default=DEFAULT_MAX_MB,
        help=msg(
            "size limit of the archive in MiB (default {}); trace dumps and logs are dropped first",
            f"{DEFAULT_MAX_MB:g}",
        ),
    )
    parser.add_argument(
        "--timeout",
        metavar="S",
        type=float,
        default=DEFAULT_NPU_SMI_TIMEOUT,
        help=msg(
            "seconds allowed for each npu-smi call (default {})", f"{DEFAULT_NPU_SMI_TIMEOUT:g}"
        ),
    )


def _print_progress(line: str) -> None:
    print("ascend-lab report: " + line, file=sys.stderr, flush=True)


def run(args: Any) -> int:
    from ascend_lab.report.make import ReportOptions, make_report, warn_no_redact

    for name, value in (
        ("--budget", args.budget),
        ("--max-mb", args.max_mb),
        ("--timeout", args.timeout),
    ):
        if value is not None and not 0 < value < float("inf"):
            print(f"ascend-lab report: {name} must be a positive number", file=sys.stderr)
            return 2
    if not args.redact:
        warn_no_redact()
    # the trace takes a while: say what is running
    progress = _print_progress if args.with_trace or args.course else None
    options = ReportOptions(
        out=args.out,
        with_trace=args.with_trace,
        course=args.course,
        progress=progress,
        redact=args.redact,
        logs=list(args.log),
        budget_seconds=args.budget,
        max_mb=args.max_mb,
        npu_smi_timeout=args.timeout,
    )
    try:
        _, text = make_report(options)
    except OSError as exc:
        print(f"ascend-lab report: cannot write the archive: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0

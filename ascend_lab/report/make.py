"""``make_report()``: collect, redact, cap and write one archive; the summary to print."""

import getpass
import json
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from ascend_lab.i18n import _
from ascend_lab.report.bundle import Bundle, write_archive
from ascend_lab.report.logs import collect_logs
from ascend_lab.report.machine import Budget, collect_machine
from ascend_lab.report.redact import NoRedaction, Redactor

DEFAULT_BUDGET_SECONDS = 120.0
DEFAULT_TRACE_BUDGET_SECONDS = 600.0
DEFAULT_MAX_MB = 50.0
DEFAULT_NPU_SMI_TIMEOUT = 5.0


@dataclass
class ReportOptions:
    out: Optional[str] = None  # default: ./ascend-lab-report-<UTC time>.tar.gz
    with_trace: bool = False
    redact: bool = True
    logs: List[str] = field(default_factory=list)
    budget_seconds: Optional[float] = None  # default: 120 s, 600 s with the trace
    max_mb: float = DEFAULT_MAX_MB
    npu_smi_timeout: float = DEFAULT_NPU_SMI_TIMEOUT
    # --course: --with-trace, labelled (recorded_on, device, chip, versions, date) and written
    # into the course's notebooks/bundles/ unless `out` is given (report/course.py)
    course: bool = False
    progress: Optional[Callable[[str], None]] = None  # told each phase and trace step


def identity() -> Dict[str, List[str]]:
    """This machine's host names, the user's names and home folders, to redact."""
    hosts = {platform.node(), os.environ.get("HOSTNAME", "")}
    try:
        hosts.add(socket.gethostname())
    except OSError:
        pass
    users = {os.environ.get("USER", ""), os.environ.get("LOGNAME", "")}
    homes = {os.environ.get("HOME", ""), os.path.expanduser("~")}
    try:
        users.add(getpass.getuser())
        import pwd

        entry = pwd.getpwuid(os.getuid())
        users.add(entry.pw_name)
        homes.add(entry.pw_dir)
    except (ImportError, KeyError, OSError):
        pass
    return {
        k: sorted(v for v in vals if v)
        for k, vals in (("hosts", hosts), ("users", users), ("homes", homes))
    }


def default_out() -> str:
    return "ascend-lab-report-{}.tar.gz".format(time.strftime("%Y%m%d-%H%M%S", time.gmtime()))


def make_report(options: ReportOptions) -> Tuple[str, str]:
    """Write the archive; return ``(its path, a short summary)``. Never needs root."""
    from ascend_lab.report import course

    with_trace = options.with_trace or options.course
    budget_seconds = options.budget_seconds or (
        DEFAULT_TRACE_BUDGET_SECONDS if with_trace else DEFAULT_BUDGET_SECONDS
    )
    budget = Budget(budget_seconds)
    bundle = Bundle()
    say = options.progress or (lambda _line: None)
    say(_(course.COLLECTING))
    status = collect_machine(bundle, budget, options.npu_smi_timeout)
    collect_logs(bundle, budget, options.logs)
    if with_trace:
        from ascend_lab.report.trace_part import collect_trace

        say(_(course.TRACING))
        device = "Ascend" if status.get("mode") == "ascend" else "CPU"
        collect_trace(bundle, budget, device, tell=options.progress)
    out = options.out
    if options.course:
        bundle.labels = course.course_label(
            status, json.loads(bundle.texts.get("versions.json") or "{}"), bundle.trace_device
        )
        out = out or course.default_course_out(bundle.labels)
    say(_(course.PACKING))
    if not options.redact:
        bundle.notes.append("--no-redact: nothing was replaced; read every file before sharing")
    ident = identity()
    redactor: Redactor = (
        Redactor(ident["hosts"], ident["users"], ident["homes"])
        if options.redact
        else NoRedaction()
    )
    max_bytes = int(options.max_mb * 1024 * 1024)
    files = bundle.finish(redactor, options.redact, max_bytes, budget.started, budget_seconds)
    target = write_archive(files, out or default_out())
    text = summary(bundle, status, target, redactor, options, budget)
    if options.course:
        on = bundle.labels.get("recorded_on")
        text += "\n" + _(course.WROTE_COURSE).format(
            "Ascend" if on == "ascend" else _(course.NOT_NPU), target
        )
    return target, text


def summary(
    bundle: Bundle,
    status: Dict[str, Any],
    target: str,
    redactor: Redactor,
    options: ReportOptions,
    budget: Budget,
) -> str:
    counts: Dict[str, int] = {}
    for e in bundle.entries:
        counts[e.status] = counts.get(e.status, 0) + 1
    size = os.path.getsize(target)
    lines = [
        f"Wrote {target} ({size / 1024:.0f} KiB, {budget.seconds - budget.left():.1f} s "
        f"of a {budget.seconds:g} s budget)",
        "Machine: {} mode ({})".format(status.get("mode"), status.get("reason")),
        "Collected: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())),
    ]
    problems = [e for e in bundle.entries if e.status in ("failed", "timed out")]
    for e in problems[:6]:
        lines.append(f"  {e.status}: {e.item}" + (f" ({e.detail[:120]})" if e.detail else ""))
    if options.redact:
        red = redactor.summary()
        lines.append(
            "Redacted: "
            + (
                ", ".join(f"{c} x{v['distinct']}" for c, v in sorted(red.items()))
                or "nothing found"
            )
        )
    else:
        lines.append("NOT redacted (--no-redact): read the archive before sharing it.")
    lines.append(
        "Read MANIFEST.txt inside it before sharing (tar xzf ... ascend-lab-report/"
        "MANIFEST.txt -O). Replay: ascend-lab status --from / doctor --from THE_FILE"
    )
    return "\n".join(lines)


def warn_no_redact() -> None:
    print(
        "ascend-lab report: WARNING --no-redact: host names, user names, home paths, IP "
        "addresses, serial numbers and any credential in logs or environment values (tokens, "
        "passwords, access keys) stay in the archive.",
        file=sys.stderr,
    )

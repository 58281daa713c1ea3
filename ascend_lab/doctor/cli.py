"""``ascend-lab doctor [FILE|-] [--json] [--max-mb N] [--env | --no-env]``.

Reads a log file (or stdin with ``-``), keeps only its last ``--max-mb`` megabytes
(default ``$ASCEND_LAB_DOCTOR_MAX_MB``, else 20: :mod:`.intake`), and prints the
diagnosis. With no input it checks the environment only. This machine's environment section
is shown for a CANN log under ``~/ascend/log`` (or ``$ASCEND_PROCESS_LOG_PATH``); other files
and stdin may come from another machine, so they get it only with ``--env``. Exit status: 0
when nothing was recognised, 1 when there are findings or error codes, 2 for unreadable
input.
"""

import argparse
import os
import sys
from typing import IO, Any, Callable, List, Optional

from ascend_lab.doctor.intake import (
    DEFAULT_MAX_MB,
    ENV_MAX_MB,
    limits_from_env,
    read_tail_file,
    read_tail_stream,
    tail_note,
)
from ascend_lab.doctor.origin import is_local_log
from ascend_lab.i18n import _, language_argument, localize, msg, using


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input",
        nargs="?",
        metavar="FILE",
        help="a log file to examine, or - for stdin (omit to check only the environment)",
    )
    parser.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    parser.add_argument(
        "--lang",
        metavar="LANG",
        type=language_argument,
        default=None,
        help="language of the text output: en or zh (default: $ASCEND_LAB_LANG, else the "
        "locale, LC_ALL/LC_MESSAGES/LANG); --json is always English",
    )
    parser.add_argument(
        "--max-mb",
        type=float,
        default=None,
        metavar="N",
        help=msg(
            "examine only the last N MB of a large log (default: ${}, else {})",
            ENV_MAX_MB,
            f"{DEFAULT_MAX_MB:g}",
        ),
    )
    parser.add_argument(
        "--env",
        action="store_true",
        help="also show this machine's environment for a log that is not a local CANN log "
        "(under ~/ascend/log): by default such a log may come from another machine",
    )
    parser.add_argument(
        "--no-env", action="store_true", help="skip the machine checks (text matching only)"
    )
    parser.add_argument(
        "--ir",
        metavar="PATH",
        default=None,
        help="the analyze_fail.ir (or 1.x .dat) of a graph compile failure: show the node "
        "where inference stopped (default: the file the log names, when it is here)",
    )
    parser.add_argument(
        "--from",
        dest="from_bundle",
        metavar="BUNDLE",
        help="check the machine recorded by `ascend-lab report` (its .tar.gz) instead of this one",
    )


# ``report.replay.doctor_cli(bundle, text, source, notes, as_json, out) -> exit code``
Replay = Callable[[str, Optional[str], str, List[str], bool, IO[str]], int]


def run(
    args: Any,
    stdin: Optional[IO[bytes]] = None,
    stdout: Optional[IO[str]] = None,
    replay: Optional[Replay] = None,
) -> int:
    """The diagnosis; with ``--from BUNDLE``, on the recorded machine through ``replay``,
    passed in by the CLI layer (:mod:`ascend_lab.cli`): the doctor never imports the
    support bundle (issue #25)."""
    with using(getattr(args, "lang", None)):  # text only: JSON values stay English
        return _run(args, stdin, stdout, replay)


def _run(
    args: Any, stdin: Optional[IO[bytes]], stdout: Optional[IO[str]], replay: Optional[Replay]
) -> int:
    from ascend_lab.doctor.diagnosis import diagnose

    out = stdout or sys.stdout
    limits, notes = limits_from_env()
    if args.max_mb is None:
        limit, setting = limits.max_bytes, ENV_MAX_MB
    elif not args.max_mb > 0 or args.max_mb == float("inf"):  # also rejects NaN
        print(_("ascend-lab doctor: --max-mb must be a positive number"), file=sys.stderr)
        return 2
    else:
        limit, setting = int(args.max_mb * 1e6), "--max-mb"
    text = None
    source = "environment"
    here = bool(getattr(args, "env", False))
    if args.input is not None:
        try:
            if args.input == "-":
                stream = stdin or sys.stdin.buffer
                text, total, truncated = read_tail_stream(stream, limit)
                source = "stdin"
            else:
                if os.path.isdir(args.input):
                    raise IsADirectoryError("is a directory")
                text, total, truncated = read_tail_file(args.input, limit)
                source = msg("file {}", args.input)
                here = here or is_local_log(args.input)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            print(
                localize(msg("ascend-lab doctor: cannot read {}: {}", args.input, reason)),
                file=sys.stderr,
            )
            return 2
        if truncated:
            notes.append(tail_note("log", total, limit, setting))
        if not text.strip():
            notes.append(msg("the input is empty"))
    if getattr(args, "from_bundle", None) and not args.no_env:
        if replay is None:
            print(
                "ascend-lab doctor: --from needs the `ascend-lab doctor` command", file=sys.stderr
            )
            return 2
        return replay(args.from_bundle, text, source, notes, args.json, out)
    diag = diagnose(
        text,
        source=source,
        check_environment=not args.no_env,
        notes=notes,
        max_line_chars=limits.max_line_chars,
        environment_section=here,
    )
    from ascend_lab.doctor.compile_failure import attach_compile_failure, compile_failure_from

    failure = compile_failure_from(text, getattr(args, "ir", None))
    diag = attach_compile_failure(diag, failure)
    if args.json:
        out.write(diag.to_json() + "\n")
    else:
        out.write(diag.to_text())
    return 1 if diag.findings or diag.error_codes or failure is not None else 0

"""``ascend-lab status [--json] [--refresh] [--check] [--root PATH] [--timeout S] [--details]``."""

import argparse
import sys
from typing import Any, Callable, Optional

from ascend_lab.i18n import language_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    parser.add_argument(
        "--lang",
        metavar="LANG",
        type=language_argument,
        default=None,
        help="language of the text output: en or zh (default: $ASCEND_LAB_LANG, else the "
        "locale, LC_ALL/LC_MESSAGES/LANG); --json is always English",
    )
    parser.add_argument("--refresh", action="store_true", help="bypass the short cache")
    parser.add_argument(
        "--check", action="store_true", help="also run mindspore.run_check() (slow)"
    )
    parser.add_argument(
        "--root",
        metavar="PATH",
        default=None,
        help="Ascend install root (default: $ASCEND_LAB_ASCEND_ROOT, else found: "
        "$ASCEND_HOME_PATH, /etc/Ascend/ascend_cann_install.info, /usr/local/Ascend, "
        "~/Ascend, $CONDA_PREFIX/Ascend)",
    )
    parser.add_argument(
        "--timeout",
        metavar="S",
        type=float,
        default=5.0,
        help="seconds allowed for each npu-smi call (default 5)",
    )
    parser.add_argument(
        "--details",
        action="store_true",
        help="also query npu-smi info -t board|usages|health per chip",
    )
    parser.add_argument(
        "--from",
        dest="from_bundle",
        metavar="BUNDLE",
        help="show a machine recorded by `ascend-lab report` (its .tar.gz) instead of this one",
    )


def run(args: Any, replay: Optional[Callable[[str, bool], int]] = None) -> int:
    """The status of this machine, or with ``--from BUNDLE`` of a recorded one: ``replay``
    (``report.replay.status_cli``) is passed in by the CLI layer (:mod:`ascend_lab.cli`),
    so the device code never imports the support bundle (issue #25)."""
    from ascend_lab.probes.device import collect_status

    if getattr(args, "from_bundle", None):  # a recorded machine (ascend-lab report)
        from ascend_lab.i18n import using

        if replay is None:
            print(
                "ascend-lab status: --from needs the `ascend-lab status` command", file=sys.stderr
            )
            return 2
        with using(getattr(args, "lang", None)):  # text only: JSON values stay English
            return replay(args.from_bundle, args.json)

    timeout = args.timeout
    if not timeout or timeout <= 0:
        print("ascend-lab status: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    status = collect_status(
        refresh=args.refresh,
        root=args.root,
        timeout=timeout,
        details=getattr(args, "details", False),
        run_check=args.check,
    )
    if args.json:
        print(status.to_json())
    else:
        from ascend_lab.i18n import using

        with using(getattr(args, "lang", None)):
            print(status.to_text())
    return 0

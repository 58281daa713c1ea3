"""``%ascend_report [--out FILE] [--with-trace] [--course] [--no-redact] [--log FILE] [--budget S]``
(the options of ``ascend-lab report``: :func:`ascend_lab.report.cli.add_arguments`)."""

import shlex
from typing import Any, Optional

from ascend_lab.i18n.magic_args import MagicArgumentParser, usage_error

USAGE = (
    "%ascend_report [--out FILE] [--with-trace] [--course] [--no-redact] [--log FILE] "
    "[--budget S] [--max-mb N]"
)


def report_magic(shell: Any, line: str) -> Optional[str]:
    """Write the report archive and print its summary; returns the archive's path."""
    from ascend_lab.report.cli import add_arguments, run

    parser = MagicArgumentParser("%ascend_report")
    add_arguments(parser)
    try:
        args = parser.parse_args(shlex.split(line or ""))
    except ValueError as e:
        print(usage_error("%ascend_report", str(e), USAGE))
        return None
    run(args)
    return None

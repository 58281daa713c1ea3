"""``%ascend_report [--out FILE] [--with-trace] [--no-redact] [--log FILE] [--budget S]``."""

import argparse
import shlex
from typing import Any, Optional


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise ValueError(message)


def report_magic(shell: Any, line: str) -> Optional[str]:
    """Write the report archive and print its summary; returns the archive's path."""
    from .cli import add_arguments, run

    parser = _Parser(prog="%ascend_report", add_help=False)
    add_arguments(parser)
    try:
        args = parser.parse_args(shlex.split(line or ""))
    except ValueError as e:
        print(
            f"%ascend_report: {e}. Usage: %ascend_report [--out FILE] [--with-trace] "
            "[--no-redact] [--log FILE] [--budget S] [--max-mb N]"
        )
        return None
    run(args)
    return None

"""``python -m ascend_lab.report view BUNDLE [-o FOLDER]``: the bundle's traces as HTML pages
(and any other arguments: the same as ``ascend-lab report``)."""

import argparse
import os
import sys
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["view"]:
        parser = argparse.ArgumentParser(prog="python -m ascend_lab.report view")
        parser.add_argument("bundle", help="a report archive (.tar.gz) or its extracted folder")
        parser.add_argument(
            "-o",
            "--output",
            metavar="FOLDER",
            help="where to write the pages (default: <bundle>-traces/)",
        )
        args = parser.parse_args(argv[1:])
        from ascend_lab.report.bundle import BundleError
        from ascend_lab.report.view import traces_html

        folder = args.output or args.bundle.rstrip("/").replace(".tar.gz", "") + "-traces"
        try:
            pages = traces_html(args.bundle, folder)
        except BundleError as exc:
            print(f"ascend-lab report view: {exc}", file=sys.stderr)
            return 2
        print(f"Wrote {len(pages)} page(s); open {os.path.abspath(pages[0])}")
        return 0
    return _report(argv)


def _report(argv: List[str]) -> int:
    """``ascend-lab report ARGS``, parsed as the ``ascend-lab`` command parses them (help in
    the reader's language), without importing the CLI layer above ``report`` (issue #25)."""
    from ascend_lab.i18n import using
    from ascend_lab.i18n.cli_help import (
        LocalizedArgumentParser,
        LocalizedHelpFormatter,
        lang_in_argv,
    )
    from ascend_lab.report.cli import add_arguments, run

    parser = LocalizedArgumentParser(
        prog="ascend-lab report", formatter_class=LocalizedHelpFormatter
    )
    add_arguments(parser)
    with using(lang_in_argv(argv)):  # --help and usage errors in the reader's language
        args = parser.parse_args(argv)
    try:
        return int(run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

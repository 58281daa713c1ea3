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
        from .bundle import BundleError
        from .view import traces_html

        folder = args.output or args.bundle.rstrip("/").replace(".tar.gz", "") + "-traces"
        try:
            pages = traces_html(args.bundle, folder)
        except BundleError as exc:
            print(f"ascend-lab report view: {exc}", file=sys.stderr)
            return 2
        print(f"Wrote {len(pages)} page(s); open {os.path.abspath(pages[0])}")
        return 0
    from ..cli import main as cli_main

    return cli_main(["report"] + argv)


if __name__ == "__main__":
    sys.exit(main())

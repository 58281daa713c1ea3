"""``ascend-lab view PATH``: a .mindir, a .ir file, a dump folder or a profiler folder
(``*_ascend_ms`` / ``*_ascend_pt``, or the folder of one per rank; see ``sources.py``) ->
the viewer.

Exit codes: 0 shown, 2 the path cannot be shown (the reason is printed in one line, also for
an error no reader foresaw, and with ``-o`` the HTML file says it too, so a shared link never
opens a blank page). An ``ascend-lab report`` bundle is shown by :mod:`ascend_lab.report.view`,
which the CLI layer passes in as ``bundle_viewer``.

``--lang zh|en`` (else ``$ASCEND_LAB_LANG``, else the locale) is the language of the page's
viewer labels (``<html lang>``) and of what this command prints.
"""

import argparse
import os
import sys
from typing import Callable, Optional

from ascend_lab.i18n import _, language_argument, localize, using
from ascend_lab.render.error_page import error_html
from ascend_lab.viewfile.sources import (
    MINDIR_SUFFIX,
    ReportBundle,
    ViewFileError,
    find_kind,
    view_source,
)

__all__ = ["add_arguments", "is_report_bundle", "run", "say_cannot", "say_unexpected"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        help="a .mindir file, a .ir file, a folder of IR dumps, or an `ascend-lab report` "
        "archive (its traces and profile: one page each, with -o naming the folder)",
    )
    parser.add_argument(
        "other",
        nargs="?",
        default=None,
        help="a second .mindir, .ir, dump folder or saved .json payload: compare the two "
        "side by side",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "-o", "--output", help="write a standalone HTML file here (default: <name>.html)"
    )
    where.add_argument(
        "--serve", action="store_true", help="serve the page on 127.0.0.1 and print its URL"
    )
    parser.add_argument("--port", type=int, default=0, help="port for --serve (default: any)")
    parser.add_argument(
        "--passes",
        choices=("changed", "all", "none"),
        default="changed",
        help="for a dump folder: which passes' graphs to embed (default: changed)",
    )
    parser.add_argument(
        "--weight-stats",
        action="store_true",
        help="for a .mindir with -o: compute every weight's statistics (min, max, mean, std, "
        "histogram) into the page, with progress on stderr (--serve computes them on request)",
    )
    parser.add_argument(
        "--lang",
        metavar="LANG",
        type=language_argument,
        default=None,
        help="language of the page's labels and of these messages: en or zh (default: "
        "$ASCEND_LAB_LANG, else the locale, LC_ALL/LC_MESSAGES/LANG)",
    )


def _reason(exc: Exception) -> str:
    """The error's message in the reader's language (a ``msg`` keeps its template)."""
    return localize(exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc))


def say_cannot(exc: Exception) -> str:
    """Print ``ascend-lab view: <reason>`` on stderr; return the reason."""
    reason = _reason(exc)
    print(_("ascend-lab view: {}").format(reason), file=sys.stderr)
    return reason


def say_unexpected(name: str, exc: BaseException) -> str:
    """One line for an error no reader foresaw (a parser's bug, an odd file): printed as
    ``ascend-lab view: ...`` instead of a traceback (issue #26); return the reason."""
    detail = " ".join(str(exc).split())[:_DETAIL_MAX]
    reason = _("cannot show {}: unexpected {} while reading it ({})").format(
        name, type(exc).__name__, detail or "no message"
    )
    print(_("ascend-lab view: {}").format(reason), file=sys.stderr)
    return reason


_DETAIL_MAX = 300
BundleViewer = Callable[[argparse.Namespace], int]


def run(args: argparse.Namespace, bundle_viewer: Optional[BundleViewer] = None) -> int:
    """Show ``args.path``; a report bundle is shown by ``bundle_viewer``
    (``report.view.view_bundle_cli``), which the CLI layer (:mod:`ascend_lab.cli`) passes
    in: the viewer never imports the support bundle (issue #25)."""
    with using(getattr(args, "lang", None)):  # the page's viewer labels and these messages
        if not getattr(args, "other", None) and is_report_bundle(args.path):
            if bundle_viewer is None:
                print(
                    _("ascend-lab view: a report bundle is shown by `ascend-lab view`"),
                    file=sys.stderr,
                )
                return 2
            return bundle_viewer(args)
        try:
            return _run(args)
        except Exception as exc:  # noqa: BLE001 - issue #26: exit 2 and one line, never a traceback
            say_unexpected(os.path.basename(os.path.normpath(args.path)) or args.path, exc)
            return 2


def is_report_bundle(path: str) -> bool:
    """The source table takes ``path`` as an ``ascend-lab report`` bundle."""
    try:
        return isinstance(find_kind(path), ReportBundle)
    except ViewFileError:
        return False  # missing or unknown: _run says so


def _run(args: argparse.Namespace) -> int:
    from ascend_lab.render.standalone import render_html
    from ascend_lab.viewfile import weight_page

    if getattr(args, "other", None):
        return _view_two(args)
    name = os.path.basename(os.path.normpath(args.path)) or args.path
    try:
        page = render_html(view_source(args.path, passes=args.passes))
        failed = False
    except ViewFileError as exc:
        page = error_html(name, say_cannot(exc))
        failed = True
    except Exception as exc:  # noqa: BLE001 - issue #26: the page and stderr say why
        page = error_html(name, say_unexpected(name, exc))
        failed = True
    mindir = not failed and args.path.lower().endswith(MINDIR_SUFFIX)
    if args.weight_stats and (args.serve or not mindir):
        reason = _("weights are read on request") if args.serve else _("only a .mindir has weights")
        print(_("ascend-lab view: --weight-stats ignored ({})").format(reason), file=sys.stderr)
    if args.serve:
        if failed:
            return 2
        from ascend_lab.viewfile.serve import serve_page

        def announce(url: str) -> None:
            print(_("Serving {} at {}  (Ctrl-C to stop)").format(name, url), flush=True)

        answer = None
        if mindir:  # the page asks this server for a weight's statistics
            page = weight_page.with_stats_endpoint(page)
            answer = weight_page.stats_answerer(args.path)
        serve_page(page, port=args.port, announce=announce, weight_stats=answer)
        return 0
    if mindir and args.weight_stats:
        page = weight_page.with_precomputed_stats(page, weight_page.precompute(args.path))
    if failed and not args.output:
        return 2  # nothing asked for a file: do not leave an error page behind
    target = os.path.abspath(args.output or (name.rsplit(".", 1)[0] or name) + ".html")
    _write(target, page)
    print((_("Wrote an error page to {}") if failed else _("Wrote {}")).format(target))
    return 2 if failed else 0


def _compare_input(path: str) -> object:
    """A side of ``view A B``: what the source table opens (a saved ``.json`` payload too)."""
    from ascend_lab.viewfile.sources import payload_for_path

    return payload_for_path(path, passes="none")


def _view_two(args: argparse.Namespace) -> int:
    from ascend_lab.comparison import compare
    from ascend_lab.payload import PayloadError
    from ascend_lab.render.standalone import render_html

    names = [os.path.basename(os.path.normpath(p)) or p for p in (args.path, args.other)]
    try:
        sides = [_compare_input(p) for p in (args.path, args.other)]
        cmp = compare(sides[0], sides[1], titles=(names[0], names[1]))
    except (ViewFileError, PayloadError) as exc:
        say_cannot(exc)
        return 2
    except Exception as exc:  # noqa: BLE001 - issue #26: one line, never a traceback
        say_unexpected(" / ".join(names), exc)
        return 2
    print(cmp.summary())
    page = render_html(cmp.to_payload(), title=f"{names[0]} vs {names[1]}")
    if args.serve:
        from ascend_lab.viewfile.serve import serve_page

        def announce(url: str) -> None:
            print(_("Serving {} at {}  (Ctrl-C to stop)").format(names[0], url), flush=True)

        serve_page(page, port=args.port, announce=announce)
        return 0
    stem = (
        (names[0].rsplit(".", 1)[0] or names[0]) + "-vs-" + (names[1].rsplit(".", 1)[0] or names[1])
    )
    target = os.path.abspath(args.output or stem + ".html")
    _write(target, page)
    print(_("Wrote {}").format(target))
    return 0


def _write(target: str, page: str) -> None:
    # a random, exclusively created temp file beside the target, then one rename: never a
    # predictable <target>.part that a planted symlink would redirect
    from ascend_lab.safe_write import atomic_write_bytes

    atomic_write_bytes(target, page.encode("utf-8"))

"""``%ascend_compare a b [--html FILE] [--no-view] [-o var]``: two traces side by side.

``a`` and ``b`` are names (or Python expressions) in the user's namespace: traces,
saved payload dicts or graphs. The :class:`~ascend_lab.results.comparison.Comparison` is
stored in ``_compare`` (or the ``-o`` name), its summary displayed, then the viewer.
"""

import argparse
from typing import Any, Optional

from ascend_lab.i18n import _
from ascend_lab.i18n.magic_args import MagicArgumentParser
from ascend_lab.magic_support import check_output_name, evaluate, split_words

USAGE = "%ascend_compare a b [--html FILE] [--no-view] [-o var]"


def parse_line(line: str) -> argparse.Namespace:
    p = MagicArgumentParser("%ascend_compare", usage=USAGE, show_usage=True)
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--html", default=None, help="also write a standalone HTML page here")
    p.add_argument("--no-view", action="store_true", help="the summary only, no viewer")
    p.add_argument("-o", "--output", default="_compare")
    args = p.parse_args(split_words(line, USAGE))
    check_output_name(args.output)
    return args


def compare_magic(shell: Any, line: str) -> Optional[Any]:
    """Compare two traces named on the magic line; print a clear message on bad input."""
    from ascend_lab.comparison import compare
    from ascend_lab.payload import PayloadError

    try:
        args = parse_line(line)
        a = evaluate(shell, args.a)
        b = evaluate(shell, args.b)
        cmp = compare(a, b)
    except (ValueError, TypeError, PayloadError) as exc:
        print(f"%ascend_compare: {exc}")
        return None
    if shell is not None:
        shell.user_ns[args.output] = cmp
    if args.html:
        print(_("Wrote {}").format(cmp.to_html(args.html)))
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover
        print(cmp.summary())
        return None
    display(cmp)
    if not args.no_view:
        try:
            display(cmp.show())
        except (ImportError, FileNotFoundError) as exc:  # no anywidget, or viewer not built
            print(f"%ascend_compare: {exc}")
    return None

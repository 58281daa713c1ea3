"""``%ascend_compare --numerics a b x [y ...] [--amp O2] [--tensors] [--capture dump]
[--fusion a|b|both] [-o var]``.

Cell-by-Cell (``--capture dump``: op-by-op, graph mode; ``--fusion``: graph-kernel fusion
on that side) numeric comparison of two sides
(``a`` a Cell; ``b`` a Cell, a dict of reference arrays or a ``.npz`` path) on the inputs
that follow; with ``--amp O2`` there is no ``b``: ``a`` is compared with its AMP copy.
Names are Python expressions in the user's namespace. The
:class:`~ascend_lab.results.numerics.NumericsResult` is stored in ``_numerics`` (or the
``-o`` name) and displayed.
"""

import argparse
from typing import Any, List, Optional

from ascend_lab.i18n.magic_args import MagicArgumentParser
from ascend_lab.magic_support import check_output_name, evaluate, split_words

USAGE = (
    "%ascend_compare --numerics a b x [y ...] [--amp O2] [--tensors] [--capture dump] "
    "[--fusion a|b|both] [-o var]"
)
FUSION = {"a": "a", "b": "b", "both": True}


def parse_line(line: str) -> argparse.Namespace:
    p = MagicArgumentParser("%ascend_compare --numerics", usage=USAGE, show_usage=True)
    p.add_argument("--numerics", action="store_true")
    p.add_argument("names", nargs="+")
    p.add_argument("--amp", default=None, choices=("O1", "O2", "O3"))
    p.add_argument("--tensors", action="store_true")
    p.add_argument("--capture", default="cells", choices=("cells", "dump"))
    p.add_argument("--fusion", default=None, choices=tuple(FUSION))
    p.add_argument("-o", "--output", default="_numerics")
    args = p.parse_args(split_words(line, USAGE))
    check_output_name(args.output)
    need = 2 if args.amp else 3
    if len(args.names) < need:
        what = "a net and its inputs" if args.amp else "two sides and the inputs"
        raise ValueError(f"name {what}: {USAGE}")
    return args


def numerics_magic(shell: Any, line: str) -> Optional[Any]:
    """Run the comparison named on the line; a clear one-line message on bad input."""
    from ascend_lab.errors import AscendLabError
    from ascend_lab.numerics.api import compare_numerics

    try:
        args = parse_line(line)
        values: List[Any] = [evaluate(shell, name) for name in args.names]
        result = compare_numerics(
            *values,
            amp=args.amp,
            tensors=args.tensors,
            capture=args.capture,
            fusion=FUSION.get(args.fusion, False),
        )
    except (ValueError, TypeError, AscendLabError) as exc:
        print(f"%ascend_compare --numerics: {exc}")
        return None
    if shell is not None:
        shell.user_ns[args.output] = result
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover
        print(result)
        return None
    display(result)
    return None

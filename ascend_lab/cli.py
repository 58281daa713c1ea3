"""The ``ascend-lab`` command line.

Each subcommand lives in the module that owns the feature; that module provides
``add_arguments(parser)`` and ``run(args) -> int``. Modules are imported only for the
subcommand being run, so ``ascend-lab status`` stays fast (no MindSpore import).

``--help`` is shown in the reader's language: ``--lang`` anywhere on the line, else
``$ASCEND_LAB_LANG``, else the locale (:func:`ascend_lab.i18n.choose`). Every subcommand
takes ``--lang``: one that does not define it gets it here, for its messages.
"""

import argparse
import importlib
import sys
from typing import Any, List, Optional

from ascend_lab._version import __version__
from ascend_lab.i18n import N_, language_argument, using
from ascend_lab.i18n.cli_help import LocalizedArgumentParser, LocalizedHelpFormatter, lang_in_argv

# name -> (module, one-line help); scripts/i18n_extract.py reads the modules from here
SUBCOMMANDS = {
    "status": ("ascend_lab.device.cli", N_("show NPUs, HBM, health, processes and versions")),
    "install-kernel": (
        "ascend_lab.kernel.cli_install",
        N_("register the MindSpore Jupyter kernel"),
    ),
    "uninstall-kernel": (
        "ascend_lab.kernel.cli_uninstall",
        N_("remove a kernel ascend-lab installed"),
    ),
    "kernels": (
        "ascend_lab.kernel.cli_list",
        N_("list Jupyter kernels and which are ascend-lab's"),
    ),
    "course": (
        "ascend_lab.course.command",
        N_("open the course in JupyterLab (registers the kernel)"),
    ),
    "doctor": (
        "ascend_lab.doctor.cli",
        N_("diagnose an Ascend/MindSpore error log or the setup"),
    ),
    "view": (
        "ascend_lab.viewfile.cli",
        N_("open a .mindir, .ir file or dump folder in the viewer"),
    ),
    "report": (
        "ascend_lab.report.cli",
        N_("write one archive of this machine for a helper (redacted)"),
    ),
}


# --lang of a subcommand whose module does not define it (its messages only)
LANG_HELP = N_(
    "language of the messages: en or zh (default: $ASCEND_LAB_LANG, else the locale, "
    "LC_ALL/LC_MESSAGES/LANG)"
)


def _build_parser(chosen: Optional[str]) -> argparse.ArgumentParser:
    parser = LocalizedArgumentParser(  # subcommands' parsers are of the same class
        prog="ascend-lab",
        description="Ascend NPUs and MindSpore from inside Jupyter.",
        formatter_class=LocalizedHelpFormatter,
    )
    parser.add_argument("--version", action="version", version="ascend-lab " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sp = sub.add_parser(
            name, help=help_text, description=help_text, formatter_class=LocalizedHelpFormatter
        )
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sp)  # type: ignore[attr-defined]
            sp.set_defaults(_module=module)
            if not any("--lang" in a.option_strings for a in sp._actions):
                sp.add_argument(
                    "--lang", metavar="LANG", type=language_argument, default=None, help=LANG_HELP
                )
                sp.set_defaults(_lang_for_messages=True)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = _build_parser(chosen if chosen in SUBCOMMANDS else None)
    with using(lang_in_argv(argv)):  # --help and usage errors in the reader's language
        args = parser.parse_args(argv)
        module = getattr(args, "_module", None)
        if module is None:
            parser.print_help()
            return 0 if not argv else 2
    lang = args.lang if getattr(args, "_lang_for_messages", False) else None
    try:
        with using(lang):
            return int(_run(args.command, module, args) or 0)
    except KeyboardInterrupt:
        return 130


def _run(name: str, module: Any, args: argparse.Namespace) -> int:
    """Run subcommand ``name``. What reaches across features is wired here, the layer
    above every feature (issue #25): the support bundle's replay for ``status --from`` and
    ``doctor --from``, and its trace pages for ``view BUNDLE``, are passed to the device,
    doctor and viewer commands, which never import ``report`` themselves."""
    if name in ("status", "doctor") and getattr(args, "from_bundle", None):
        from ascend_lab.report import replay

        return module.run(args, replay=replay.status_cli if name == "status" else replay.doctor_cli)
    if name == "view" and not getattr(args, "other", None) and module.is_report_bundle(args.path):
        from ascend_lab.report.view import (
            view_bundle_cli,
        )  # only then: the bundle code costs ~0.2 s

        return module.run(args, bundle_viewer=view_bundle_cli)
    return module.run(args)

"""``ascend-lab kernels``: list Jupyter kernels, marking the ones ascend-lab installed."""

import argparse
import json
from typing import Any, Dict, List

from ascend_lab.i18n import _
from ascend_lab.kernel import spec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list")


def rows() -> List[Dict[str, Any]]:
    return [
        spec.describe(name, found["resource_dir"], found["spec"])
        for name, found in spec.all_specs().items()
    ]


def format_text(items: List[Dict[str, Any]]) -> str:
    if not items:
        return _("No Jupyter kernels found.")
    width = max(len(item["name"]) for item in items)
    lines = []
    for item in items:
        mark = "*" if item["ascend_lab"] else " "
        lines.append(
            "{} {:<{w}}  {}  {}".format(
                mark, item["name"], item["display_name"], item["resource_dir"], w=width
            )
        )
        if item["ascend_lab"]:
            if item["set_env"]:
                detail = _("sources {}").format(item["set_env"])
            else:
                detail = _("CPU mode (no set_env.sh)")
            if item["device_id"] is not None:
                detail += _(", device {}").format(item["device_id"])
            lines.append("  {:<{w}}  {}".format("", detail, w=width))
    lines.append(_("(* = installed by ascend-lab)"))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    items = rows()
    if args.json:
        print(json.dumps(items, indent=2))
    else:  # in the language of --lang, which ascend_lab.cli adds
        print(format_text(items))
    return 0

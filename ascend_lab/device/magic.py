"""``%ascend_status [--json] [--refresh] [--check] [--details]``."""

import argparse
import shlex
from typing import Any, Dict, Optional

from ascend_lab.i18n import language_argument
from ascend_lab.i18n.magic_args import MagicArgumentParser, usage_error
from ascend_lab.model.device_status import DeviceStatus

USAGE = "%ascend_status [--json] [--refresh] [--check] [--details] [--lang zh|en]"


class StatusJSON:
    """Shows a status dict as JSON: a tree in JupyterLab, indented text in a terminal."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data

    def _repr_json_(self) -> Dict[str, Any]:
        return self.data

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        import json

        p.text(json.dumps(self.data, indent=2, ensure_ascii=False))

    def __repr__(self) -> str:
        import json

        return json.dumps(self.data, indent=2, ensure_ascii=False)


def _parser() -> argparse.ArgumentParser:
    p = MagicArgumentParser("%ascend_status")
    p.add_argument("--json", action="store_true")
    p.add_argument("--refresh", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--details", action="store_true")
    p.add_argument("--lang", default=None, type=language_argument)
    return p


def status_magic(shell: Any, line: str) -> Optional[Any]:
    """Return the status (an HTML card in notebooks, text in a terminal) or its JSON."""
    from ascend_lab.probes.device import collect_status

    try:
        args = _parser().parse_args(shlex.split(line or ""))
    except ValueError as e:
        print(usage_error("%ascend_status", str(e), USAGE))
        return None
    status: DeviceStatus = collect_status(
        refresh=args.refresh, details=args.details, run_check=args.check
    )
    if args.json:
        return StatusJSON(status.to_dict())
    from ascend_lab.i18n import Localized, choose

    return Localized(status, choose(args.lang))  # shown later: the language goes with it

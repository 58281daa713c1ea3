"""Weight statistics for a standalone page of a ``.mindir`` (``ascend-lab view``).

The viewer's standalone entry reads ``<script type="application/json"
id="ascend-lab-weight-stats">``: ``{"stats": {name: stats or {"error": message}}}`` written
into the page (``-o FILE --weight-stats``), or ``{"endpoint": "weight-stats"}`` for a page
served by ``--serve``, whose server answers ``/weight-stats?name=`` (the page's Content
Security Policy then allows requests to its own origin, and nowhere else).
"""

import os
import sys
from typing import Any, Callable, Dict, Optional, TextIO, Tuple

from ascend_lab.i18n import _
from ascend_lab.render.standalone import embed_json
from ascend_lab.viewfile.weight_stats import WeightStatsError, all_weight_stats, weight_stats

ENDPOINT = "weight-stats"
ELEMENT = '<script type="application/json" id="ascend-lab-weight-stats">{}</script>\n'
_NO_CONNECT = "connect-src 'none'"
_SELF_CONNECT = "connect-src 'self'"


def _with_element(page: str, data: Dict[str, Any]) -> str:
    # </head> is the first one: the title before it is escaped, the payload comes after
    head, sep, rest = page.partition("</head>")
    if not sep:
        raise ValueError("not an ascend-lab page: no </head>")
    return head + ELEMENT.format(embed_json(data)) + sep + rest


def with_precomputed_stats(page: str, stats: Dict[str, Dict[str, Any]]) -> str:
    """``page`` with every weight's statistics in it (read when a weight is selected)."""
    return _with_element(page, {"stats": stats})


def with_stats_endpoint(page: str) -> str:
    """``page`` asking its server for statistics (``ENDPOINT?name=``)."""
    head, sep, rest = page.partition("</head>")
    if _NO_CONNECT not in head:
        raise ValueError("the page's Content-Security-Policy has no connect-src 'none'")
    return _with_element(
        head.replace(_NO_CONNECT, _SELF_CONNECT, 1) + sep + rest, {"endpoint": ENDPOINT}
    )


def _local(message: str, path: str) -> str:
    """A message about ``path`` without the folder it is in (pages are shared)."""
    return message.replace(os.path.dirname(path) + os.sep, "")


def precompute(path: str, stream: Optional[TextIO] = None) -> Dict[str, Dict[str, Any]]:
    """Every weight's statistics, with progress on ``stream`` (default stderr)."""
    path = os.path.abspath(path)
    out = stream if stream is not None else sys.stderr
    live = hasattr(out, "isatty") and out.isatty()
    shown = [-1]

    def progress(done: int, total: int, name: str) -> None:
        if live:  # one line, rewritten
            out.write(
                "\r" + _("weight statistics: {}/{} {}").format(done, total, f"{name[:60]:<60}")
            )
            if done == total:
                out.write("\n")
        else:  # a log: every tenth, and the last
            tenth = done * 10 // total
            if tenth != shown[0] or done == total:
                shown[0] = tenth
                out.write(_("weight statistics: {}/{}").format(done, total) + "\n")
        out.flush()

    stats = all_weight_stats(path, progress=progress)
    for entry in stats.values():
        if "error" in entry:
            entry["error"] = _local(entry["error"], path)
    return stats


def stats_answerer(path: str) -> Callable[[str], Tuple[int, Dict[str, Any]]]:
    """``name -> (HTTP status, body)`` for the statistics of the .mindir at ``path``."""
    path = os.path.abspath(path)

    def answer(name: str) -> Tuple[int, Dict[str, Any]]:
        if not name:
            return 400, {"message": "which weight? (the name parameter is missing)"}
        try:
            return 200, weight_stats(path, name)
        except WeightStatsError as exc:
            return 400, {"message": _local(str(exc), path)}

    return answer

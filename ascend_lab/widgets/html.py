"""One self-contained HTML file with the viewer: no server, no network, for sharing."""

import html
import json
import os
import tempfile
from typing import Any, Optional

from ..payload import payload_for_view
from .assets import read_bundle

VIEWS = ("all", "graph", "compare", "timeline", "memory")

# The page may run inline code and blob: workers/images, and load nothing from anywhere.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline' blob:; worker-src blob:; "
    "style-src 'unsafe-inline'; img-src data: blob:; connect-src 'none'; base-uri 'none'; "
    "form-action 'none'"
)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="ascend-lab">
<title>{title}</title>
<style>
html, body {{ margin: 0; padding: 0; background: Canvas; color: CanvasText; }}
body {{ font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; }}
#ascend-lab-root {{ margin: 8px; }}
#ascend-lab-root .al-root {{ min-height: calc(100vh - 20px); }}
</style>
</head>
<body>
<div id="ascend-lab-root" data-view="{view}" aria-label="{title}"></div>
<script type="application/json" id="ascend-lab-payload">{payload}</script>
<script type="module">
{module}
</script>
</body>
</html>
"""


def embed_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no ``</`` and no ``<!--``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def embed_script(code: str) -> str:
    """JavaScript that cannot end its <script> element early."""
    return code.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def render_html(payload: Any, title: Optional[str] = None, view: str = "all") -> str:
    """The HTML page as a string (see :func:`to_html`)."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}; got {view!r}")
    data, _ = payload_for_view(payload)
    page_title = (
        title if title is not None else str(data["meta"].get("title") or "ascend-lab graph")
    )
    return PAGE.format(
        csp=CSP,
        title=html.escape(page_title, quote=True),
        view=view,
        payload=embed_json(data),
        module=embed_script(read_bundle("standalone.js")),
    )


def to_html(payload: Any, path: str, title: Optional[str] = None, view: str = "all") -> str:
    """Write one self-contained HTML file with the viewer; return its absolute path.

    ``payload`` is an ``ascend-lab.graph/1`` dict (or a Trace). The page needs no server
    and no network: the viewer's JavaScript and the payload are inlined.
    """
    page = render_html(payload, title=title, view=view)
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write {target}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".ascend-lab-", suffix=".html", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target

"""The page shown instead of a graph when a file cannot be read: the reason, escaped, in the
reader's language (:func:`ascend_lab.i18n.current`)."""

import html

from ascend_lab.i18n import CHINESE, _, current

PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="ascend-lab">
<title>{title}</title>
<style>body {{ font-family: system-ui, sans-serif; margin: 2em; max-width: 60em; }}
pre {{ white-space: pre-wrap; }}</style>
</head>
<body>
<h1>{title}</h1>
<pre id="ascend-lab-error" role="alert">{message}</pre>
<p>{what}</p>
</body>
</html>
"""


def error_html(name: str, message: str) -> str:
    """A self-contained page saying why ``name`` cannot be shown (no script)."""
    what = html.escape(
        _("ascend-lab opens a {} file, a {} file or a folder of MindSpore IR dumps ({}).")
    ).format("<code>.mindir</code>", "<code>.ir</code>", "<code>save_graphs</code>")
    return PAGE.format(
        lang="zh-CN" if current() == CHINESE else "en",
        title=html.escape(_("ascend-lab cannot show {}").format(name), quote=True),
        message=html.escape(message),
        what=what,
    )

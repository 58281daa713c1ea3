"""The page shown instead of a graph when a file cannot be read: the reason, escaped."""

import html

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="ascend-lab">
<title>ascend-lab: cannot show {name}</title>
<style>body {{ font-family: system-ui, sans-serif; margin: 2em; max-width: 60em; }}
pre {{ white-space: pre-wrap; }}</style>
</head>
<body>
<h1>ascend-lab cannot show {name}</h1>
<pre id="ascend-lab-error" role="alert">{message}</pre>
<p>ascend-lab opens a <code>.mindir</code> file, a <code>.ir</code> file or a folder of
MindSpore IR dumps (<code>save_graphs</code>).</p>
</body>
</html>
"""


def error_html(name: str, message: str) -> str:
    """A self-contained page saying why ``name`` cannot be shown (no script)."""
    return PAGE.format(name=html.escape(name, quote=True), message=html.escape(message))

"""One self-contained HTML file with the viewer: no server, no network, for sharing.

The page runs exactly one script, the viewer module inlined in it: its Content Security
Policy names that script by its SHA-256 hash (no ``'unsafe-inline'``), allows blob: workers
(the layout) and images (PNG export), and loads nothing from anywhere. By default the
machine's paths are taken out of the payload first (:mod:`ascend_lab.payload.redact`).

The viewer's labels are in the page's language (``<html lang>``): the one
:func:`ascend_lab.i18n.current` gives (``--lang``, ``$ASCEND_LAB_LANG``, the locale) unless
``lang`` says otherwise. The translations travel inside the bundled script (built from
``ascend_lab/locale/<lang>/LC_MESSAGES/ascend_lab.po``), so the page needs no server for them.
"""

import base64
import functools
import hashlib
import html
import json
import os
import secrets
from typing import Any, Callable, Dict, Optional, Tuple

from ascend_lab import i18n
from ascend_lab.parsers.gc_pause import gc_paused
from ascend_lab.payload import PayloadError, payload_for_view
from ascend_lab.payload.packing import PassPacker, pack_passes
from ascend_lab.payload.redact import PathRedactor
from ascend_lab.render.assets import read_bundle

# "profile": the Profile tab alone (ascend_lab.profile(...).to_html(path, view="profile"))
VIEWS = ("all", "graph", "compare", "timeline", "memory", "profile")

CSP_TEMPLATE = (
    "default-src 'none'; script-src '{script_hash}'; worker-src blob:; "
    "style-src 'unsafe-inline'; img-src data: blob:; connect-src 'none'; base-uri 'none'; "
    "form-action 'none'"
)

PAGE = """<!DOCTYPE html>
<html lang="{lang}">
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
{packed}<script type="module">{module}</script>
</body>
</html>
"""

PACKED = '<script type="application/json" id="ascend-lab-passes">{}</script>\n'


def embed_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no ``</`` and no ``<!--``."""
    # no check for cycles (a payload is a tree; a cycle ends in RecursionError all the same)
    # and no NaN or Infinity: they are not JSON, and the page would not open while the
    # command said it wrote it (issue #37); the readers keep numbers finite, this says so
    try:
        text = json.dumps(
            data, ensure_ascii=False, separators=(",", ":"), check_circular=False, allow_nan=False
        )
    except ValueError:
        raise ValueError("the page would hold a number that is not finite (inf or NaN)") from None
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def embed_script(code: str) -> str:
    """JavaScript that cannot end its <script> element early."""
    return code.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def page_language(lang: Optional[str] = None) -> str:
    """The BCP 47 tag of the page's language (``zh-CN``, ``en``): ``lang`` if given, else
    :func:`ascend_lab.i18n.current`. The viewer reads it from ``<html lang>``."""
    chosen = i18n.normalize(lang) if lang else i18n.current()
    return (chosen or i18n.ENGLISH).replace("_", "-")


def script_hash(code: str) -> str:
    """The CSP source for an inline script whose text is ``code`` (``sha256-<base64>``)."""
    digest = hashlib.sha256(code.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_html(
    payload: Any,
    title: Optional[str] = None,
    view: str = "all",
    redact: bool = True,
    project: Optional[str] = None,
    lang: Optional[str] = None,
) -> str:
    """The HTML page as a string (see :func:`to_html`)."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}; got {view!r}")
    # checking, redacting (a copy) and encoding a big payload allocate millions of small
    # objects and make no cycles: without the cyclic collector's passes over the heap
    with gc_paused():
        return _render_html(payload, title, view, redact, project, lang)


def _render_html(
    payload: Any,
    title: Optional[str],
    view: str,
    redact: bool,
    project: Optional[str],
    lang: Optional[str],
) -> str:
    redactor = PathRedactor(project) if redact else None
    transform = redactor.value if redactor is not None else None
    packer = pass_packer(payload, transform)
    try:
        return _page(payload, packer, redactor, transform, title, view, lang)
    finally:
        if packer is not None:
            packer.close()  # its compression thread, also when the page failed


@functools.singledispatch
def pass_packer(source: Any, transform: Optional[Callable[[Any], Any]]) -> Optional[PassPacker]:
    """The packer a page's pass snapshots go through while ``source``'s payload is built.

    A Trace (or a source that builds a Trace's payload, such as a dump folder's) hands each
    pass to the packer as it is built, never all passes at once: a :class:`PassPacker`.
    A payload dict already holds its passes (registered below): None, and the page packs
    them after (:func:`~ascend_lab.payload.packing.pack_passes`).
    """
    return PassPacker(transform=transform)


@pass_packer.register(dict)
def _payload_packer(
    source: Dict[str, Any], transform: Optional[Callable[[Any], Any]]
) -> Optional[PassPacker]:
    return None


def _page(
    payload: Any,
    packer: Optional[PassPacker],
    redactor: Optional[PathRedactor],
    transform: Any,
    title: Optional[str],
    view: str,
    lang: Optional[str],
) -> str:
    data, _ = payload_for_view(payload, pass_sink=packer)
    if view == "profile" and not data.get("profile"):
        raise ValueError(
            "view='profile' needs a payload with a profile section: "
            "ascend_lab.profile(net, x).to_html(path, view='profile')"
        )
    page_title = (
        title if title is not None else str(data["meta"].get("title") or "ascend-lab graph")
    )
    try:
        if packer is not None:
            packed = packer.packed()
        else:  # pass snapshots: gzip, decoded when opened
            data, packed = pack_passes(data, transform=transform)
        if redactor is not None:
            page_title = redactor.text(page_title)
            data = redactor.value(data)
        payload_text = embed_json(data)
    except RecursionError:
        raise PayloadError(["the payload nests deeper than Python can walk"]) from None
    module = "\n" + embed_script(read_bundle("standalone.js")) + "\n"
    return PAGE.format(
        lang=page_language(lang),
        csp=CSP_TEMPLATE.format(script_hash=script_hash(module)),
        title=html.escape(page_title, quote=True),
        view=view,
        payload=payload_text,
        packed=PACKED.format(embed_json(packed)) if packed else "",
        module=module,
    )


def to_html(
    payload: Any,
    path: str,
    title: Optional[str] = None,
    view: str = "all",
    redact: bool = True,
    project: Optional[str] = None,
    lang: Optional[str] = None,
) -> str:
    """Write one self-contained HTML file with the viewer; return its absolute path.

    ``payload`` is an ``ascend-lab.graph/1`` dict (or a Trace). The page needs no server
    and no network: the viewer's JavaScript and the payload are inlined.

    ``redact`` (default on, the file is meant for sharing): absolute paths in the payload
    (dump folders, site-packages, the home folder, source files) become relative to
    ``project`` (default: the current folder) or are shortened to ``<site-packages>/...``,
    ``<dump>/...`` or ``…/name`` (see :mod:`ascend_lab.payload.redact`). The file gets
    the permissions of any new file (``0666`` minus the umask); an existing file is
    replaced whole, never half-written.

    ``lang`` (``"zh"``, ``"en"``, ...): the language of the viewer's labels; default the
    current one (:func:`ascend_lab.i18n.current`: ``--lang``, ``$ASCEND_LAB_LANG``, locale).
    """
    page = render_html(payload, title=title, view=view, redact=redact, project=project, lang=lang)
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write {target}: the folder {folder} does not exist")
    tmp, fd = _new_file_beside(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def _new_file_beside(target: str) -> Tuple[str, int]:
    """A new hidden file next to ``target``, opened for writing, mode 0666 minus the umask.

    (``tempfile.mkstemp`` would make it 0600 whatever the umask, and the shared page with it.)
    """
    folder, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL  # novermin (bit flags, not a union type)
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.part")
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue

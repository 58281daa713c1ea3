"""A bundle's traces as the viewer's standalone HTML pages, plus an index with the profile.

``traces_html(bundle, folder)`` writes one page per kept dump folder (``jit_level`` O0, O1,
O2) and one for the MindIR, through the same code as ``ascend-lab view`` (a dump folder
-> payload -> :func:`ascend_lab.render.standalone.render_html`), and ``index.html`` linking them
with the profile's per-operator table. Every string from the bundle is escaped.
"""

import html
import os
import sys
import tempfile
from typing import Any, Dict, List, Tuple

from ascend_lab.report.bundle import BundleError, read_bundle
from ascend_lab.safe_write import atomic_write_bytes

PROFILE_TABLE_MAX_BYTES = 64 * 1024
NO_TRACES = "<li>none (the report was recorded without --with-trace)</li>"


def _extract(files: Dict[str, bytes], prefix: str, folder: str) -> bool:
    """Write the bundle's files under ``prefix`` into ``folder`` (no path leaves it)."""
    wrote = False
    for name, data in files.items():
        if not name.startswith(prefix):
            continue
        rel = name[len(prefix) :]
        parts = [p for p in rel.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            continue
        target = os.path.join(folder, *parts)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "xb") as f:  # a fresh private folder: nothing is there yet
                f.write(data)
        except OSError:
            continue  # a name this folder cannot hold (a file where another needs a folder)
        wrote = True
    return wrote


def trace_pages(bundle: str) -> List[Tuple[str, str]]:
    """``[(name, standalone HTML)]`` for each trace in the bundle (an error page if one is
    unreadable, so a bundle always opens)."""
    from ascend_lab.render.error_page import error_html
    from ascend_lab.render.standalone import render_html
    from ascend_lab.viewfile.sources import ViewFileError, payload_for_path

    files = read_bundle(bundle)
    pages = []
    with tempfile.TemporaryDirectory(prefix="ascend-lab-view-") as tmp:
        for level in ("O0", "O1", "O2"):
            folder = os.path.join(tmp, level)
            if not _extract(files, f"trace/{level}/dump/", folder):
                continue
            name = f"trace_{level}"
            try:
                pages.append(
                    (name, render_html(payload_for_path(folder), title=f"jit_level {level}"))
                )
            except ViewFileError as exc:
                pages.append((name, error_html(name, str(exc))))
        if "trace/net.mindir" in files:
            path = os.path.join(tmp, "net.mindir")
            with open(path, "wb") as f:
                f.write(files["trace/net.mindir"])
            try:
                pages.append(("mindir", render_html(payload_for_path(path), title="MindIR")))
            except ViewFileError as exc:
                pages.append(("mindir", error_html("net.mindir", str(exc))))
    return pages


def _profile_table(files: Dict[str, bytes]) -> str:
    for name in sorted(files):
        if name.startswith("trace/profile/") and name.endswith(
            ("op_type_info_0.csv", "op_statistic.csv")
        ):
            text = files[name][:PROFILE_TABLE_MAX_BYTES].decode("utf-8", "replace")
            return f"<h2>Profile: {html.escape(name)}</h2><pre>{html.escape(text)}</pre>"
    return "<p>No profile in this bundle.</p>"


def traces_html(bundle: str, folder: str) -> List[str]:
    """Write each trace page and ``index.html`` into ``folder``; return the pages' paths."""
    os.makedirs(folder, exist_ok=True)
    written = []
    links = []
    for name, page in trace_pages(bundle):
        path = os.path.join(folder, name + ".html")
        atomic_write_bytes(path, page.encode("utf-8"))  # never through a planted link
        written.append(path)
        links.append(f'<li><a href="{html.escape(name)}.html">{html.escape(name)}</a></li>')
    files = read_bundle(bundle)
    summary = (files.get("status.txt") or b"").decode("utf-8", "replace")
    index = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\"><title>ascend-lab report</title></head><body>"
        f"<h1>{html.escape(os.path.basename(bundle))}</h1>"
        f"<h2>Traces</h2><ul>{''.join(links) or NO_TRACES}</ul>"
        f"{_profile_table(files)}<h2>Status</h2><pre>{html.escape(summary)}</pre></body></html>"
    )
    index_path = os.path.join(folder, "index.html")
    atomic_write_bytes(index_path, index.encode("utf-8"))
    return [index_path] + written


def view_bundle_cli(args: Any) -> int:
    """``ascend-lab view BUNDLE [-o FOLDER]``: one page per trace and an index, written to
    ``FOLDER`` (default ``<bundle>-traces``). Dispatched by the CLI layer
    (:mod:`ascend_lab.cli`), so the viewer (``viewfile``) stays below the support bundle."""
    from ascend_lab.i18n import _, using
    from ascend_lab.viewfile.cli import say_cannot, say_unexpected

    with using(getattr(args, "lang", None)):
        if args.serve:
            print(
                _("ascend-lab view: --serve shows one graph; for a report use -o FOLDER"),
                file=sys.stderr,
            )
            return 2
        base = os.path.basename(os.path.normpath(args.path))
        for suffix in (".tar.gz", ".tgz"):
            if base.endswith(suffix):
                base = base[: -len(suffix)]
        folder = os.path.abspath(args.output or base + "-traces")
        try:
            pages = traces_html(args.path, folder)
        except BundleError as exc:
            say_cannot(exc)
            return 2
        except Exception as exc:  # noqa: BLE001 - issue #26: one line, never a traceback
            say_unexpected(os.path.basename(os.path.normpath(args.path)), exc)
            return 2
        print(_("Wrote {} page(s) to {}; open {}").format(len(pages), folder, pages[0]))
        return 0

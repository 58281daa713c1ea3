"""Text and HTML views of a Diagnosis. Every string that came from the user's text or the
machine is escaped before it goes into HTML."""

import html
import re
from typing import Any, List

from .checks import CONFIRMED, CONTRADICTED

_CODE = re.compile(r"`([^`]{1,500})`")  # bounded: linear on any text


def _verdict_label(verdict: str) -> str:
    return {
        CONFIRMED: "confirmed on this machine",
        CONTRADICTED: "not confirmed on this machine",
    }.get(verdict, verdict)


def render_text(diag: Any) -> str:
    out: List[str] = []
    out.append(f"ascend doctor: examined {diag.source}")
    for note in diag.notes:
        out.append("note: " + note)
    out.append("")
    if diag.findings:
        for i, f in enumerate(diag.findings, 1):
            e = f.entry
            tag = "" if e.kind == "error" else f" [{e.kind}]"
            out.append(f"{i}. {f.title}{tag}")
            out.append("   Term:     " + e.term)
            for n, line in f.evidence:
                out.append(f"   Evidence: line {n}: {line}")
            out.append("   Cause:    " + e.cause)
            out.append("   Fix:")
            for step in e.fix:
                out.append("     - " + step)
            out.append("   Why:      " + e.explanation)
            c = f.confirmation
            if c is not None:
                out.append(f"   Machine check ({c.check}): {_verdict_label(c.verdict)}")
                for line in c.lines:
                    out.append("     " + line)
            out.append("")
    elif diag.source != "environment":
        out.append(f"Nothing recognised in the {diag.source}.")
        out.append("")
    if diag.environment:
        out.append("Environment:")
        for c in diag.environment:
            for line in c.lines:
                out.append("  - " + line)
        out.append("")
    elif diag.source == "environment":
        out.append("No problem found in the environment.")
        out.append("")
    out.append("Checked:")
    for line in diag.checked:
        out.append("  - " + line)
    if diag.next_steps:
        out.append("Collect next:")
        for step in diag.next_steps:
            out.append("  - " + step)
    return "\n".join(out).rstrip() + "\n"


def _rich(text: str) -> str:
    """Escape, then turn `code` spans into <code> (backticks survive html.escape)."""
    return _CODE.sub(r"<code>\1</code>", html.escape(str(text)))


_STYLE = (
    "font-family: var(--jp-ui-font-family, sans-serif); font-size: var(--jp-ui-font-size1, 13px);"
    " color: var(--jp-content-font-color1, inherit); line-height: 1.45;"
)
_CARD = (
    "border: 1px solid var(--jp-border-color2, #ccc); border-left: 4px solid %s;"
    " border-radius: 4px; padding: 6px 10px; margin: 6px 0;"
    " background: var(--jp-layout-color1, transparent);"
)
_EVIDENCE = (
    "font-family: var(--jp-code-font-family, monospace); font-size: var(--jp-code-font-size, 12px);"
    " background: var(--jp-layout-color2, #f5f5f5); padding: 2px 6px; border-radius: 3px;"
    " white-space: pre-wrap; word-break: break-all; margin: 2px 0;"
)
_MUTED = "color: var(--jp-content-font-color2, #666);"
_VERDICT_COLOR = {
    CONFIRMED: "var(--jp-error-color1, #d32f2f)",
    CONTRADICTED: "var(--jp-success-color1, #388e3c)",
}


_UL = '<ul style="margin: 2px 0;">'


def _list(lines: Any) -> str:
    return _UL + "".join("<li>" + _rich(line) + "</li>" for line in lines) + "</ul>"


def _confirmation_html(c: Any) -> str:
    color = _VERDICT_COLOR.get(c.verdict, "var(--jp-content-font-color2, #666)")
    label = html.escape(_verdict_label(c.verdict))
    return (
        '<div class="ascend-doctor-check">'
        + "<b>Machine check ("
        + html.escape(c.check)
        + "):</b> "
        + '<span style="color: '
        + color
        + '; font-weight: 600;">'
        + label
        + "</span>"
        + _list(c.lines)
        + "</div>"
    )


def _finding_html(i: int, f: Any) -> str:
    e = f.entry
    error = e.kind == "error"
    accent = "var(--jp-error-color1, #d32f2f)" if error else "var(--jp-warn-color1, #f57c00)"
    parts = [
        '<div class="ascend-doctor-finding" data-id="'
        + html.escape(e.id)
        + '" style="'
        + _CARD % accent
        + '">',
        '<div style="font-size: var(--jp-ui-font-size2, 15px); font-weight: 600;">'
        + str(i)
        + ". "
        + html.escape(f.title)
        + "</div>",
        '<div style="'
        + _MUTED
        + '">'
        + html.escape(e.term)
        + ("" if error else " · " + html.escape(e.kind))
        + "</div>",
    ]
    for n, line in f.evidence:
        parts.append(
            '<div class="ascend-doctor-evidence" style="'
            + _EVIDENCE
            + '">'
            + '<span style="'
            + _MUTED
            + '">line '
            + str(n)
            + ":</span> "
            + html.escape(line)
            + "</div>"
        )
    parts.append("<div><b>Cause:</b> " + _rich(e.cause) + "</div>")
    parts.append("<div><b>Fix:</b>" + _list(e.fix) + "</div>")
    parts.append('<div style="' + _MUTED + '">' + _rich(e.explanation) + "</div>")
    if f.confirmation is not None:
        parts.append(_confirmation_html(f.confirmation))
    parts.append("</div>")
    return "".join(parts)


def render_html(diag: Any) -> str:
    source = html.escape(diag.source)
    parts: List[str] = ['<div class="ascend-doctor" style="' + _STYLE + '">']
    parts.append('<div style="' + _MUTED + '">ascend doctor: examined ' + source + "</div>")
    for note in diag.notes:
        parts.append('<div style="' + _MUTED + '">' + _rich(note) + "</div>")
    for i, f in enumerate(diag.findings, 1):
        parts.append(_finding_html(i, f))
    if not diag.findings and diag.source != "environment":
        card = _CARD % "var(--jp-border-color1, #999)"
        parts.append(
            '<div style="' + card + '"><b>Nothing recognised in the ' + source + ".</b></div>"
        )
    if diag.environment:
        card = _CARD % "var(--jp-warn-color1, #f57c00)"
        lines = [line for c in diag.environment for line in c.lines]
        parts.append('<div style="' + card + '"><b>Environment</b>' + _list(lines) + "</div>")
    elif diag.source == "environment":
        parts.append("<div><b>No problem found in the environment.</b></div>")
    parts.append(
        '<details style="'
        + _MUTED
        + '"><summary>Checked</summary>'
        + _list(diag.checked)
        + "</details>"
    )
    if diag.next_steps:
        parts.append("<div><b>Collect next:</b>" + _list(diag.next_steps) + "</div>")
    parts.append("</div>")
    return "".join(parts)

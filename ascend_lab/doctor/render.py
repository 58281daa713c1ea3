"""Text and HTML views of a Diagnosis. Every string that came from the user's text or the
machine is escaped before it goes into HTML."""

import html
import re
from typing import Any, List

from ascend_lab.doctor.checks import CONFIRMED, CONTRADICTED
from ascend_lab.doctor.codes import explain
from ascend_lab.i18n import N_, _, current, localize

_CODE = re.compile(r"`([^`]{1,500})`")  # bounded: linear on any text


_SOURCES = (N_("environment"), N_("stdin"), N_("text"), N_("cell"), N_("last exception"))
_KINDS = (N_("error"), N_("pitfall"))
_VERDICTS = (N_("info"), N_("could not check"))
_CHECKS = (N_("versions"), N_("env"), N_("devices"), N_("group"), N_("status"))


def _verdict_label(verdict: str) -> str:
    return _(
        {
            CONFIRMED: N_("confirmed on this machine"),
            CONTRADICTED: N_("not confirmed on this machine"),
        }.get(verdict, verdict)
    )


def _texts(lines: Any) -> List[str]:
    return [localize(line) for line in lines]


# Said instead of diagnosis.NOT_FROM_HERE when findings carry machine checks: that note
# said this machine was not shown, and the checks below it showed this machine.
NOT_FROM_HERE_CHECKED = N_(
    "The text may come from another machine, so the section on this machine's own "
    "environment is left out (add --env to show it); the machine checks of each finding "
    "below are of this machine"
)


def _notes(diag: Any) -> List[str]:
    """The diagnosis' notes in the reader's language, the environment note saying exactly
    what is left out when findings were checked against this machine."""
    from ascend_lab.doctor.diagnosis import NOT_FROM_HERE

    checked = any(getattr(f, "confirmation", None) is not None for f in diag.findings)
    return [
        localize(NOT_FROM_HERE_CHECKED if note == NOT_FROM_HERE and checked else note)
        for note in diag.notes
    ]


def _codes(diag: Any) -> List[Any]:
    """The diagnosis' error codes that no finding explains, in the reader's language."""
    lang = current()
    shown = {f.code.code for f in diag.findings if f.code is not None}
    return [
        explain(c.code, c.kind, c.line, c.name, lang)
        for c in diag.error_codes
        if c.code not in shown
    ]


def _unsure(diag: Any) -> List[str]:
    """What to say when the first two findings compete (:func:`.diagnosis.unsure_between`)."""
    pair = getattr(diag, "unsure", None) or []
    if len(pair) < 2:
        return []
    return [
        _(
            "Unsure: two different failures match as well as each other: {} and {}. "
            "The earliest error in the log is usually the cause; check which came first."
        ).format(pair[0].title, pair[1].title)
    ]


def _rank_label(f: Any) -> str:
    from ascend_lab.doctor.diagnosis import RANK_LABELS, rank_label_key

    return _("how sure: {}").format(_(RANK_LABELS[rank_label_key(f)]))


def _code_heading(note: Any) -> str:
    name = f"{note.name}({note.code})" if note.name and note.kind == "cann" else note.code
    if note.internal:
        return _("{} (line {}): {}, internal error").format(name, note.line, note.module)
    return _("{} (line {}): {}").format(name, note.line, note.module)


def _codes_text(diag: Any) -> List[str]:
    out: List[str] = []
    notes = _codes(diag)
    if not notes:
        return out
    out.append(_("Error codes:"))
    for note in notes:
        out.append("  - " + _code_heading(note))
        out.append("    " + note.meaning + (f" ({note.detail})" if note.detail else ""))
        for step in note.next_steps:
            out.append("    * " + step)
        for title, url in note.docs:
            out.append(_("    Docs: {} <{}>").format(title, url))
    out.append("")
    return out


def _code_finding_text(note: Any) -> List[str]:
    out = ["   " + _code_heading(note)]
    if note.detail:
        out.append(_("   Detail:   {}").format(note.detail))
    out.append(_("   Meaning:  {}").format(note.meaning))
    if note.causes:
        out.append(_("   Likely causes:"))
        out.extend("     - " + c for c in note.causes)
    out.append(_("   Next:"))
    out.extend("     - " + step for step in note.next_steps)
    for title, url in note.docs:
        out.append(_("   Docs: {} <{}>").format(title, url))
    out.append("")
    return out


def render_text(diag: Any) -> str:
    out: List[str] = []
    lang = current()
    source = localize(diag.source)
    out.append(_("ascend doctor: examined {}").format(source))
    for note in _notes(diag):
        out.append(_("note: {}").format(note))
    out.append("")
    for line in _unsure(diag):
        out.append(line)
        out.append("")
    if diag.findings:
        for i, f in enumerate(diag.findings, 1):
            e = f.entry
            tag = "" if e.kind == "error" else f" [{_(e.kind)}]"
            out.append(f"{i}. {f.title}{tag} ({_rank_label(f)})")
            if f.code is not None:
                if f.memory is not None:
                    out.append(_("   Sizes:    {}").format(f.memory.summary()))
                out.extend(_code_finding_text(f.note()))
                continue
            out.append(_("   Term:     {}").format(e.text("term", lang)))
            for n, line in f.evidence:
                out.append(_("   Evidence: line {}: {}").format(n, line))
            if f.memory is not None:
                out.append(_("   Sizes:    {}").format(f.memory.summary()))
            out.append(_("   Cause:    {}").format(e.text("cause", lang)))
            out.append(_("   Fix:"))
            for step in e.text("fix", lang):
                out.append("     - " + step)
            out.append(_("   Why:      {}").format(e.text("explanation", lang)))
            c = f.confirmation
            if c is not None:
                out.append(
                    _("   Machine check ({}): {}").format(_(c.check), _verdict_label(c.verdict))
                )
                for line in _texts(c.lines):
                    out.append("     " + line)
            out.append("")
    elif diag.source != "environment" and not diag.error_codes:
        out.append(_("Nothing recognised in the {}.").format(source))
        out.append("")
    out.extend(_codes_text(diag))
    if diag.environment:
        out.append(_("Environment:"))
        for c in diag.environment:
            for line in _texts(c.lines):
                out.append("  - " + line)
        out.append("")
    elif diag.source == "environment":
        out.append(_("No problem found in the environment."))
        out.append("")
    out.append(_("Checked:"))
    for line in _texts(diag.checked):
        out.append("  - " + line)
    if diag.next_steps:
        out.append(_("Collect next:"))
        for step in _texts(diag.next_steps):
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
        + "<b>"
        + html.escape(_("Machine check ({}):").format(_(c.check)))
        + "</b> "
        + '<span style="color: '
        + color
        + '; font-weight: 600;">'
        + label
        + "</span>"
        + _list(_texts(c.lines))
        + "</div>"
    )


def _code_html(note: Any) -> str:
    """One error code's card: module, meaning, next steps, documentation links.

    The code's name and the message CANN prints for it are the tool's own words: quoted as
    they are, beside the meaning in the reader's language, not run into it."""
    meaning = note.meaning
    printed = (
        '<div class="ascend-doctor-evidence" style="'
        + _EVIDENCE
        + '">'
        + html.escape(note.detail)
        + "</div>"
        if note.detail
        else ""
    )
    causes = (
        "<div><b>" + html.escape(_("Likely causes:")) + "</b>" + _list(note.causes) + "</div>"
        if note.causes
        else ""
    )
    links = "".join(
        '<li><a href="'
        + html.escape(url, quote=True)
        + '" target="_blank" rel="noopener noreferrer">'
        + html.escape(title)
        + "</a></li>"
        for title, url in note.docs
        if url.startswith("https://")
    )
    return (
        '<div class="ascend-doctor-code" data-code="'
        + html.escape(note.code, quote=True)
        + '" style="'
        + _CARD % "var(--jp-brand-color1, #1976d2)"
        + '"><b>'
        + html.escape(_code_heading(note))
        + "</b><div>"
        + _rich(meaning)
        + "</div>"
        + printed
        + causes
        + _list(note.next_steps)
        + '<div style="'
        + _MUTED
        + '">'
        + html.escape(_("Documentation:"))
        + "</div>"
        + _UL
        + links
        + "</ul></div>"
    )


def _rank_html(f: Any) -> str:
    return (
        '<span class="ascend-doctor-rank" data-rank="'
        + html.escape(f.rank, quote=True)
        + '" style="'
        + _MUTED
        + ' font-weight: normal; font-size: var(--jp-ui-font-size1, 13px);"> · '
        + html.escape(_rank_label(f))
        + "</span>"
    )


def _code_finding_html(i: int, f: Any) -> str:
    note = f.note()
    card = _code_html(note)
    head = (
        '<div class="ascend-doctor-finding" data-id="'
        + html.escape(f.id, quote=True)
        + '" data-rank="'
        + html.escape(f.rank, quote=True)
        + '"><div style="font-size: var(--jp-ui-font-size2, 15px); font-weight: 600;">'
        + str(i)
        + ". "
        + html.escape(f.title)
        + _rank_html(f)
        + "</div>"
    )
    return head + _evidence_html(f) + card + "</div>"


def _evidence_html(f: Any) -> str:
    return "".join(
        '<div class="ascend-doctor-evidence" style="'
        + _EVIDENCE
        + '"><span style="'
        + _MUTED
        + '">'
        + html.escape(_("line {}:").format(n))
        + "</span> "
        + html.escape(line)
        + "</div>"
        for n, line in f.evidence
    )


def _finding_html(i: int, f: Any) -> str:
    if f.code is not None:
        return _code_finding_html(i, f)
    e = f.entry
    lang = current()
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
        + _rank_html(f)
        + "</div>",
        '<div style="'
        + _MUTED
        + '">'
        + html.escape(e.text("term", lang))
        + ("" if error else " · " + html.escape(_(e.kind)))
        + "</div>",
    ]
    parts.append(_evidence_html(f))
    if f.memory is not None:
        parts.append(_b(_("Sizes:")) + " " + html.escape(f.memory.summary()) + "</div>")
    parts.append(_b(_("Cause:")) + " " + _rich(e.text("cause", lang)) + "</div>")
    parts.append(_b(_("Fix:")) + _list(e.text("fix", lang)) + "</div>")
    parts.append('<div style="' + _MUTED + '">' + _rich(e.text("explanation", lang)) + "</div>")
    if f.confirmation is not None:
        parts.append(_confirmation_html(f.confirmation))
    parts.append("</div>")
    return "".join(parts)


def _b(label: str) -> str:
    """``<div><b>label</b>`` (the caller closes the div)."""
    return "<div><b>" + html.escape(label) + "</b>"


def render_html(diag: Any) -> str:
    source = localize(diag.source)
    parts: List[str] = ['<div class="ascend-doctor" style="' + _STYLE + '">']
    examined = _("ascend doctor: examined {}").format(source)
    parts.append('<div style="' + _MUTED + '">' + html.escape(examined) + "</div>")
    for note in _notes(diag):
        parts.append('<div style="' + _MUTED + '">' + _rich(note) + "</div>")
    for line in _unsure(diag):
        card = _CARD % "var(--jp-warn-color1, #f57c00)"
        parts.append(
            '<div class="ascend-doctor-unsure" style="' + card + '">' + _rich(line) + "</div>"
        )
    for i, f in enumerate(diag.findings, 1):
        parts.append(_finding_html(i, f))
    if not diag.findings and not diag.error_codes and diag.source != "environment":
        card = _CARD % "var(--jp-border-color1, #999)"
        nothing = _("Nothing recognised in the {}.").format(source)
        parts.append('<div style="' + card + '"><b>' + html.escape(nothing) + "</b></div>")
    for note in _codes(diag):
        parts.append(_code_html(note))
    if diag.environment:
        card = _CARD % "var(--jp-warn-color1, #f57c00)"
        lines = _texts([line for c in diag.environment for line in c.lines])
        environment = html.escape(_("Environment"))
        parts.append(
            '<div style="' + card + '"><b>' + environment + "</b>" + _list(lines) + "</div>"
        )
    elif diag.source == "environment":
        parts.append(_b(_("No problem found in the environment.")) + "</div>")
    parts.append(
        '<details style="'
        + _MUTED
        + '"><summary>'
        + html.escape(_("Checked"))
        + "</summary>"
        + _list(_texts(diag.checked))
        + "</details>"
    )
    if diag.next_steps:
        parts.append(_b(_("Collect next:")) + _list(_texts(diag.next_steps)) + "</div>")
    parts.append("</div>")
    return "".join(parts)

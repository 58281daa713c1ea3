"""The HTML and text cards of results and model objects: ``card_html(obj)``, ``card_text(obj)``.

What a notebook shows for ``obj`` (``_repr_html_``). One function per verb, dispatching on the
object's type (``functools.singledispatch``); the objects never write HTML themselves. Every
string that came from a file, a process or a net is escaped.
"""

import functools
import html
from typing import Any

from ascend_lab.i18n import _
from ascend_lab.model.device_status import DeviceStatus
from ascend_lab.model.profile import Profile
from ascend_lab.results.comparison import Comparison
from ascend_lab.results.memory import PlanComparison
from ascend_lab.results.numerics import NumericsResult, numerics_columns

__all__ = ["card_html", "card_text"]

e = html.escape


@functools.singledispatch
def card_html(obj: Any) -> str:
    """The notebook card of ``obj`` (escaped HTML)."""
    return f"<pre>{e(str(obj))}</pre>"


@functools.singledispatch
def card_text(obj: Any) -> str:
    """The plain-text card of ``obj``."""
    return str(obj)


@card_html.register(DeviceStatus)
def _status_html(status: DeviceStatus) -> str:
    from ascend_lab.render.device_html import render_html

    return render_html(status)


@card_text.register(DeviceStatus)
def _status_text(status: DeviceStatus) -> str:
    from ascend_lab.render.device_text import render_text

    return render_text(status)


@card_html.register(Comparison)
def _comparison_html(cmp: Comparison) -> str:
    rows = "".join(
        f"<tr><th>{e(label)}</th><td>{e(va)}</td><td>{e(vb)}</td></tr>"
        for label, va, vb in cmp.summary_rows()
    )
    changed = "".join(
        "<li>{} &rarr; {}: {}</li>".format(
            e(m.labels[0] or ", ".join(m.a)),
            e(m.labels[1] or ", ".join(m.b)),
            e("; ".join(f"{k} {v[0]} -> {v[1]}" for k, v in m.changes.items())),
        )
        for m in cmp.changed[:50]
    )
    return (
        '<div class="ascend-lab-compare">'
        f"<p><b>A</b> = {e(cmp.a.title)}, <b>B</b> = {e(cmp.b.title)}</p>"
        f"<table><tr><th></th><th>A</th><th>B</th></tr>{rows}</table>"
        f"<p>matched {len(cmp.matched)}, removed {len(cmp.removed)}, "
        f"added {len(cmp.added)} (Casts added: {cmp.casts_added}), "
        f"changed {len(cmp.changed)}</p>"
        + (f"<p>{e(cmp.peak_note())}</p>" if cmp.peak_note() else "")
        + (f"<ul>{changed}</ul>" if changed else "")
        + "</div>"
    )


@card_html.register(NumericsResult)
def _numerics_html(result: NumericsResult) -> str:
    parts = [f"<div class='al-numerics'><pre>{e(str(result))}</pre>"]
    parts.append(
        "<table><thead><tr>{}</tr></thead><tbody>".format(
            "".join(f"<th>{e(c)}</th>" for c in numerics_columns())
        )
    )
    for row in result.rows():
        style = " style='background:#fdd'" if row[-1] else ""
        parts.append("<tr{}>{}</tr>".format(style, "".join(f"<td>{e(c)}</td>" for c in row)))
    parts.append("</tbody></table>")
    if result.unmatched:
        unmatched = _("{} unmatched").format(len(result.unmatched))
        parts.append(f"<details><summary>{e(unmatched)}</summary><ul>")
        for u in result.unmatched[:200]:
            parts.append(
                f"<li>{e(u.side)} {e(u.record.label)} {e(u.record.op_type)}: {e(u.reason)}</li>"
            )
        parts.append("</ul></details>")
    parts.append("</div>")
    return "".join(parts)


@card_html.register(PlanComparison)
def _plans_html(table: PlanComparison) -> str:
    header, rows, shown_notes = table.shown()
    head = "".join(f"<th>{e(c)}</th>" for c in header)
    body = "".join("<tr>{}</tr>".format("".join(f"<td>{e(c)}</td>" for c in row)) for row in rows)
    notes = "".join(f"<li>{e(n)}</li>" for n in shown_notes)
    return "<table><tr>{}</tr>{}</table>{}".format(head, body, f"<ul>{notes}</ul>" if notes else "")


@card_html.register(Profile)
def _profile_html(profile: Profile) -> str:
    rows = []
    for k in profile.top(15):
        share = f"{k.share * 100:.1f}%" if k.share is not None else "-"
        rows.append(
            "<tr>"
            f"<td title='{e(k.name, quote=True)}'>{e(k.name)}</td><td>{e(k.op_type)}</td>"
            f"<td>{k.calls}</td><td>{k.total_us:.1f}</td><td>{k.mean_us:.1f}</td>"
            f"<td>{share}</td><td>{e(k.node_id or '-')}</td></tr>"
        )
    summary = "<br>".join(e(line) for line in profile.summary().splitlines())
    headings = (_("kernel"), _("type"), _("calls"), _("total µs"), _("mean µs"))
    head = "".join(f"<th>{e(h)}</th>" for h in headings + (_("share"), _("node")))
    return (
        f"<div class='ascend-lab-profile'><p>{summary}</p><table>"
        f"<tr>{head}</tr>" + "".join(rows) + "</table></div>"
    )

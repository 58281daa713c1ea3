"""HTML card for a :class:`DeviceStatus` (``_repr_html_``).

Every string goes through :func:`html.escape`: chip names, process names, versions,
paths and messages all come from tools or files. Colours are JupyterLab CSS variables
(with fallbacks for other front ends), so the dark theme works.
"""

from html import escape
from typing import TYPE_CHECKING, List, Optional

from ascend_lab.i18n import _, localize

if TYPE_CHECKING:  # pragma: no cover
    from ascend_lab.model.device_status import DeviceStatus

_FG = "var(--jp-ui-font-color1, #212121)"
_FG2 = "var(--jp-ui-font-color2, #616161)"
_BORDER = "var(--jp-border-color2, #e0e0e0)"
_BG2 = "var(--jp-layout-color2, #eeeeee)"
_OK = "var(--jp-success-color1, #388e3c)"
_WARN = "var(--jp-warn-color1, #f57c00)"
_ERR = "var(--jp-error-color1, #d32f2f)"
_INFO = "var(--jp-info-color1, #0288d1)"
_BRAND = "var(--jp-brand-color1, #1976d2)"

_CELL = f"padding:2px 8px;border-bottom:1px solid {_BORDER};text-align:left;color:{_FG};"
_HEAD = _CELL + f"font-weight:600;color:{_FG2};"


def _e(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return escape(f"{value:g}")
    return escape(str(value))


def _bar(used: Optional[int], total: Optional[int]) -> str:
    if used is None or not total:
        return '<span style="color:{}">{}</span>'.format(_FG2, "–" if not total else _e(used))
    pct = max(0.0, min(100.0, 100.0 * used / total))
    colour = _OK if pct < 70 else (_WARN if pct < 90 else _ERR)
    return (
        '<div style="display:flex;align-items:center;gap:6px">'
        f'<div title="{_e(used)} / {_e(total)} MB" style="flex:0 0 100px;width:100px;height:8px;'
        f'background:{_BG2};border-radius:4px;overflow:hidden">'
        f'<div style="width:{pct:.1f}%;height:100%;background:{colour}"></div></div>'
        f'<span style="white-space:nowrap">{_e(used)} / {_e(total)} MB ({pct:.0f}%)</span></div>'
    )


def _health(value: Optional[str]) -> str:
    colour = _OK if (value or "").upper() == "OK" else _ERR
    return f'<span style="color:{colour};font-weight:600">{_e(value)}</span>'


def _table(headers: List[str], rows: List[List[str]]) -> str:
    head = "".join(f'<th style="{_HEAD}">{escape(h)}</th>' for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{c}</td>' for c in row) + "</tr>" for row in rows
    )
    return (
        '<table style="border-collapse:collapse;margin:4px 0 8px 0;font-size:inherit;'
        'color:inherit">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _h(text: str) -> str:
    return f'<div style="font-weight:600;margin-top:8px;color:{_FG}">{escape(text)}</div>'


def render_html(status: "DeviceStatus") -> str:
    parts: List[str] = []
    mode_colour = _OK if status.mode == "ascend" else _INFO
    parts.append(
        '<div style="font-size:1.1em;font-weight:600">'
        f'<span style="color:{mode_colour}">{escape(localize(status.summary()))}</span></div>'
    )
    mode_line = escape(_("mode {}: {}")).format(  # the catalogue's template, escaped too
        f"<b>{escape(status.mode)}</b>", escape(localize(status.reason))
    )
    parts.append(f'<div style="color:{_FG2}">{mode_line}</div>')
    if status.chips:
        has_hbm = status.has_hbm()
        rows = []
        for c in status.chips:
            rows.append(
                [
                    _e(c.npu),
                    _e(c.chip),
                    _e(c.name),
                    _health(c.health),
                    _e(c.power_w),
                    _e(c.temp_c),
                    _e(c.aicore_percent),
                    _bar(c.hbm_used_mb, c.hbm_total_mb)
                    if has_hbm
                    else _bar(c.memory_used_mb, c.memory_total_mb),
                    _e(c.bus_id),
                ]
            )
        parts.append(_h(_("Chips")))
        parts.append(
            _table(
                [
                    "NPU",
                    _("Chip"),
                    _("Name"),
                    _("Health"),
                    _("Power (W)"),
                    _("Temp (°C)"),
                    "AICore %",
                    "HBM" if has_hbm else _("Memory"),
                    "Bus-Id",
                ],
                rows,
            )
        )
        parts.append(_h(_("Processes")))
        if status.processes:
            parts.append(
                _table(
                    ["NPU", _("Chip"), "PID", _("Name"), _("Memory (MB)")],
                    [
                        [_e(p.npu), _e(p.chip), _e(p.pid), _e(p.name or "–"), _e(p.memory_mb)]
                        for p in status.processes
                    ],
                )
            )
        else:
            parts.append(f'<div style="color:{_FG2}">{escape(_("none"))}</div>')
    v = status.versions
    parts.append(_h(_("Versions")))
    parts.append(
        _table(
            [_("driver"), _("firmware"), "CANN", "MindSpore", "npu-smi"],
            [[_e(v.driver), _e(v.firmware), _e(v.cann), _e(v.mindspore), _e(v.npu_smi)]],
        )
    )
    for template, value, word in status.install_lines():
        text = _(template).format(_(value) if word else value)
        parts.append(f'<div style="color:{_FG2}">{escape(text)}</div>')
    comp = status.compatibility
    colour = {"match": _OK, "mismatch": _ERR}.get(comp.verdict, _FG2)
    install = ""
    if comp.install:
        codes = ", ".join(f"<code>{escape(x)}</code>" for x in comp.install)
        install = " " + escape(_("Install:")) + " " + codes
    parts.append(
        f'<div style="margin-top:4px">{escape(_("Compatibility:"))} <b style="color:{colour}">'
        f"{escape(_(comp.verdict))}</b> {escape(localize(comp.message))}{install}</div>"
    )
    if status.warnings:
        parts.append(_h(_("Warnings (fix in this order)")))
        items = []
        for w in status.warnings:
            sev_colour = {"error": _ERR, "warning": _WARN}.get(w.severity, _INFO)
            fix = ""
            if w.fix:
                label, command = escape(_("fix:")), escape(localize(w.fix))
                fix = f'<div style="color:{_FG2}">{label} <code>{command}</code></div>'
            items.append(
                f'<li style="margin:2px 0"><span style="color:{sev_colour};font-weight:600">'
                f"{escape(_(w.severity))}</span> {escape(localize(w.message))}{fix}</li>"
            )
        parts.append('<ol style="margin:2px 0;padding-left:20px">{}</ol>'.format("".join(items)))
    if status.run_check is not None:
        rc = status.run_check
        parts.append(_h("mindspore.run_check(): " + (_("passed") if rc.ok else _("FAILED"))))
        parts.append(
            f'<pre style="margin:2px 0;white-space:pre-wrap;color:{_FG2}">{escape(rc.output)}</pre>'
        )
    return (
        '<div class="ascend-lab-status" style="font-family:var(--jp-ui-font-family, sans-serif);'
        "color:{fg};border:1px solid {border};border-left:4px solid {brand};border-radius:4px;"
        'padding:8px 12px;max-width:100%;overflow-x:auto">{body}</div>'
    ).format(fg=_FG, border=_BORDER, brand=_BRAND, body="".join(parts))

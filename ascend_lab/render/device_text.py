"""Plain-text view of a :class:`DeviceStatus` for terminals (``ascend-lab status``)."""

import unicodedata
from typing import TYPE_CHECKING, List, Optional, Sequence

from ascend_lab.i18n import _, localize

if TYPE_CHECKING:  # pragma: no cover
    from ascend_lab.model.device_status import DeviceStatus


def _fmt(value: object, suffix: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}{suffix}"
    return f"{value}{suffix}"


def _usage(used: Optional[int], total: Optional[int]) -> str:
    if total is None and used is None:
        return "-"
    text = f"{_fmt(used)}/{_fmt(total)} MB"
    if used is not None and total:
        text += f" ({100.0 * used / total:.0f}%)"
    return text


def _width(text: str) -> int:
    """Terminal columns: Chinese labels take two each."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _ljust(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _table(headers: Sequence[str], rows: List[List[str]]) -> List[str]:
    widths = [_width(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _width(cell))
    lines = ["  " + "  ".join(_ljust(h, w) for h, w in zip(headers, widths)).rstrip()]
    for row in rows:
        lines.append("  " + "  ".join(_ljust(c, w) for c, w in zip(row, widths)).rstrip())
    return lines


def _clean(text: str) -> str:
    """Keep one line; drop control characters a process name might smuggle in."""
    return "".join(ch if ch.isprintable() else "?" for ch in text.replace("\n", " "))


def render_text(status: "DeviceStatus") -> str:
    lines = [_("ascend-lab status: {}").format(localize(status.summary()))]
    lines.append(_("Mode: {} ({})").format(status.mode, _clean(localize(status.reason))))
    if status.chips:
        has_hbm = status.has_hbm()
        headers = ["NPU", _("Chip"), _("Name"), _("Health"), _("Power"), _("Temp"), "AICore"]
        headers += ["HBM" if has_hbm else _("Memory"), "Bus-Id"]
        rows = []
        for c in status.chips:
            rows.append(
                [
                    str(c.npu),
                    str(c.chip),
                    _clean(c.name or "-"),
                    _clean(c.health or "-"),
                    _fmt(c.power_w, " W"),
                    _fmt(c.temp_c, " C"),
                    _fmt(c.aicore_percent, "%"),
                    _usage(c.hbm_used_mb, c.hbm_total_mb)
                    if has_hbm
                    else _usage(c.memory_used_mb, c.memory_total_mb),
                    _clean(c.bus_id or "-"),
                ]
            )
        lines.append("")
        lines.append(_("Chips:"))
        lines.extend(_table(headers, rows))
        lines.append("")
        if status.processes:
            lines.append(_("Processes:"))
            lines.extend(
                _table(
                    ["NPU", _("Chip"), "PID", _("Name"), _("Memory")],
                    [
                        [
                            str(p.npu),
                            str(p.chip),
                            str(p.pid),
                            _clean(p.name or "-"),
                            _fmt(p.memory_mb, " MB"),
                        ]
                        for p in status.processes
                    ],
                )
            )
        else:
            lines.append(_("Processes: none"))
    lines.append("")
    lines.append(_("Versions:"))
    v = status.versions
    for label, value in (
        (_("driver"), v.driver),
        (_("firmware"), v.firmware),
        ("CANN", v.cann),
        ("MindSpore", v.mindspore),
        ("npu-smi", v.npu_smi),
    ):
        lines.append(
            "  {} {}".format(_ljust(label, 10), _clean(value) if value else _("not found"))
        )
    for template, value, word in status.install_lines():
        lines.append("  " + _(template).format(_clean(_(value) if word else value)))
    comp = status.compatibility
    lines.append("")
    message = _clean(localize(comp.message))
    lines.append(_("Compatibility: {} - {}").format(_(comp.verdict), message))
    if comp.install:
        lines.append(_("  install: {}").format(", ".join(_clean(x) for x in comp.install)))
    if status.warnings:
        lines.append("")
        lines.append(_("Warnings (fix in this order):"))
        for i, w in enumerate(status.warnings, 1):
            lines.append(f"  {i}. [{_(w.severity)}] {_clean(localize(w.message))}")
            if w.fix:
                lines.append(_("     fix: {}").format(_clean(localize(w.fix))))
    if status.run_check is not None:
        lines.append("")
        passed = _("passed") if status.run_check.ok else _("FAILED")
        lines.append("mindspore.run_check(): " + passed)
        for out_line in status.run_check.output.splitlines()[-10:]:
            lines.append("  " + _clean(out_line))
    return "\n".join(lines)

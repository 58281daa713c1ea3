"""The device-status model: one :class:`DeviceStatus` snapshot and its parts.

Plain data. ``to_dict()`` follows ``status.schema.json`` (``"ascend-lab.status/1"``);
text and HTML views live in :mod:`.text_view` and :mod:`.html_view`.
"""

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.i18n import msg, to_json
from ascend_lab.model import display

SCHEMA_ID = "ascend-lab.status/1"
# The JSON Schema ``to_dict()`` follows (tests and the front end check against it).
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "status.schema.json")

SEVERITIES = ("error", "warning", "info")

# Warnings are shown in the order one fixes things: firmware/driver, then CANN, then
# MindSpore (a later layer cannot work until the earlier one is right).
COMPONENT_ORDER = ("npu", "firmware", "driver", "cann", "environment", "mindspore")


@dataclass
class Chip:
    """One NPU chip as ``npu-smi info`` shows it (``None`` where it prints ``-``/``NA``)."""

    npu: int
    chip: int
    name: str = ""
    device: Optional[int] = None  # the "Device" / "Phy-ID" column when present
    health: Optional[str] = None
    power_w: Optional[float] = None
    temp_c: Optional[float] = None
    hugepages_used: Optional[int] = None
    hugepages_total: Optional[int] = None
    aicore_percent: Optional[float] = None
    memory_used_mb: Optional[int] = None
    memory_total_mb: Optional[int] = None
    hbm_used_mb: Optional[int] = None
    hbm_total_mb: Optional[int] = None
    bus_id: Optional[str] = None
    details: Dict[str, Dict[str, str]] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "npu": self.npu,
            "chip": self.chip,
            "name": self.name,
            "device": self.device,
            "health": self.health,
            "power_w": self.power_w,
            "temp_c": self.temp_c,
            "hugepages_used": self.hugepages_used,
            "hugepages_total": self.hugepages_total,
            "aicore_percent": self.aicore_percent,
            "memory_used_mb": self.memory_used_mb,
            "memory_total_mb": self.memory_total_mb,
            "hbm_used_mb": self.hbm_used_mb,
            "hbm_total_mb": self.hbm_total_mb,
            "bus_id": self.bus_id,
            "details": {k: dict(v) for k, v in self.details.items()},
        }


@dataclass
class Process:
    """One process holding device memory."""

    npu: int
    chip: int
    pid: int
    name: str = ""
    memory_mb: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return {
            "npu": self.npu,
            "chip": self.chip,
            "pid": self.pid,
            "name": self.name,
            "memory_mb": self.memory_mb,
        }


@dataclass
class Versions:
    """Installed versions; ``None`` when not found."""

    driver: Optional[str] = None
    firmware: Optional[str] = None
    cann: Optional[str] = None
    mindspore: Optional[str] = None
    npu_smi: Optional[str] = None

    def to_dict(self) -> Dict[str, Optional[str]]:
        return {
            "driver": self.driver,
            "firmware": self.firmware,
            "cann": self.cann,
            "mindspore": self.mindspore,
            "npu_smi": self.npu_smi,
        }


@dataclass
class Compatibility:
    """Do MindSpore, CANN and the driver belong together (per ``compat.json``)?"""

    verdict: str = "unknown"  # "match" | "mismatch" | "unknown"
    message: str = ""
    expected: Dict[str, Any] = field(default_factory=dict)
    install: List[str] = field(default_factory=list)

    def __str__(self) -> str:
        """The verdict and message in the current language (the JSON stays English)."""
        from ascend_lab.i18n import _, localize

        verdict = _(self.verdict)
        return _("{}: {}").format(verdict, localize(self.message)) if self.message else verdict

    def to_dict(self) -> Dict[str, Any]:
        data = {
            "verdict": self.verdict,
            "message": self.message,
            "expected": dict(self.expected),
            "install": list(self.install),
        }
        return with_structured(data, message=self.message)


def structured(**texts: Any) -> Dict[str, Any]:
    """``{field: {"template", "args"}}`` for the fields whose text is a message
    (:func:`ascend_lab.i18n.msg`): what the views translate; empty when none is."""
    out = {}
    for name, text in texts.items():
        form = to_json(text)
        if form is not None:
            out[name] = form
    return out


def with_structured(data: Dict[str, Any], **texts: Any) -> Dict[str, Any]:
    """``data`` with an ``i18n`` entry (:func:`structured`) when any text is a message."""
    found = structured(**texts)
    if found:
        data["i18n"] = found
    return data


def _side_by_side_text(installs: List[Dict[str, Any]]) -> str:
    """``8.0.0, 8.1.RC1 (latest), 9.0.0 (set_env.sh, used)``: each version and what
    chooses it (the ``latest`` link, the environment a set_env.sh left, the status)."""
    parts = []
    for x in installs[:12]:
        name = str(x.get("version") or x.get("path") or "?")
        marks = [
            word
            for word, key in (("latest", "latest"), ("set_env.sh", "environment"), ("used", "used"))
            if x.get(key)
        ]
        parts.append(name + (" ({})".format(", ".join(marks)) if marks else ""))
    return ", ".join(parts) + (" …" if len(installs) > 12 else "")


@dataclass
class StatusWarning:
    """Something to fix, with how to fix it."""

    message: str
    fix: str = ""
    severity: str = "warning"  # "error" | "warning" | "info"
    component: str = "environment"  # one of COMPONENT_ORDER

    def __str__(self) -> str:
        """``[severity] message`` and its fix, in the current language, as the status text
        shows them (the JSON stays English)."""
        from ascend_lab.i18n import _, localize

        text = f"[{_(self.severity)}] {localize(self.message)}"
        return text + "\n" + _("     fix: {}").format(localize(self.fix)) if self.fix else text

    def to_dict(self) -> Dict[str, Any]:
        """The English texts, and their templates and arguments under ``i18n``."""
        data: Dict[str, Any] = {
            "message": self.message,
            "fix": self.fix,
            "severity": self.severity,
            "component": self.component,
        }
        return with_structured(data, message=self.message, fix=self.fix)


def order_warnings(warnings: List[StatusWarning]) -> List[StatusWarning]:
    """Stable sort: firmware/driver -> CANN -> environment -> MindSpore."""

    def rank(w: StatusWarning) -> int:
        try:
            return COMPONENT_ORDER.index(w.component)
        except ValueError:
            return len(COMPONENT_ORDER)

    return sorted(warnings, key=rank)


MAX_WARNINGS = 20


def cap_warnings(warnings: List[StatusWarning], limit: int = MAX_WARNINGS) -> List[StatusWarning]:
    """The first ``limit`` warnings, then one that counts the rest (every tab polls the
    status, so it must stay small whatever the machine prints)."""
    if len(warnings) <= limit:
        return warnings
    rest = warnings[limit:]
    worst = min(rest, key=lambda w: SEVERITIES.index(w.severity) if w.severity in SEVERITIES else 3)
    return warnings[:limit] + [
        StatusWarning(
            msg("{} more warnings not shown", len(rest)),
            "Fix the ones above first, then look at the status again",
            worst.severity if worst.severity in SEVERITIES else "warning",
            rest[0].component,
        )
    ]


@dataclass
class RunCheck:
    """The result of ``mindspore.run_check()`` run in a subprocess."""

    ok: bool
    output: str = ""
    seconds: float = 0.0

    def to_dict(self) -> Dict[str, Any]:
        return {"ok": self.ok, "output": self.output, "seconds": round(self.seconds, 3)}


@dataclass(repr=False)
class DeviceStatus:
    """One snapshot of this machine's NPUs and software. Build with ``collect_status()``."""

    mode: str = "cpu"  # "ascend" | "cpu" | "gpu"
    reason: str = ""
    chips: List[Chip] = field(default_factory=list)
    processes: List[Process] = field(default_factory=list)
    versions: Versions = field(default_factory=Versions)
    compatibility: Compatibility = field(default_factory=Compatibility)
    warnings: List[StatusWarning] = field(default_factory=list)
    root: str = ""
    npu_smi_path: Optional[str] = None
    environment: Dict[str, Optional[str]] = field(default_factory=dict)
    # which Python environment this describes: {"kind": "process" | "kernel" | "server",
    # "python": ..., "set_env": ..., ...}
    subject: Dict[str, Optional[str]] = field(default_factory=dict)
    collected_at: float = 0.0  # time.time()
    seconds: float = 0.0  # how long collecting took
    run_check: Optional[RunCheck] = None
    # where CANN was found and every place looked at (ascend_install.InstallInfo.to_dict())
    install: Dict[str, Any] = field(default_factory=dict)

    # -- derived -----------------------------------------------------------------------

    def hbm_percent(self) -> Optional[float]:
        """Used / total HBM over all chips (DDR memory when chips have no HBM)."""
        used = total = 0
        for c in self.chips:
            if c.hbm_total_mb:
                used += c.hbm_used_mb or 0
                total += c.hbm_total_mb
        if total == 0:
            for c in self.chips:
                if c.memory_total_mb:
                    used += c.memory_used_mb or 0
                    total += c.memory_total_mb
        return 100.0 * used / total if total else None

    def has_hbm(self) -> bool:
        return any(c.hbm_total_mb for c in self.chips)

    def chip_names(self) -> str:
        """``"8x910B3"``; several models: ``"1x910B3+1x310P3"``."""
        counts: Dict[str, int] = {}
        for c in self.chips:
            counts[c.name or "?"] = counts.get(c.name or "?", 0) + 1
        return "+".join(f"{n}x{name}" for name, n in counts.items())

    def health(self) -> str:
        """``"OK"`` when every chip is OK, else e.g. ``"1 Alarm"``."""
        bad: Dict[str, int] = {}
        for c in self.chips:
            h = c.health or "unknown"
            if h.upper() != "OK":
                bad[h] = bad.get(h, 0) + 1
        if not bad:
            return "OK"
        return ", ".join(f"{n} {h}" for h, n in bad.items())

    def summary(self) -> str:
        """Short text for a status bar: ``"NPU 8x910B3 · HBM 12% · OK"`` or ``"CPU mode"``."""
        if self.mode != "ascend":
            return "GPU mode" if self.mode == "gpu" else "CPU mode"
        parts: List[str] = ["NPU " + self.chip_names()]
        pct = self.hbm_percent()
        if pct is not None:
            parts.append("{} {:.0f}%".format("HBM" if self.has_hbm() else "Mem", pct))
        health = self.health()
        errors = sum(1 for w in self.warnings if w.severity == "error")
        if health == "OK" and errors:
            parts.append(msg("{} error", errors) if errors == 1 else msg("{} errors", errors))
        else:
            parts.append(msg("OK") if health == "OK" else health)
        return msg(" · ".join("{}" for _ in parts), *parts)

    # -- views -------------------------------------------------------------------------

    def install_lines(self) -> List[Tuple[str, str, bool]]:
        """``(template, value, translate_value)`` lines saying where CANN is, or where it
        was looked for (the views translate the template, and the value when it is a word
        rather than a path, and escape it)."""
        inst = self.install or {}
        home = inst.get("cann_home")
        out: List[Tuple[str, str, bool]] = []
        if home:
            real = inst.get("cann_real_home")
            where = home if not real or real == home else f"{home} -> {real}"
            out.append(("CANN home: {}", where, False))
            if inst.get("cann_source"):
                out.append(("found via: {}", str(inst["cann_source"]), True))
            out.append(("set_env.sh: {}", str(inst.get("set_env") or "-"), False))
            came_from = inst.get("cann_version_from")
            if came_from and came_from != "install-info file":
                out.append(("CANN version from: {}", str(came_from), True))
            side = [x for x in inst.get("cann_installs") or [] if isinstance(x, dict)]
            if len(side) > 1:
                out.append(("CANN versions side by side: {}", _side_by_side_text(side), False))
            atb = inst.get("atb")
            if isinstance(atb, str) and atb:
                where = inst.get("atb_home")
                shown = f"{atb} ({where})" if isinstance(where, str) and where else atb
                out.append(("NNAL/ATB: {}", shown, False))
        elif "looked" in inst:
            places: List[str] = []
            for x in inst.get("looked") or []:
                path = x.get("path") if isinstance(x, dict) else None
                if isinstance(path, str) and x.get("what") == "CANN" and path not in places:
                    places.append(path)
            shown = ", ".join(places[:12]) + (" …" if len(places) > 12 else "")
            out.append(("CANN not found; looked in: {}", shown or "-", False))
        return out

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready dict following ``status.schema.json``: English texts, and under
        ``i18n`` the templates and arguments the views translate them from."""
        summary = self.summary()
        data = {
            "schema": SCHEMA_ID,
            "mode": self.mode,
            "reason": self.reason,
            "summary": summary,
            "chips": [c.to_dict() for c in self.chips],
            "processes": [p.to_dict() for p in self.processes],
            "versions": self.versions.to_dict(),
            "compatibility": self.compatibility.to_dict(),
            "warnings": [w.to_dict() for w in self.warnings],
            "root": self.root,
            "npu_smi_path": self.npu_smi_path,
            "environment": dict(self.environment),
            "subject": dict(self.subject),
            "collected_at": self.collected_at,
            "seconds": round(self.seconds, 4),
            "run_check": self.run_check.to_dict() if self.run_check else None,
            "install": dict(self.install),
        }
        return with_structured(data, reason=self.reason, summary=summary)

    def to_json(self, indent: Optional[int] = 2) -> str:
        import json

        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_text(self) -> str:
        return display.call("card_text", self)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"<DeviceStatus {self.summary()}>"

    def _repr_html_(self) -> str:
        return display.call("card_html", self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self) if cycle else self.to_text())

"""The sizes an out-of-memory text carries: how much was asked for, how much was free.

Each stack prints them its own way:

- torch_npu: ``Tried to allocate 4.00 GiB (NPU 0; 60.97 GiB total capacity; ...; 1.00 GiB
  free; ...)``, or ``Tried to allocate more than 1EB memory``;
- MindSpore: ``alloc size: 8589934592B``, ``Request memory size: 4294967808B``, ``current
  free memory size[0] is smaller than required size[241827840B]``, ``Malloc device memory
  failed, size[32212254720]``, ``malloc[32611480064]``, ``totol_size:4294967296``, ``plus
  alloc size : 301990400 is more than total mem size : 29464985600``;
- the driver: ``halMemAlloc failed: device_id=6, size=32212254720``, ``Failed to allocate 1024
  bytes device memory requested by DRV(hdc) module`` (EL0019; EL0018 for host memory);
- torch_npu's other allocators: ``NPUWorkspaceAllocator tried to allocate 180.00 MiB(NPU 0;
  60.96 GiB total capacity; 89.51 MiB free)``, ``... per_process_memory_fraction limit.
  Requested size: 2.00 GiB``;
- vLLM: ``Available KV cache memory: -0.87 GiB``, ``60.00 GiB KV cache is needed, which is
  larger than the available KV cache memory (56.13 GiB)``;
- the host: torch's ``DefaultCPUAllocator: not enough memory: you tried to allocate 123 bytes``,
  numpy's ``MemoryError: Unable to allocate 1.20 TiB for an array with shape ...``.

:func:`memory_numbers` reads the first of each (bounded, linear regexes: every repeat has
a bound, numbers at most 20 digits) and says them in words; a request above
:data:`IMPOSSIBLE_BYTES` or below zero cannot be a real need of any device and points at
corrupted data, a wrong shape or an overflowed count. Pure: text in, numbers out.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ascend_lab.doctor.pattern_text import required_literals
from ascend_lab.i18n import _

IMPOSSIBLE_BYTES = 1 << 40  # 1 TiB: more than any NPU's memory, and than most hosts'
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_UNITS.update({"P": 1 << 50, "E": 1 << 60})
_NUM = r"(?<![\d.])(-?\d{1,20}(?:\.\d{1,6})?)(?!\d|\.\d)"
_UNIT = r"[ \t]?([KMGTPE]i?B|B|bytes)?"  # "GB" is read as GiB: allocators count in 1024s
_ASKED = (
    re.compile(r"Tried to allocate more than 1 ?(E)B"),
    re.compile(r"Tried to allocate " + _NUM + _UNIT),
    re.compile(r"NPUWorkspaceAllocator tried to allocate " + _NUM + _UNIT),  # torch_npu
    re.compile(r"memory_fraction limit\. Requested size: " + _NUM + _UNIT),  # torch_npu
    re.compile(_NUM + _UNIT + r" KV cache is needed"),  # vLLM
    re.compile(r"Failed to allocate " + _NUM + _UNIT + r" (?:device|host) memory requested"),
    re.compile(r"(?i)you tried to allocate " + _NUM + _UNIT),  # torch's CPU allocator
    re.compile(r"Unable to allocate " + _NUM + _UNIT),  # numpy's MemoryError
    re.compile(r"(?i)alloc(?:ate)? size[ \t]{0,2}[:=][ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"(?i)request(?:ed)? memory size[ \t]{0,2}[:=\[][ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"(?i)required size[ \t]{0,2}[:=\[][ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"(?i)malloc[^\n\[]{0,40}\[" + _NUM + r"\]"),
    re.compile(r"(?i)malloc device memory failed, size\[" + _NUM + r"\]"),
    re.compile(r"(?i)tota?o?l_size[ \t]{0,2}[:=][ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"(?i)(?:MemAlloc|rtMalloc|aclrtMalloc)[^\n]{0,80}?\bsize[ \t]?=[ \t]?" + _NUM),
)
_FREE = (
    re.compile(_NUM + r"[ \t]?([KMGTPE]i?B|B)[ \t]free\b"),
    re.compile(r"(?i)current free memory size[ \t]{0,2}[:=\[][ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"(?i)\bfree (?:memory )?size[ \t]{0,2}[:=\[][ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"(?i)Available KV cache memory:[ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"available KV cache memory\s{0,4}\(" + _NUM + _UNIT),  # vLLM's newer check
)
_TOTAL = (
    re.compile(_NUM + r"[ \t]?([KMGTPE]i?B|B)[ \t]total capacity"),
    re.compile(r"(?i)total mem size[ \t]{0,2}:[ \t]{0,2}" + _NUM + _UNIT),
    re.compile(r"Out of Memory!!! total\[" + _NUM + r"\]"),
)


@dataclass(frozen=True)
class MemoryNumbers:
    """Sizes in bytes read from an out-of-memory text (None: the text does not say)."""

    asked: Optional[int] = None
    free: Optional[int] = None
    total: Optional[int] = None

    @property
    def impossible(self) -> bool:
        """A request no device could need: above 1 TiB, or negative."""
        return self.asked is not None and (self.asked > IMPOSSIBLE_BYTES or self.asked < 0)

    def summary(self) -> str:
        """The numbers in words, in the reader's language."""
        parts = []
        if self.asked is not None and self.free is not None:
            parts.append(_("asked for {} with {} free").format(human(self.asked), human(self.free)))
        elif self.asked is not None:
            parts.append(_("asked for {}").format(human(self.asked)))
        elif self.free is not None:
            parts.append(_("{} free").format(human(self.free)))
        if self.total is not None:
            parts.append(_("(of {} in all)").format(human(self.total)))
        text = " ".join(parts)
        if self.impossible:
            text += ". " + _(
                "No device needs {}: the size points at corrupted data or a wrong shape "
                "(a length or shape computed from garbage, an overflowed count)"
            ).format(human(self.asked or 0))
        return text

    def to_dict(self) -> Dict[str, Any]:
        return {
            "asked_bytes": self.asked,
            "free_bytes": self.free,
            "total_bytes": self.total,
            "impossible": self.impossible,
        }


def _bytes(number: str, unit: Optional[str]) -> int:
    scale = _UNITS.get((unit or "")[:1].upper() if unit not in (None, "bytes") else "", 1)
    return int(float(number) * scale)


_NEEDLES: Dict[Any, Any] = {}


def _may_match(pattern: Any, text: str, lowered: str) -> bool:
    """The pattern's pre-check (:func:`.pattern_text.required_literals`): most of these
    patterns begin with a number, which a log offers at every other character."""
    if pattern not in _NEEDLES:
        _NEEDLES[pattern] = required_literals(pattern)
    needle = _NEEDLES[pattern]
    if needle is None:
        return True
    literals, ignorecase = needle
    hay = lowered if ignorecase else text
    return any(lit in hay for lit in literals)


def _first(patterns: Tuple[Any, ...], text: str, lowered: str) -> Optional[int]:
    for pattern in patterns:
        if not _may_match(pattern, text, lowered):
            continue
        m = pattern.search(text)
        if m is None:
            continue
        if pattern.groups == 1 and pattern.pattern.startswith("Tried to allocate more"):
            return 1 << 60  # "more than 1EB"
        unit = m.group(2) if pattern.groups >= 2 else None
        return _bytes(m.group(1), unit)
    return None


def memory_numbers(text: str) -> Optional[MemoryNumbers]:
    """The sizes ``text`` states about an allocation, or None when it states none."""
    lowered = text.lower()
    found = MemoryNumbers(
        _first(_ASKED, text, lowered), _first(_FREE, text, lowered), _first(_TOTAL, text, lowered)
    )
    if found.asked is None and found.free is None:
        return None
    return found


def human(size: int) -> str:
    """``4294967296`` -> ``4 GiB``; ``1536`` -> ``1.5 KiB``; negative sizes keep their sign."""
    sign = "-" if size < 0 else ""
    value = float(abs(size))
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024 or unit == "EiB":
            break
        value /= 1024
    shown = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{sign}{shown} {unit}"

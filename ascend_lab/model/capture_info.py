"""How a trace's dumps came to be: what MindSpore compiled, with which settings, and what it
printed. A live capture (:class:`ascend_lab.capture.compile.CaptureResult`) and a dump folder
someone already has (:class:`RecordedCapture`) both answer it."""

from dataclasses import dataclass, field
from typing import Any, List, Optional, Protocol

__all__ = ["CaptureInfo", "RecordedCapture"]


class CaptureInfo(Protocol):
    """What :class:`~ascend_lab.results.trace.Trace` reads of the capture behind its dumps."""

    output: Any
    compile_seconds: float
    fusion: bool
    level: int
    ran: bool
    mindspore_version: Optional[str]
    device: Optional[str]
    messages: List[str]


@dataclass
class RecordedCapture:
    """A capture that happened elsewhere: the dumps are all there is (no output, no log)."""

    fusion: bool
    level: int
    ran: bool
    output: Any = None
    compile_seconds: float = 0.0
    mindspore_version: Optional[str] = None
    device: Optional[str] = None
    messages: List[str] = field(default_factory=list)

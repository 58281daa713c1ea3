"""Parser of ``trace_view.json`` (Chrome trace format, as MindSpore's profiler writes it).

A JSON array of events (or ``{"traceEvents": [...]}``). ``"M"`` events name processes and
threads; ``"X"`` events are complete spans with ``ts``/``dur`` in microseconds (MindSpore
writes them as strings). On CPU, process "CPU OP" holds the kernels. On Ascend, process
"Ascend Hardware" holds one thread per stream, and "Overlap Analysis" holds the step
breakdown spans ``Computing``, ``Communication``, ``Communication(Not Overlapped)`` and
``Free``. Pure: text in, events out.
"""

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.errors.profile import ProfileParseError

MAX_EVENTS = 2_000_000


@dataclass
class TraceSpan:
    name: str
    start_us: float
    duration_us: float
    process: str
    thread: str
    args: Dict[str, Any]


def _float(value: Any) -> Optional[float]:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _args(event: Dict[str, Any]) -> Dict[str, Any]:
    args = event.get("args")
    return args if isinstance(args, dict) else {}


def parse_trace_view(text: str, path: Optional[str] = None) -> List[TraceSpan]:
    """The complete (``"X"``) spans of a trace, with process and thread names resolved."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ProfileParseError(f"not JSON: {exc}", path) from None
    if isinstance(data, dict):
        data = data.get("traceEvents")
    if not isinstance(data, list):
        raise ProfileParseError("expected a list of trace events", path)
    if len(data) > MAX_EVENTS:
        raise ProfileParseError(f"{len(data):,} events, over the limit of {MAX_EVENTS:,}", path)
    processes: Dict[Any, str] = {}
    threads: Dict[Tuple[Any, Any], str] = {}
    for event in data:
        if isinstance(event, dict) and event.get("ph") == "M":
            name = str(_args(event).get("name", ""))
            if event.get("name") == "process_name":
                processes[event.get("pid")] = name
            elif event.get("name") == "thread_name":
                threads[(event.get("pid"), event.get("tid"))] = name
    spans: List[TraceSpan] = []
    for event in data:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        start = _float(event.get("ts"))
        duration = _float(event.get("dur"))
        if start is None or duration is None:
            continue
        pid, tid = event.get("pid"), event.get("tid")
        args = _args(event)
        spans.append(
            TraceSpan(
                name=str(event.get("name", "")),
                start_us=start,
                duration_us=duration,
                process=processes.get(pid, str(pid)),
                thread=threads.get((pid, tid), str(tid)),
                args=args,
            )
        )
    spans.sort(key=lambda s: s.start_us)
    return spans


OVERLAP_PROCESS = "Overlap Analysis"


def overlap_spans(spans: List[TraceSpan]) -> Dict[str, List[TraceSpan]]:
    """Ascend's step breakdown spans, by name (``Computing``, ``Communication``, ``Free``, ...)."""
    out: Dict[str, List[TraceSpan]] = {}
    for span in spans:
        if span.process == OVERLAP_PROCESS:
            out.setdefault(span.name, []).append(span)
    return out

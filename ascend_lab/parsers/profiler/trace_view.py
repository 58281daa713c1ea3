"""Parser of ``trace_view.json`` (Chrome trace format, as MindSpore's profiler writes it).

A JSON array of events (or ``{"traceEvents": [...]}``). ``"M"`` events name processes and
threads; ``"X"`` events are complete spans with ``ts``/``dur`` in microseconds (MindSpore
writes them as strings). On CPU, process "CPU OP" holds the kernels. On Ascend, process
"Ascend Hardware" holds one thread per stream, and "Overlap Analysis" holds the step
breakdown spans ``Computing``, ``Communication``, ``Communication(Not Overlapped)`` and
``Free``. Pure: text in, events out.

Budget (issue #37): the top-level array is decoded one event at a time, and only the
complete spans are kept (decoding the whole array first held every event's dict: 29x the
file in memory); at most :data:`MAX_EVENTS` events and at most one per 48 bytes of the
file (:func:`~ascend_lab.parsers.limits.row_cap`; ``ASCEND_LAB_MAX_ROWS`` sets another
cap), counted before any is decoded when the
array sits in an object; ``ts``/``dur`` finite and at most
:data:`~ascend_lab.parsers.limits.MAX_MAGNITUDE` or the event is left out; nesting deeper
than the decoder allows is a refusal, not a RecursionError.
"""

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ascend_lab.errors.profile import ProfileParseError
from ascend_lab.parsers.limits import MAX_ROWS, ROWS_HINT, bounded_float, row_cap
from ascend_lab.parsers.regular_file import check_deadline

MAX_EVENTS = MAX_ROWS
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# the shortest complete span MindSpore writes is ~90 bytes (name, pid, tid, ts, dur, ph, args)
_MIN_EVENT_BYTES = 48


@dataclass
class TraceSpan:
    name: str
    start_us: float
    duration_us: float
    process: str
    thread: str
    args: Dict[str, Any]


def _float(value: Any) -> Optional[float]:
    return bounded_float(value)


def _args(event: Dict[str, Any]) -> Dict[str, Any]:
    args = event.get("args")
    return args if isinstance(args, dict) else {}


def _events(text: str, path: Optional[str], cap: int) -> Iterator[Any]:
    """The events of the trace, decoded one at a time from a top-level array."""
    pos = _SPACE.match(text).end()  # type: ignore[union-attr]
    if text.startswith("{", pos):
        if text.count('"ph"') > cap:
            raise ProfileParseError(f"over {cap:,} events: not read ({ROWS_HINT})", path)
        data = json.loads(text)
        data = data.get("traceEvents") if isinstance(data, dict) else None
        if not isinstance(data, list):
            raise ProfileParseError("expected a list of trace events", path)
        yield from data
        return
    if not text.startswith("[", pos):
        raise ProfileParseError("expected a list of trace events", path)
    pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", pos):
        return
    while True:
        event, pos = _DECODER.raw_decode(text, pos)
        yield event
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
            continue
        if text.startswith("]", pos) and not text[pos + 1 :].strip():
            return
        raise ValueError(f"expected ',' or ']' at character {pos}")


def parse_trace_view(text: str, path: Optional[str] = None) -> List[TraceSpan]:
    """The complete (``"X"``) spans of a trace, with process and thread names resolved."""
    processes: Dict[Any, str] = {}
    threads: Dict[Tuple[Any, Any], str] = {}
    spans: List[TraceSpan] = []
    where: List[Tuple[Any, Any]] = []
    count = 0
    cap = row_cap(len(text), _MIN_EVENT_BYTES, MAX_EVENTS)
    try:
        for event in _events(text, path, cap):
            count += 1
            if count > cap:
                raise ProfileParseError(
                    f"over {cap:,} events: more (or shorter) events than a profiler writes in "
                    f"a file of this size; not read further ({ROWS_HINT})",
                    path,
                )
            if not count & 4095:
                check_deadline(path or "")
            if not isinstance(event, dict):
                continue
            phase = event.get("ph")
            if phase == "M":
                name = str(_args(event).get("name", ""))
                if event.get("name") == "process_name":
                    processes[event.get("pid")] = name
                elif event.get("name") == "thread_name":
                    threads[(event.get("pid"), event.get("tid"))] = name
                continue
            if phase != "X":
                continue
            start = _float(event.get("ts"))
            duration = _float(event.get("dur"))
            if start is None or duration is None:
                continue
            spans.append(
                TraceSpan(
                    name=str(event.get("name", "")),
                    start_us=start,
                    duration_us=duration,
                    process="",
                    thread="",
                    args=_args(event),
                )
            )
            where.append((event.get("pid"), event.get("tid")))
    except RecursionError:
        raise ProfileParseError("not JSON: nested too deeply", path) from None
    except ValueError as exc:
        if isinstance(exc, ProfileParseError):
            raise
        raise ProfileParseError(f"not JSON: {exc}", path) from None
    for span, (pid, tid) in zip(spans, where):
        span.process = processes.get(pid, str(pid))
        span.thread = threads.get((pid, tid), str(tid))
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

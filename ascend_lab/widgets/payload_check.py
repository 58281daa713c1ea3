"""Light checks of a payload before it goes to the page (the viewer checks it fully)."""

from typing import Any, Callable, Dict, Optional, Tuple

SCHEMA_ID = "ascend-lab.graph/1"


def payload_of(
    source: Any, passes: str = "changed"
) -> Tuple[Dict[str, Any], Optional[Callable[[int], Any]]]:
    """``(payload dict, snapshot callback)`` from a payload dict or a Trace-like object.

    For a Trace the callback returns the pass's graph dict with its ``diff`` (added,
    removed, modified) against the previous pass, so a payload built with
    ``passes="none"`` (no diffs, no snapshots: fast) still highlights changes on demand.
    """
    snapshot = None
    if hasattr(source, "to_payload"):
        trace = source
        if hasattr(trace, "snapshot"):

            def snapshot(index: int) -> Any:
                graph = trace.snapshot(index)
                data = graph.to_dict() if hasattr(graph, "to_dict") else dict(graph)
                diff = trace.diff(index) if hasattr(trace, "diff") else None
                if diff is not None:
                    data["diff"] = {
                        "added": list(diff.added),
                        "removed": list(diff.removed),
                        "modified": list(diff.modified),
                    }
                return data

        source = trace.to_payload(passes=passes, memory=True)
    check_payload(source)
    return source, snapshot


def check_payload(payload: Any) -> None:
    """Raise ValueError with a clear message unless ``payload`` looks like a graph payload."""
    if not isinstance(payload, dict):
        raise ValueError(
            f"the viewer needs an {SCHEMA_ID!r} payload dict (e.g. trace.to_payload()), "
            f"got {type(payload).__name__}"
        )
    if payload.get("schema") != SCHEMA_ID:
        raise ValueError(
            f"unsupported payload schema {payload.get('schema')!r}; this viewer reads {SCHEMA_ID!r}"
        )
    for key in ("meta", "graphs", "views"):
        if not isinstance(payload.get(key), dict):
            raise ValueError(f"the payload has no {key!r} object")
    main = payload["views"].get("main")
    if main not in payload["graphs"]:
        raise ValueError(f"views.main refers to a missing graph {main!r}")

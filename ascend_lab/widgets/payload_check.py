"""Light checks of a payload before it goes to the page (the viewer checks it fully)."""

from typing import Any, Callable, Dict, Optional, Tuple

SCHEMA_ID = "ascend-lab.graph/1"


def payload_of(
    source: Any, passes: str = "changed"
) -> Tuple[Dict[str, Any], Optional[Callable[[int], Any]]]:
    """``(payload dict, snapshot callback)`` from a payload dict or a Trace-like object."""
    snapshot = None
    if hasattr(source, "to_payload"):
        snapshot = getattr(source, "snapshot", None)
        source = source.to_payload(passes=passes, memory=True)
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

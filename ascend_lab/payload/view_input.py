"""What a view is handed: a payload dict or a Trace, turned into one checked payload."""

import functools
from typing import Any, Callable, Dict, Optional, Tuple

from ascend_lab.model.graph import Graph
from ascend_lab.payload.build import build_payload, graph_data
from ascend_lab.payload.validate import check_payload
from ascend_lab.results.trace import Trace

SnapshotFn = Callable[[int], Any]


def payload_for_view(
    source: Any, passes: str = "changed", pass_sink: Any = None
) -> Tuple[Dict[str, Any], Optional[SnapshotFn]]:
    """``(payload dict, snapshot callback)`` from a payload dict or a Trace-like object.

    The payload is checked (:func:`~ascend_lab.payload.validate.check_payload`): a view
    never receives something the viewer cannot read. For a Trace the callback returns the
    pass's graph dict with its ``diff`` (added, removed, modified) against the previous
    pass, so a payload built with ``passes="none"`` (no diffs, no snapshots: fast) still
    highlights changes on demand. ``pass_sink`` (a Trace only) packs the passes' graphs as
    they are built (see :class:`~ascend_lab.payload.packing.PassPacker`).
    """
    snapshot: Optional[SnapshotFn] = None
    if hasattr(source, "to_payload"):
        trace = source
        if hasattr(trace, "snapshot"):
            snapshot = functools.partial(pass_snapshot, trace)

        options: Dict[str, Any] = {"passes": passes, "memory": True}
        if pass_sink is not None:
            options["pass_sink"] = pass_sink
        # A Trace is built here, on the payload floor (its to_payload() facade would go back
        # up through the results and model.display to come down to build_payload again).
        source = (
            build_payload(trace, **options)
            if isinstance(trace, Trace)
            else trace.to_payload(**options)
        )
    check_payload(source)
    return source, snapshot


def pass_snapshot(trace: Any, index: int) -> Dict[str, Any]:
    """The graph dict of pass ``index`` of a Trace-like object, with its ``diff`` (added,
    removed, modified) against the pass before: what a view asks for when a payload was
    built without the passes' graphs (the notebook widget, the JupyterLab document)."""
    graph = trace.snapshot(index)
    # drawn like the main views: with the scopes repaired
    data = graph_data(graph) if isinstance(graph, Graph) else dict(graph)
    diff = trace.diff(index) if hasattr(trace, "diff") else None
    if diff is not None:
        data["diff"] = {
            "added": list(diff.added),
            "removed": list(diff.removed),
            "modified": list(diff.modified),
        }
    return data

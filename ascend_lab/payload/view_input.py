"""What a view is handed: a payload dict or a Trace, turned into one checked payload."""

import functools
from typing import Any, Callable, Dict, Optional, Tuple

from ascend_lab.model.graph import Graph
from ascend_lab.payload.build import build_payload, graph_data
from ascend_lab.payload.validate import check_payload
from ascend_lab.results.trace import Trace

SnapshotFn = Callable[[int], Any]


@functools.singledispatch
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

    Dispatches on the type (as :func:`~ascend_lab.render.standalone.pass_packer` does): a
    dict is given, a Trace is built here. Anything else is a source that builds a Trace's
    payload (``to_payload(passes=, memory=, pass_sink=)``, with ``snapshot``/``diff`` when its
    passes load on demand), a protocol: its kinds live above this stage (a dump folder's
    source in ``viewfile``) or are the results' façades; what has no ``to_payload`` is refused.
    """
    if not hasattr(source, "to_payload"):
        check_payload(source)  # raises: neither a payload nor something that builds one
    payload = source.to_payload(**_build_options(passes, pass_sink))
    check_payload(payload)
    snapshot = functools.partial(pass_snapshot, source) if hasattr(source, "snapshot") else None
    return payload, snapshot


@payload_for_view.register(dict)
def _given(
    source: Dict[str, Any], passes: str = "changed", pass_sink: Any = None
) -> Tuple[Dict[str, Any], Optional[SnapshotFn]]:
    check_payload(source)
    return source, None


@payload_for_view.register(Trace)
def _trace(
    trace: Trace, passes: str = "changed", pass_sink: Any = None
) -> Tuple[Dict[str, Any], Optional[SnapshotFn]]:
    # Built here, on the payload floor (its to_payload() facade would go back up through
    # the results and model.display to come down to build_payload again).
    payload = build_payload(trace, **_build_options(passes, pass_sink))
    check_payload(payload)
    return payload, functools.partial(pass_snapshot, trace)


def _build_options(passes: str, pass_sink: Any) -> Dict[str, Any]:
    """What a view asks of a build: these passes, the memory section, maybe a pass sink."""
    options: Dict[str, Any] = {"passes": passes, "memory": True}
    if pass_sink is not None:
        options["pass_sink"] = pass_sink
    return options


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

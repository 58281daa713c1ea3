"""The sides of a comparison: a :class:`~ascend_lab.results.comparison.Side` from a Trace, a
payload dict or a Graph.

A side is anything with a final graph: a :class:`~ascend_lab.results.trace.Trace`, an
``ascend-lab.graph/1`` payload dict (saved with ``trace.to_payload()``, or what
``ascend-lab view`` builds from a dump folder or a ``.mindir``), or a bare
:class:`~ascend_lab.model.graph.Graph`. A side's fusion map (``trace.fusion``, or the
payload's ``fusion`` section with its ``before`` graph) is what lets one side's fused
kernel pair with the several ops it replaced on the other side.
"""

from typing import Any, Dict, List, Optional

from ascend_lab.model.graph import Graph, Node
from ascend_lab.results.comparison import Side

__all__ = ["side_of"]


def _graph_from_payload(payload: Dict[str, Any], key: Optional[str]) -> Optional[Graph]:
    if not key or key not in payload.get("graphs", {}):
        return None
    return Graph.from_dict(payload["graphs"][key])


def _fused_from_payload(payload: Dict[str, Any]) -> Dict[str, List[Node]]:
    fusion = payload.get("fusion")
    before = _graph_from_payload(payload, (payload.get("views") or {}).get("before"))
    if not isinstance(fusion, dict) or before is None:
        return {}
    out: Dict[str, List[Node]] = {}
    for k in fusion.get("kernels") or []:
        out[k["kernel"]] = [before.node(o) for o in k.get("originals", []) if o in before]
    return out


def _plan_peak(graph: Graph) -> Optional[int]:
    from ascend_lab.analysis.planner import plan_graph

    try:
        return plan_graph(graph).peak
    except Exception:  # a graph the planner cannot read still compares
        return None


def _profile_time(profile: Any) -> Optional[float]:
    return None if profile is None else getattr(profile, "mean_step_us", None)


def side_of(source: Any, title: Optional[str] = None, profile: Any = None) -> Side:
    """A :class:`Side` from a Trace, a payload dict or a Graph."""
    if isinstance(source, Side):
        return source
    if isinstance(source, Graph):
        return Side(
            title or source.name, source, peak=_plan_peak(source), time_us=_profile_time(profile)
        )
    if isinstance(source, dict):
        from ascend_lab.payload import check_payload

        check_payload(source)
        graph = _graph_from_payload(source, source["views"]["main"])
        assert graph is not None  # check_payload checked views.main
        meta = source.get("meta") or {}
        memory = source.get("memory")
        peak = memory.get("peak") if isinstance(memory, dict) else None
        return Side(
            title or str(meta.get("title") or graph.name),
            graph,
            fused=_fused_from_payload(source),
            mindspore_version=meta.get("mindspore_version"),
            fusion=meta.get("fusion"),
            peak=peak if peak is not None else _plan_peak(graph),
            time_us=_profile_time(profile),
        )
    graph = getattr(source, "graph", None)
    if not isinstance(graph, Graph):
        raise TypeError(
            "compare() takes traces (ascend_lab.trace(net, x)), payload dicts or graphs; "
            f"got {type(source).__name__}"
        )
    fused: Dict[str, List[Node]] = {}
    fmap = getattr(source, "fusion", None)
    before = getattr(source, "before_fusion", None)
    if fmap is not None and before is not None:
        for k in fmap.kernels:
            fused[k.kernel] = [before.node(o) for o in k.originals if o in before]
    return Side(
        title or str(getattr(source, "net_name", graph.name)),
        graph,
        fused=fused,
        mindspore_version=getattr(source, "mindspore_version", None),
        fusion=getattr(source, "fusion_enabled", None),
        peak=_plan_peak(graph),
        time_us=_profile_time(profile),
    )

"""The payload's optional ``profile`` section, and a whole payload for a Profile.

The section is plain JSON: steps, per-kernel rows (with the graph node each is joined to),
per op type rows, timeline lanes and launches (start relative to the first step, capped at
:data:`MAX_LAUNCHES`), the rows and nodes that could not be joined, and notes. A profile
without a trace still makes a valid payload: its graph is empty and a note says why.
"""

import datetime
from typing import Any, Dict, List, Optional

from ascend_lab.model.profile import MeasuredStep, Profile

SECTION_VERSION = 1
# Launches kept for the timeline (a long Ascend run has millions; the table keeps all).
MAX_LAUNCHES = 20000
MAX_MEMORY_POINTS = 4000  # per memory series (a long run records one sample per allocation)
NO_TRACE_GRAPH = "no-trace"


def _round(value: Optional[float]) -> Optional[float]:
    return None if value is None else round(value, 3)


def profile_section(profile: Profile, graph_key: Optional[str] = None) -> Dict[str, Any]:
    origin = profile.steps[0].start_us if profile.steps else 0.0
    if profile.launches:
        origin = min(origin, min(k.start_us for k in profile.launches))
    index = {k.name: i for i, k in enumerate(profile.kernels)}
    lanes: List[str] = sorted({k.lane for k in profile.launches})
    lane_index = {lane: i for i, lane in enumerate(lanes)}
    launches = [
        [
            index[k.name],
            lane_index[k.lane],
            _round(k.start_us - origin),
            _round(k.duration_us),
            k.step,
        ]
        for k in profile.launches[:MAX_LAUNCHES]
        if k.name in index
    ]
    return {
        "version": SECTION_VERSION,
        "graph": graph_key,
        "source": profile.source,
        "step_source": profile.step_source,
        "steps": [
            {
                "index": s.index,
                "start_us": _round(s.start_us - origin),
                "wall_us": _round(s.wall_us),
                "kernel_sum_us": _round(s.kernel_sum_us),
                "busy_us": _round(s.busy_us),
                "compute_us": _round(s.compute_us),
                "communication_us": _round(s.communication_us),
                "gap_us": _round(s.gap_us),
                "data_us": _round(s.data_us),
            }
            for s in profile.steps
        ],
        "kernels": [
            {
                "name": k.name,
                "op_type": k.op_type,
                "node": k.node_id,
                "joined_by": k.joined_by,
                "calls": k.calls,
                "total_us": _round(k.total_us),
                "mean_us": _round(k.mean_us),
                "min_us": _round(k.min_us),
                "max_us": _round(k.max_us),
                "share": None if k.share is None else round(k.share, 6),
                "core": k.core,
                "wait_us": _round(k.wait_us),
                "block_dim": k.block_dim,
            }
            for k in profile.kernels
        ],
        "op_types": [
            {
                "op_type": t.op_type,
                "core": t.core,
                "calls": t.calls,
                "kernels": t.kernels,
                "total_us": _round(t.total_us),
                "mean_us": _round(t.mean_us),
                "min_us": _round(t.min_us),
                "max_us": _round(t.max_us),
                "share": None if t.share is None else round(t.share, 6),
            }
            for t in profile.op_types
        ],
        "lanes": lanes,
        "launches": launches,
        "launches_dropped": max(0, len(profile.launches) - MAX_LAUNCHES),
        "unjoined_rows": [
            {
                "name": u.name,
                "op_type": u.op_type,
                "reason": u.reason,
                "total_us": _round(u.total_us),
            }
            for u in profile.unjoined_rows
        ],
        "unmeasured_nodes": [
            {"node": u.node_id, "name": u.name, "op_type": u.op_type, "reason": u.reason}
            for u in profile.unmeasured_nodes
        ],
        "notes": list(profile.notes),
        "measured_steps": [_measured(m) for m in profile.measured_steps],
        "memory": _memory(profile, origin),
        "rank": profile.rank,
        "ranks": [
            {
                "rank": r.rank,
                "path": r.path,
                "analysed": r.analysed,
                "measured_steps": [_measured(m) for m in r.measured_steps],
            }
            for r in profile.ranks
        ],
    }


def _measured(m: MeasuredStep) -> Dict[str, Any]:
    return {
        "step": m.step,
        "rank": m.rank,
        "computing_us": _round(m.computing_us),
        "communication_not_overlapped_us": _round(m.communication_not_overlapped_us),
        "overlapped_us": _round(m.overlapped_us),
        "communication_us": _round(m.communication_us),
        "free_us": _round(m.free_us),
        "stage_us": _round(m.stage_us),
        "bubble_us": _round(m.bubble_us),
        "preparing_us": _round(m.preparing_us),
        "total_us": _round(m.total_us),
    }


def _memory(profile: Profile, origin: float) -> Dict[str, Any]:
    """Memory over time as ``{series: [[t_us relative to the first step, MB], ...]}``, each
    series thinned to at most :data:`MAX_MEMORY_POINTS` points (peaks kept)."""
    series: Dict[str, List[List[Optional[float]]]] = {}
    for sample in profile.memory:
        series.setdefault(sample.component or "memory", []).append(
            [_round(sample.time_us - origin), _round(sample.allocated_mb)]
        )
    return {
        "unit": "MB",
        "series": {name: _thin(points) for name, points in sorted(series.items())},
        "peak_mb": {
            name: max((p[1] or 0.0) for p in points) for name, points in sorted(series.items())
        },
    }


def _thin(points: List[List[Optional[float]]]) -> List[List[Optional[float]]]:
    if len(points) <= MAX_MEMORY_POINTS:
        return points
    size = -(-len(points) // (MAX_MEMORY_POINTS // 2))
    out: List[List[Optional[float]]] = []
    for i in range(0, len(points), size):
        chunk = points[i : i + size]
        low = min(chunk, key=lambda p: p[1] or 0.0)
        high = max(chunk, key=lambda p: p[1] or 0.0)
        out.extend(sorted([low, high], key=lambda p: p[0] or 0.0) if low is not high else [low])
    return out


def profile_payload(profile: Profile) -> Dict[str, Any]:
    """A whole ``ascend-lab.graph/1`` payload: the joined graph (if any) plus ``profile``.

    Only the final kernel graph is included (the profile is about what ran); a profile
    without a trace gets an empty graph and its notes say why.
    """
    graphs: Dict[str, Any] = {}
    if profile.trace is not None:
        from ascend_lab.payload.build import add_graph

        key = add_graph(graphs, "final", profile.trace.graph)
        graph_key: Optional[str] = key
    else:
        key = NO_TRACE_GRAPH
        graphs[key] = {"name": "(no trace: kernels not joined to a graph)", "nodes": []}
        graph_key = None
    return {
        "schema": "ascend-lab.graph/1",
        "meta": {
            "title": profile.net_name,
            "mindspore_version": profile.mindspore_version,
            "device": profile.device,
            "fusion": None,
            "source": "profile",
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        },
        "graphs": graphs,
        "views": {"main": key, "before": None, "after": key if graph_key else None},
        "passes": [],
        "fusion": None,
        "memory": None,
        "profile": profile_section(profile, graph_key),
    }

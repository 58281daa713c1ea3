"""ascend-lab's measurements as Model Explorer node data (its ``node_data_builder`` JSON):
one value per node, coloured by Model Explorer's own gradient, loadable in its UI ("Add
node data") or with ``--node_data_paths``.

- :func:`kernel_time`: each kernel's total time (µs) from a profile joined to the trace;
- :func:`tensor_bytes` and :func:`tensor_lifetime`: each node's output size and how many
  execution steps it stays alive, from the memory plan;
- :func:`relative_error`: the max relative error of each node's Cell (a numeric comparison);
- :func:`change_kind`: 1 added, 2 removed, 3 changed, from a comparison of two traces.

Each takes a payload (``result.to_payload()``) and gives ``{graph id: GraphNodeData dict}``
(a ``ModelNodeData``), keyed by the ids :mod:`.convert` gives the nodes. A value on a fused
kernel goes on every op of its layer. Pure dicts; :func:`save` writes the JSON.
"""

import json
from typing import Any, Dict, List, Optional

from ascend_lab.model_explorer.convert import graph_dict, graph_ids

__all__ = [
    "change_kind",
    "kernel_time",
    "node_data_for",
    "relative_error",
    "save",
    "tensor_bytes",
    "tensor_lifetime",
]

# Model Explorer's gradient stops run from 0 to 1 over the values' range.
HEAT = [
    {"stop": 0, "bgColor": "#ffffcc"},
    {"stop": 0.5, "bgColor": "#fd8d3c"},
    {"stop": 1, "bgColor": "#bd0026"},
]
CHANGES = {1: ("added", "#a6dba0"), 2: ("removed", "#f4a582"), 3: ("changed", "#92c5de")}


def _spread(payload: Dict[str, Any], key: str, values: Dict[str, float]) -> Dict[str, float]:
    """Values by payload node id -> by Model Explorer node id in graph ``key`` (a fused
    call's value on each op of its layer: ``<call id>/<op id>``)."""
    graph = graph_dict(payload["graphs"], key, key, payload.get("fusion"))
    out: Dict[str, float] = {}
    for node in graph["nodes"]:
        me_id = node["id"]
        key = me_id if me_id in values else me_id.split("/", 1)[0]
        if key in values:
            out[me_id] = values[key]
    return out


def _graph_data(
    payload: Dict[str, Any],
    name: str,
    values: Dict[str, float],
    key: Optional[str] = None,
    **extra: Any,
) -> Dict[str, Any]:
    key = key or payload["views"]["main"]
    results = {k: {"value": v} for k, v in _spread(payload, key, values).items()}
    data: Dict[str, Any] = {"name": name, "results": results}
    if "thresholds" not in extra:
        data["gradient"] = HEAT
    data.update(extra)
    return {graph_id: data for k, graph_id in graph_ids(payload) if k == key}


def kernel_time(payload: Dict[str, Any]) -> Dict[str, Any]:
    """Total time (µs) of each kernel joined to a node, from the payload's ``profile``."""
    profile = payload.get("profile") or {}
    values: Dict[str, float] = {}
    for row in profile.get("kernels") or ():
        if row.get("node") and row.get("total_us") is not None:
            values[row["node"]] = values.get(row["node"], 0.0) + float(row["total_us"])
    return _graph_data(payload, "kernel time (µs)", values)


def _tensors(payload: Dict[str, Any]) -> List[Dict[str, Any]]:
    return list((payload.get("memory") or {}).get("tensors") or ())


def tensor_bytes(payload: Dict[str, Any]) -> Dict[str, Any]:
    """Bytes of each node's outputs in the memory plan."""
    values: Dict[str, float] = {}
    for t in _tensors(payload):
        values[t["node"]] = values.get(t["node"], 0) + t["size"]
    return _graph_data(payload, "output bytes (memory plan)", values)


def tensor_lifetime(payload: Dict[str, Any]) -> Dict[str, Any]:
    """Execution steps each node's longest-lived output stays allocated."""
    values: Dict[str, float] = {}
    for t in _tensors(payload):
        values[t["node"]] = max(values.get(t["node"], 0), t["end"] - t["start"])
    return _graph_data(payload, "lifetime (steps, memory plan)", values)


def relative_error(payload: Dict[str, Any]) -> Dict[str, Any]:
    """Max relative error of each node's compared Cell (``compare_numerics``)."""
    nodes = (payload.get("numerics") or {}).get("nodes") or {}
    values = {k: v["max_rel"] for k, v in nodes.items() if v.get("max_rel") is not None}
    return _graph_data(payload, "max relative error", values)


def change_kind(payload: Dict[str, Any], side: str = "b") -> Dict[str, Any]:
    """For a comparison's graph ``side`` ("a" or "b"): 1 added, 2 removed, 3 changed."""
    section = payload.get("compare") or {}
    values: Dict[str, float] = {}
    if side == "b":
        values.update({n: 1 for n in section.get("added") or ()})
    else:
        values.update({n: 2 for n in section.get("removed") or ()})
    for match in section.get("matches") or ():
        if match.get("changes"):
            for node in match.get(side) or ():
                values[node] = 3
    thresholds = [{"value": k, "bgColor": color} for k, (_name, color) in sorted(CHANGES.items())]
    name = f"1 added, 2 removed, 3 changed ({side})"
    return _graph_data(payload, name, values, section.get(side, side), thresholds=thresholds)


def node_data_for(payload: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Every kind of node data the payload has: ``{name: ModelNodeData dict}``."""
    out: Dict[str, Dict[str, Any]] = {}
    if (payload.get("profile") or {}).get("kernels"):
        out["kernel_time"] = kernel_time(payload)
    if _tensors(payload):
        out["tensor_bytes"] = tensor_bytes(payload)
        out["tensor_lifetime"] = tensor_lifetime(payload)
    if (payload.get("numerics") or {}).get("nodes"):
        out["relative_error"] = relative_error(payload)
    if payload.get("compare"):
        out["changes_a"] = change_kind(payload, "a")
        out["changes_b"] = change_kind(payload, "b")
    return out


def save(data: Dict[str, Any], path: str, indent: Optional[int] = None) -> str:
    """Write node data (a ``ModelNodeData`` dict) as JSON at ``path``; return ``path``."""
    from ascend_lab.safe_write import atomic_write_bytes

    atomic_write_bytes(path, json.dumps(data, indent=indent).encode("utf-8"))
    return path

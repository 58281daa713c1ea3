"""Build the ``ascend-lab.graph/1`` payload of a Trace (the schema is ``graph.schema.json``).

Graphs are stored once in ``graphs`` under keys: ``final`` (the final kernel graph),
``before`` (the kernel graph before graph-kernel fusion, when fusion ran), ``pass:<i>`` (a
pass snapshot), and ``<key>/<subgraph>`` for the subgraphs a graph calls (fused kernels).
"""

import datetime
import warnings
from typing import TYPE_CHECKING, Any, Dict, Optional

from ascend_lab.analysis.scopes import repair_scopes
from ascend_lab.model.graph import Graph
from ascend_lab.parsers.gc_pause import gc_paused
from ascend_lab.payload.schema import SCHEMA_ID

if TYPE_CHECKING:  # pragma: no cover
    from ascend_lab.payload.packing import PassPacker
    from ascend_lab.results.trace import Trace

PASS_MODES = ("changed", "all", "none")


def add_graph(graphs: Dict[str, Any], key: str, graph: Graph) -> str:
    """Put ``graph`` (and its subgraphs, as ``key/<name>``) into ``graphs``; return ``key``.

    ``subgraph`` fields of every node are rewritten to keys of ``graphs`` (None for a callee
    that is not in the dump).
    """
    if key in graphs:
        return key
    names = {graph.name: key}
    for sub_name in graph.subgraphs:
        names.setdefault(sub_name, f"{key}/{sub_name}")
    parts = [(key, graph)] + [(names[n], g) for n, g in graph.subgraphs.items()]
    for part_key, part in parts:
        data = graph_data(part)
        for node in data["nodes"]:
            if node.get("subgraph"):
                node["subgraph"] = names.get(node["subgraph"])
        graphs[part_key] = data
    return key


def graph_data(graph: Graph) -> Dict[str, Any]:
    """The payload's object for one graph (no subgraphs): its dict, and for each node whose
    scope needed repair, the scope to draw it in (``repaired_scope``).

    Each node whose data inputs (:mod:`ascend_lab.model.ops`) are not all its inputs lists
    them as ``data_inputs`` (``Depend``: its first, ``UpdateState``: none); every other
    node's data inputs are its ``inputs``. ``bookkeeping`` is only written when true and
    ``subgraph`` only for a call. ``data_inputs_listed`` marks a graph that says
    so: a view reading an older payload without it derives them itself.
    """
    data = graph.to_dict()
    data["data_inputs_listed"] = True
    for out in data["nodes"]:
        # defaults left out (a view reads a missing one as the default): 36 B a node
        if out["bookkeeping"] is False:
            del out["bookkeeping"]
        if out["subgraph"] is None:
            del out["subgraph"]
    for node, out in zip(graph.nodes, data["nodes"]):
        if node.bookkeeping:  # only bookkeeping ops leave inputs out
            carried = node.data_inputs
            if carried != node.inputs:
                out["data_inputs"] = carried
    repaired = repair_scopes(graph)  # where to draw a node MindSpore named elsewhere
    if repaired:
        for entry in data["nodes"]:
            if entry["id"] in repaired:
                entry["repaired_scope"] = repaired[entry["id"]]
    return data


def memory_section(graph: Graph, key: str) -> Optional[Dict[str, Any]]:
    """The memory plan of ``graph`` as the payload's ``memory`` object (None if it fails)."""
    from ascend_lab.analysis.planner import plan_graph

    try:
        plan = plan_graph(graph)
    except Exception as exc:  # the planner's failure must not break the trace view
        warnings.warn(f"memory planning failed: {exc}", RuntimeWarning, stacklevel=3)
        return None
    return plan.to_payload(key)


def build_payload(
    trace: "Trace",
    passes: str = "changed",
    memory: bool = True,
    pass_sink: "Optional[PassPacker]" = None,
) -> Dict[str, Any]:
    """The payload of ``trace``. With ``pass_sink``, each pass's own graph (not the main
    views) goes to that packer as soon as it is built, and the pass entry's ``graph`` is
    None: passes are walked in order, so at most a few parsed graphs are alive at once."""
    if passes not in PASS_MODES:
        raise ValueError(f"passes must be one of {PASS_MODES}, got {passes!r}")
    with gc_paused():  # millions of small dicts, no cycles: see gc_pause
        return _build_payload(trace, passes, memory, pass_sink)


def _build_payload(
    trace: "Trace", passes: str, memory: bool, pass_sink: "Optional[PassPacker]"
) -> Dict[str, Any]:
    graphs: Dict[str, Any] = {}
    final_key = add_graph(graphs, "final", trace.graph)
    before_key = None
    if trace.before_fusion is not None:
        before_key = add_graph(graphs, "before", trace.before_fusion)
    timeline = trace.passes
    # the main views' passes, by the first pass of their run of identical dumps
    special = {timeline.same_as(trace.final_index): final_key}
    if before_key is not None and trace.before_index is not None:
        special[timeline.same_as(trace.before_index)] = before_key
    packed_as: Dict[str, int] = {}  # pass graph key -> bundle number in pass_sink
    pass_list = []
    for snap in timeline:
        entry: Dict[str, Any] = snap.to_dict()
        entry["graph"] = None
        if passes != "none":
            diff = timeline.diff(snap.index)
            entry["changed"] = snap.changed
            entry["added"] = list(diff.added)
            entry["removed"] = list(diff.removed)
            entry["modified"] = list(diff.modified)
            if passes == "all" or snap.changed:
                # passes whose dumps are identical share one graph (and one key)
                first = timeline.same_as(snap.index)
                key = special.get(first) or f"pass:{first}"
                if key in special.values():
                    entry["graph"] = key
                elif pass_sink is not None:
                    entry = pass_sink.take_diff(entry)  # opened with its graph
                    if key in packed_as:
                        pass_sink.refer(snap.index, packed_as[key])
                    else:
                        bundle: Dict[str, Any] = {}
                        add_graph(bundle, key, timeline.snapshot(snap.index))
                        packed_as[key] = pass_sink.add(snap.index, bundle)
                        del bundle
                else:
                    if key not in graphs:
                        add_graph(graphs, key, timeline.snapshot(snap.index))
                    entry["graph"] = key
        elif timeline.same_as(snap.index) in special:
            entry["graph"] = special[timeline.same_as(snap.index)]
        pass_list.append(entry)
    meta_notes = trace.notes() if hasattr(trace, "notes") else []
    payload: Dict[str, Any] = {
        "schema": SCHEMA_ID,
        "meta": {
            "title": trace.net_name,
            "mindspore_version": trace.mindspore_version,
            "device": trace.device,
            "fusion": trace.fusion_enabled,
            "source": "ir-dump",
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        },
        "graphs": graphs,
        "views": {"main": final_key, "before": before_key, "after": final_key},
        "passes": pass_list,
        "fusion": trace.fusion.to_dict() if trace.fusion is not None else None,
        "memory": memory_section(trace.graph, final_key) if memory else None,
    }
    if meta_notes:
        payload["meta"]["notes"] = meta_notes
    return payload

"""Checks of the payload's optional ``numerics`` section (ascend_lab.compare_numerics)."""

from typing import Any, Callable, Dict, Set

STAT_COUNTS = ("nan", "inf", "fp16_overflow", "fp16_underflow", "bf16_overflow", "bf16_underflow")


def _number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def check_numerics(
    section: Any,
    graphs: Dict[str, Any],
    node_ids: Callable[[Dict[str, Any], Any], Set[str]],
    need: Callable[[bool, str], bool],
) -> None:
    """The graph key exists, every node id is a node of it, numbers are numbers or null."""
    if not need(isinstance(section, dict), "numerics must be an object"):
        return
    key = section.get("graph")
    if not need(isinstance(key, str) and key in graphs, "numerics.graph must be a graph key"):
        return
    ids = node_ids(graphs, key)
    titles = section.get("titles")
    need(
        isinstance(titles, list) and len(titles) == 2 and all(isinstance(t, str) for t in titles),
        "numerics.titles must be two strings",
    )
    first = section.get("first_divergence")
    need(first is None or first in ids, f"numerics.first_divergence: {first!r} is not a node")
    nodes = section.get("nodes")
    if not need(isinstance(nodes, dict), "numerics.nodes must be an object"):
        return
    for nid, entry in nodes.items():
        ok = need(nid in ids, f"numerics.nodes: {nid!r} is not a node of {key}")
        ok = ok and need(isinstance(entry, dict), f"numerics.nodes[{nid!r}] must be an object")
        if not ok:
            return
        good = isinstance(entry.get("cell"), str) and isinstance(entry.get("diverged"), bool)
        good = good and all(_number_or_none(entry.get(k)) for k in ("max_abs", "max_rel", "cosine"))
        for side in ("a", "b"):
            stats = entry.get(side, [])
            good = (
                good
                and isinstance(stats, list)
                and all(
                    isinstance(s, dict) and all(isinstance(s.get(c, 0), int) for c in STAT_COUNTS)
                    for s in stats
                )
            )
        if not need(good, f"numerics.nodes[{nid!r}]: cell, diverged and numbers are needed"):
            return

"""The payload's optional ``numerics`` section: each traced node's error, from its Cell.

Pure (plain dicts in, dicts out). A graph node belongs to the deepest compared Cell call
whose scope (``Default/blocks-CellList/1-Residual``) is a prefix of the node's scope (its
``repaired_scope`` when the scope repair moved it); a Cell called several times shows its
worst call. Nodes of no compared Cell get no entry: the view draws them grey. The first
divergence's nodes are marked ``first`` and the view selects the first of them.
"""

from typing import Any, Dict, List, Optional, Tuple

SECTION_VERSION = 1


def _finite(x: Optional[float]) -> Optional[float]:
    if x is None or x != x or x in (float("inf"), float("-inf")):
        return None
    return float(x)


def _entry(pair: Any, first: bool) -> Dict[str, Any]:
    return {
        "cell": pair.label,
        "op_type": pair.op_type,
        "max_abs": _finite(pair.max_abs),
        "max_rel": _finite(pair.max_rel),
        "cosine": _finite(pair.cosine),
        "nonfinite": any(e is not None and e.nonfinite_mismatch for e in pair.errors),
        "diverged": bool(pair.diverged),
        "first": first,
        "a": [s.to_dict() for s in pair.a.outputs if s is not None],
        "b": [s.to_dict() for s in pair.b.outputs if s is not None],
    }


def _worse(new: Any, old: Any) -> bool:
    return bool(new.diverged and not old.diverged) or new.max_rel > old.max_rel


def numerics_section(result: Any, graph_key: str, nodes: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The section for graph ``graph_key`` of a payload, whose node dicts are ``nodes``."""
    first_pair = result.first_divergence.pair if result.first_divergence else None
    by_scope: Dict[str, Any] = {}
    for pair in result.pairs:
        scope = pair.a.scope
        old = by_scope.get(scope)
        if old is None or pair is first_pair or (old is not first_pair and _worse(pair, old)):
            by_scope[scope] = pair
    scopes: List[Tuple[str, Any]] = sorted(by_scope.items(), key=lambda kv: -len(kv[0]))
    out: Dict[str, Any] = {}
    first_node: Optional[str] = None
    for node in nodes:
        if node.get("bookkeeping") or node.get("kind") not in ("op", "call"):
            continue
        scope = node.get("repaired_scope") or node.get("scope") or ""
        for cell_scope, pair in scopes:
            if scope == cell_scope or scope.startswith(cell_scope + "/"):
                is_first = pair is first_pair
                out[node["id"]] = _entry(pair, is_first)
                if is_first and first_node is None:
                    first_node = node["id"]
                break
    return {
        "version": SECTION_VERSION,
        "graph": graph_key,
        "titles": [result.name_a, result.name_b],
        "first_divergence": first_node,
        "first_cell": result.first_divergence.label if result.first_divergence else None,
        "nodes": out,
    }


def attach(payload: Dict[str, Any], result: Any, graph_key: Optional[str] = None) -> Dict[str, Any]:
    """Add the ``numerics`` section to ``payload`` (its main graph by default); returns it."""
    key = graph_key or payload["views"]["main"]
    payload["numerics"] = numerics_section(result, key, payload["graphs"][key]["nodes"])
    return payload

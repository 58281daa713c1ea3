"""The payload's optional ``numerics`` section: each traced node's error, from its Cell.

Pure (plain dicts in, dicts out). A graph node belongs to the deepest compared Cell call
whose scope (``Default/blocks-CellList/1-Residual``) is a prefix of the node's scope (its
``repaired_scope`` when the scope repair moved it); a Cell called several times shows its
worst call. Nodes of no compared Cell get no entry: the view draws them grey. The first
divergence's nodes are marked ``first`` and the view selects the first of them.

Op records (``capture="dump"``) name one kernel each, by path and call (``attn/Softmax``,
its n-th in run order: :func:`ascend_lab.model.numeric_records.op_path`): the graph's kernels
are keyed the same way in their order, and a kernel whose key is a compared op gets that
op's entry before any Cell prefix is tried. The key is MindSpore's own path (``ms_key``,
before the capture's scope repair: the traced kernels carry MindSpore's names). Not by
full name: its ``-opN`` depends on what
the process compiled before (a trace after other compiles numbers its MatMuls on), and
the dump runs in a fresh process.
"""

from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.model.numeric_records import op_path

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
    by_key: Dict[Tuple[str, int], Any] = {}
    for pair in result.pairs:
        if pair.a.producers is not None:  # an op record: keyed by MindSpore's (path, call)
            by_key[pair.a.ms_key or pair.a.key] = pair
            continue
        scope = pair.a.scope
        old = by_scope.get(scope)
        if old is None or pair is first_pair or (old is not first_pair and _worse(pair, old)):
            by_scope[scope] = pair
    scopes: List[Tuple[str, Any]] = sorted(by_scope.items(), key=lambda kv: -len(kv[0]))
    out: Dict[str, Any] = {}
    first_node: Optional[str] = None
    calls: Dict[str, int] = {}
    for node in nodes:
        if node.get("bookkeeping") or node.get("kind") not in ("op", "call"):
            continue
        op_pair = None
        if by_key and node.get("name"):
            path = op_path(node["name"])[0]
            call = calls.get(path, 0)
            calls[path] = call + 1
            op_pair = by_key.get((path, call))
        if op_pair is not None:
            out[node["id"]] = _entry(op_pair, op_pair is first_pair)
            if op_pair is first_pair and first_node is None:
                first_node = node["id"]
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

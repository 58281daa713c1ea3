"""Check a payload: what the viewer needs (cheap, in the product) and the full JSON Schema.

:func:`check_payload` runs wherever a payload is handed to a view (widget, standalone HTML,
JupyterLab's MIME renderer). It checks what the TypeScript viewer's ``checkPayload`` checks
(types of the fields the viewer reads) plus what a schema cannot express (graph keys and
node ids that views, passes and the fusion map refer to), in one pass over the nodes: a
ResNet-50 kernel graph takes about a millisecond (``benchmarks/bench_viewer.py``).

:func:`validate_payload` adds the full ``graph.schema.json`` (Draft 2020-12) when
``jsonschema`` is installed (a test dependency). It is what the tests run on every payload.
"""

from typing import Any, Dict, List

from ascend_lab.errors import AscendLabError
from ascend_lab.payload.schema import SCHEMA_ID, load_schema

MAX_ERRORS = 50


class PayloadError(AscendLabError, ValueError):
    """The payload does not match ``ascend-lab.graph/1``; ``errors`` lists each problem."""

    def __init__(self, errors: List[str]) -> None:
        self.errors = errors
        shown = "\n".join("- " + e for e in errors[:20])
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"the payload does not match {SCHEMA_ID}:\n{shown}{more}")


class _Problems:
    """Collects problems; stops caring after MAX_ERRORS (a broken big graph has thousands)."""

    def __init__(self) -> None:
        self.errors: List[str] = []

    def need(self, condition: bool, message: str) -> bool:
        if not condition and len(self.errors) < MAX_ERRORS:
            self.errors.append(message)
        return condition

    @property
    def full(self) -> bool:
        return len(self.errors) >= MAX_ERRORS


def _enums() -> Dict[str, List[str]]:
    defs = load_schema()["$defs"]
    return {
        "kind": list(defs["node"]["properties"]["kind"]["enum"]),
        "stage": list(defs["pass"]["properties"]["stage"]["enum"]),
    }


def _check_graph(key: str, graph: Any, kinds: List[str], p: _Problems) -> None:
    where = f"graphs[{key!r}]"
    if not p.need(isinstance(graph, dict), f"{where} must be an object"):
        return
    p.need(isinstance(graph.get("name"), str), f"{where}.name must be a string")
    nodes = graph.get("nodes")
    if not p.need(isinstance(nodes, list), f"{where}.nodes must be a list"):
        return
    seen: set = set()
    kind_set = frozenset(kinds)
    for i, node in enumerate(nodes):
        if p.full:
            return
        # The common case in one expression, no message built: most of the cost is per node.
        if (
            isinstance(node, dict)
            and isinstance(node.get("id"), str)
            and node["id"] not in seen
            and isinstance(node.get("op"), str)
            and node.get("kind") in kind_set
            and _is_string_list(node.get("inputs", []))
            and isinstance(node.get("outputs", []), list)
            and isinstance(node.get("attrs", {}), dict)
            and ("data_inputs" not in node or _data_inputs_ok(node))
        ):
            seen.add(node["id"])
        else:
            _node_problems(f"{where}.nodes[{i}]", node, kinds, seen, p)


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _data_inputs_ok(node: Dict[str, Any]) -> bool:
    """``data_inputs`` is a list of strings, each one of the node's ``inputs``."""
    carried = node["data_inputs"]
    inputs = node.get("inputs", [])
    return _is_string_list(carried) and isinstance(inputs, list) and set(carried) <= set(inputs)


def _node_problems(at: str, node: Any, kinds: List[str], seen: set, p: _Problems) -> None:
    """Say what is wrong with one node (only called for a node that failed the fast check)."""
    if not p.need(isinstance(node, dict), f"{at} must be an object"):
        return
    node_id = node.get("id")
    p.need(isinstance(node_id, str), f"{at}.id must be a string")
    p.need(isinstance(node.get("op"), str), f"{at}.op must be a string")
    p.need(node.get("kind") in kinds, f"{at}.kind must be one of {', '.join(kinds)}")
    if isinstance(node_id, str):
        p.need(node_id not in seen, f"{at}.id {node_id!r} is not unique")
        seen.add(node_id)
    p.need(_is_string_list(node.get("inputs", [])), f"{at}.inputs must be a list of strings")
    p.need(isinstance(node.get("outputs", []), list), f"{at}.outputs must be a list")
    p.need(isinstance(node.get("attrs", {}), dict), f"{at}.attrs must be an object")
    if "data_inputs" in node:
        p.need(_data_inputs_ok(node), f"{at}.data_inputs must be a list of ids of its inputs")


def _nodes_of(graph: Any) -> List[Dict[str, Any]]:
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    return [n for n in nodes if isinstance(n, dict)] if isinstance(nodes, list) else []


def _node_ids(graphs: Dict[str, Any], key: Any) -> set:
    return {n.get("id") for n in _nodes_of(graphs.get(key) if isinstance(key, str) else None)}


def _check_references(obj: Dict[str, Any], graphs: Dict[str, Any], p: _Problems) -> None:
    """What the schema cannot express: keys and node ids that must point somewhere."""
    views = obj["views"]
    for name in ("main", "before", "after"):
        key = views.get(name)
        if key is not None or name == "main":
            p.need(
                isinstance(key, str) and key in graphs,
                f"views.{name} refers to a missing graph {key!r}",
            )
    for gkey, graph in graphs.items():
        for node in _nodes_of(graph):
            sub = node.get("subgraph")
            if sub is not None:
                p.need(
                    sub in graphs,
                    f"graphs[{gkey!r}] node {node.get('id')!r}: subgraph {sub!r} missing",
                )
    fusion = obj.get("fusion")
    if isinstance(fusion, dict) and isinstance(fusion.get("kernels"), list):
        after_ids = _node_ids(graphs, views.get("after"))
        before_ids = _node_ids(graphs, views.get("before"))
        for i, k in enumerate(fusion["kernels"]):
            if not p.need(isinstance(k, dict), f"fusion.kernels[{i}] must be an object"):
                continue
            p.need(isinstance(k.get("name"), str), f"fusion.kernels[{i}].name must be a string")
            p.need(
                k.get("kernel") in after_ids,
                f"fusion kernel {k.get('kernel')!r} is not a node of views.after",
            )
            originals = k.get("originals")
            if p.need(isinstance(originals, list), f"fusion.kernels[{i}].originals must be a list"):
                for orig in originals:
                    p.need(
                        orig in before_ids,
                        f"fusion original {orig!r} is not a node of views.before",
                    )


def _check_passes(passes: Any, graphs: Dict[str, Any], stages: List[str], p: _Problems) -> None:
    if not p.need(isinstance(passes, list), "passes must be a list"):
        return
    for i, entry in enumerate(passes):
        if not p.need(isinstance(entry, dict), f"passes[{i}] must be an object"):
            continue
        index = entry.get("index")
        p.need(
            isinstance(index, int) and not isinstance(index, bool),
            f"passes[{i}].index must be an integer",
        )
        p.need(isinstance(entry.get("name"), str), f"passes[{i}].name must be a string")
        p.need(
            entry.get("stage") in stages, f"passes[{i}].stage must be one of {', '.join(stages)}"
        )
        p.need(isinstance(entry.get("changed"), bool), f"passes[{i}].changed must be true or false")
        key = entry.get("graph")
        if key is not None:
            p.need(key in graphs, f"passes[{i}].graph refers to a missing graph {key!r}")


def _check_memory(memory: Any, p: _Problems) -> None:
    if not p.need(isinstance(memory, dict), "memory must be an object or null"):
        return
    for name in ("alignment", "peak", "lower_bound", "no_reuse", "steps"):
        p.need(_is_number(memory.get(name)), f"memory.{name} must be a number")
    p.need(isinstance(memory.get("graph"), str), "memory.graph must be a string")
    tensors = memory.get("tensors")
    if not p.need(isinstance(tensors, list), "memory.tensors must be a list"):
        return
    for i, t in enumerate(tensors):
        if p.full:
            return
        if not p.need(isinstance(t, dict), f"memory.tensors[{i}] must be an object"):
            continue
        for name in ("size", "start", "end", "offset"):
            p.need(_is_number(t.get(name)), f"memory.tensors[{i}].{name} must be a number")
        p.need(
            isinstance(t.get("id"), str) and isinstance(t.get("node"), str),
            f"memory.tensors[{i}] needs string id and node",
        )


def _check_compare(cmp: Any, graphs: Dict[str, Any], p: _Problems) -> None:
    """The ``compare`` section: both graph keys exist, every id it names is a node of its
    side, and the summary's numbers are numbers (the viewer shows them as text)."""
    if not p.need(isinstance(cmp, dict), "compare must be an object"):
        return
    ids = {}
    for side in ("a", "b"):
        key = cmp.get(side)
        if p.need(isinstance(key, str) and key in graphs, f"compare.{side} must be a graph key"):
            ids[side] = _node_ids(graphs, key)
    titles = cmp.get("titles")
    p.need(
        isinstance(titles, list) and len(titles) == 2 and _is_string_list(titles),
        "compare.titles must be two strings",
    )
    if len(ids) != 2:
        return
    for name, side in (("added", "b"), ("removed", "a")):
        values = cmp.get(name)
        if p.need(_is_string_list(values), f"compare.{name} must be a list of strings"):
            for nid in values:
                if not p.need(nid in ids[side], f"compare.{name}: {nid!r} is not a node of {side}"):
                    break
    matches = cmp.get("matches")
    if not p.need(isinstance(matches, list), "compare.matches must be a list"):
        return
    for i, m in enumerate(matches):
        if p.full or not p.need(isinstance(m, dict), f"compare.matches[{i}] must be an object"):
            break
        for side in ("a", "b"):
            values = m.get(side)
            if p.need(_is_string_list(values), f"compare.matches[{i}].{side} must be strings"):
                for nid in values:
                    p.need(nid in ids[side], f"compare.matches[{i}]: {nid!r} is not in {side}")
        changes = m.get("changes", {})
        p.need(
            isinstance(changes, dict)
            and all(_is_string_list(v) and len(v) == 2 for v in changes.values()),
            f"compare.matches[{i}].changes must map fields to [A's, B's] strings",
        )
    summary = cmp.get("summary")
    if p.need(isinstance(summary, dict), "compare.summary must be an object"):
        for name in ("kernels", "nodes", "casts", "peak", "time_us"):
            values = summary.get(name, [])
            p.need(
                isinstance(values, list) and all(v is None or _is_number(v) for v in values),
                f"compare.summary.{name} must be a list of numbers",
            )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_payload(obj: Any) -> None:
    """Raise :class:`PayloadError` (a ValueError) unless the viewer can show ``obj``.

    Checks the schema id, the fields the viewer reads and their types, and that every
    graph key and node id referred to exists. Linear in the size of the payload.
    """
    if not isinstance(obj, dict):
        raise PayloadError(
            [
                f"the viewer needs an {SCHEMA_ID!r} payload dict (e.g. trace.to_payload()), "
                f"got {type(obj).__name__}"
            ]
        )
    if obj.get("schema") != SCHEMA_ID:
        raise PayloadError(
            [f"unsupported payload schema {obj.get('schema')!r}; this viewer reads {SCHEMA_ID!r}"]
        )
    p = _Problems()
    enums = _enums()
    meta: Any = obj.get("meta")
    if p.need(isinstance(meta, dict), "meta must be an object"):
        p.need(isinstance(meta.get("title"), str), "meta.title must be a string")
        notes = meta.get("notes")
        p.need(notes is None or _is_string_list(notes), "meta.notes must be a list of strings")
    graphs_ok = p.need(isinstance(obj.get("graphs"), dict), "graphs must be an object")
    graphs: Dict[str, Any] = obj["graphs"] if graphs_ok else {}
    views_ok = p.need(isinstance(obj.get("views"), dict), "views must be an object")
    for key, graph in graphs.items():
        _check_graph(key, graph, enums["kind"], p)
    if graphs_ok and views_ok:
        _check_references(obj, graphs, p)
    if graphs_ok and obj.get("passes") is not None:
        _check_passes(obj["passes"], graphs, enums["stage"], p)
    if obj.get("memory") is not None:
        _check_memory(obj["memory"], p)
    if graphs_ok and obj.get("compare") is not None:
        _check_compare(obj["compare"], graphs, p)
    if graphs_ok and obj.get("numerics") is not None:
        from ascend_lab.payload.numerics_check import check_numerics

        check_numerics(obj["numerics"], graphs, _node_ids, p.need)
    if p.errors:
        raise PayloadError(p.errors)


def validate_payload(obj: Any) -> None:
    """Raise :class:`PayloadError` unless ``obj`` is a valid ``ascend-lab.graph/1`` payload.

    The full JSON Schema when ``jsonschema`` is installed, then :func:`check_payload`.
    """
    if not isinstance(obj, dict):
        raise PayloadError([f"payload must be an object, got {type(obj).__name__}"])
    try:
        import jsonschema
    except ImportError:
        jsonschema = None  # type: ignore[assignment]
    if jsonschema is not None:
        validator = jsonschema.Draft202012Validator(load_schema())
        errors = []
        for err in sorted(validator.iter_errors(obj), key=lambda e: list(e.path)):
            where = "/".join(str(part) for part in err.path) or "<root>"
            errors.append(f"{where}: {err.message[:300]}")
        if errors:
            raise PayloadError(errors)
    check_payload(obj)


def is_valid(obj: Any) -> bool:
    try:
        validate_payload(obj)
    except PayloadError:
        return False
    return True

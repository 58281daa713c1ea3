"""An ``ascend-lab.graph/1`` payload -> Model Explorer's graphs, as plain JSON dicts.

Model Explorer (``ai-edge-model-explorer``) draws a list of graphs whose nodes carry a
``namespace`` (its layers), ``incomingEdges``, ``attrs`` and ``outputsMetadata``. This
module writes those from the payload that every ascend-lab view already draws, so there is
no second parser:

- **graphs**: the payload's main graph first, then one graph per pass that has one (a dump
  folder's passes in order, numbered: Model Explorer's graph list is the pass timeline); a
  comparison's two graphs; the payload's notes are the main graph's attributes, and an
  ``analyze_fail`` file's failing node is drawn in red;
- **layers**: a node's namespace is its scope after ascend-lab's scope repair
  (``repaired_scope``), without MindSpore's root (``Default``), so repeated blocks keep their
  own names (``layer1-SequentialCell/0-Bottleneck``, ``1-Bottleneck``, ...);
- **fused kernels**: a call into a fused subgraph becomes a layer (``Fused_BiasAdd_ReLU %12``)
  holding the ops it replaced, wired to the call's inputs and users;
- **bookkeeping** (``Load``, ``UpdateState``, ``Depend``, ``MakeTuple``, ``Return``, ...) is
  bridged: an edge goes from the op that made the data to the op that uses it; constants
  are left out;
- **edges**: each output's dtype and shape are its ``tensor_shape`` (``float32[1,6,28,28]``),
  which Model Explorer writes on the edge; a node's attrs carry MindSpore's full name, its
  original scope, its attributes and its source lines.

Pure: dicts in, dicts out; no Model Explorer or MindSpore import (``main`` makes the
package's dataclasses of these dicts).
"""

from typing import Any, Dict, Iterable, List, Optional, Tuple

from ascend_lab.analysis.scopes import MODULE_ROOTS, split_scope

__all__ = ["DRAWN_KINDS", "graph_dict", "graph_dicts", "graph_ids", "namespace_of", "tensor_shape"]

# What becomes a Model Explorer node (constants and bookkeeping ops are left out).
DRAWN_KINDS = ("op", "call", "parameter", "input")
ATTR_VALUE_MAX = 2000  # characters of one attribute shown (a constant tensor can be huge)


def namespace_of(node: Dict[str, Any]) -> str:
    """The layer path of a payload node: its repaired scope without MindSpore's root."""
    parts = split_scope(node.get("repaired_scope") or node.get("scope"))
    if parts and parts[0] in MODULE_ROOTS:
        parts = parts[1:]
    return "/".join(parts)


def tensor_shape(out: Dict[str, Any]) -> str:
    """``float32[1,6,28,28]``: what Model Explorer writes on an edge."""
    dtype = (out.get("dtype") or "?").lower()
    shape = out.get("shape")
    dims = "?" if shape is None else ",".join(str(d) for d in shape)
    return f"{dtype}[{dims}]"


def graph_dicts(payload: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Model Explorer's ``graphs`` for a payload: the main graph, then each pass's graph
    (a comparison: its two graphs)."""
    graphs = payload.get("graphs") or {}
    fusion = payload.get("fusion") or {}
    out = [graph_dict(graphs, key, label, fusion) for key, label in graph_ids(payload)]
    if out:
        _mark_main(out[0], payload.get("meta") or {})
    return out


def _mark_main(graph: Dict[str, Any], meta: Dict[str, Any]) -> None:
    """The payload's notes (a paste's gaps, where an ``analyze_fail`` stopped) as the
    graph's own attributes (Model Explorer shows them when nothing is selected), and the
    node the view selects first (the failing node) drawn in red."""
    notes = [str(n) for n in meta.get("notes") or ()]
    if notes:
        groups = graph.setdefault("groupNodeAttributes", {})
        groups[""] = {f"note {i + 1}" if i else "note": n for i, n in enumerate(notes)}
    select = meta.get("select")
    for node in graph["nodes"] if select else ():
        if node["id"] == select:
            node["style"] = {"backgroundColor": "#ffcdd2", "borderColor": "#c62828"}
            node["attrs"].insert(0, _kv("ascend-lab", "the view selects this node first"))


def graph_ids(payload: Dict[str, Any]) -> List[Tuple[str, str]]:
    """``[(payload graph key, Model Explorer graph id)]`` in the order the graphs are
    listed (a key may come twice: the final graph is also the last pass)."""
    graphs = payload.get("graphs") or {}
    meta = payload.get("meta") or {}
    title = str(meta.get("title") or "graph")
    out: List[Tuple[str, str]] = []
    used: Dict[str, int] = {}

    def add(key: Any, label: str) -> None:
        if key not in graphs:
            return
        n = used.get(label, 0)
        used[label] = n + 1
        out.append((key, label if n == 0 else f"{label} ({n + 1})"))

    section = payload.get("compare") or {}
    titles = list(section.get("titles") or ()) + ["a", "b"]
    if section:
        add(section.get("a"), str(titles[0]))
        add(section.get("b"), str(titles[1]))
    add((payload.get("views") or {}).get("main"), title)
    passes = payload.get("passes") or []
    width = len(str(max(len(passes) - 1, 0)))
    for index, entry in enumerate(passes):
        if entry.get("graph"):
            name = str(entry.get("name") or index).rsplit("/", 1)[-1]
            add(entry["graph"], f"pass {index:0{width}d} {name}")
    return out


def graph_dict(
    graphs: Dict[str, Any], key: str, graph_id: str, fusion: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """One payload graph (``graphs[key]``, its fused subgraphs inlined) as a Model
    Explorer graph with id ``graph_id``."""
    return _Builder(graphs, key, fusion or {}).build(graph_id)


class _Builder:
    def __init__(self, graphs: Dict[str, Any], key: str, fusion: Dict[str, Any]) -> None:
        self.graphs = graphs
        self.nodes = graphs[key]["nodes"]
        self.by_id = {n["id"]: n for n in self.nodes}
        self.replaced = {
            k.get("kernel"): k.get("ops") or [] for k in fusion.get("kernels") or () if k
        }
        self.out: List[Dict[str, Any]] = []
        self.sources: Dict[Tuple[str, str], List[str]] = {}  # (scope, id) -> drawn ids
        self.group_attrs: Dict[str, Dict[str, str]] = {}

    # --- what an input refers to, bookkeeping bridged -------------------------------
    def resolve(self, ref: str, inner: Any) -> List[str]:
        """The drawn node ids that ``ref`` carries data from. ``inner`` is (call id,
        subgraph nodes by id, the call's inputs, the subgraph's input slots) inside a
        fused subgraph (see :meth:`_inner`), else None."""
        scope = inner[0] if inner else ""
        memo_key = (scope, ref)
        if memo_key in self.sources:
            return self.sources[memo_key]
        self.sources[memo_key] = []  # a cycle (never in a dump) resolves to nothing
        by_id = inner[1] if inner else self.by_id
        node = by_id.get(ref)
        found: List[str] = []
        if node is None:
            found = []
        elif inner and node.get("kind") in ("input", "parameter"):
            slot = inner[3].get(ref)  # the subgraph's n-th input is the call's n-th
            if slot is not None and slot < len(inner[2]):
                found = self.resolve(inner[2][slot], None)
        elif node.get("kind") == "constant":
            found = []
        elif node.get("bookkeeping"):
            carried = node.get("data_inputs", node.get("inputs") or [])
            for each in carried:
                found += self.resolve(each, inner)
        elif node.get("kind") == "call" and not inner and self._callee(node) is not None:
            found = self._call_outputs(node)
        else:
            found = [f"{scope}/{ref}" if scope else ref]
        self.sources[memo_key] = found
        return found

    def _callee(self, node: Dict[str, Any]) -> Optional[List[Dict[str, Any]]]:
        sub = node.get("subgraph")
        data = self.graphs.get(sub) if sub else None
        return data["nodes"] if data else None

    def _inner(self, call: Dict[str, Any]) -> Any:
        nodes = self._callee(call) or []
        by_id = {n["id"]: n for n in nodes}
        inputs = [n["id"] for n in nodes if n.get("kind") in ("input", "parameter")]
        slots = {name: i for i, name in enumerate(inputs)}
        return (call["id"], by_id, list(call.get("inputs") or []), slots)

    def _call_outputs(self, call: Dict[str, Any]) -> List[str]:
        inner = self._inner(call)
        returns = [n for n in inner[1].values() if n.get("op") == "Return"]
        found: List[str] = []
        for ret in returns:
            for each in ret.get("data_inputs", ret.get("inputs") or []):
                found += self.resolve(each, inner)
        return found

    # --- the nodes ------------------------------------------------------------------
    def build(self, graph_id: str) -> Dict[str, Any]:
        users: Dict[str, str] = {}  # a parameter -> the namespace of its first user
        for node in self.nodes:
            if not self._drawn(node) or node.get("kind") in ("parameter", "input"):
                continue
            for ref in node.get("inputs") or ():
                for source in self.resolve(ref, None):
                    users.setdefault(source, namespace_of(node))
        for node in self.nodes:
            if not self._drawn(node):
                continue
            if node.get("kind") == "call" and self._callee(node) is not None:
                self._add_fused(node)
                continue
            namespace = namespace_of(node)
            if node.get("kind") == "parameter":
                namespace = users.get(node["id"], "")
            self.out.append(self._me_node(node["id"], node, namespace, None))
        graph: Dict[str, Any] = {"id": graph_id, "nodes": self.out}
        if self.group_attrs:
            graph["groupNodeAttributes"] = self.group_attrs
        return graph

    @staticmethod
    def _drawn(node: Dict[str, Any]) -> bool:
        return node.get("kind") in DRAWN_KINDS and not node.get("bookkeeping")

    def _add_fused(self, call: Dict[str, Any]) -> None:
        base = namespace_of(call)
        layer = f"{call.get('op') or 'Fused'} {call['id']}"
        namespace = f"{base}/{layer}" if base else layer
        self.group_attrs[namespace] = {
            "fused kernel": str(call.get("op")),
            "MindSpore name": str(call.get("name") or ""),
            "replaces": ", ".join(self.replaced.get(call["id"], [])),
        }
        inner = self._inner(call)
        for node in inner[1].values():
            if node.get("kind") in ("op", "call") and not node.get("bookkeeping"):
                me_id = f"{call['id']}/{node['id']}"
                self.out.append(self._me_node(me_id, node, namespace, inner))

    def _me_node(
        self, me_id: str, node: Dict[str, Any], namespace: str, inner: Any
    ) -> Dict[str, Any]:
        edges = []
        for slot, ref in enumerate(node.get("inputs") or ()):
            for source in self.resolve(ref, inner):
                edges.append(
                    {
                        "sourceNodeId": source,
                        "sourceNodeOutputId": "0",
                        "targetNodeInputId": str(slot),
                    }
                )
        return {
            "id": me_id,
            "label": str(node.get("op") or node.get("kind")),
            "namespace": namespace,
            "attrs": _attrs(node),
            "incomingEdges": edges,
            "outputsMetadata": [
                {"id": str(i), "attrs": _output_attrs(out)}
                for i, out in enumerate(node.get("outputs") or ())
            ],
        }


def _kv(key: str, value: Any) -> Dict[str, str]:
    text = str(value)
    if len(text) > ATTR_VALUE_MAX:
        text = text[:ATTR_VALUE_MAX] + " …"
    return {"key": key, "value": text}


def _attrs(node: Dict[str, Any]) -> List[Dict[str, str]]:
    out = [_kv("kind", node.get("kind"))]
    if node.get("name"):
        out.append(_kv("mindspore_name", node["name"]))
    if node.get("scope"):
        out.append(_kv("scope", node["scope"]))
    if node.get("repaired_scope"):
        out.append(_kv("drawn_in", node["repaired_scope"]))
    if node.get("step") is not None:
        out.append(_kv("step", node["step"]))
    source: Iterable[str] = node.get("source") or ()
    if source:
        out.append(_kv("source", "\n".join(source)))
    for key, value in sorted((node.get("attrs") or {}).items()):
        out.append(_kv(key, value))
    return out


def _output_attrs(out: Dict[str, Any]) -> List[Dict[str, str]]:
    attrs = [_kv("tensor_shape", tensor_shape(out))]
    if out.get("dtype"):
        attrs.append(_kv("dtype", out["dtype"]))
    if out.get("shape") is not None:
        attrs.append(_kv("shape", list(out["shape"])))
    for key in ("device_dtype", "format"):
        if out.get(key):
            attrs.append(_kv(key, out[key]))
    return attrs

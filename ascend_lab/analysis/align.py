"""Align the nodes of two graphs: which node of graph A is which node of graph B.

Two traces of "the same" net (fp32 against AMP O2, fusion off against on, MindSpore 2.7
against 2.10, before and after a code change) give two final kernel graphs whose node ids
(``%12``) mean nothing across them. This module pairs their nodes, never by guessing:

1. **by name**: a node's full name with scope, ``-opN`` numbering stripped (a process-wide
   counter that differs between compiles and versions), its op (``PrimFunc_`` spelling
   dropped) and its Python source line; then by name and op alone; then with the cells
   that wrap a net (``auto_mixed_precision``'s ``_backbone`` / ``_OutputTo16``) left out
   of the scope. Only keys that occur *once* on each side pair here (the four
   ``Default/relu-ReLU/ReLU`` of a LeNet do not). The net's inputs pair by position;
2. **by structure**: an unpaired node whose paired neighbours (data inputs, then
   consumers) lead to exactly one unpaired node of the same op on the other side pairs with
   it (among several: the one of the same name, then the one with the same constant
   arguments, as a Split's ``TupleGetItem``s 0, 1, 2 of attention's q, k, v); repeated
   until nothing changes (this resolves the repeated ReLUs, Loads, MaxPools);
3. **across fusion**: a fused kernel call (``Fused_BiasAdd_ReLU_fusion``) on one side is
   paired with the *set* of ops it replaced on the other side, when its fusion map (the
   originals, nodes of that side's pre-fusion graph) is given: starting from the images of
   the kernel's inputs, unpaired ops whose name-and-op key is one of the originals' keys
   are taken along the data flow; only a complete set pairs;
4. **over added Casts**: when 2 and 3 find nothing more, they run again with the Casts
   still unpaired stepped over, in both graphs (a Cast's neighbours stand in for it):
   ``auto_mixed_precision`` O2 puts a Cast between ops that MindSpore names alike in
   every block of a decoder, so without this half of the decoder stays unpaired. A node
   that is itself a Cast is never paired through Casts.

Every step indexes nodes by key (scope and op, source line) or walks the data edges
of nodes already paired: no scan over all pairs of nodes. What stays unpaired is
*removed* (only in A) or *added* (only in B). Constants are not aligned. Each 1:1 pair
of kernels or parameters lists what changed: dtype, shape, device format. Pure: two
:class:`~ascend_lab.model.graph.Graph` objects in, an :class:`Alignment` out
(networkx-style functions over plain data; no MindSpore, no I/O).
"""

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.model.ops import op_name

__all__ = ["Alignment", "Match", "align_graphs", "name_key", "normalise_name"]

# ``-op12`` at the end of a path segment: MindSpore's process-wide op counter.
_OPNUM_RE = re.compile(r"-op[0-9]+(?=/|$)")
# ``%para3_fc1.bias`` -> ``fc1.bias``
_PARAM_RE = re.compile(r"^%?para[0-9]+_")

# Cells that wrap another one under the attribute ``_backbone`` (AMP's casting wrappers).
_WRAPPER_CLASSES = ("_OutputTo",)

# How a pair was found, from the most to the least direct.
HOW = ("source", "name", "unwrapped", "input", "structure", "fusion")


def normalise_name(name: str) -> str:
    """``Default/conv1-Conv2d/Conv2D-op0`` -> ``Default/conv1-Conv2d/Conv2D``."""
    return _OPNUM_RE.sub("", name)


def _unwrap_segments(path: str) -> str:
    """A scope path with the cells that wrap a net left out.

    ``auto_mixed_precision`` wraps the net (``Default/_backbone-ConvBNReLU/conv-Conv2d``)
    and each cell it casts (``bn-_OutputTo16/_backbone-BatchNorm2d``); training wrappers
    hold the net as ``_backbone`` too. Both spellings give ``Default/conv-Conv2d`` and
    ``Default/bn-BatchNorm2d``.
    """
    out: List[str] = []
    for seg in path.split("/"):
        attr, dash, cls = seg.partition("-")
        if attr == "_backbone" and dash:
            prev_attr, _, prev_cls = out[-1].partition("-") if out else ("", "", "")
            if prev_cls.startswith(_WRAPPER_CLASSES):
                out[-1] = prev_attr + "-" + cls  # bn-_OutputTo16 + BatchNorm2d
            # else a top-level wrapper's _backbone: the net itself, no segment of its own
            continue
        out.append(seg)
    return "/".join(out)


def _unwrapped_key(key: str) -> str:
    return key if key.startswith("param:") else _unwrap_segments(key)


def name_key(node: Node) -> str:
    """A key that names ``node`` the same way in two compiles: scope path and op."""
    if node.kind in ("parameter", "input"):
        return "param:" + (node.name or _PARAM_RE.sub("", node.id))
    op = op_name(node.op)
    if node.name:
        return normalise_name(node.name) + "|" + op
    return (node.scope + "/" if node.scope else "") + op + "|" + op


@dataclass
class Match:
    """One pairing: node ids of A and of B (more than one on a side across fusion)."""

    a: Tuple[str, ...]
    b: Tuple[str, ...]
    how: str
    changes: Dict[str, Tuple[str, str]] = field(default_factory=dict)
    # what each side is, for people ("Conv2D [Default/conv-Conv2d] net.py:12"): set by the
    # Comparison that holds this match; not part of its identity
    labels: Tuple[str, str] = field(default=("", ""), compare=False)

    def __repr__(self) -> str:
        a = self.labels[0] or ", ".join(self.a)
        b = self.labels[1] or ", ".join(self.b)
        changes = "; ".join(f"{k} {v[0]} -> {v[1]}" for k, v in self.changes.items())
        return f"<{self.how}: {a} -> {b}{': ' + changes if changes else ''}>"

    def to_dict(self) -> Dict[str, object]:
        return {
            "a": list(self.a),
            "b": list(self.b),
            "how": self.how,
            "changes": {k: [v[0], v[1]] for k, v in self.changes.items()},
        }


@dataclass
class Alignment:
    """Pairs of nodes of graph A and graph B, and what only one side has."""

    matches: List[Match]
    removed: List[str]  # ids of A with no partner in B
    added: List[str]  # ids of B with no partner in A

    def __post_init__(self) -> None:
        self.a_to_b: Dict[str, Tuple[str, ...]] = {}
        self.b_to_a: Dict[str, Tuple[str, ...]] = {}
        for m in self.matches:
            for x in m.a:
                self.a_to_b[x] = m.b
            for y in m.b:
                self.b_to_a[y] = m.a

    @property
    def changed(self) -> List[Match]:
        return [m for m in self.matches if m.changes]

    def how_counts(self) -> Dict[str, int]:
        return dict(Counter(m.how for m in self.matches))

    def to_dict(self) -> Dict[str, object]:
        return {
            "matches": [m.to_dict() for m in self.matches],
            "removed": list(self.removed),
            "added": list(self.added),
        }


def _types_text(types: Sequence[TensorType], attr: str) -> str:
    out = []
    for t in types:
        value = getattr(t, attr)
        if attr == "shape":
            out.append("?" if value is None else "(" + ", ".join(str(d) for d in value) + ")")
        else:
            out.append(str(value).lower() if value is not None else "?")
    return ", ".join(out)


def _types_key(types: Sequence[TensorType]) -> List[Tuple[object, ...]]:
    return [(t.dtype, t.shape, t.format) for t in types]


def node_changes(a: Node, b: Node) -> Dict[str, Tuple[str, str]]:
    """What differs between two paired nodes' outputs: dtype, shape, device format."""
    changes: Dict[str, Tuple[str, str]] = {}
    if _types_key(a.outputs) == _types_key(b.outputs):
        return changes  # the same fields give the same texts: most pairs stop here
    for attr, label in (("dtype", "dtype"), ("shape", "shape"), ("format", "format")):
        ta = _types_text(a.outputs, attr)
        tb = _types_text(b.outputs, attr)
        if ta != tb and not (attr == "format" and "?" in (ta, tb)):
            changes[label] = (ta, tb)
    return changes


class _Side:
    """One graph's alignable nodes, their data inputs and consumers (ids only)."""

    def __init__(self, graph: Graph) -> None:
        self.nodes: Dict[str, Node] = {n.id: n for n in graph.nodes if n.kind != "constant"}
        self.order = [n.id for n in graph.nodes if n.id in self.nodes]
        self.inputs: Dict[str, List[str]] = {}
        users: Dict[str, Dict[str, None]] = defaultdict(dict)  # ordered sets: no list scans
        for nid in self.order:
            ins = [x for x in self.nodes[nid].inputs if x in self.nodes]
            self.inputs[nid] = ins
            for x in ins:
                users[x][nid] = None
        self.consumers: Dict[str, List[str]] = {x: list(users.get(x, ())) for x in self.order}
        self.op = {nid: op_name(n.op) for nid, n in self.nodes.items()}
        self.name = {nid: name_key(n) for nid, n in self.nodes.items()}
        # the keys of step 1, each computed once (``unwrapped`` on first use: only the
        # nodes the first two keys left unpaired need it)
        self.keys: Dict[str, Dict[str, str]] = {
            "source": {
                nid: self.name[nid] + "@" + (n.source[0] if n.source else "")
                for nid, n in self.nodes.items()
            },
            "name": self.name,
            "unwrapped": {},
        }
        self.partner: Dict[str, Tuple[str, ...]] = {}
        self.position = {nid: i for i, nid in enumerate(self.order)}
        # each node's constant arguments by value (a TupleGetItem's index): what tells
        # apart twin branches that only a constant separates (a Split's outputs 0, 1, 2)
        values = {n.id: n.attrs.get("value", "") for n in graph.nodes if n.kind == "constant"}
        self.constants: Dict[str, Tuple[str, ...]] = {
            nid: tuple(values[i] for i in n.inputs if i in values) for nid, n in self.nodes.items()
        }


class _Aligner:
    def __init__(self, a: Graph, b: Graph) -> None:
        self.a = _Side(a)
        self.b = _Side(b)
        self.matches: List[Match] = []
        self.look_through = False

    def pair(self, xs: Sequence[str], ys: Sequence[str], how: str) -> None:
        xs_t, ys_t = tuple(xs), tuple(ys)
        changes: Dict[str, Tuple[str, str]] = {}
        if how != "fusion":
            na, nb = self.a.nodes[xs_t[0]], self.b.nodes[ys_t[0]]
            if not na.bookkeeping:
                changes = node_changes(na, nb)
        else:
            changes["fusion"] = (
                " + ".join(self.a.op[x] for x in xs_t),
                " + ".join(self.b.op[y] for y in ys_t),
            )
        for x in xs_t:
            self.a.partner[x] = ys_t
        for y in ys_t:
            self.b.partner[y] = xs_t
        self.matches.append(Match(xs_t, ys_t, how, changes))

    # -- 1. by name -------------------------------------------------------------------
    def by_keys(self, how: str) -> None:
        def unique(side: _Side) -> Dict[str, str]:
            keys = side.keys[how]
            count: Counter = Counter()
            first: Dict[str, str] = {}
            for nid in side.order:
                if nid in side.partner:
                    continue
                key = keys.get(nid)
                if key is None:  # "unwrapped", computed for the unpaired nodes only
                    key = keys[nid] = _unwrapped_key(side.name[nid])
                count[key] += 1
                first.setdefault(key, nid)
            return {k: v for k, v in first.items() if count[k] == 1}

        ua, ub = unique(self.a), unique(self.b)
        for key, x in ua.items():
            y = ub.get(key)
            if y is not None and self.a.op[x] == self.b.op[y]:
                self.pair([x], [y], how)

    def inputs_by_position(self) -> None:
        """The net's inputs are its positional arguments: when both sides have the same
        number of unpaired inputs (``x`` against AMP's wrapper's ``args0``), the i-th
        pairs with the i-th."""
        ia = [
            x for x in self.a.order if self.a.nodes[x].kind == "input" and x not in self.a.partner
        ]
        ib = [
            y for y in self.b.order if self.b.nodes[y].kind == "input" and y not in self.b.partner
        ]
        all_a = [x for x in self.a.order if self.a.nodes[x].kind == "input"]
        all_b = [y for y in self.b.order if self.b.nodes[y].kind == "input"]
        if ia and len(ia) == len(ib) and len(all_a) == len(all_b):
            for x, y in zip(ia, ib):
                self.pair([x], [y], "input")

    # -- 2. by structure --------------------------------------------------------------
    def _through(self, side: _Side, ids: Sequence[str], step: Mapping[str, List[str]]) -> List[str]:
        """``ids`` with each unpaired Cast replaced by its own neighbours one ``step`` on
        (transitively), once look-through is on: AMP puts Casts between ops that pair."""
        if not self.look_through or not any(
            side.op[x] == "Cast" and x not in side.partner for x in ids
        ):
            return list(ids)
        out: List[str] = []
        seen: Set[str] = set()
        todo = list(ids)
        while todo:
            x = todo.pop()
            if x in seen:
                continue
            seen.add(x)
            if side.op[x] == "Cast" and x not in side.partner:
                todo.extend(step.get(x, ()))
            else:
                out.append(x)
        return out

    def _candidates(self, src: _Side, dst: _Side, nid: str) -> Optional[Set[str]]:
        """Unpaired nodes of ``dst`` of ``nid``'s op next to the images of its paired
        neighbours (inputs, and consumers); None when no neighbour is paired. With
        look-through on, unpaired Casts between them are stepped over (not for a Cast)."""
        op = src.op[nid]
        through = op != "Cast"
        found: Optional[Set[str]] = None
        for neighbours, here, across in (
            (src.inputs[nid], src.inputs, dst.consumers),
            (src.consumers[nid], src.consumers, dst.inputs),
        ):
            if through:
                neighbours = self._through(src, neighbours, here)
            for other in neighbours:
                image = src.partner.get(other)
                if not image:
                    continue
                near: Set[str] = set()
                for im in image:
                    nexts = across.get(im, ())
                    if through:
                        nexts = self._through(dst, nexts, across)
                    for cand in nexts:
                        if cand not in dst.partner and dst.op[cand] == op:
                            near.add(cand)
                found = near if found is None else found & near
                if not found:
                    return found
        return found

    def _slot_consistent(self, x: str, y: str) -> bool:
        for ix, iy in zip(self.a.inputs[x], self.b.inputs[y]):
            if ix in self.a.partner and iy in self.b.partner and iy not in self.a.partner[ix]:
                return False
        return True

    def by_structure(self) -> bool:
        progress = False
        for y in self.b.order:
            if y in self.b.partner:
                continue
            cands = self._candidates(self.b, self.a, y)
            if not cands:
                continue
            if len(cands) > 1:
                same = {x for x in cands if self.a.name[x] == self.b.name[y]}
                cands = same or cands
            if len(cands) > 1:
                same = {x for x in cands if self.a.constants[x] == self.b.constants[y]}
                cands = same or cands
            if len(cands) > 1:
                cands = {x for x in cands if self._slot_consistent(x, y)}
            if len(cands) != 1:
                continue
            (x,) = cands
            # the pairing must be the only one from A's side too
            back = self._candidates(self.a, self.b, x) or set()
            if len(back) > 1:
                same_b = {c for c in back if self.b.name[c] == self.a.name[x]}
                back = same_b or back
            if len(back) > 1:
                same_b = {c for c in back if self.b.constants[c] == self.a.constants[x]}
                back = same_b or back
            if len(back) > 1:
                back = {c for c in back if self._slot_consistent(x, c)}
            if back and back != {y}:
                continue
            self.pair([x], [y], "structure")
            progress = True
        return progress

    # -- 3. across fusion -------------------------------------------------------------
    def by_fusion(
        self,
        fused: Mapping[str, Sequence[Node]],
        kernel_side: _Side,
        op_side: _Side,
        kernels_in_b: bool,
    ) -> bool:
        progress = False
        for k in kernel_side.order:
            if k in kernel_side.partner or k not in fused:
                continue
            originals = [n for n in fused[k] if n.kind != "constant"]
            if not originals:
                continue
            budget: Counter = Counter(name_key(n) for n in originals)
            region: Set[str] = set()
            for src in kernel_side.inputs[k]:
                region.update(kernel_side.partner.get(src, ()))
            if not region:
                continue
            taken: List[str] = []
            grew = True
            while grew and sum(budget.values()) > 0:
                grew = False
                for start in list(region):
                    for cand in op_side.consumers.get(start, ()):
                        if cand in op_side.partner or cand in region:
                            continue
                        key = op_side.name[cand]
                        if budget[key] <= 0:
                            continue
                        budget[key] -= 1
                        region.add(cand)
                        taken.append(cand)
                        grew = True
            if sum(budget.values()) != 0 or not taken:
                continue
            taken.sort(key=op_side.position.__getitem__)
            if kernels_in_b:
                self.pair(taken, [k], "fusion")
            else:
                self.pair([k], taken, "fusion")
            progress = True
        return progress

    def run(
        self,
        fused_a: Optional[Mapping[str, Sequence[Node]]],
        fused_b: Optional[Mapping[str, Sequence[Node]]],
    ) -> Alignment:
        for how in ("source", "name", "unwrapped"):
            self.by_keys(how)
        self.inputs_by_position()
        while True:
            progress = self.by_structure()
            if fused_b:
                progress = self.by_fusion(fused_b, self.b, self.a, True) or progress
            if fused_a:
                progress = self.by_fusion(fused_a, self.a, self.b, False) or progress
            if not progress:
                if self.look_through:
                    break
                self.look_through = True  # 4. the same rounds again, over added Casts
        order_a, order_b = self.a.position, self.b.position
        self.matches.sort(
            key=lambda m: (order_b.get(m.b[0], 0) if m.b else 0, order_a.get(m.a[0], 0))
        )
        removed = [x for x in self.a.order if x not in self.a.partner]
        added = [y for y in self.b.order if y not in self.b.partner]
        return Alignment(self.matches, removed, added)


def align_graphs(
    a: Graph,
    b: Graph,
    fused_a: Optional[Mapping[str, Sequence[Node]]] = None,
    fused_b: Optional[Mapping[str, Sequence[Node]]] = None,
) -> Alignment:
    """Pair the nodes of ``a`` and ``b`` (see the module's docstring for the rules).

    ``fused_a`` / ``fused_b``: for each fused-kernel call id of that graph, the nodes it
    replaced (of that side's graph before fusion, e.g. ``trace.before_fusion`` nodes named
    by ``trace.fusion``): how a kernel is paired with the ops of an unfused other side.
    """
    return _Aligner(a, b).run(fused_a, fused_b)

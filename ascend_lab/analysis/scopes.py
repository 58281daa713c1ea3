"""Scope repair: the scope a node is drawn in, from where its data flows.

MindSpore names ops written in a shared class's ``construct`` under the class's *first*
instance: the residual ``Add`` of every ResNet-50 block is ``…/0-Bottleneck/Add-opN``, and
the attention ops of all 32 decoder layers sit in ``…/0-Block/attn-Attention``. A cell
called several times (``self.relu`` three times in a block) gives one scope that holds
all its calls, and fused kernels come out of graph-kernel fusion with the shallow scope
``Default``. Grouping by those scopes draws arcs from block 0 to every later block.

:func:`repair_scopes` is one rule for all three; it only reads the graph:

1. **Shared-class ops.** Sibling scopes ``0-Bottleneck``, ``1-Bottleneck``, … (same parent,
   same class after the first ``-``) are instances of one class. An instance that holds
   more ops of one kind at one place than any other instance, and more than one (block 0
   holds 16 ``Add`` ops directly, the others none), holds other instances' ops: those are
   in doubt; every other op is an anchor. Each op in doubt takes the instance most of its
   data neighbours live in, breadth-first from the anchors. Only the instance part
   of the path is replaced: ``0-Block/attn-Attention`` becomes ``7-Block/attn-Attention``.
   This runs from the outermost level in, so an inner family (``norm1-RMSNorm`` and
   ``norm2-RMSNorm`` in one block) is repaired after its block is.
2. **Reused cells.** A scope whose ops are all unconnected to each other (one ReLU cell
   called three times) is the cell's calls, not a group: its ops are drawn in the parent.
3. **Fused kernels.** A call whose scope is an ancestor of where its op neighbours are is
   drawn in the deepest scope they share (next to a single cell: beside it, in its parent).
4. **Ops named under a parent of the instances.** Ops of a helper *function* (a decoder's
   ``rotate_half``) can come out scoped to ``Default``, a parent of the blocks. An op whose
   scope is a parent of a family of instances, whose inputs all come from one instance k
   and whose users are all in k or k + 1 (or leave the family after its last instance), is
   drawn in k: in the deepest scope its neighbours in k share. Breadth-first, so a chain
   of such ops (``StridedSlice -> Neg -> Concat``) follows its first op.

Nodes keep MindSpore's ``scope`` and ``name``; the result only says where to draw them.
Pure: no MindSpore, no I/O.

**Budget.** Every rule looks at a scope's prefixes, so a scope of depth d costs d² in each
of them. Scopes are cut to :data:`MAX_SCOPE_DEPTH` components before any rule runs (the
deepest real module paths are about 12: a decoder layer's projection inside its block
inside its list), and a node cut that way (a kernel or not) is drawn at the cut (its
``repaired_scope``): the viewer, too, then groups at most that many levels. The rules run
in O(nodes × MAX_SCOPE_DEPTH²) time and memory, whatever the file says (issue #37: a 297 KB
``.ir`` of 1,200-deep scopes took 494 MB and 6.6 s here before the cut, 31 MB and 0.3 s
after).
"""

from collections import Counter, defaultdict
from functools import lru_cache
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from ascend_lab.model.graph import Graph, Node

__all__ = [
    "MAX_SCOPE_DEPTH",
    "MODULE_ROOTS",
    "data_neighbours",
    "repair_scopes",
    "repaired_names",
    "split_scope",
]

Path = Tuple[str, ...]


# Scopes and their components repeat across nodes, graphs and passes: each helper below
# is asked tens of thousands of times per graph, about a few thousand distinct texts.
_CACHED = 1 << 16

# The deepest scope the rules look at, and the deepest group a view draws (module doc).
MAX_SCOPE_DEPTH = 64


@lru_cache(maxsize=_CACHED)
def split_scope(scope: Optional[str]) -> Path:
    """``"Default/layers-SequentialCell/0-Bottleneck"`` -> its components."""
    return tuple(part for part in (scope or "").split("/") if part)


@lru_cache(maxsize=_CACHED)
def _class_of(component: str) -> Optional[str]:
    # "0-Bottleneck" -> "Bottleneck", "attn-Attention" -> "Attention"; "Default" has none
    cut = component.find("-")
    return component[cut + 1 :] if cut > 0 else None


def _is_drawn(node: Node) -> bool:
    return node.is_kernel


def data_neighbours(graph: Graph) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """``(preds, succs)`` between kernels, bridged through bookkeeping nodes.

    Values (parameters, constants, inputs) are not neighbours: they live outside any cell.
    """
    by_id = {n.id: n for n in graph.nodes}
    memo: Dict[str, Tuple[str, ...]] = {}

    def sources(node_id: str) -> Tuple[str, ...]:
        # iterative walk back through bookkeeping chains (they can be long: UpdateState)
        if node_id in memo:
            return memo[node_id]
        found: List[str] = []
        seen: Set[str] = set()
        stack = [node_id]
        while stack and len(found) < 64:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            node = by_id.get(current)
            if node is None or node.kind not in ("op", "call"):
                continue
            if _is_drawn(node):
                found.append(current)
            else:
                stack.extend(reversed(node.data_inputs))  # see ascend_lab.model.ops
        memo[node_id] = tuple(found)
        return memo[node_id]

    preds: Dict[str, List[str]] = {}
    succs: Dict[str, List[str]] = defaultdict(list)
    for node in graph.nodes:
        if not _is_drawn(node):
            continue
        mine: List[str] = []
        for src in node.inputs:
            for s in sources(src):
                if s != node.id and s not in mine:
                    mine.append(s)
        preds[node.id] = mine
        for s in mine:
            succs[s].append(node.id)
    return preds, {n: succs.get(n, []) for n in preds}


def repair_scopes(graph: Graph) -> Dict[str, str]:
    """Node id -> the scope to draw it in, for the kernels whose scope needed repair.

    Nodes not in the result are drawn in their own ``scope``.
    """
    cut = _cut_scopes(graph)
    if sum(1 for n in graph.nodes if _is_drawn(n)) < 2:
        return cut  # nothing to compare a scope with (most subgraphs of a frontend pass)
    preds, succs = data_neighbours(graph)
    order = [n for n in graph.nodes if n.id in preds]
    scopes: Dict[str, Path] = {n.id: split_scope(n.scope)[:MAX_SCOPE_DEPTH] for n in order}
    neighbours = {nid: preds[nid] + succs[nid] for nid in preds}
    bridged_preds, bridged_succs = _bridge_strays(order, scopes, preds, succs)
    depth = max((len(s) for s in scopes.values()), default=0)
    for level in range(depth):
        _repair_instances(order, scopes, bridged_preds, bridged_succs, level)
    _repair_across_parents(order, scopes, bridged_preds, bridged_succs)
    _pull_parent_ops_into_instances(order, scopes, bridged_preds, bridged_succs)
    _lift_reused_cells(order, scopes, neighbours)
    _place_strays(order, scopes, bridged_preds, bridged_succs)
    _place_fused_calls(order, scopes, neighbours)
    result: Dict[str, str] = cut
    for node in order:
        repaired = "/".join(scopes[node.id])
        if split_scope(node.scope) != scopes[node.id]:
            result[node.id] = repaired
    return result


def _cut_scopes(graph: Graph) -> Dict[str, str]:
    """Node id -> its scope cut to MAX_SCOPE_DEPTH, for every node (kernel or not) whose
    scope is deeper: where a view draws it (module doc, "Budget")."""
    out: Dict[str, str] = {}
    for node in graph.nodes:
        if node.scope and node.scope.count("/") >= MAX_SCOPE_DEPTH:
            parts = split_scope(node.scope)
            if len(parts) > MAX_SCOPE_DEPTH:
                out[node.id] = "/".join(parts[:MAX_SCOPE_DEPTH])
    return out


def repaired_names(graph: Graph) -> Dict[str, str]:
    """Kernel full name -> the same name in its repaired scope, for the kernels
    :func:`repair_scopes` moved (``Default/blocks-CellList/0-Block/attn_norm-RMSNorm/Add-op3``
    -> ``Default/blocks-CellList/0-Block/attn-Attention/Add-op3``). What the op-by-op
    numeric comparison names ops by (:mod:`ascend_lab.capture.op_dump`)."""
    out: Dict[str, str] = {}
    by_id = {n.id: n for n in graph.nodes}
    for node_id, scope in repair_scopes(graph).items():
        node = by_id[node_id]
        if node.name:
            last = node.name.rpartition("/")[2]
            out[node.name] = f"{scope}/{last}" if scope else last
    return out


# ------------------------------------------------------------------ 0. ops with no module path

# The roots MindSpore's module paths start from: the forward net and its gradient.
MODULE_ROOTS = frozenset({"Default", "Gradients"})


def _is_stray(scope: Path) -> bool:
    return scope[:1] not in _ROOT_PATHS


def _bridge_strays(
    order: List[Node],
    scopes: Dict[str, Path],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """Neighbours with ops outside any module path looked through (MindSpore's op expander
    names its ops ``Expand/_SiLU``): a stray input stands for its own inputs, a stray user
    for its own users, so a chain ``Mul -> Expand/BatchMatMul -> Softmax`` still connects."""
    stray = {n.id for n in order if _is_stray(scopes[n.id])}
    if not stray:
        return preds, succs

    def through(start: List[str], step: Dict[str, List[str]]) -> List[str]:
        found: List[str] = []
        seen: Set[str] = set()
        todo = list(start)
        while todo and len(seen) < 256:
            other = todo.pop(0)
            if other in seen:
                continue
            seen.add(other)
            if other in stray:
                todo.extend(step[other])
            elif other not in found:
                found.append(other)
        return found

    return (
        {nid: through(preds[nid], preds) for nid in preds},
        {nid: through(succs[nid], succs) for nid in succs},
    )


def _place_strays(
    order: List[Node],
    scopes: Dict[str, Path],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
) -> None:
    """Each stray op goes to the deepest scope its (bridged) neighbours share."""
    for node in order:
        if node.kind != "op" or not _is_stray(scopes[node.id]):
            continue
        around = [scopes[o] for o in preds[node.id] + succs[node.id]]
        if around:
            scopes[node.id] = _shared_prefix(around)


_ROOT_PATHS = frozenset((root,) for root in MODULE_ROOTS)


# ------------------------------------------------------------------ 1. shared-class ops


def _families(scopes: Iterable[Path], level: int) -> Dict[Tuple[Path, str], Set[str]]:
    """(parent path, class) -> the sibling components at ``level`` that are its instances."""
    members: Dict[Tuple[Path, str], Set[str]] = defaultdict(set)
    for scope in scopes:
        if len(scope) > level:
            cls = _class_of(scope[level])
            if cls is not None:
                members[(scope[:level], cls)].add(scope[level])
    return {key: comps for key, comps in members.items() if len(comps) > 1}


def _most_elsewhere(
    counts: Mapping[Any, Counter],
    held: Any,
    mine: Any,
    tops: Dict[Any, Tuple[Any, int, int]],
) -> int:
    """The largest count in ``counts[held]`` of an instance other than ``mine`` (0 if
    none). The counts are final when asked, so each counter's two largest are found once
    (``tops``): a 32-layer net's ops each asked the other 31 layers' counts again."""
    top = tops.get(held)
    if top is None:
        best_key: Any = None
        best = second = 0
        for instance, count in counts[held].items():
            if best_key is None or count > best:
                best_key, best, second = instance, count, best
            elif count > second:
                second = count
        top = tops[held] = (best_key, best, second)
    return top[2] if top[0] == mine else top[1]


def _repair_instances(
    order: List[Node],
    scopes: Dict[str, Path],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
    level: int,
) -> None:
    families = _families(scopes.values(), level)
    if not families:
        return
    ops = {n.id: n.op for n in order}
    position = {n.id: i for i, n in enumerate(order)}
    family_of: Dict[str, Tuple[Path, str]] = {}
    for node in order:
        scope = scopes[node.id]
        if len(scope) > level and not _is_stray(scope):
            key = (scope[:level], _class_of(scope[level]) or "")
            if key in families:
                family_of[node.id] = key
    # what each instance holds: (path below the instance, op) -> count per instance
    counts: Dict[Tuple[Tuple[Path, str], Path, str], Counter] = defaultdict(Counter)
    for nid, key in family_of.items():
        scope = scopes[nid]
        counts[(key, scope[level + 1 :], ops[nid])][scope[level]] += 1
    # In doubt: ops of an instance that holds more of them than every other instance does
    # (block 0 with 16 Adds). Optional parts (a downsample in some blocks) are not.
    doubtful: Set[str] = set()
    tops: Dict[Any, Tuple[Any, int, int]] = {}
    for nid, key in family_of.items():
        scope = scopes[nid]
        held = (key, scope[level + 1 :], ops[nid])
        mine = counts[held][scope[level]]
        others = _most_elsewhere(counts, held, scope[level], tops)
        if mine > max(others, 1):
            doubtful.add(nid)
    if not doubtful:
        return
    # Breadth-first from the anchors: an op in doubt is placed by its neighbours that are
    # anchors or were placed in an earlier round, so a chain of doubtful ops (a residual
    # Add feeding the next block's Add) cannot vote itself into the wrong block.
    # An op whose inputs are all in doubt waits for them to be placed before its users
    # vote (the shift Add after a second-instance ReLU is not the next instance's), unless
    # a round places nothing: then users vote.
    waiting = [n.id for n in order if n.id in doubtful]
    by_users = False
    while waiting:
        placed: Dict[str, Path] = {}
        for nid in waiting:
            scope = scopes[nid]
            votes: Counter = Counter()
            for side in (preds[nid], succs[nid]):
                for other in side:
                    theirs = scopes[other]
                    if other not in doubtful and theirs[:level] == scope[:level]:
                        votes[theirs[level] if len(theirs) > level else ""] += 1
                if votes:
                    break  # inputs decide; users only when no input is placed yet
                if not by_users and any(p in doubtful for p in preds[nid]):
                    break  # an input is still in doubt: wait for it
            if votes:
                placed[nid] = _placement(
                    nid, scope, level, votes, scopes, doubtful, preds, succs, position
                )
        if not placed:
            if by_users:
                break  # the rest touch no op of their parent scope: MindSpore's scope stays
            by_users = True
            continue
        by_users = False
        scopes.update(placed)
        doubtful.difference_update(placed)
        waiting = [nid for nid in waiting if nid not in placed]


def _placement(
    nid: str,
    scope: Path,
    level: int,
    votes: Counter,
    scopes: Dict[str, Path],
    doubtful: Set[str],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
    position: Dict[str, int],
) -> Path:
    """Where a doubtful op goes, from the components its neighbours have at ``level``.

    All in instances of its own class: the instance they vote for, keeping the path below
    it (``0-Block/attn-Attention`` -> ``7-Block/attn-Attention``). All in one other part of
    the parent: that part. Spread over several parts: the parent itself (a residual Add
    between a block's attention and its MLP belongs to the block)."""
    parent, mine = scope[:level], _class_of(scope[level])
    if all(_class_of(c) == mine for c in votes):
        return (
            parent
            + (_vote(nid, votes, level, scopes, doubtful, preds, succs, position),)
            + scope[level + 1 :]
        )
    if len(votes) == 1:
        only = next(iter(votes))
        return parent + ((only,) if only else ())
    return parent


def _vote(
    nid: str,
    votes: Counter,
    level: int,
    scopes: Dict[str, Path],
    doubtful: Set[str],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
    position: Dict[str, int],
) -> str:
    """The instance most placed neighbours are in; on a tie, the instance of its
    latest-computed input (a residual Add belongs with the branch it waits for, not with
    the identity computed a block earlier), else of its first user. Its own instance is
    what is in doubt, so it breaks no tie."""
    best = max(votes.values())
    winners = {c for c, v in votes.items() if v == best}
    if len(winners) == 1:
        return next(iter(winners))

    def voted(other: str) -> bool:
        theirs = scopes[other]
        return other not in doubtful and len(theirs) > level and theirs[level] in winners

    inputs = [p for p in preds[nid] if voted(p)]
    if inputs:
        return scopes[max(inputs, key=position.__getitem__)][level]
    users = [u for u in succs[nid] if voted(u)]
    return scopes[min(users, key=position.__getitem__)][level] if users else min(winners)


def _repair_across_parents(
    order: List[Node],
    scopes: Dict[str, Path],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
) -> None:
    """Step 1 for instances of one class under different parents: the ops of a decoder's
    final ``norm-RMSNorm`` are named under the first block's ``attn_norm-RMSNorm``."""
    instances: Dict[str, Set[Path]] = defaultdict(set)
    for scope in scopes.values():
        if not _is_stray(scope):
            for k in range(1, len(scope) + 1):
                cls = _class_of(scope[k - 1])
                if cls is not None:
                    instances[cls].add(scope[:k])
    spread = {c for c, paths in instances.items() if len({p[:-1] for p in paths}) > 1}
    if not spread:
        return

    def instance_of(scope: Path) -> Optional[Tuple[str, Path]]:
        for k in range(len(scope), 0, -1):
            cls = _class_of(scope[k - 1])
            if cls in spread:
                return cls, scope[:k]
        return None

    where = {n.id: instance_of(scopes[n.id]) for n in order if not _is_stray(scopes[n.id])}
    counts: Dict[Tuple[str, Path, str], Counter] = defaultdict(Counter)
    ops = {n.id: n.op for n in order}
    for nid, found in where.items():
        if found is not None:
            cls, inst = found
            counts[(cls, scopes[nid][len(inst) :], ops[nid])][inst] += 1
    doubtful: Set[str] = set()
    tops: Dict[Any, Tuple[Any, int, int]] = {}
    for nid, found in where.items():
        if found is not None:
            cls, inst = found
            held = (cls, scopes[nid][len(inst) :], ops[nid])
            others = _most_elsewhere(counts, held, inst, tops)
            if counts[held][inst] > max(others, 1):
                doubtful.add(nid)
    position = {n.id: i for i, n in enumerate(order)}
    waiting = [n.id for n in order if n.id in doubtful]
    while waiting:
        placed: Dict[str, Path] = {}
        moved: Dict[str, Path] = {}
        for nid in waiting:
            cls, inst = where[nid]  # type: ignore[misc]
            votes: Counter = Counter()
            for side in (preds[nid], succs[nid]):
                for other in side:
                    theirs = where.get(other)
                    if other not in doubtful and theirs is not None and theirs[0] == cls:
                        votes[theirs[1]] += 1
                if votes:
                    break
            if votes:
                winner = _instance_vote(nid, votes, where, doubtful, preds, succs, position)
                placed[nid] = winner + scopes[nid][len(inst) :]
                moved[nid] = winner
        if not placed:
            break
        scopes.update(placed)
        where.update((nid, (where[nid][0], moved[nid])) for nid in placed)  # type: ignore[index]
        doubtful.difference_update(placed)
        waiting = [nid for nid in waiting if nid not in placed]


def _instance_vote(
    nid: str,
    votes: Counter,
    where: Dict[str, Optional[Tuple[str, Path]]],
    doubtful: Set[str],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
    position: Dict[str, int],
) -> Path:
    """:func:`_vote` for instances named by their whole path."""
    best = max(votes.values())
    winners = {p for p, v in votes.items() if v == best}
    if len(winners) == 1:
        return next(iter(winners))
    for side, pick in ((preds[nid], max), (succs[nid], min)):
        voters = [o for o in side if o not in doubtful and (where.get(o) or ("", ()))[1] in winners]
        if voters:
            return where[pick(voters, key=position.__getitem__)][1]  # type: ignore[index]
    return min(winners)


# ------------------------------------------------------------------ 4. ops under a parent


@lru_cache(maxsize=_CACHED)
def _instance_index(component: str) -> Optional[int]:
    cut = component.find("-")
    head = component[:cut] if cut > 0 else ""
    return int(head) if head.isdigit() else None


def _pull_parent_ops_into_instances(
    order: List[Node],
    scopes: Dict[str, Path],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
) -> None:
    """Rule 4 of the module docstring: an op scoped to a parent of numbered instances
    (``0-Block`` … ``7-Block``) that its data flows through goes into the instance k its
    inputs come from, when its users are in k or k + 1 only."""
    # (parent path, class) -> instance component by its index, for numbered families
    numbered: Dict[Tuple[Path, str], Dict[int, str]] = defaultdict(dict)
    for scope in scopes.values():
        for level in range(len(scope)):
            cls, index = _class_of(scope[level]), _instance_index(scope[level])
            if cls is not None and index is not None:
                numbered[(scope[:level], cls)][index] = scope[level]
    families = {key: by_index for key, by_index in numbered.items() if len(by_index) > 1}
    if not families:
        return
    parents = {parent for parent, _ in families}

    def member(scope: Path) -> Optional[Tuple[Tuple[Path, str], int]]:
        # the outermost numbered instance this scope lies in
        for level in range(len(scope)):
            key = (scope[:level], _class_of(scope[level]) or "")
            index = _instance_index(scope[level])
            if key in families and index is not None:
                return key, index
        return None

    # every prefix of a parent, once: asking each op against every parent was
    # quadratic in the number of families
    parent_prefixes = {p[:k] for p in parents for k in range(len(p) + 1)}

    def above(scope: Path) -> bool:
        return not _is_stray(scope) and scope in parent_prefixes

    waiting = [
        n.id
        for n in order
        if n.kind == "op" and above(scopes[n.id]) and member(scopes[n.id]) is None
    ]
    pending = set(waiting)
    cells = {scope[:-1] for scope in scopes.values() if scope}
    while waiting:
        placed: Dict[str, Path] = {}
        for nid in waiting:
            target = _instance_for(nid, scopes, preds, succs, pending, families, member, cells)
            if target is not None:
                placed[nid] = target
        if not placed:
            break  # the rest stay where MindSpore put them (the viewer groups long scopes)
        scopes.update(placed)
        pending.difference_update(placed)
        waiting = [nid for nid in waiting if nid not in placed]


def _instance_for(
    nid: str,
    scopes: Dict[str, Path],
    preds: Dict[str, List[str]],
    succs: Dict[str, List[str]],
    pending: Set[str],
    families: Dict[Tuple[Path, str], Dict[int, str]],
    member: Callable[[Path], Optional[Tuple[Tuple[Path, str], int]]],
    cells: Set[Path],
) -> Optional[Path]:
    """The scope in instance k for one op of rule 4, or None while it cannot be told."""
    inputs = [p for p in preds[nid] if p not in pending]
    if not inputs or len(inputs) < len(preds[nid]):
        return None  # decided by its inputs, once they are all placed
    found = {member(scopes[p]) for p in inputs}
    if len(found) != 1 or None in found:
        return None  # inputs from several instances, or from outside them: no block's own
    key, k = next(iter(found))  # type: ignore[misc]
    last = max(families[key])
    beside: List[Path] = [scopes[p] for p in inputs]
    for user in succs[nid]:
        if user in pending:
            continue
        theirs = member(scopes[user])
        if theirs == (key, k):
            beside.append(scopes[user])
        elif not (theirs == (key, k + 1) or (k == last and theirs is None)):
            return None
    common = _shared_prefix(beside)
    instance = key[0] + (families[key][k],)
    if common[: len(instance)] != instance:
        return instance
    if len(common) > len(instance) and common not in cells:
        return common[:-1]  # next to a leaf cell (q_proj-Dense): beside it, in its parent
    return common


# ------------------------------------------------------------------ 2. reused cells


def _lift_reused_cells(
    order: List[Node], scopes: Dict[str, Path], neighbours: Dict[str, List[str]]
) -> None:
    members: Dict[Path, List[str]] = defaultdict(list)
    for node in order:
        if node.kind == "op" and scopes[node.id]:
            members[scopes[node.id]].append(node.id)
    has_children = {scope[:-1] for scope in members if len(scope) > 1}
    for scope, ids in members.items():
        if len(ids) < 2 or len(scope) < 2 or scope in has_children:
            continue
        inside = set(ids)
        if any(other in inside for nid in ids for other in neighbours[nid]):
            continue  # one call of a multi-op cell: a real group
        for nid in ids:
            scopes[nid] = scope[:-1]


# ------------------------------------------------------------------ 3. fused kernels


def _place_fused_calls(
    order: List[Node], scopes: Dict[str, Path], neighbours: Dict[str, List[str]]
) -> None:
    kinds = {n.id: n.kind for n in order}
    for node in order:
        if node.kind != "call":
            continue
        own = scopes[node.id]
        common: Optional[Path] = None
        distinct: Set[Path] = set()
        for other in neighbours[node.id]:
            if kinds.get(other) != "op":  # other calls have shallow scopes too
                continue
            scope = scopes[other]
            distinct.add(scope)
            common = scope if common is None else _common_prefix(common, scope)
        if common is None:
            continue
        if len(distinct) == 1:
            common = common[:-1]  # next to a single cell: beside it, in its parent
        if len(common) > len(own) and common[: len(own)] == own:
            scopes[node.id] = common


def _common_prefix(a: Path, b: Path) -> Path:
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    return a[:i]


def _shared_prefix(paths: List[Path]) -> Path:
    common = paths[0]
    for path in paths[1:]:
        common = _common_prefix(common, path)
    return common

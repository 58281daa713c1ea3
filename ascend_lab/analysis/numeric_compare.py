"""Align two sides' records and find the first divergence (pure: records in, results out).

Records are matched by normalized Cell path and call number (``layers.0.attn``, its second
call ``layers.0.attn#1``); AMP's Casts live inside its wrappers, which the capture already
folds into the wrapped Cell, so a Cell and its AMP copy line up. An explicit ``mapping``
(``{"a.path": "b.path"}``) pairs Cells a port renamed. Nothing else is paired: a record
with no partner, or with outputs of another shape, is *unmatched*, with the reason.

The first divergence is the first matched record, in side a's execution order, whose
output error jumps past ``max(k * input error, floor)``. The input error is measured on the
record's own inputs when both sides recorded them (two Cells) and, for a Cell holding
others, the error of the Cells that ran inside it; else it is the error of the
records whose outputs are those inputs on side a (found by value), else the largest error
seen before it. ``floor`` defaults by the lower precision of the two outputs. When a Cell's
inputs are already worse than everything before them (by the same rule), the error arose in
its parent's own ``construct`` (``x * scale``, a missing residual between two sub-Cells): the
parent is the first divergence, with ``jump_before`` naming the sub-Cell that saw it first.

Op records (``capture="dump"``, :func:`align_ops`): ops are matched by path (Cell path and
op type, ``attn/Softmax``: the kernel's full scope name without its ``-opN``) and their
number among the ops of that path in execution order, and only when both sides ran as many
ops of that path: when the counts differ, no position is trusted and all of them are
unmatched. A Cast on one side only (AMP's, or an explicit ``astype``) is unmatched, with
that reason, and is never a divergence. An op's input error is the largest error of its
*producers* (the kernels whose outputs it reads, from the dump's kernel graph; an
unmatched producer, such as a one-sided Cast, is looked through to its own producers); an
op that reads only weights and graph inputs has input error 0. Should a dump lack its
kernel graph (``producers`` None), an op's input error is the largest error of the ops
before it in execution order (basis ``earlier``), as for a Cell whose inputs are unknown.

Op paths are the capture's *repaired* ones (the Cell each op's data flow puts it in, not
always the one MindSpore scoped it under: ``OpRecord.ms_key``). What the repaired paths
leave unpaired is then paired by MindSpore's own (path, call) where both sides have it (the
repair reads each side's graph alone, and a one-sided Cast can move an op next to it).

Through fusion (graph-kernel fusion on one side only, ``fusion=``): the dump writes a
fused kernel's outputs and nothing of the ops inside it. A fused kernel left unpaired is
paired with the *last* original op it computes on the other side, found by data flow from
its producers' partners within its op budget (``OpRecord.fused_ops``); the other
originals are unmatched, "inside fused kernel X". Nothing is guessed: a kernel whose
originals are not found stays unmatched with the reason.
"""

from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ascend_lab.model.numeric_records import OpRecord, SideRecord, op_cell
from ascend_lab.model.tensor_stats import ErrorStats, TensorStats, compare, fingerprint

K_DEFAULT = 10.0
FLOORS = {"float16": 1e-2, "bfloat16": 4e-2}
FLOOR_FP32 = 1e-4


def default_floor(a: Sequence[Optional[TensorStats]], b: Sequence[Optional[TensorStats]]) -> float:
    dtypes = " ".join(s.dtype.lower() for s in list(a) + list(b) if s is not None)
    if "bfloat16" in dtypes:
        return FLOORS["bfloat16"]
    if "float16" in dtypes:
        return FLOORS["float16"]
    return FLOOR_FP32


class OpComparison:
    """One matched Cell call: both sides' statistics and the error between them."""

    def __init__(self, a: OpRecord, b: OpRecord, errors: List[Optional[ErrorStats]]):
        self.a = a
        self.b = b
        self.errors = errors
        self.input_rel: float = 0.0
        self.input_basis = "inputs"
        self.threshold: float = 0.0
        self.diverged = False
        self.suspicious = False
        # set when the error appeared in this Cell's own construct, between its sub-Cells
        self.jump_before: Optional[str] = None
        # (side, label) of the ops that feed this op on one side and have no partner on the
        # other (not Casts): an extra layer of side b reaches here (capture="dump")
        self.unpaired_inputs: List[Tuple[str, str]] = []

    @property
    def label(self) -> str:
        return self.a.label

    @property
    def op_type(self) -> str:
        return self.a.op_type

    def _measured(self) -> List[ErrorStats]:
        return [e for e in self.errors if e is not None]

    @property
    def max_abs(self) -> float:
        return max((e.max_abs for e in self._measured()), default=0.0)

    @property
    def max_rel(self) -> float:
        return max((e.max_rel for e in self._measured()), default=0.0)

    @property
    def cosine(self) -> float:
        vals = [e.cosine for e in self._measured() if e.cosine == e.cosine]
        return min(vals) if vals else float("nan")

    @property
    def exact(self) -> bool:
        return all(e.exact for e in self._measured())

    def counts(self, side: str) -> Dict[str, int]:
        """NaN, Inf, fp16/bf16 overflow and underflow counts over the side's outputs."""
        rec = self.a if side == "a" else self.b
        keys = ("nan", "inf", "fp16_overflow", "fp16_underflow", "bf16_overflow", "bf16_underflow")
        return {k: sum(getattr(s, k) for s in rec.outputs if s is not None) for k in keys}


class Unmatched:
    """A record with no partner on the other side, and why."""

    def __init__(self, side: str, record: OpRecord, reason: str):
        self.side = side
        self.record = record
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unmatched({self.side} {self.record.label} {self.record.op_type}: {self.reason})"


def _errors(a: OpRecord, b: OpRecord) -> Tuple[Optional[List[Optional[ErrorStats]]], str]:
    if len(a.outputs) != len(b.outputs) and b.inputs:
        return None, f"{len(a.outputs)} outputs on side a, {len(b.outputs)} on side b"
    errors: List[Optional[ErrorStats]] = []
    for i, sb in enumerate(b.outputs):
        sa = a.outputs[i] if i < len(a.outputs) else None
        if sa is None or sb is None:
            errors.append(None)
            continue
        if sa.shape != sb.shape:
            return None, f"output {i} is {sa.shape} on side a, {sb.shape} on side b"
        errors.append(compare(sa, sb))
    if not any(e is not None for e in errors):
        return None, "no output to compare"
    return errors, ""


def _input_rel(a: OpRecord, b: OpRecord) -> Optional[float]:
    if not a.inputs or len(a.inputs) != len(b.inputs):
        return None
    worst = 0.0
    for sa, sb in zip(a.inputs, b.inputs):
        if sa.shape != sb.shape:
            return None
        worst = max(worst, compare(sa, sb).max_rel)
    return worst


def _pair(
    rec: OpRecord, other: OpRecord, pairs: List[OpComparison], unmatched: List[Unmatched]
) -> None:
    """Compare a record with its partner: a pair, or both unmatched with the reason."""
    errors, why = _errors(rec, other)
    if errors is None:
        unmatched.append(Unmatched("a", rec, why))
        unmatched.append(Unmatched("b", other, why))
    else:
        pairs.append(OpComparison(rec, other, errors))


def align(
    side_a: SideRecord,
    side_b: SideRecord,
    mapping: Optional[Mapping[str, str]] = None,
) -> Tuple[List[OpComparison], List[Unmatched]]:
    """Pair records by (path, call), through ``mapping``; the rest is unmatched."""
    rename = dict(mapping or {})
    b_by_key = side_b.by_key()
    used = set()
    pairs: List[OpComparison] = []
    unmatched: List[Unmatched] = []
    for rec in side_a.records:
        key = (rename.get(rec.path, rec.path), rec.call)
        other = b_by_key.get(key)
        if other is None:
            why = (
                "no reference array"
                if side_b.kind == "reference"
                else "no Cell call {} on side b".format(key[0] or "(net)")
            )
            unmatched.append(Unmatched("a", rec, why))
            continue
        used.add(key)
        _pair(rec, other, pairs, unmatched)
    for key, rec in b_by_key.items():
        if key not in used:
            unmatched.append(
                Unmatched("b", rec, "no Cell call {} on side a".format(key[0] or "(net)"))
            )
    return pairs, unmatched


def align_ops(
    side_a: SideRecord,
    side_b: SideRecord,
    mapping: Optional[Mapping[str, str]] = None,
) -> Tuple[List[OpComparison], List[Unmatched]]:
    """Pair op records by (path, call) where both sides ran as many ops of the path; the
    rest is unmatched, with the reason (``mapping`` renames Cell paths of side a)."""
    rename = dict(mapping or {})
    groups_a: Dict[str, List[OpRecord]] = {}
    groups_b: Dict[str, List[OpRecord]] = {}
    for rec in side_a.records:
        groups_a.setdefault(_renamed(rec.path, rename), []).append(rec)
    for rec in side_b.records:
        groups_b.setdefault(rec.path, []).append(rec)
    pairs: List[OpComparison] = []
    left: List[Unmatched] = []  # not paired by path: tried by MindSpore's own names below
    for path, recs in groups_a.items():
        others = groups_b.get(path, [])
        if len(others) != len(recs):
            for side, group, n_other in (("a", recs, len(others)), ("b", others, len(recs))):
                other_side = "b" if side == "a" else "a"
                for rec in group:
                    left.append(Unmatched(side, rec, _op_reason(rec, other_side, n_other)))
            continue
        for rec, other in zip(recs, others):
            _pair(rec, other, pairs, left)
    for path, others in groups_b.items():
        if path not in groups_a:
            for rec in others:
                left.append(Unmatched("b", rec, _op_reason(rec, "a", 0)))
    left = _pair_by_ms_key(left, rename, pairs)
    return pairs, _pair_fused(left, pairs)


def _pair_by_ms_key(
    left: List[Unmatched], rename: Mapping[str, str], pairs: List[OpComparison]
) -> List[Unmatched]:
    """Pair what the repaired paths left by MindSpore's own (path, call) where both sides
    have it: the scope repair reads each side's graph alone, and a one-sided Cast can tip
    its vote for an op next to it (AMP's Cast before ``o_proj`` puts the Reshape before it
    in ``attn.o_proj`` on one side, in ``attn`` on the other). Records whose outputs cannot
    be compared, and the rest, stay unmatched with the reason they had."""
    b_by_ms: Dict[Tuple[str, int], Unmatched] = {}
    for u in left:
        if u.side == "b" and u.record.ms_key is not None:
            b_by_ms[u.record.ms_key] = u
    taken: Set[int] = set()
    for u in left:
        key = u.record.ms_key
        if u.side != "a" or key is None:
            continue
        other = b_by_ms.get((_renamed(key[0], rename), key[1]))
        if other is None or id(other) in taken:
            continue
        errors, _ = _errors(u.record, other.record)
        if errors is not None:
            pairs.append(OpComparison(u.record, other.record, errors))
            taken.update((id(u), id(other)))
    return [u for u in left if id(u) not in taken]


def _pair_fused(left: List[Unmatched], pairs: List[OpComparison]) -> List[Unmatched]:
    """Pair each fused kernel left unmatched (graph-kernel fusion on one side only) with the
    last original op it computes on the other side; the other originals stay unmatched,
    "inside fused kernel X".

    The originals are found by data flow, as :func:`ascend_lab.analysis.fusion.
    build_fusion_map` does across passes: from the partners of the kernel's producers, the
    other side's unmatched ops, in run order, that read one of them or an op already
    taken, as long as the kernel's op budget (``OpRecord.fused_ops``) allows. Nothing is
    guessed: a kernel none of whose originals are found, or whose last one has outputs of
    another shape, stays unmatched with the reason."""
    fused = [u for u in left if u.record.fused_ops]
    if not fused:
        return left
    partner: Dict[Tuple[str, Tuple[str, int]], OpRecord] = {}
    for p in pairs:
        partner[("a", p.a.key)] = p.b
        partner[("b", p.b.key)] = p.a
    out: Dict[int, Unmatched] = {id(u): u for u in left}
    for u in sorted(fused, key=lambda f: f.record.index):
        kernel, other_side = u.record, "b" if u.side == "a" else "a"
        budget: Dict[str, int] = {}
        for op in kernel.fused_ops or []:
            budget[op] = budget.get(op, 0) + 1
        region: Set[Tuple[str, int]] = set()
        for key in kernel.producers or []:
            mate = partner.get((u.side, key))
            if mate is not None:
                region.add(mate.key)
        taken: List[Unmatched] = []
        candidates = [o for o in left if o.side == other_side and id(o) in out]
        for o in sorted(candidates, key=lambda c: c.record.index):
            rec = o.record
            if rec.fused_ops or budget.get(rec.op_type, 0) <= 0:
                continue
            if not region.intersection(rec.producers or []):
                continue
            budget[rec.op_type] -= 1
            region.add(rec.key)
            taken.append(o)
        if not taken:
            ops = ", ".join(kernel.fused_ops or [])
            u.reason = f"a fused kernel ({ops}) whose ops were not found on side {other_side}"
            continue
        last = taken[-1].record
        a, b = (kernel, last) if u.side == "a" else (last, kernel)
        errors, why = _errors(a, b)
        if errors is None:
            u.reason = f"a fused kernel whose last op {last.label} differs: {why}"
            continue
        pairs.append(OpComparison(a, b, errors))
        del out[id(u)], out[id(taken[-1])]
        for o in taken[:-1]:
            o.reason = (
                f"inside fused kernel {kernel.label} on side {u.side}: its output is not dumped"
            )
    return [u for u in left if id(u) in out]


def _renamed(path: str, rename: Mapping[str, str]) -> str:
    cell, op = op_cell(path)
    if cell in rename:
        return f"{rename[cell]}/{op}" if rename[cell] else op
    return path


def _op_reason(rec: OpRecord, other_side: str, n_other: int) -> str:
    if n_other == 0 and rec.op_type == "Cast":
        return "a Cast on this side only (AMP or an explicit cast): not compared"
    if n_other == 0:
        return f"no {rec.op_type} op at {rec.path} on side {other_side}"
    return (
        f"side {other_side} ran {n_other} op(s) {rec.path}, a different number: "
        "not paired by position"
    )


def find_divergence(
    pairs: List[OpComparison],
    k: float = K_DEFAULT,
    floor: Optional[float] = None,
    side_a: Optional[SideRecord] = None,
    side_b: Optional[SideRecord] = None,
) -> Optional[OpComparison]:
    """Mark each pair's input error and threshold; the first that jumps past it, or None.

    ``side_a`` and ``side_b`` (op records): an unmatched producer is looked through to its
    own producers, and an op is judged at the floor of the lowest precision it reads on
    either side (an op after AMP's one-sided Cast to float16 is a float16 op)."""
    by_key_a = side_a.by_key() if side_a is not None else {}
    by_key_b = side_b.by_key() if side_b is not None else {}
    rel_of: Dict[Tuple[str, int], float] = {}

    def producer_rel(key: Tuple[str, int], depth: int = 0) -> float:
        if key in rel_of:
            return rel_of[key]
        rec = by_key_a.get(key)
        if rec is None or not rec.producers or depth > 50:
            return 0.0
        return max(producer_rel(p, depth + 1) for p in rec.producers)

    paired = {"a": {p.a.key for p in pairs}, "b": {p.b.key for p in pairs}}
    produced: Dict[Tuple[object, ...], float] = {}
    worst_before = 0.0
    first: Optional[OpComparison] = None
    jump: Optional[OpComparison] = None  # the first Cell whose inputs are worse than before
    jump_bar = 0.0  # the bar its inputs' error passed
    done: List[OpComparison] = []
    for pair in sorted(pairs, key=lambda p: p.a.index):
        if pair.a.producers is not None:  # an op: its producers in the kernel graph
            pair.input_rel = max((producer_rel(p) for p in pair.a.producers), default=0.0)
            pair.input_basis = "producers"
            fed_a = _fed_stats(pair.a, by_key_a)
            fed_b = _fed_stats(pair.b, by_key_b)
            _judge(pair, k, floor, fed_a, fed_b)
            rel_of[pair.a.key] = pair.max_rel
            for side, rec, by_key in (("a", pair.a, by_key_a), ("b", pair.b, by_key_b)):
                pair.unpaired_inputs.extend(
                    (side, label) for label in _unpaired_producers(rec, by_key, paired[side])
                )
            if pair.diverged and first is None:
                first = pair
            continue
        measured = _input_rel(pair.a, pair.b)
        inner = _inner_rel(done, pair.a.path)
        if measured is not None and jump is None and first is None:
            in_bar = floor if floor is not None else default_floor(pair.a.inputs, pair.b.inputs)
            if measured > max(k * worst_before, in_bar):
                jump, jump_bar = pair, max(k * worst_before, in_bar)
        if measured is not None:
            pair.input_rel, pair.input_basis = measured, "inputs"
        else:
            found = [produced[fingerprint(s)] for s in pair.a.inputs if fingerprint(s) in produced]
            if found and len(found) == len(pair.a.inputs):
                pair.input_rel, pair.input_basis = max(found), "producers"
            else:
                pair.input_rel, pair.input_basis = worst_before, "earlier"
        if inner is not None and inner > pair.input_rel:
            pair.input_rel, pair.input_basis = inner, "inner cells"
        bar = floor if floor is not None else default_floor(pair.a.outputs, pair.b.outputs)
        pair.threshold = max(k * pair.input_rel, bar)
        rel = pair.max_rel
        pair.suspicious = rel > bar
        pair.diverged = rel > pair.threshold
        if pair.diverged and first is None:
            first = pair
        for i, s in enumerate(pair.a.outputs):
            err = pair.errors[i] if i < len(pair.errors) else None
            if s is not None and err is not None:
                produced[fingerprint(s)] = max(produced.get(fingerprint(s), 0.0), err.max_rel)
        worst_before = max(worst_before, rel)
        done.append(pair)
    if jump is not None and (first is None or first.a.index > jump.a.index):
        owner = _owner(pairs, jump)
        if owner is not None:
            owner.diverged, owner.jump_before = True, jump.label
            # judged by the jump (its inputs' error passed jump_bar), not by the owner's own
            # bar: that one counts the jump's error among its inner Cells' (rel err 0.34 was
            # shown as "> 8.54" for a port with one extra layer)
            owner.threshold = jump_bar
            return owner
    return first


def _fed_stats(
    rec: OpRecord, by_key: Dict[Tuple[str, int], OpRecord]
) -> List[Optional[TensorStats]]:
    """The outputs of the records that feed ``rec`` (its producers), and through Casts
    (an AMP round trip float32 -> float16 -> float32 still rounded the data to float16)."""
    out: List[Optional[TensorStats]] = []
    todo = list(rec.producers or [])
    seen: Set[Tuple[str, int]] = set()
    while todo and len(seen) < 64:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        producer = by_key.get(key)
        if producer is not None:
            out.extend(producer.outputs)
            if producer.op_type == "Cast":
                todo.extend(producer.producers or [])
    return out


def _unpaired_producers(
    rec: OpRecord, by_key: Dict[Tuple[str, int], OpRecord], paired: Set[Tuple[str, int]]
) -> List[str]:
    """Labels of the ops feeding ``rec`` that have no partner, looking through unpaired
    Casts (AMP inserts them on one side: not a difference of the nets)."""
    out: List[str] = []
    todo = list(rec.producers or [])
    seen: Set[Tuple[str, int]] = set()
    while todo and len(seen) < 64:
        key = todo.pop()
        producer = by_key.get(key)
        if key in seen or key in paired or producer is None:
            continue
        seen.add(key)
        if producer.op_type == "Cast":
            todo.extend(producer.producers or [])
        elif producer.label not in out:
            out.append(producer.label)
    return out


def _judge(
    pair: OpComparison,
    k: float,
    floor: Optional[float],
    fed_a: Sequence[Optional[TensorStats]] = (),
    fed_b: Sequence[Optional[TensorStats]] = (),
) -> None:
    bar = (
        floor
        if floor is not None
        else default_floor(list(pair.a.outputs) + list(fed_a), list(pair.b.outputs) + list(fed_b))
    )
    pair.threshold = max(k * pair.input_rel, bar)
    pair.suspicious = pair.max_rel > bar
    pair.diverged = pair.max_rel > pair.threshold


def _owner(pairs: List[OpComparison], child: OpComparison) -> Optional[OpComparison]:
    """The call of the Cell whose ``construct`` called ``child`` (the next enclosing record)."""
    parent = child.a.path.rpartition(".")[0] if "." in child.a.path else ""
    later = [p for p in pairs if p.a.path == parent and p.a.index > child.a.index]
    return min(later, key=lambda p: p.a.index) if later else None


def _is_inside(path: str, parent: str) -> bool:
    return parent == "" and path != "" or path.startswith(parent + ".")


def _inner_rel(done: List[OpComparison], parent: str) -> Optional[float]:
    """The largest error of the Cell calls that ran inside this one (just before it: hooks
    fire children first), so a parent is judged against what its children already did."""
    worst: Optional[float] = None
    for pair in reversed(done):
        if not _is_inside(pair.a.path, parent):
            break
        worst = pair.max_rel if worst is None else max(worst, pair.max_rel)
    return worst

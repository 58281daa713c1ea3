"""What one side of a comparison recorded: one :class:`OpRecord` per Cell call (or, with
``capture="dump"``, per kernel of the graph), in order.

Plain data, no MindSpore. ``path`` is the Cell path as ``Cell.cells_and_names`` names it
(``layers.0.attn``; ``""`` is the net itself), with AMP's wrappers (``_OutputTo32``,
``_OutputTo16`` and their ``_backbone``) taken out so both sides use the same names.
``scope`` is the MindSpore scope the traced graph shows (``Default/layers-CellList/0-Block``).

An op record's ``path`` is its Cell path and op type (``layers.0.attn/Softmax``, see
:func:`op_path`) and ``call`` counts the ops of that path in execution order; ``scope`` is
the kernel's full name (``Default/layers-CellList/0-Block/attn-Attention/Softmax-op3``).
The path is the *repaired* one: MindSpore scopes an op written in a shared class's
``construct`` under the class's first instance (every residual ``Add`` of a ResNet under
``0-Bottleneck``) and sometimes under a sibling Cell (a decoder's mask ``Add`` under
``attn_norm``); the capture places each op where its data flow puts it
(:func:`ascend_lab.analysis.scopes.repaired_names`) and keeps MindSpore's own (path, call)
in ``ms_key`` (what a traced graph's kernels are keyed by).
"""

from typing import Dict, List, Optional, Tuple

from ascend_lab.model.tensor_stats import TensorStats

AMP_WRAPPERS = ("_OutputTo32", "_OutputTo16")


class OpRecord:
    """One call of one Cell: where it is, what came in and what went out."""

    __slots__ = (
        "index",
        "path",
        "call",
        "op_type",
        "scope",
        "source",
        "inputs",
        "outputs",
        "producers",
        "ms_key",
        "fused_ops",
    )

    def __init__(
        self,
        index: int,
        path: str,
        call: int,
        op_type: str,
        scope: str,
        source: str,
        inputs: List[TensorStats],
        outputs: List[TensorStats],
        producers: Optional[List[Tuple[str, int]]] = None,
        ms_key: Optional[Tuple[str, int]] = None,
    ):
        self.index = index
        self.path = path
        self.call = call
        self.op_type = op_type
        self.scope = scope
        self.source = source
        self.inputs = inputs
        self.outputs = outputs
        # op records (capture="dump"): the keys of the records whose outputs this op reads,
        # from the kernel graph; None for Cell records (their inputs are measured instead)
        self.producers = producers
        # op records: MindSpore's own (path, call), from the kernel's full name before the
        # scope repair; None for Cell and reference records
        self.ms_key = ms_key
        # a fused kernel's record (capture="dump", fusion on): the original ops it computes,
        # from its subgraph (``["BiasAdd", "ReLU"]``); None for any other record
        self.fused_ops: Optional[List[str]] = None

    @property
    def key(self) -> Tuple[str, int]:
        return (self.path, self.call)

    @property
    def label(self) -> str:
        name = self.path or "(net)"
        return name if self.call == 0 else f"{name}#{self.call}"

    @property
    def scoped_under(self) -> Optional[str]:
        """The Cell path MindSpore scoped this op under when the repair moved it (``""`` for
        the net itself), else None."""
        if self.ms_key is None or self.ms_key[0] == self.path or self.fused_ops:
            return None  # a fused kernel's scope is always the shallow Default
        return op_cell(self.ms_key[0])[0]

    def __repr__(self) -> str:
        return f"OpRecord({self.label} {self.op_type})"


class SideRecord:
    """Everything one side recorded, and what it is (for messages)."""

    def __init__(self, name: str, kind: str, records: List[OpRecord], description: str = ""):
        self.name = name
        self.kind = kind  # "cell" or "reference"
        self.records = records
        self.description = description

    def by_key(self) -> Dict[Tuple[str, int], OpRecord]:
        return {r.key: r for r in self.records}

    def find(self, path: str, call: int = 0) -> Optional[OpRecord]:
        for r in self.records:
            if r.path == path and r.call == call:
                return r
        return None


def normalize_path(path: str) -> str:
    """A Cell path without AMP's ``_backbone`` steps (``_backbone.ln._backbone`` -> ``ln``)."""
    parts = [p for p in path.split(".") if p and p != "_backbone"]
    return ".".join(parts)


def path_from_key(key: str) -> Tuple[str, int]:
    """A reference key to (Cell path, call): ``layers.0.attn``, ``attn#1``, or a scope
    ``Default/layers-CellList/0-Block/attn-Attention`` (each step ``name-Class``)."""
    call = 0
    text = key.strip()
    if "#" in text:
        head, _, tail = text.rpartition("#")
        if tail.isdigit():
            text, call = head, int(tail)
    if "/" in text:
        steps = [s for s in text.split("/") if s]
        if steps and steps[0] == "Default":
            steps = steps[1:]
        names = [s.split("-", 1)[0] for s in steps]
        text = ".".join(names)
    if text in ("", "(net)", "Default"):
        text = ""
    return normalize_path(text), call


def op_path(full_name: str) -> Tuple[str, str]:
    """A kernel's full name to (path, op type), the same on both sides of a comparison.

    ``Default/fc1-Dense/MatMul-op0`` -> (``fc1/MatMul``, ``MatMul``); a top-level op
    ``Default/Softmax-op2`` -> (``Softmax``, ``Softmax``). The ``-opN`` number is dropped (it
    counts ops of a type in a graph, and an inserted Cast shifts nothing else but can
    shift it on other graphs), AMP's wrappers too (``norm-_OutputTo32/_backbone-LayerNorm``
    is ``norm``). A name outside ``Default`` (``Expand/_Muls/Mul-op0``: an op MindSpore
    expanded, which lost its scope) keeps its steps as they are.
    """
    head, _, last = full_name.rpartition("/")
    op, dash, number = last.rpartition("-op")
    if not dash or not number.isdigit():
        op = last
    steps = [s for s in head.split("/") if s]
    if steps and steps[0] == "Default":
        cell = normalize_path(".".join(s.split("-", 1)[0] for s in steps[1:]))
    else:
        cell = "/".join(steps)
    return (f"{cell}/{op}" if cell else op), op


def op_cell(path: str) -> Tuple[str, str]:
    """An op path's (Cell path, op type): ``attn/Softmax`` -> (``attn``, ``Softmax``)."""
    cell, _, op = path.rpartition("/")
    return cell, op

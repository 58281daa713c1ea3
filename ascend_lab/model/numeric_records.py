"""What one side of a comparison recorded: one :class:`OpRecord` per Cell call (or, with
``capture="dump"``, per kernel of the graph), in order.

Plain data, no MindSpore. ``path`` is the Cell path as ``Cell.cells_and_names`` names it
(``layers.0.attn``; ``""`` is the net itself), with AMP's wrappers (``_OutputTo32``,
``_OutputTo16`` and their ``_backbone``) taken out so both sides use the same names.
``scope`` is the MindSpore scope the traced graph shows (``Default/layers-CellList/0-Block``).

An op record's ``path`` is its Cell path and op type (``layers.0.attn/Softmax``, see
:func:`op_path`) and ``call`` counts the ops of that path in execution order; ``scope`` is
the kernel's full name (``Default/layers-CellList/0-Block/attn-Attention/Softmax-op3``).
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

    @property
    def key(self) -> Tuple[str, int]:
        return (self.path, self.call)

    @property
    def label(self) -> str:
        name = self.path or "(net)"
        return name if self.call == 0 else f"{name}#{self.call}"

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

"""What one side of a comparison recorded: one :class:`OpRecord` per Cell call, in order.

Plain data, no MindSpore. ``path`` is the Cell path as ``Cell.cells_and_names`` names it
(``layers.0.attn``; ``""`` is the net itself), with AMP's wrappers (``_OutputTo32``,
``_OutputTo16`` and their ``_backbone``) taken out so both sides use the same names.
``scope`` is the MindSpore scope the traced graph shows (``Default/layers-CellList/0-Block``).
"""

from typing import Dict, List, Optional, Tuple

from ascend_lab.model.tensor_stats import TensorStats

AMP_WRAPPERS = ("_OutputTo32", "_OutputTo16")


class OpRecord:
    """One call of one Cell: where it is, what came in and what went out."""

    __slots__ = ("index", "path", "call", "op_type", "scope", "source", "inputs", "outputs")

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
    ):
        self.index = index
        self.path = path
        self.call = call
        self.op_type = op_type
        self.scope = scope
        self.source = source
        self.inputs = inputs
        self.outputs = outputs

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

"""What an op means, written once: every analysis and the payload read this table.

MindSpore's graphs are full of *bookkeeping* nodes that thread state or pack values
(``Load``, ``UpdateState``, ``Depend``, ``MakeTuple``, ``TupleGetItem``, ``Return``). Views
hide them, and every analysis that looks through them (edges bridged in networkx, scope
repair, memory lifetimes, the viewer) must agree on which of their inputs carry data and
which only carry a monad or an ordering:

==============  ================  =========================================================
op              data inputs       why
==============  ================  =========================================================
Load            input 0           ``Load(%para, U)``: the parameter's value; ``U`` is a monad
Depend          input 0           ``Depend(value, state)``: the value; the rest only orders
TupleGetItem    input 0           ``TupleGetItem(tuple, index)``: the index is a constant
UpdateState     none              ``UpdateState(U, x)``: threads state, carries no data
MakeTuple(V2)   all               packs every input into one value
Return          all               the value the graph returns (MindSpore prints one input)
==============  ================  =========================================================

Every other op's inputs all carry data. Fused kernels' names (``info_name:
Fused_BiasAdd_ReLU_fusion_9780523479327703872``) end in a hash that differs between runs:
:func:`fused_kernel_name` drops it, with one rule for the parser and the memory tables.

Pure data: no MindSpore, no I/O.
"""

from typing import Dict, List, Optional, Sequence, Tuple

__all__ = [
    "BOOKKEEPING_OPS",
    "DATA_SLOTS",
    "HASH_SUFFIX_MIN_DIGITS",
    "PASS_THROUGH_OPS",
    "TUPLE_OPS",
    "data_input_slots",
    "data_inputs",
    "fused_kernel_name",
    "is_bookkeeping",
    "op_name",
]

# Which inputs of a bookkeeping op carry data: slot numbers, or None for every input.
DATA_SLOTS: Dict[str, Optional[Tuple[int, ...]]] = {
    "Load": (0,),
    "Depend": (0,),
    "TupleGetItem": (0,),
    "UpdateState": (),
    "MakeTuple": None,
    "MakeTupleV2": None,
    "Return": None,
}

# Nodes that only thread state or pack values; views hide them by default.
BOOKKEEPING_OPS = frozenset(DATA_SLOTS)

# Bookkeeping ops whose output *is* their data input 0, unchanged (same memory).
PASS_THROUGH_OPS = frozenset({"Load", "Depend"})

# Ops that pack their inputs into one tuple value (``TupleGetItem`` takes one out again).
TUPLE_OPS = frozenset({"MakeTuple", "MakeTupleV2"})

# ``Fused_ReLU_3888962450039697091``: MindSpore appends a 64-bit hash in decimal (19 or 20
# digits in every recorded dump). A shorter digit run (``_1``, ``_anonymous__333``) is a
# counter, not a hash: it stays.
HASH_SUFFIX_MIN_DIGITS = 6

_PRIM_PREFIXES = ("PrimFunc_", "Prim_")


def op_name(op: str) -> str:
    """``PrimFunc_BiasAdd`` -> ``BiasAdd`` (MindSpore prints both spellings)."""
    for prefix in _PRIM_PREFIXES:
        if op.startswith(prefix):
            return op[len(prefix) :]
    return op


def is_bookkeeping(op: str) -> bool:
    """True for ops that only thread state or pack values (see the table above)."""
    return op in BOOKKEEPING_OPS


def data_input_slots(op: str) -> Optional[Tuple[int, ...]]:
    """The input slots of ``op`` that carry data; None means every input does."""
    return DATA_SLOTS.get(op)


def data_inputs(op: str, inputs: Sequence[str]) -> List[str]:
    """The inputs of a node of ``op`` that carry data (monads and state left out)."""
    slots = DATA_SLOTS.get(op)
    if slots is None:
        return list(inputs)
    return [inputs[i] for i in slots if i < len(inputs)]


def fused_kernel_name(name: str) -> str:
    """``Fused_ReLU_3888962450039697091`` -> ``Fused_ReLU``: the trailing hash dropped."""
    head, sep, tail = name.rpartition("_")
    if sep and len(tail) >= HASH_SUFFIX_MIN_DIGITS and tail.isdigit() and tail.isascii():
        return head
    return name

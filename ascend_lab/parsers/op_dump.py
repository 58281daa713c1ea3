"""Read a MindSpore tensor dump (``MINDSPORE_DUMP_CONFIG``, ``saved_data: "tensor"``): pure.

What MindSpore 2.7.0 and 2.10.0 write on CPU for one run of a graph (``dump_mode`` 0,
``input_output`` 2: outputs only), under ``<path>/rank_<r>/``:

* ``<net_name>/<graph_id>/<iteration>/<Op>.<full name, '/' as '_'>.<task>.<stream>.<timestamp>
  .output.<slot>.<format>.<dtype>.npy``, e.g.
  ``MatMul.Default_fc1-Dense_MatMul-op0.0.0.1796226046467238.output.0.DefaultFormat.Float32.npy``,
  plus one ``Parameter.<name>.…`` file per weight and graph input (not op outputs);
  a name too long for the file system is replaced and listed in ``mapping.csv`` of that
  folder (``mapped,original`` per line);
* ``execution_order/ms_execution_order_graph_<id>.csv``: a header line, then each kernel's
  full name with scope in run order (``Default/fc1-Dense/MatMul-op0``); ``/`` turned into
  ``_`` this is the file name's middle part, so files join to ops through it (the name
  alone cannot be split back: scopes hold ``_``);
  but not always: in a graph with explicit casts the CSV (and the kernel graph) name them
  ``Cast-op2``, ``Cast-op3`` while their files say ``Cast-op0``, ``Cast-op1`` (2.10 and 2.7).
  :func:`join_files` therefore joins by the name without its ``-opN`` in run order (the
  CSV's order against the files' timestamps), and only where both count the same;
  anything else stays unjoined;
* ``graphs/ms_output_trace_code_graph_<id>.ir``: the kernel graph as text (what
  :func:`ascend_lab.parsers.ir.ir_text.parse_ir_file` reads): each kernel's inputs, so its real
  producers, and ``In file`` source lines.

A bfloat16 output (``….output.0.DefaultFormat.BFloat16.npy``, 2.10 on CPU: Cast, Mul, Add
run in bfloat16; ReLU refuses it) is an ``.npy`` whose header says ``'descr': '<E2'`` (the
``E`` of the ``ml_dtypes`` bfloat16, which NumPy itself cannot read: ``np.load`` fails with
"descr is not a valid dtype descriptor") over 2 bytes per value, the high half of a float32;
:func:`npy_header` reads such a header, :data:`BF16_DESCRS` names it.

Everything here takes text or names and returns plain data; the capture walks the folders.
"""

import ast
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from ascend_lab.model.graph import Graph
from ascend_lab.model.ops import BOOKKEEPING_OPS

CSV_PREFIX = "ms_execution_order_graph_"
IR_PREFIX = "ms_output_trace_code_graph_"
NPY_SUFFIX = ".npy"
# the fields after the name: task, stream, timestamp, io, slot, format, dtype, "npy"
_TAIL_FIELDS = 8
NPY_MAGIC = b"\x93NUMPY"
NPY_HEADER_MAX = 1 << 16  # NumPy writes a few hundred bytes; version 1's length is 16 bits
# bfloat16's descr (ml_dtypes' type character "E"), by byte order: True for big-endian
BF16_DESCRS = {"<E2": False, "=E2": False, "|E2": False, "E2": False, ">E2": True}


class DumpFile:
    """What one dumped file's name says."""

    __slots__ = ("op_type", "flat_name", "io", "slot", "format", "dtype", "stamp")

    def __init__(
        self, op_type: str, flat_name: str, io: str, slot: int, fmt: str, dtype: str, stamp: int
    ):
        self.stamp = stamp  # when the kernel ran (microseconds): orders files of one run
        self.op_type = op_type
        self.flat_name = flat_name
        self.io = io
        self.slot = slot
        self.format = fmt
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"DumpFile({self.op_type} {self.flat_name} {self.io}.{self.slot} {self.dtype})"


def parse_file_name(name: str) -> Optional[DumpFile]:
    """A dumped ``.npy`` file's name split into its fields; None for any other name."""
    if not name.endswith(NPY_SUFFIX):
        return None
    parts = name.rsplit(".", _TAIL_FIELDS)
    if len(parts) != _TAIL_FIELDS + 1:
        return None
    head, task, stream, stamp, io, slot, fmt, dtype, _npy = parts
    if not (task.isdigit() and stream.isdigit() and stamp.isdigit() and slot.isdigit()):
        return None
    if io not in ("input", "output"):
        return None
    op_type, dot, flat = head.partition(".")
    if not dot or not op_type or not flat:
        return None
    return DumpFile(op_type, flat, io, int(slot), fmt, dtype, int(stamp))


def flat_name(full_name: str) -> str:
    """A full name as the dump's file names write it (``/`` -> ``_``)."""
    return full_name.replace("/", "_")


def _stem(flat: str) -> str:
    """A flat name without its ``-opN`` (``…_Cast-op2`` -> ``…_Cast``)."""
    head, dash, number = flat.rpartition("-op")
    return head if dash and number.isdigit() else flat


def join_files(names: List[str], files: List[DumpFile]) -> Dict[str, List[DumpFile]]:
    """Full name (of ``names``, a graph's execution order) -> its output files.

    The ``-opN`` of a file name is not trusted (see the module's docstring): per name
    without it (scope and op type), the graph's names in run order are paired with that
    name's files in the order they were written (their timestamps; a sync dump writes each
    kernel's outputs when it has run), and only where both count the same. Files of one
    kernel (one per output slot) share one flat name.
    """
    kernels: Dict[str, List[DumpFile]] = {}
    for f in files:
        kernels.setdefault(f.flat_name, []).append(f)
    spare: Dict[str, List[List[DumpFile]]] = {}
    for flat, group in kernels.items():
        spare.setdefault(_stem(flat), []).append(group)
    wanted: Dict[str, List[str]] = {}
    for full in names:
        wanted.setdefault(_stem(flat_name(full)), []).append(full)
    out: Dict[str, List[DumpFile]] = {}
    for stem, fulls in wanted.items():
        groups = sorted(spare.get(stem, []), key=lambda g: min(f.stamp for f in g))
        if len(groups) == len(fulls):
            for full, group in zip(fulls, groups):
                out[full] = group
    return out


def read_execution_order(text: str) -> List[str]:
    """Kernel full names from an ``ms_execution_order_graph_<id>.csv``, in run order."""
    names = []
    for i, line in enumerate(text.splitlines()):
        line = line.strip()
        if not line or (i == 0 and "FullNameWithScope" in line):
            continue
        names.append(line.split(",", 1)[0])
    return names


def read_mapping(text: str) -> Dict[str, str]:
    """``mapping.csv`` of a dump folder: mapped file name -> the name MindSpore meant."""
    out: Dict[str, str] = {}
    for line in text.splitlines():
        mapped, comma, original = line.strip().partition(",")
        if comma and mapped and original:
            out[mapped] = original
    return out


def graph_id(file_name: str, prefix: str) -> Optional[int]:
    """``7`` of ``<prefix>7.csv`` / ``<prefix>7.ir``; None for other names."""
    if not file_name.startswith(prefix):
        return None
    stem = file_name[len(prefix) :].rpartition(".")[0]
    return int(stem) if stem.isdigit() else None


def kernel_producers(graph: Graph, dumped: Set[str]) -> Dict[str, List[str]]:
    """For each dumped kernel (by full name), the dumped kernels whose outputs it reads.

    Bookkeeping nodes (``Load``, ``TupleGetItem``, ``Depend``, ``MakeTuple``, ...) and kernels
    that were not dumped are looked through to what feeds them; parameters, graph inputs
    and constants end the walk (they are nobody's output). Full names in ``graph`` order.
    """
    by_id = {node.id: node for node in graph.nodes}
    memo: Dict[str, Tuple[str, ...]] = {}

    def feeders(node_id: str) -> Tuple[str, ...]:
        """The dumped kernels behind node ``node_id`` (itself when it is one)."""
        if node_id in memo:
            return memo[node_id]
        memo[node_id] = ()  # a cycle (none in a kernel graph) ends here
        node = by_id.get(node_id)
        if node is None:
            return ()
        if node.name and node.name in dumped and node.op not in BOOKKEEPING_OPS:
            memo[node_id] = (node.name,)
            return memo[node_id]
        found: List[str] = []
        for source in _sources(node.inputs):
            for name in feeders(source):
                if name not in found:
                    found.append(name)
        memo[node_id] = tuple(found)
        return memo[node_id]

    out: Dict[str, List[str]] = {}
    for node in graph.nodes:
        if not node.name or node.name not in dumped or node.op in BOOKKEEPING_OPS:
            continue
        found: List[str] = []
        for source in _sources(node.inputs):
            for name in feeders(source):
                if name not in found and name != node.name:
                    found.append(name)
        out[node.name] = found
    return out


def _sources(inputs: Iterable[str]) -> List[str]:
    """Node ids of an input list (``%3`` or ``%3[0]`` -> ``%3``)."""
    return [i.partition("[")[0] for i in inputs]


def user_source(source: List[str], library_marks: Tuple[str, ...]) -> str:
    """The last ``file:line`` of a node's ``In file`` lines outside the libraries (the line
    of the user's ``construct`` that called the op), else the first one, else ``""``."""
    user = [s for s in source if not any(mark in s for mark in library_marks)]
    if user:
        return user[-1]
    return source[0] if source else ""


def npy_header(head: bytes) -> Optional[Tuple[Tuple[int, ...], bool, str, int]]:
    """``(shape, fortran_order, descr, data offset)`` of an ``.npy`` file from its first
    bytes (at most :data:`NPY_HEADER_MAX` after the length field are looked at); None when
    ``head`` is not an ``.npy`` header. The descr is returned as written, also one NumPy
    does not know (bfloat16's ``<E2``)."""
    if not head.startswith(NPY_MAGIC) or len(head) < 10:
        return None
    major = head[6]
    if major == 1:
        length, start = int.from_bytes(head[8:10], "little"), 10
    elif major in (2, 3) and len(head) >= 12:
        length, start = int.from_bytes(head[8:12], "little"), 12
    else:
        return None
    if length > NPY_HEADER_MAX or len(head) < start + length:
        return None
    try:
        text = head[start : start + length].decode("utf-8" if major == 3 else "latin1")
        info: Any = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(info, dict):
        return None
    descr, fortran, shape = info.get("descr"), info.get("fortran_order"), info.get("shape")
    if not isinstance(descr, str) or not isinstance(fortran, bool) or not isinstance(shape, tuple):
        return None
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        return None
    return tuple(shape), fortran, descr, start + length

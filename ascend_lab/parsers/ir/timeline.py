"""The compile pipeline as an ordered list of pass snapshots, with diffs between them.

MindSpore names each dump ``<stage>_<NNNN>.ir`` where the trailing counter is the global
order in which it wrote them (it keeps growing within a process). Stage names differ a
little between versions (2.7 / 2.9 / 2.10 number and name their passes differently), so a
stage is recognised by its *name* (``auto_monad``, ``opt_a``, ``kernel_select``), never by
its number; an unknown name gets a generic explanation, never an error.

Listing is cheap: each file is read once, as bytes, for its node count and a digest of its
body (byte searches and a regular expression with a literal prefix: ~800 MB/s); the next
file is read, and a kept text compressed, on a worker thread meanwhile. A snapshot is parsed
in full only when asked (:meth:`PassTimeline.snapshot`). Passes whose node count and body
digest equal the previous ones are flagged unchanged and share the previous pass's parsed
graph, so a run of identical dumps is parsed once, and a dump that only prints its node
names otherwise (``Scope:`` in ``opt_pass_*`` dumps, renumbered ``-opN``) is not parsed to
find that it changed nothing. Parsed graphs are kept in a small cache (the ones a caller
pins, such as the final kernel graph, plus the most recent few), so walking every pass of a
32-layer LLM holds two graphs at a time, not a hundred.
"""

import hashlib
import os
import re
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple, Union

from ascend_lab.model.graph import Graph, Node
from ascend_lab.parsers.limits import IR_MAX_BYTES_ENV, decode_text, read_capped

STAGES = ("frontend", "optimize", "backend", "graph_kernel", "build", "other")

_COUNTER_RE = re.compile(r"^(?P<stem>.+?)_(?P<counter>\d{4,})\.ir$")
_NUMBERED_RE = re.compile(r"^(?P<num>\d+)_(?P<key>.+)$")
_OPT_PASS_RE = re.compile(r"^opt_pass_(?P<num>\d+)_(?P<key>.+)$")
_GK_RE = re.compile(r"^\d+_stage\d+_[a-z0-9]+_\d+_(?P<key>.+)$")
_GRAPH_ID_SUFFIX_RE = re.compile(r"(?:_kernel_graph\d+|_graph_\d+(?:_\d+)?(?:_.*)?)$")
_PM_RE = re.compile(r"^(?P<prefix>.*?)_?pm_\d+_(?P<key>.+)$")
_OPNUM_RE = re.compile(r"-op\d+$")
_PARA_PREFIX_RE = re.compile(r"^%?para\d+_")
_KERNEL_GRAPH_ID_RE = re.compile(r"(?:kernel_graph|graph_build_|graph_)(\d+)")

# One line per stage MindSpore 2.x dumps; keys are names without numbers or graph ids.
EXPLAIN: Dict[str, str] = {
    # frontend
    "bootstrap": "Python construct() parsed into a MindIR function graph (before any analysis).",
    "type_inference": "Type and shape inference: every node gets a dtype and shape.",
    "event_method": "Events and methods resolved on the inferred graph.",
    "auto_monad": "Side effects ordered: Load/UpdateState nodes thread parameter state.",
    "graph_reusing": "Cells marked for reuse are compiled once and called (cell reuse).",
    "inline": "Calls to small subgraphs are inlined into their callers.",
    "add_attr": "Attributes needed later are attached to nodes.",
    "parallel-infer-symbol": "Symbolic shapes inferred for parallel (no-op on one device).",
    "pre_auto_parallel": "Preparation for auto-parallel (no-op on one device).",
    "insert-virtual-dataset": "Virtual dataset nodes for data parallel (no-op on one device).",
    "parallel-infer-symbol-second": "Second symbolic shape pass for parallel.",
    "dataset_repeat_opt": "Dataset sink-mode repeat optimisation.",
    "pipeline_split": "Pipeline-parallel stage split (no-op without pipeline parallel).",
    "optimize": "End of the frontend optimiser: the graph after all opt_pass_* passes.",
    "detach_backward": "Backward graph detached from the forward one (training only).",
    "pipeline_parallel_scheduler": "Pipeline-parallel scheduling (no-op on one device).",
    "auto_monad_reorder": "Side-effect order re-checked after optimisation.",
    "get_jit_bprop_graph": "Backward graph of @jit functions fetched (training only).",
    "rewriter_after_jit_bprop_graph": "Rewrites after the jit backward graph.",
    "opt_after_jit_grad": "Optimisation after jit gradient.",
    "partial_unused_args_eliminate_after_recompute": "Unused partial arguments removed.",
    "validate": "Graph validated: only supported ops and types remain.",
    "backend_pass": "Handed to the backend: split into kernel graphs, hardware passes run.",
    "task_emit": "Kernels built and the execution order fixed (task emission).",
    "execute": "The graph as it is executed by the runtime.",
    # frontend optimiser passes (opt_pass_N_*)
    "py_interpret_to_execute": "Python-interpreted nodes turned into PyExecute.",
    "add_attr_with_inline": "Attributes added while inlining.",
    "rewriter_before_opt_a": "Syntax rewrites before the main simplification pass.",
    "opt_a": "Main simplification: inlining, constant folding, algebraic rewrites, CSE.",
    "py_interpret_to_execute_after_opt_a": "PyExecute conversion after opt_a.",
    "slice_cell_reuse_recomputed_activation": "Recompute activations for reused cells.",
    "rewriter_after_opt_a": "Syntax rewrites after opt_a.",
    "convert_after_rewriter": "Conversions after the rewriter.",
    "order_py_execute_after_rewriter": "PyExecute nodes ordered.",
    "mutable_eliminate": "mutable() markers removed.",
    "opt_b": "Second simplification round (opt_b).",
    "cconv": "Closure conversion: free variables become explicit arguments.",
    "loop_unroll": "Loops unrolled where possible.",
    "opt_after_cconv": "Simplification after closure conversion.",
    "remove_dup_value": "Duplicate constant values merged.",
    "tuple_transform": "Tuple arguments flattened.",
    "partial_unused_args_eliminate": "Unused arguments of partial calls removed.",
    "partial_abstract_args_eliminate": "Abstract arguments of partial calls removed.",
    "add_recomputation": "Recomputation inserted (memory-saving for training).",
    "cse_after_recomputation": "Common subexpressions eliminated after recomputation.",
    "environ_conv": "Environment (gradient) values converted.",
    "merge_cast_opt": "Redundant Cast pairs merged.",
    "symbol_engine_optimizer": "Symbolic shape engine simplifications.",
    # backend (hwopt_*)
    "before_mindrt_unify_mindir": "Backend entry: before MindIR ops are unified for the runtime.",
    "end_mindrt_unify_mindir": "MindIR ops unified for the runtime.",
    "d_before_optimization_without_backend": "Before the common backend optimisations.",
    "d_after_optimization_without_backend": "After the common backend optimisations.",
    "common_eliminate_illegal_data_type_before": "Before removing data types the device lacks.",
    "common_eliminate_illegal_data_type_after": "Unsupported data types removed.",
    "common_unify_mindir_before": "Before ops are unified to backend MindIR.",
    "common_unify_mindir_after": "Ops unified to backend MindIR.",
    "common_before": "Before the common hardware-independent passes.",
    "common_after": "After the common hardware-independent passes.",
    "cpu_custom_optimization_before": "Before CPU-specific fusions (e.g. MatMul+BiasAdd+ReLU).",
    "cpu_custom_optimization_after": "After CPU-specific fusions.",
    "comm_after_kernel_select": "Kernel selection: each op gets a device kernel, dtype and format.",
    "common_final": "Final common backend pass.",
    "comm_after_eliminate_nopnode": "No-op nodes (Reshape, ...) eliminated; graph-kernel fusion"
    " has run if enabled.",
    "graph_before_reset_id": "Kernel graph before node ids are reset.",
    "graph_build": "The final kernel graph: textual order is the execution order.",
    "matmul_biasadd_relu_fusion_cpu": "CPU fusion of MatMul + BiasAdd (+ ReLU) into one kernel.",
    "softmax_grad_fusion_cpu": "CPU fusion of the softmax gradient pattern.",
    "insert_format_transform_op_cpu": "Format conversions inserted for CPU kernels.",
    "insert_cast_cpu": "Casts inserted where a CPU kernel needs another dtype.",
    "add_akg_kernel_attrs": "Attributes for AKG (graph-kernel) kernels added.",
    "optimize_updatestate": "UpdateState chains simplified.",
    # graph kernel (verbose_ir_files/graph_kernel/*)
    "getitem_tuple": "TupleGetItem nodes normalised.",
    "convert_input_to_attr": "Constant inputs turned into attributes for fusion.",
    "depend_elimination": "Redundant Depend nodes removed.",
    "cse1": "Common subexpressions eliminated.",
    "split_assign": "Assign nodes split for fusion.",
    "spread_update_state": "UpdateState spread to allow fusion.",
    "graph_kernel_cse": "Common subexpressions eliminated (graph kernel).",
    "graph_kernel_expander": "Composite ops (BiasAdd, GeLU, ...) expanded into basic ops.",
    "graph_kernel_cluster": "Basic ops clustered into fused kernels (Fused_*).",
    "convert_mix_type": "Mixed-type fused kernels converted.",
    "eliminate_redundant_output": "Unused outputs of fused kernels removed.",
    "reorder_ops": "Ops inside fused kernels reordered.",
    "axis_normalizer": "Reduction axes normalised.",
    "arithmetic_simplify": "Arithmetic simplified inside fused kernels.",
    "raise_reduction_precision": "Reductions computed in higher precision.",
    "transform_op_optimizer": "Layout transforms inside fused kernels optimised.",
    "extend_output_for_update_state": "Outputs extended for UpdateState.",
    "shape_ops_splitter": "Shape ops split out of fused kernels.",
    "graph_kernel_splitter": "Fused kernels split where one kernel would be too big.",
    "merge_output_for_update_state": "Outputs merged for UpdateState.",
    "optimize_assign": "Assign ops optimised.",
    "reduce_fake_output_memory": "Memory of fake outputs reduced.",
    "graph_kernel_build": "Fused kernels compiled by AKG.",
    "shrink_update_state": "UpdateState nodes shrunk.",
}

GENERIC_EXPLAIN = {
    "frontend": "A frontend pass over the MindIR function graph.",
    "optimize": "A frontend optimisation pass.",
    "backend": "A backend (hardware) pass over the kernel graph.",
    "graph_kernel": "A graph-kernel fusion pass.",
    "build": "Kernel graph build / execution.",
    "other": "A compiler dump this version of ascend-lab does not know by name.",
}


def stage_key(name: str) -> str:
    """The stage name without numbers and graph ids (``opt_pass_2_opt_a`` -> ``opt_a``)."""
    base = name.rsplit("/", 1)[-1]
    m = _GK_RE.match(base)
    if m:
        return m.group("key")
    m = _OPT_PASS_RE.match(base)
    if m:
        return m.group("key")
    m = _NUMBERED_RE.match(base)
    if m:
        return m.group("key")
    if base.startswith("graph_build"):
        return "graph_build"
    if base.startswith("graph_before_reset_id"):
        return "graph_before_reset_id"
    if base.startswith("hwopt_"):
        base = base[len("hwopt_") :]
        base = _GRAPH_ID_SUFFIX_RE.sub("", base)
        m = _PM_RE.match(base)
        if m:
            return m.group("key")
        return base
    return base


def explain(name: str, stage: Optional[str] = None) -> str:
    """One line about what the pass ``name`` does (generic for unknown names), in the
    reader's language (the course prints it; the tables are in the gettext catalogue)."""
    from ascend_lab.i18n import _

    key = stage_key(name)
    if key in EXPLAIN:
        return _(EXPLAIN[key])
    return _(GENERIC_EXPLAIN.get(stage or classify(name), GENERIC_EXPLAIN["other"]))


def classify(name: str, after_optimize: bool = False) -> str:
    """Stage of a dump named ``name`` (file stem without counter; may include a folder).

    ``after_optimize`` says whether the optimiser already ran (numbered frontend stages
    after ``optimize`` belong to the optimize group).
    """
    low = name.lower()
    base = low.rsplit("/", 1)[-1]
    key = stage_key(name)
    if "graph_kernel/" in low or "graph_kernel" in base or "akg" in base:
        return "graph_kernel"
    if (
        base.startswith("graph_build")
        or base.startswith("graph_before_reset_id")
        or key in ("task_emit", "execute")
    ):
        return "build"
    if base.startswith("hwopt_") or key == "backend_pass":
        return "backend"
    if base.startswith("opt_pass_") or key == "optimize":
        return "optimize"
    if _NUMBERED_RE.match(base):
        return "optimize" if after_optimize else "frontend"
    return "other"


def kernel_graph_id(name: str) -> Optional[int]:
    """The kernel graph id in a backend/build dump name (``graph_build_2`` -> 2), if any."""
    m = _KERNEL_GRAPH_ID_RE.search(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


_INSTANCE_LINE = b"\nsubgraph instance: "
_ADDRESS_RE = re.compile(rb"0x[0-9a-fA-F]*")


def body_digest(data: Union[str, bytes]) -> str:
    """Digest of a dump without what differs on every dump of the same graph: memory
    addresses (``0x7f…``) and the text of ``subgraph instance:`` lines.

    Byte searches over a memoryview, fed to the hash in place: nothing is copied (a dump
    has a few hundred instance lines and fewer addresses in megabytes of text). The digest
    is that of ``b"\n" + data`` with the rest of each instance line and the hex digits
    after each ``0x`` (up to the next ``0x``) left out.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    digest = hashlib.sha1(b"\n")
    view = memoryview(data)
    size = len(data)
    # where an instance line's text starts (after its marker), None before the first one
    at = 0
    if data.startswith(_INSTANCE_LINE[1:]):
        chunk_start: Optional[int] = len(_INSTANCE_LINE) - 1
        digest.update(_INSTANCE_LINE[1:])
    else:
        chunk_start = None
    while True:
        if chunk_start is not None:
            line_end = data.find(b"\n", chunk_start)
            at = size if line_end < 0 else line_end
        marker = data.find(_INSTANCE_LINE, at)
        chunk_end = size if marker < 0 else marker
        _digest_without_addresses(digest, data, view, at, chunk_end)
        if marker < 0:
            return digest.hexdigest()
        digest.update(_INSTANCE_LINE)
        chunk_start = marker + len(_INSTANCE_LINE)


def _digest_without_addresses(
    digest: "hashlib._Hash", data: bytes, view: memoryview, start: int, end: int
) -> None:
    """Feed ``data[start:end]`` to ``digest`` without the hex digits after each ``0x``.

    A regular expression with a literal prefix finds ``0x`` 2.6 times faster than
    ``bytes.find`` does in dump text (full of ``0``s)."""
    while True:
        found = _ADDRESS_RE.search(data, start, end)
        if found is None:
            digest.update(view[start:end])
            return
        digest.update(view[start : found.start() + 2])
        start = found.end()
        if data[start - 1 : start + 1] == b"0x":  # "0x0x1": that 0 starts the next address
            start -= 1


# A node's name line: "Fullname with scope" in most dumps, "Scope" in ``opt_pass_*`` ones.
_NAME_LINE_RE = re.compile(rb"\n[ \t]*# (?:Fullname with scope|Scope): ")
_FULLNAME_MARK = b"# Fullname with scope: "


@dataclass
class PrintedNames:
    """A dump with its node name lines taken out (:func:`printed_names`)."""

    digest: str  # body_digest of the rest, with a mark where each name line was
    names: List[Tuple[bool, str]]  # (a full name?, the name or scope), in textual order


def printed_names(data: bytes) -> Optional[PrintedNames]:
    """``data`` split into its node name lines and the rest, or None when a name line is
    not ``(...)``-wrapped (the parser then says what is wrong).

    Two dumps of one graph can differ in their name lines alone: ``Scope: (Default/attn)``
    in ``opt_pass_*`` dumps and ``Fullname with scope: (Default/attn/MatMul-op12)`` in the
    others, and ``-opN`` counters renumbered (:func:`names_agree` compares them).
    """
    rest: List[bytes] = []
    names: List[Tuple[bool, str]] = []
    at = 0
    for found in _NAME_LINE_RE.finditer(data):
        line_end = data.find(b"\n", found.end())
        line_end = len(data) if line_end < 0 else line_end
        value = data[found.end() : line_end].rstrip()
        if not (value.startswith(b"(") and value.endswith(b")")):
            return None
        rest.append(data[at : found.start()])
        rest.append(b"\n\x00")  # where the line was: name lines of other nodes differ
        full = data.endswith(_FULLNAME_MARK, found.start(), found.end())
        names.append((full, value[1:-1].decode("utf-8", "replace")))
        at = line_end
    rest.append(data[at:])
    return PrintedNames(body_digest(b"".join(rest)), names)


def names_agree(a: List[Tuple[bool, str]], b: List[Tuple[bool, str]]) -> bool:
    """Whether two dumps' name lines (:class:`PrintedNames`), for the same node lines, name
    the same nodes: two full names equal without their ``-opN``, two scopes equal, and a
    full name against a scope when the full name's scope (what is before its last ``/``)
    is that scope. A full name without a ``/`` (a closure call's ``(151)``) gives no scope
    to compare with."""
    if len(a) != len(b):
        return False
    for (full_a, name_a), (full_b, name_b) in zip(a, b):
        if full_a and full_b:
            if _without_op_number(name_a) != _without_op_number(name_b):
                return False
            continue
        if full_a:
            slash = name_a.rfind("/")
            if slash <= 0:
                continue
            name_a = name_a[:slash]
        elif full_b:
            slash = name_b.rfind("/")
            if slash <= 0:
                continue
            name_b = name_b[:slash]
        if name_a != name_b:
            return False
    return True


@dataclass
class PassSnapshot:
    """One dumped pass: where it is, what stage it belongs to, cheap facts about it."""

    index: int
    name: str
    path: str
    counter: int
    stage: str
    explain: str
    node_count: Optional[int] = None
    cnode_count: Optional[int] = None
    entry: Optional[str] = None
    digest: Optional[str] = None
    header_error: Optional[str] = None
    changed: bool = True
    fused_kernels: int = 0

    def to_dict(self) -> Dict[str, object]:
        return {
            "index": self.index,
            "name": self.name,
            "stage": self.stage,
            "explain": self.explain,
            "node_count": self.node_count,
            "changed": self.changed,
        }


@dataclass
class PassDiff:
    """What changed between two snapshots (matched by stable node keys, not ``%N``)."""

    added: List[str] = field(default_factory=list)  # node ids in the newer snapshot
    removed: List[str] = field(default_factory=list)  # stable keys of nodes gone
    modified: List[str] = field(default_factory=list)  # node ids in the newer snapshot

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.modified)


def list_dump_files(dump_dir: str) -> List[Tuple[int, str, str]]:
    """``(counter, name, path)`` of every ``.ir`` pass dump under ``dump_dir``, in dump order.

    ``name`` is the path relative to ``dump_dir`` without the counter and ``.ir``
    (``opt_pass_2_opt_a``, ``verbose_ir_files/graph_kernel/0007_stage1_...``). Files without
    a counter (``actor_set/*``) are runtime views, not passes, and are left out.
    """
    found = []
    for root, dirs, files in os.walk(dump_dir):
        dirs.sort()
        rel_root = os.path.relpath(root, dump_dir)
        if rel_root.split(os.sep)[0] in ("actor_set", "rank_0"):
            continue
        for fname in files:
            m = _COUNTER_RE.match(fname)
            if not m:
                continue
            rel = fname if rel_root == "." else os.path.join(rel_root, fname)
            stem = (
                os.path.join(os.path.dirname(rel), m.group("stem"))
                if rel_root != "."
                else m.group("stem")
            )
            found.append(
                (int(m.group("counter")), stem.replace(os.sep, "/"), os.path.join(root, fname))
            )
    found.sort(key=lambda item: (item[0], item[1]))
    return found


def node_key(node: Node) -> str:
    """A key for ``node`` that is stable across passes: full name with scope and op.

    Dumps before kernel selection print only the scope, later ones the full name
    (``Default/conv-Conv2d/Conv2D-op0``); both give ``Default/conv-Conv2d/Conv2D|Conv2D``.
    """
    if node.kind in ("parameter", "input"):
        return "param:" + _PARA_PREFIX_RE.sub("", node.id)
    if node.kind == "call" and node.subgraph:
        # The callee's name is unique and kept from pass to pass; a call's printed name is
        # not: "Scope: (Default)" in ``opt_pass_*`` dumps, "Fullname with scope: (151)" or
        # "(Default/lm_head-Dense/<callee>-op0)" in others.
        base = "call:" + node.subgraph
    elif node.name:
        # "-opN" suffixes are a process-wide counter and are renumbered between passes.
        base = _without_op_number(node.name)
    else:
        base = (node.scope + "/" if node.scope else "") + node.op
    return base + "|" + node.op


def _without_op_number(name: str) -> str:
    """``name`` without a trailing ``-op<digits>`` (what ``_OPNUM_RE.sub("", name)`` gives,
    with str methods: a fingerprint asks it of every node of every pass)."""
    if "\n" in name:  # `$` also matches before a final newline
        return _OPNUM_RE.sub("", name)
    cut = name.rfind("-op")
    return name[:cut] if cut >= 0 and name[cut + 3 :].isdecimal() else name


def graph_keys(graph: Graph) -> Dict[str, Node]:
    """Stable key -> node for every node of ``graph`` and its subgraphs (constants skipped).

    Nodes without a unique full name get ``#<occurrence>`` appended, in textual order.
    """
    keyed: Dict[str, Node] = {}
    seen: Dict[str, int] = {}
    graphs = [graph] + list(graph.subgraphs.values())
    for g in graphs:
        for node in g.nodes:
            if node.kind == "constant":
                continue
            base = node_key(node)
            if g is not graph and node.kind in ("parameter", "input"):
                base = "sub:" + base
            count = seen.get(base, 0)
            seen[base] = count + 1
            key = base if count == 0 else f"{base}#{count}"
            keyed[key] = node
    return keyed


def _signature(node: Node, id_to_key: Dict[str, str]) -> Tuple[object, ...]:
    """What a diff compares of ``node``: op, inputs (by stable key), output types and
    attributes (``output_name`` left out). Compared with ``==`` only: output types are the
    frozen TensorTypes themselves (equal when dtype, shape, device dtype and format are),
    attributes a dict (equal when the sorted pairs are)."""
    inputs = []
    for src in node.inputs:
        key = id_to_key.get(src)
        inputs.append("const:" + src.split("#", 1)[-1] if key is None else key)
    attrs = dict(node.attrs)
    attrs.pop("output_name", None)
    return (node.op, inputs, tuple(node.outputs), attrs)


@dataclass
class GraphFingerprint:
    """What a diff compares of one graph: stable key -> node id, and -> node signature."""

    ids: Dict[str, str]
    signatures: Dict[str, Tuple[object, ...]]


def fingerprint(graph: Graph) -> GraphFingerprint:
    """The :class:`GraphFingerprint` of ``graph`` (computed once per pass by a timeline)."""
    keyed = graph_keys(graph)
    id_to_key: Dict[str, str] = {}
    if len(keyed) == sum(
        1 for g in [graph, *graph.subgraphs.values()] for n in g.nodes if n.kind != "constant"
    ):
        # no key was given twice: ``keyed`` holds every node, in textual order
        for k, n in keyed.items():
            id_to_key[n.id] = k
    else:
        by_object = {id(n): k for k, n in keyed.items()}
        for g in [graph] + list(graph.subgraphs.values()):
            for n in g.nodes:
                if id(n) in by_object:
                    id_to_key[n.id] = by_object[id(n)]
    return GraphFingerprint(
        ids={k: n.id for k, n in keyed.items()},
        signatures={k: _signature(n, id_to_key) for k, n in keyed.items()},
    )


def diff_fingerprints(old: GraphFingerprint, new: GraphFingerprint) -> PassDiff:
    """Nodes added, removed and modified from the graph of ``old`` to that of ``new``."""
    result = PassDiff()
    old_signatures = old.signatures
    for key, signature in new.signatures.items():
        before = old_signatures.get(key)
        if before is None and key not in old_signatures:
            result.added.append(new.ids[key])
        elif signature != before:
            result.modified.append(new.ids[key])
    result.removed = [key for key in old_signatures if key not in new.signatures]
    return result


def diff_graphs(before: Graph, after: Graph) -> PassDiff:
    """Nodes added, removed and modified from ``before`` to ``after``."""
    return diff_fingerprints(fingerprint(before), fingerprint(after))


class PassTimeline:
    """Ordered pass snapshots of one capture; parses and diffs lazily, with caches."""

    #: Parsed graphs kept besides the pinned ones (least recently used dropped first).
    CACHE_SIZE = 3

    def __init__(
        self,
        dump_dir: str,
        parse: Optional[Callable[[str, str], Graph]] = None,
        keep_text: bool = False,
    ) -> None:
        """List the dumps in ``dump_dir``.

        ``keep_text=True`` keeps the dumps' texts in memory, one per set of identical dumps,
        zlib-compressed (a 32-layer decoder's 470 MB in 8 MB), so the folder can be removed
        right away and snapshots still be parsed later.
        """
        self.dump_dir = dump_dir
        self.keep_text = keep_text
        self._parse = parse or _memo_parser()
        self._texts: Dict[int, bytes] = {}
        self._graphs: Dict[int, Graph] = {}  # in order of last use
        self._pinned: Set[int] = set()
        self._diffs: Dict[int, PassDiff] = {}
        self._fingerprints: Dict[int, GraphFingerprint] = {}  # the two most recent
        # index -> the first index of its run of identical dumps (same digest and count)
        self._same_as: Dict[int, int] = {}
        # index -> the first index of any earlier identical dump (not only the one before)
        self._first_alike: Dict[int, int] = {}
        # that first index -> a pass known to have the same nodes (see :meth:`diff`)
        self._kin: Dict[int, int] = {}
        # (pass, its fingerprint): the last one a diff computed, for the diff after it
        self._last_fingerprint: Optional[Tuple[int, GraphFingerprint]] = None
        # (pass, its printed names): the last one compared, for the comparison after it
        self._printed: Optional[Tuple[int, Optional[PrintedNames]]] = None
        self.snapshots: List[PassSnapshot] = []
        self._list()

    def _list(self) -> None:
        from ascend_lab.parsers.ir.ir_text import read_ir_counts

        after_optimize = False
        prev: Optional[PassSnapshot] = None
        # digest -> the first pass with that body (its counts and kept text stand for all)
        first_with: Dict[str, PassSnapshot] = {}
        compressing: Dict[int, Future] = {}  # of the compressed bytes
        files = list_dump_files(self.dump_dir)
        # One worker reads the next dump and compresses a kept one while this thread digests
        # (file reads and zlib run without the GIL). With one text kept per body, a 32-layer
        # decoder's 97 dumps (450 MB, 21 bodies) list in 0.8 s instead of 2.4 s (idle, 2 cores).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ascend-lab-dumps") as worker:
            reading = worker.submit(read_capped, files[0][2], IR_MAX_BYTES_ENV) if files else None
            for index, (counter, name, path) in enumerate(files):
                stage = classify(name, after_optimize)
                if stage == "optimize":
                    after_optimize = True
                snap = PassSnapshot(
                    index=index,
                    name=name,
                    path=path,
                    counter=counter,
                    stage=stage,
                    explain=explain(name, stage),
                )
                assert reading is not None
                data = reading.result()
                if index + 1 < len(files):
                    reading = worker.submit(read_capped, files[index + 1][2], IR_MAX_BYTES_ENV)
                snap.digest = body_digest(data)
                seen = first_with.setdefault(snap.digest, snap)
                if seen is not snap:
                    # the same body prints the same counts: not searched for again
                    snap.fused_kernels = seen.fused_kernels
                    snap.node_count, snap.cnode_count = seen.node_count, seen.cnode_count
                    snap.entry, snap.header_error = seen.entry, seen.header_error
                else:
                    snap.fused_kernels = data.count(b"info_name: Fused_")
                    try:
                        counts = read_ir_counts(data)
                        snap.node_count = counts["nodes"]
                        snap.cnode_count = counts["cnodes"]
                        snap.entry = counts["entry"]
                    except Exception as exc:  # a broken header is reported, not fatal
                        snap.header_error = str(exc)
                snap.changed = not (
                    prev is not None
                    and prev.digest == snap.digest
                    and prev.node_count == snap.node_count
                )
                self._same_as[index] = (
                    index if snap.changed or prev is None else self._same_as[prev.index]
                )
                self._first_alike[index] = seen.index
                if self.keep_text and seen is snap:
                    # only the first of identical dumps is kept: the others parse alike
                    compressing[index] = worker.submit(zlib.compress, data, 1)
                del data
                self.snapshots.append(snap)
                prev = snap
            self._texts = {index: done.result() for index, done in compressing.items()}

    def __len__(self) -> int:
        return len(self.snapshots)

    def __repr__(self) -> str:
        """What a notebook prints for ``t.passes``: counts from the listing (nothing parsed)
        and how to look further."""
        changed = sum(1 for s in self.snapshots if s.changed)
        stages = ", ".join(f"{k} {len(v)}" for k, v in self.by_stage().items())
        return (
            f"<PassTimeline: {len(self.snapshots)} passes ({changed} whose dump differs from "
            f"the one before){'; ' + stages if stages else ''}. passes[i] is one pass, "
            ".find('name') searches, .diff(i) compares pass i with the one before>"
        )

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.snapshots)

    def __getitem__(self, index: int) -> PassSnapshot:
        return self.snapshots[index]

    def find(self, name_part: str) -> List[PassSnapshot]:
        """Snapshots whose name contains ``name_part``."""
        return [s for s in self.snapshots if name_part in s.name]

    def by_stage(self) -> Dict[str, List[PassSnapshot]]:
        groups: Dict[str, List[PassSnapshot]] = {s: [] for s in STAGES}
        for snap in self.snapshots:
            groups[snap.stage].append(snap)
        return {k: v for k, v in groups.items() if v}

    def _index(self, index: int) -> int:
        if index < 0:
            index += len(self.snapshots)
        if not 0 <= index < len(self.snapshots):
            raise IndexError(f"no pass {index}: this trace has {len(self.snapshots)}")
        return index

    def same_as(self, index: int) -> int:
        """The first pass of the run of identical dumps ``index`` belongs to (its graph)."""
        return self._same_as[self._index(index)]

    def snapshot(self, index: int) -> Graph:
        """The fully parsed graph of snapshot ``index``.

        A pass whose dump equals the one before (digest and node count) returns that
        pass's graph. Parsed graphs stay cached while pinned (:meth:`pin`) or among the
        last :attr:`CACHE_SIZE` used; others are parsed again when asked again.
        """
        index = self._same_as[self._index(index)]
        graph = self._graphs.pop(index, None)
        if graph is None:
            graph = self._parse(self.text(index), self.snapshots[index].path)
        self._graphs[index] = graph  # now the most recently used
        self._evict()
        return graph

    def pin(self, index: int) -> Graph:
        """Parse ``index`` and keep its graph for the timeline's life (e.g. the final one)."""
        self._pinned.add(self._same_as[self._index(index)])
        return self.snapshot(index)

    def _evict(self) -> None:
        unpinned = [i for i in self._graphs if i not in self._pinned]
        for i in unpinned[: max(0, len(unpinned) - self.CACHE_SIZE)]:
            del self._graphs[i]

    def _bytes(self, index: int) -> bytes:
        kept = self._texts.get(self._first_alike[index])
        if kept is not None:
            return zlib.decompress(kept)
        return read_capped(self.snapshots[index].path, IR_MAX_BYTES_ENV)

    def text(self, index: int) -> str:
        """The dump text of snapshot ``index``: from the file, or, when the texts are kept,
        the kept text of the first pass whose dump is identical to it (the same digest: they
        differ at most in memory addresses and ``subgraph instance:``
        lines, which parse to the same graph; only that first one is kept)."""
        return decode_text(self._bytes(self._index(index)))

    def is_parsed(self, index: int) -> bool:
        return self._same_as[self._index(index)] in self._graphs

    def diff(self, index: int) -> PassDiff:
        """What snapshot ``index`` changed relative to the one before it.

        The first snapshot counts as all-added. Unchanged passes (same digest and node
        count), and passes whose dumps differ from the one before only in how node names
        are printed (:func:`printed_names`), are answered without parsing.
        """
        index = self._index(index)
        cached = self._diffs.get(index)
        if cached is not None:
            return cached
        snap = self.snapshots[index]
        if index == 0:
            result = PassDiff(added=[n.id for n in self.snapshot(0).nodes if n.kind != "constant"])
        elif self._same_as[index] == self._same_as[index - 1]:
            result = PassDiff()
        elif self._kin_of(index) is not None and self._kin_of(index) == self._kin_of(index - 1):
            result = PassDiff()  # both dumps are dumps of passes with the same nodes
        elif self._printed_alike(index - 1, index):
            result = PassDiff()  # the same node lines; only the names are printed otherwise
        else:
            new = self._fingerprint(index)
            result = diff_fingerprints(self._old_fingerprint(index - 1), new)
            self._last_fingerprint = (index, new)
        if index > 0 and not result.changed:
            self._note_kin(index - 1, index)
        snap.changed = index == 0 or result.changed
        self._diffs[index] = result
        return result

    def _printed_alike(self, before: int, after: int) -> bool:
        """Whether two passes' dumps differ only in how their node names are printed (see
        :func:`printed_names`): then they have the same nodes, and neither is parsed. Only
        asked of passes with as many nodes, and those that have names lines at all."""
        old, new = self.snapshots[before], self.snapshots[after]
        if old.node_count is None or (old.node_count, old.cnode_count) != (
            new.node_count,
            new.cnode_count,
        ):
            return False
        forms = []
        for index in (before, after):
            if self._printed is not None and self._printed[0] == index:
                form = self._printed[1]
            else:
                form = printed_names(self._bytes(index))
            forms.append(form)
        self._printed = (after, forms[1])
        a, b = forms
        return (
            a is not None
            and b is not None
            and bool(a.names)
            and a.digest == b.digest
            and names_agree(a.names, b.names)
        )

    def _kin_of(self, index: int) -> Optional[int]:
        """A pass known to have the same nodes as ``index`` (None if none is known yet).

        Two passes have the same nodes (their fingerprints' signatures are equal) when their
        dumps are identical (digest and node count, as :meth:`same_as` trusts), or when the
        diff between them was empty; equal signatures are transitive. A compile that
        alternates between two forms of the same graph (the frontend prints "Scope:" in
        ``opt_pass_*`` dumps, "Fullname with scope:" in the others) then parses each form
        once, not once per switch.
        """
        return self._kin.get(self._first_alike[index])

    def _note_kin(self, before: int, after: int) -> None:
        kin = self._kin.setdefault(self._first_alike[before], before)
        self._kin.setdefault(self._first_alike[after], kin)

    def _old_fingerprint(self, index: int) -> GraphFingerprint:
        """A fingerprint with the signatures of pass ``index``'s: the old side of a diff
        reads no more than them, so the last one computed serves when its pass has the
        same nodes (its ids may differ: a diff takes the ids of its new side)."""
        last = self._last_fingerprint
        kin = self._kin_of(index)
        if last is not None and kin is not None and self._kin_of(last[0]) == kin:
            return last[1]
        if kin is not None and not self.is_parsed(index) and self.is_parsed(kin):
            return self._fingerprint(kin)  # a pass with the same nodes, parsed already
        return self._fingerprint(index)

    def _fingerprint(self, index: int) -> GraphFingerprint:
        # walking the passes in order, each pass's fingerprint serves two diffs
        first = self._same_as[index]
        found = self._fingerprints.pop(first, None)
        if found is None:
            found = fingerprint(self.snapshot(first))
        self._fingerprints[first] = found
        while len(self._fingerprints) > 2:
            del self._fingerprints[next(iter(self._fingerprints))]
        return found

    def changed_indices(self) -> List[int]:
        return [s.index for s in self.snapshots if s.changed]


def _memo_parser() -> Callable[[str, str], Graph]:
    """``parse_ir_text`` with a BlockMemo of its own: consecutive dumps share most subgraph
    blocks, and each is parsed once."""
    from ascend_lab.parsers.ir.ir_text import BlockMemo, parse_ir_text

    memo = BlockMemo()
    return lambda text, path: parse_ir_text(text, path, memo)

"""Capture one side op by op in GRAPH_MODE through MindSpore's own dump (``capture="dump"``).

Why a child process (checked on CPU with MindSpore 2.10.0 / Python 3.11 and 2.7.0 /
Python 3.9, issue #30): MindSpore reads ``MINDSPORE_DUMP_CONFIG`` once per process, at the
first GRAPH_MODE compile (not at import: set after ``import mindspore`` it works, and
PyNative runs before do not count; set after a graph compile it is ignored for every later
compile). Once read, every graph run of the process dumps to the configured folder, and
the dynamic switch (``mindspore._c_expression._dump_set_dynamic`` / ``_dump_stop``) does not
stop the CPU dump (files were still written after ``_dump_stop``, both versions). So an
in-process capture would work only in a fresh process and would leave the learner's process
dumping every later call: the side runs in a child process instead, which imports MindSpore
with the variable set, compiles and runs the net once, reads the dump one file at a time
into :class:`~ascend_lab.model.tensor_stats.TensorStats` and sends back the records.

* The net and inputs go to the child by pickle (:mod:`ascend_lab.capture.side_pickle`). A
  Cell does not pickle as it is (its Primitives refuse: ``cannot pickle 'Reshape'
  object``); they are rebuilt from their ``init_attrs``, as ``copy.deepcopy`` of a Primitive
  does, and then given the attributes added, changed or deleted after ``__init__``
  (``add_prim_attr``: a MatMul's ``transpose_b`` set on a built Cell changes its result).
  AMP's ``to_float`` and parameters travel. Classes and functions defined in a notebook
  cell or a script's ``__main__`` go by value (dill, a MindSpore dependency), with the
  cells' source text (MindSpore's parser reads a ``construct`` through :mod:`linecache`,
  where IPython keeps its cells) and their globals in the child's ``__main__`` (where the
  parser looks names up). What cannot be pickled even so (a lambda closing over a
  generator) is a :class:`NumericsInputError` with the reason (use ``capture="cells"``).
  The child gets the parent's ``sys.path`` (the current folder of the parent included, so
  a module next to the notebook is found).
* Dump settings: ``e2e_dump_settings.enable: true``, ``saved_data: "tensor"`` (``"statistic"``
  and ``"full"`` are refused on CPU: "storing statistic dump is only supported on GPU and
  Ascend"), ``input_output: 2`` (outputs only), ``dump_mode: 0`` (all kernels),
  ``iteration: "all"`` (the net runs once). Files join to ops through the execution-order
  CSV; each op's producers and source line come from the dump's kernel graph
  (``graphs/ms_output_trace_code_graph_<id>.ir``, :mod:`ascend_lab.parsers.op_dump`), and
  so does the Cell it is named by: the scope repair of the trace view
  (:func:`ascend_lab.analysis.scopes.repaired_names`) moves an op MindSpore scoped under
  another Cell instance; MindSpore's own (path, call) stays in ``OpRecord.ms_key``.
* In the child: GRAPH_MODE, graph-kernel fusion off (``enable_graph_kernel=False``: a fused
  kernel would hide the ops inside it) unless ``fusion=True``: then on (AKG on CPU). The
  CPU dump (2.10) writes a fused kernel's outputs only, under the kernel's name with the
  shallow scope ``Default/GraphKernel_BiasAdd_ReLU_fusion-op0``, and nothing for the ops
  inside it; its record carries the original ops it computes (``OpRecord.fused_ops``,
  from its subgraph in the kernel graph: :func:`ascend_lab.analysis.fusion.op_budget`)
  and the scope repair puts it in the Cell of its neighbours. Current directory and dump
  in a private temporary folder. The learner's process never changes its MindSpore
  context, environment or folder (so :func:`ascend_lab.capture.compile.restoring_state`
  and ``CAPTURE_LOCK`` have nothing to guard here); the folder is removed when the capture
  ends, also when the compile fails.
* Memory: one dumped tensor is in memory at a time in the child (read, reduced to its
  statistics, deleted from disk); the whole run's dump is on disk until then (MindSpore
  writes it during the run). A tensor file over :data:`MAX_TENSOR_BYTES` is not read (its
  record has no statistics). A bfloat16 output (MindSpore 2.10 on CPU runs Cast, Add, Mul
  in bfloat16; its ``.npy`` header says ``'<E2'``, which NumPy cannot read) is read as
  float32 exactly, its statistics' dtype ``BFloat16`` (:func:`load_dumped`).
"""

import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.capture import side_pickle
from ascend_lab.errors.numerics import NumericsInputError, NumericsRunError
from ascend_lab.model.numeric_records import OpRecord, SideRecord, op_path
from ascend_lab.model.tensor_stats import SAMPLE_SIZE, TensorStats

NET_NAME = "net"  # the dump's folder name for the net (``common_dump_settings.net_name``)
MAX_TENSOR_BYTES = 2 << 30
MAX_RESULT_BYTES = 8 << 30  # the records sent back (whole tensors with tensors=True)
_LIBRARY_MARKS = ("site-packages", "dist-packages", os.sep + "mindspore" + os.sep)
_NO_SOURCE = (
    "MindSpore's graph parser reads each construct's source text: a class made by exec() or "
    "typed into a console has none; define it in a notebook cell, a script or a module"
)
_SHAPE_WORDS = ("shape", "dimension", "rank", "size of", "in_channels", "must be equal")
SIDE_FILE = "side.pkl"
SOURCES_FILE = "sources.json"  # linecache entries for by-value classes (notebook cells)
RESULT_FILE = "records.pkl"
ERROR_FILE = "error.json"
CONFIG_FILE = "dump.json"
LOG_FILE = "child.log"
DUMP_SUBDIR = "dump"
# One side's compile and run in the child, at most (the 32-layer decoder takes ~35 s here);
# past it, or when the learner interrupts the kernel, the child and its children are killed.
CHILD_TIMEOUT_S = 900.0


def dump_config(dump_dir: str) -> Dict[str, Any]:
    """The ``MINDSPORE_DUMP_CONFIG`` document: every kernel's outputs, as tensors."""
    return {
        "common_dump_settings": {
            "dump_mode": 0,
            "path": dump_dir,
            "net_name": NET_NAME,
            "iteration": "all",
            "input_output": 2,
            "kernels": [],
            "support_device": [0, 1, 2, 3, 4, 5, 6, 7],
            "op_debug_mode": 0,
            "saved_data": "tensor",
        },
        "e2e_dump_settings": {"enable": True, "trans_flag": True},
    }


def capture_side_dump(
    net: Any,
    inputs: List[Any],
    name: str,
    keep_tensors: bool = False,
    sample_size: int = SAMPLE_SIZE,
    fusion: bool = False,
) -> SideRecord:
    """Run ``net(*inputs)`` once in GRAPH_MODE in a child process with MindSpore's dump on;
    one :class:`OpRecord` per kernel (outputs only), in execution order. ``fusion``:
    graph-kernel fusion on in the child (one record per fused kernel)."""
    import mindspore as ms

    from ascend_lab.capture.cell_outputs import to_tensors

    if not isinstance(net, ms.nn.Cell):
        raise NumericsInputError(
            f"side {name} is a {type(net).__name__}, not a mindspore.nn.Cell "
            "(capture='dump' compares two Cells)"
        )
    who = f"side {name} ({type(net).__name__})"
    options = {
        "name": name,
        "keep": bool(keep_tensors),
        "sample_size": int(sample_size),
        "fusion": bool(fusion),
    }
    try:
        data = side_pickle.dumps((net, to_tensors(inputs), options))
    except Exception as exc:  # noqa: BLE001 - any part of the user's Cell
        raise NumericsInputError(
            f"capture='dump' cannot send {who} to its child process: {exc} (use capture='cells')"
        ) from exc
    work = tempfile.mkdtemp(prefix="ascend-lab-opdump-")
    try:
        return _run_child(work, data, who)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_child(work: str, data: Tuple[bytes, Dict[str, List[str]]], who: str) -> SideRecord:
    with open(os.path.join(work, SIDE_FILE), "wb") as fh:
        fh.write(data[0])
    with open(os.path.join(work, SOURCES_FILE), "w", encoding="utf-8") as fh:
        json.dump(data[1], fh)
    del data
    config = os.path.join(work, CONFIG_FILE)
    with open(config, "w", encoding="utf-8") as fh:
        json.dump(dump_config(os.path.join(work, DUMP_SUBDIR)), fh)
    env = dict(os.environ)
    env["MINDSPORE_DUMP_CONFIG"] = config
    # what the child (and MindSpore in it) writes to temp goes with its folder: a child killed
    # past its time leaves nothing behind; its AKG kernels stay in its own folder too
    child_tmp = os.path.join(work, "tmp")
    os.makedirs(child_tmp, exist_ok=True)
    env["TMPDIR"] = child_tmp
    env.pop("MS_COMPILER_CACHE_PATH", None)
    # the parent's sys.path, its "" (the current folder) and relative entries made absolute:
    # the child runs in the temporary folder
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p or os.curdir) for p in sys.path)
    log_path = os.path.join(work, LOG_FILE)
    with open(log_path, "wb") as log:
        child = subprocess.Popen(
            [sys.executable, "-m", "ascend_lab.capture.op_dump", work],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        code = _wait_or_kill(child, CHILD_TIMEOUT_S, who)
    error = os.path.join(work, ERROR_FILE)
    if os.path.exists(error):
        from ascend_lab.parsers import limits

        info = json.loads(limits.decode_text(_read_capped(error, 1 << 20)))
        cls = NumericsInputError if info.get("input") else NumericsRunError
        raise cls(f"{who} {info.get('message', '')}")
    result = os.path.join(work, RESULT_FILE)
    if code != 0 or not os.path.exists(result):
        from ascend_lab.capture.compile import native_log_summary

        lines = [m for m in native_log_summary(log_path) if "ERROR" in m or "Error" in m]
        tail = ("; MindSpore's log: " + " | ".join(lines[:3])) if lines else ""
        raise NumericsRunError(
            f"{who}: the dump capture's child process ended with code {code} and no records{tail}"
        )
    with open(result, "rb") as fh:
        side = pickle.loads(_read_capped_fh(fh, MAX_RESULT_BYTES, result))
    if not isinstance(side, SideRecord):
        raise NumericsRunError(f"{who}: the dump capture sent back no records")
    return side


def _wait_or_kill(child: "subprocess.Popen[bytes]", timeout: float, who: str) -> int:
    """The child's exit code; on the timeout or an interrupt (Ctrl+C, a kernel interrupt)
    the child and everything it started are killed first (MindSpore's AKG build server
    and compile pool would otherwise outlive it)."""
    import psutil

    try:
        return child.wait(timeout=timeout)
    except BaseException as exc:  # TimeoutExpired, KeyboardInterrupt, ...
        try:
            tree = psutil.Process(child.pid).children(recursive=True)
        except psutil.Error:
            tree = []
        child.kill()
        for proc in tree:
            try:
                proc.kill()  # psutil checks the start time: a reused pid is not hit
            except psutil.Error:
                pass
        child.wait()
        if isinstance(exc, subprocess.TimeoutExpired):
            raise NumericsRunError(
                f"{who}: the dump capture's child process ran past {timeout:.0f} s and was stopped"
            ) from None
        raise


def _read_capped(path: str, cap: int) -> bytes:
    with open(path, "rb") as fh:
        return _read_capped_fh(fh, cap, path)


def _read_capped_fh(fh: Any, cap: int, path: str) -> bytes:
    data = fh.read(cap + 1)
    if len(data) > cap:
        raise NumericsRunError(f"{path} is larger than {cap} bytes")
    return bytes(data)


# -- the child ----------------------------------------------------------------------------


def _write_error(work: str, message: str, is_input: bool = False) -> None:
    with open(os.path.join(work, ERROR_FILE), "w", encoding="utf-8") as fh:
        json.dump({"message": message, "input": is_input}, fh)


def child_main(work: str) -> int:
    """The child process: run the pickled side with the dump on, write its records."""
    with open(os.path.join(work, SIDE_FILE), "rb") as fh:
        try:
            net, inputs, options = pickle.load(fh)
        except Exception as exc:  # noqa: BLE001 - a class the child cannot import, ...
            _write_error(work, f"cannot be rebuilt in the child process: {exc}", True)
            return 0
    os.remove(os.path.join(work, SIDE_FILE))
    with open(os.path.join(work, SOURCES_FILE), encoding="utf-8") as fh:
        side_pickle.install_sources(json.loads(fh.read(side_pickle.MAX_SOURCE_BYTES * 2)))
    side_pickle.adopt_main(net)  # a construct's globals, where MindSpore looks them up
    import mindspore as ms

    from ascend_lab.capture.cell_outputs import (
        _first_line,
        _shapes,
        limit_hint,
        own_message,
        prime_pynative,
    )
    from ascend_lab.capture.compile import locate_user_line

    prime_pynative()  # PyNative: does not read the dump settings (they wait for a graph)
    ms.set_context(mode=ms.GRAPH_MODE)
    fusion = bool(options.get("fusion"))
    try:
        ms.set_context(enable_graph_kernel=fusion)
    except Exception as exc:  # noqa: BLE001 - a MindSpore without the setting: no fusion
        if fusion:
            _write_error(work, f"cannot turn graph-kernel fusion on: {exc}", True)
            return 0
    try:
        net(*inputs)
    except Exception as exc:  # noqa: BLE001 - reported with MindSpore's text
        text = str(exc).strip()
        path, line = locate_user_line(text, sys.exc_info()[2])
        where = f" (at {path}:{line})" if path else ""
        first = _first_line(text) or type(exc).__name__
        low = own_message(text).lower()  # not the construct's code MindSpore quotes
        shape = isinstance(exc, (ValueError, TypeError)) and any(w in low for w in _SHAPE_WORDS)
        if isinstance(exc, OSError) and "source code" in low:  # inspect's, in MindSpore's parser
            where = f" ({_NO_SOURCE})"
        _write_error(
            work,
            f"could not compile or run in graph mode on the inputs {_shapes(inputs)}: "
            f"{first}{limit_hint(text)}{where}",
            shape,
        )
        return 0
    side = read_dump(
        os.path.join(work, DUMP_SUBDIR),
        options["name"],
        type(net).__name__,
        options["keep"],
        options["sample_size"],
    )
    with open(os.path.join(work, RESULT_FILE), "wb") as fh:
        pickle.dump(side, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return 0


def read_dump(
    dump_dir: str, name: str, description: str, keep: bool, sample_size: int
) -> SideRecord:
    """The records of one dumped run (every graph of ``rank_0``, in graph id and execution
    order); each tensor file is read, reduced and deleted in turn."""
    from ascend_lab.analysis.fusion import is_fused_call, op_budget
    from ascend_lab.analysis.scopes import repaired_names
    from ascend_lab.model.graph import Graph
    from ascend_lab.parsers import limits
    from ascend_lab.parsers import op_dump as parse
    from ascend_lab.parsers.errors import GraphParseError
    from ascend_lab.parsers.ir.ir_text import parse_ir_file

    rank = os.path.join(dump_dir, "rank_0")
    order_dir = os.path.join(rank, "execution_order")
    graphs: List[Tuple[int, List[str]]] = []
    for entry in sorted(os.listdir(order_dir)) if os.path.isdir(order_dir) else []:
        gid = parse.graph_id(entry, parse.CSV_PREFIX)
        if gid is None:
            continue
        text = limits.decode_text(_read_capped(os.path.join(order_dir, entry), 64 << 20))
        names = parse.read_execution_order(text)
        if names:
            graphs.append((gid, names))
    graphs.sort()
    records: List[OpRecord] = []
    calls: Dict[str, int] = {}
    ms_calls: Dict[str, int] = {}
    for gid, names in graphs:
        files = _output_files(os.path.join(rank, NET_NAME, str(gid)), names)
        dumped = set(files)
        producers: Optional[Dict[str, List[str]]] = None
        sources: Dict[str, List[str]] = {}
        repaired: Dict[str, str] = {}
        fused: Dict[str, List[str]] = {}
        ir = os.path.join(rank, "graphs", f"{parse.IR_PREFIX}{gid}.ir")
        try:
            graph: Optional[Graph] = parse_ir_file(ir) if os.path.exists(ir) else None
        except GraphParseError:  # read as if absent: no producers, MindSpore's scopes
            graph = None
        if graph is not None:
            producers = parse.kernel_producers(graph, dumped)
            sources = {node.name: node.source for node in graph.nodes if node.name}
            repaired = repaired_names(graph)  # the Cell each op's data flow puts it in
            fused = {
                n.name: sorted(op_budget(n.op, graph.subgraphs.get(n.subgraph or "")).elements())
                for n in graph.nodes
                if n.name in dumped and is_fused_call(n)
            }
        keys: Dict[str, Tuple[str, int]] = {}
        for full in names:
            outs = files.get(full)
            if not outs:
                continue
            ms_path, op = op_path(full)
            ms_call = ms_calls.get(ms_path, 0)
            ms_calls[ms_path] = ms_call + 1
            path = op_path(repaired[full])[0] if full in repaired else ms_path
            call = calls.get(path, 0)
            calls[path] = call + 1
            stats: List[Any] = []  # None where a file could not be read
            for slot in sorted(outs):
                stats.append(_read_stats(*outs[slot], sample_size=sample_size, keep=keep))
            # no kernel graph: no producers (None), and the first divergence falls back to
            # the largest error before the op in run order
            fed = (
                None
                if producers is None
                else [keys[p] for p in producers.get(full, []) if p in keys]
            )
            source = parse.user_source(sources.get(full, []), _LIBRARY_MARKS)
            rec = OpRecord(
                len(records), path, call, op, full, source, [], stats, fed, (ms_path, ms_call)
            )
            rec.fused_ops = fused.get(full)
            keys[full] = rec.key
            records.append(rec)
    return SideRecord(name, "op", records, description)


def _output_files(graph_dir: str, names: List[str]) -> Dict[str, Dict[int, Tuple[str, str]]]:
    """full name -> {slot: (path, dtype)} of the output files of one graph's iteration 0
    (``mapping.csv`` names resolved; joined by :func:`ascend_lab.parsers.op_dump.join_files`)."""
    from ascend_lab.parsers import limits
    from ascend_lab.parsers import op_dump as parse

    out: Dict[str, Dict[int, Tuple[str, str]]] = {}
    folder = os.path.join(graph_dir, "0")
    if not os.path.isdir(folder):
        return out
    mapping: Dict[str, str] = {}
    mapping_csv = os.path.join(folder, "mapping.csv")
    if os.path.exists(mapping_csv):
        mapping = parse.read_mapping(limits.decode_text(_read_capped(mapping_csv, 64 << 20)))
    files = []
    where: Dict[int, str] = {}
    for entry in os.listdir(folder):
        info = parse.parse_file_name(mapping.get(entry, entry))
        if info is None or info.io != "output" or info.op_type == "Parameter":
            continue
        files.append(info)
        where[id(info)] = os.path.join(folder, entry)
    for full, found in parse.join_files(names, files).items():
        out[full] = {f.slot: (where[id(f)], f.dtype) for f in found}
    return out


def _read_stats(path: str, dtype: str, sample_size: int, keep: bool) -> Optional[TensorStats]:
    try:
        if os.path.getsize(path) > MAX_TENSOR_BYTES:
            return None
        loaded = load_dumped(path)
        if loaded is None:
            return None
        array, real = loaded
        return TensorStats(array, dtype=real or dtype, sample_size=sample_size, keep=keep)
    except (OSError, ValueError):
        return None
    finally:
        try:
            os.remove(path)
        except OSError:
            pass


_REAL_DTYPES = {4: ("float32", "Float32")}


def load_dumped(path: str) -> Optional[Tuple[Any, str]]:
    """A dumped ``.npy`` and, when its header lies or NumPy cannot hold its type, the dtype
    its bytes really hold.

    MindSpore's CPU dump (2.10 and 2.7) writes a kernel that ran in float32 although the
    graph typed it float16 (AMP's MatMul and BiasAdd on CPU) with a float16 header over
    float32 bytes (a (4, 16) output: 256 bytes of data where float16 needs 128). Such a file
    is read as float32 of the header's shape (dtype ``"Float32"`` returned); any other
    size mismatch is not read (None). A bfloat16 file (header ``'<E2'``, which NumPy cannot
    read) is read as float32, each value's 16 bits the high half of a float32 (exact), and
    ``"BFloat16"`` returned. ``("", "")`` second item: the header was right.
    """
    import numpy as np

    from ascend_lab.parsers import op_dump as parse

    with open(path, "rb") as fh:
        header = parse.npy_header(fh.read(parse.NPY_HEADER_MAX + 12))
        if header is None:
            return None
        shape, fortran, descr, offset = header
        count = 1
        for d in shape:
            count *= int(d)
        size = os.fstat(fh.fileno()).st_size - offset
        order: Any = "F" if fortran else "C"
        fh.seek(offset)
        if descr in parse.BF16_DESCRS:
            if size != count * 2:
                return None
            bits = np.frombuffer(fh.read(size), dtype=">u2" if parse.BF16_DESCRS[descr] else "<u2")
            data = (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
            return data.reshape(shape, order=order), "BFloat16"
        try:
            dtype = np.dtype(descr)
        except TypeError:
            return None
        if dtype.hasobject or dtype.kind not in "fiub":
            return None
        if size == count * dtype.itemsize:
            data = np.frombuffer(fh.read(size), dtype=dtype)
            return data.reshape(shape, order=order), ""
        real = _REAL_DTYPES.get(size // count if count and size % count == 0 else 0)
        if real is None or dtype.kind != "f" or dtype.itemsize >= 4:
            return None
        data = np.frombuffer(fh.read(size), dtype=real[0])
        return data.reshape(shape, order=order), real[1]


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1]))

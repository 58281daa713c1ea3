"""Capture each Cell's inputs and outputs on one side: the only module here that imports MindSpore.

How (checked on CPU with MindSpore 2.10.0 and 2.7.0; the dump mechanisms, their files and
costs are listed in :mod:`ascend_lab.numerics`'s docstring):

* ``Cell.register_forward_hook`` in PyNative mode works on CPU: every sub-Cell's hook gets
  its inputs and output. This is what is used: the net runs in PyNative for the capture
  (the context's mode is restored afterwards), one record per Cell call, in execution order
  (children before their parent). Ops written in a ``construct`` (``x + y``) are seen as part
  of the Cell whose ``construct`` holds them.
* ``MINDSPORE_DUMP_CONFIG`` with ``"saved_data": "statistic"`` is refused on CPU ("storing
  statistic dump is only supported on GPU and Ascend"); ``"tensor"`` works in GRAPH_MODE
  on CPU and writes one ``.npy`` per kernel output (``MatMul.Default_d1-Dense_MatMul-op0…``)
  plus ``execution_order/*.csv``: that is ``capture="dump"`` (:mod:`.op_dump`, op by op, in
  a child process), not this module.
* ``ops.TensorDump`` is not supported on CPU ("Unsupported op [TensorDump] on CPU").

With NumPy 2, MindSpore 2.10's first PyNative op in a process can fail spuriously; the
capture runs a throw-away op first (:func:`prime_pynative`). Nothing is written to disk.
Hooks are removed afterwards, also when the net fails. MindSpore bug (2.8-2.10), undone
here (:func:`reset_mixed_precision`): when the ``construct`` of a ``to_float`` Cell raises,
its PyNative mixed-precision type stays set for the rest of the process (later ops are
cast).
"""

import contextlib
import copy
import io
import os
import re
import sys
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from ascend_lab.errors.numerics import NumericsInputError, NumericsRunError
from ascend_lab.model.numeric_records import AMP_WRAPPERS, OpRecord, SideRecord, normalize_path
from ascend_lab.model.tensor_stats import SAMPLE_SIZE, TensorStats

_MS_DIR = os.sep + "mindspore" + os.sep
_SHAPE_WORDS = ("shape", "dimension", "rank", "size of", "in_channels", "must be equal")


def amp_copy(net: Any, level: str) -> Any:
    """A deep copy of ``net`` under ``mindspore.amp.auto_mixed_precision(copy, level)``."""
    from mindspore.amp import auto_mixed_precision

    if level not in ("O0", "O1", "O2", "O3"):
        raise NumericsInputError(f"amp must be one of O0, O1, O2, O3, got {level!r}")
    try:
        twin = copy.deepcopy(net)
    except Exception as exc:  # noqa: BLE001 - any failure of the user's Cell
        raise NumericsRunError(f"cannot copy the net for amp={level}: {exc}") from exc
    return auto_mixed_precision(twin, level)


# Primitives that draw random numbers: Dropout's only in train mode (nn.Dropout returns its
# input in eval mode), the others whenever they run
_DROPOUT_PRIMS = ("Dropout", "Dropout2D", "Dropout3D", "DropoutGenMask", "DropoutDoMask")
_RANDOM_PRIMS = (
    "StandardNormal",
    "UniformReal",
    "UniformInt",
    "RandomChoiceWithMask",
    "Multinomial",
    "RandomCategorical",
    "Gamma",
    "Poisson",
    "RandomGamma",
    "RandomPoisson",
)


def random_cells(net: Any) -> List[str]:
    """Normalized paths of the Cells of ``net`` that draw random numbers when it runs: a
    Dropout (a Cell holding a dropout Primitive, or named ``Dropout*``) in train mode with
    a drop rate above 0, and a Cell holding a random Primitive (``StandardNormal``, ...).
    Random ops called as functions in a ``construct`` (``ops.dropout``) are not seen."""
    out: List[str] = []
    for name, cell in net.cells_and_names():
        prims = {type(v).__name__ for v in vars(cell).values()}
        dropout = type(cell).__name__.startswith("Dropout") or bool(prims & set(_DROPOUT_PRIMS))
        off = getattr(cell, "p", None) == 0 or getattr(cell, "keep_prob", None) == 1
        if (dropout and cell.training and not off) or prims & set(_RANDOM_PRIMS):
            path = normalize_path(name)
            if path not in out:
                out.append(path)
    return out


def to_tensors(inputs: List[Any]) -> List[Any]:
    """NumPy arrays become ``mindspore.Tensor``; anything else is passed as given."""
    import mindspore as ms
    import numpy as np

    return [ms.Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]


def nonfinite_inputs(inputs: List[Any]) -> List[str]:
    """``"input 0: 1 NaN"`` for each input (NumPy array or Tensor) already holding NaN or
    Inf: every op they reach carries them, and errors are measured where both sides are
    finite."""
    import mindspore as ms
    import numpy as np

    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, ms.Tensor):
            stats = _stats_of(x, 1, False)
        elif isinstance(x, np.ndarray) and x.dtype.kind in "fc":
            stats = TensorStats(x.real if x.dtype.kind == "c" else x, sample_size=1)
        else:
            continue
        counts = [f"{n} {what}" for n, what in ((stats.nan, "NaN"), (stats.inf, "Inf")) if n]
        if counts:
            out.append(f"input {i}: " + ", ".join(counts))
    return out


def _tensor_list(value: Any) -> List[Any]:
    import mindspore as ms

    if isinstance(value, ms.Tensor):
        return [value]
    if isinstance(value, dict):  # a dict output: its values in insertion order
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        out: List[Any] = []
        for item in value:
            out.extend(_tensor_list(item))
        return out
    return []


def _stats_of(tensor: Any, sample_size: int, keep: bool) -> TensorStats:
    import mindspore as ms

    dtype = str(tensor.dtype)
    if tensor.dtype == ms.bfloat16:
        tensor = tensor.astype(ms.float32)
    return TensorStats(tensor.asnumpy(), dtype=dtype, sample_size=sample_size, keep=keep)


def _call_site(cell: Any) -> str:
    """The line of the parent's ``construct`` that called ``cell`` (else its own construct)."""
    frame: Any = sys._getframe(2)
    for _ in range(60):
        if frame is None:
            break
        code = frame.f_code
        if (
            code.co_name == "construct"
            and frame.f_locals.get("self") is not cell
            and _MS_DIR not in code.co_filename  # SequentialCell, CellList: the user's caller
        ):
            return f"{code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    try:
        code = type(cell).construct.__code__
        return f"{code.co_filename}:{code.co_firstlineno}"
    except AttributeError:
        return ""


def _scopes(net: Any) -> Dict[str, Tuple[str, str]]:
    """Normalized Cell path -> (MindSpore scope, Cell class) for every Cell to hook."""
    out: Dict[str, Tuple[str, str]] = {}
    classes: Dict[str, str] = {}
    for name, cell in net.cells_and_names():
        classes[name] = type(cell).__name__
    for name, cell in net.cells_and_names():
        cls = type(cell).__name__
        if cls in AMP_WRAPPERS:
            inner = getattr(cell, "_backbone", None)
            cls = type(inner).__name__ if inner is not None else cls
        path = normalize_path(name)
        if path in out:
            continue  # the wrapper came first; its _backbone is the same Cell
        steps = []
        parts = name.split(".") if name else []
        for i, part in enumerate(parts):
            if part == "_backbone":
                continue
            prefix = ".".join(parts[: i + 1])
            step_cls = classes.get(prefix, "Cell")
            if step_cls in AMP_WRAPPERS:
                inner = dict(net.cells_and_names()).get(prefix + "._backbone")
                step_cls = type(inner).__name__ if inner is not None else step_cls
            steps.append(f"{part}-{step_cls}")
        out[path] = ("/".join(["Default"] + steps), cls)
    return out


_primed = False


def prime_pynative() -> None:
    """Run one tiny PyNative op first, once per process, and drop its failure (the capture
    calls it, and so does the course's ``pick_device``).

    MindSpore 2.10 with NumPy 2 prints "Numpy init failed" on the first PyNative op that
    takes a Python tuple or scalar, and leaves a Python exception set: that op then fails
    with "returned a result with an exception set" (seen on Embedding's reshape and on
    ``Tensor + 1.0``). Later ops work, so a throw-away op goes first. On the way NumPy
    writes "A module that was compiled using NumPy 1.x cannot be run in NumPy 2" and a stack
    to ``sys.stderr``, MindSpore passes the ImportError to ``sys.excepthook`` (in IPython a
    red traceback under the cell, though the cell goes on) and logs "Numpy init failed" to
    file descriptor 2: all three are dropped while the op runs.
    """
    global _primed
    if _primed:
        return
    _primed = True
    import mindspore as ms

    try:
        with _quiet_stderr():
            ms.ops.reshape(ms.Tensor([0.0]), (1,)) + 1.0
    except Exception:  # noqa: BLE001, S110 - the known first-op failure; nothing to report
        pass


def _drop_exception(*_args: Any) -> None:
    """An ``sys.excepthook`` that shows nothing."""


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """``sys.stderr``, ``sys.excepthook`` and file descriptor 2 show nothing for the block
    (for the throw-away op alone: another thread's error output in that moment is lost)."""
    sys.stderr.flush()
    saved: Optional[int] = None
    try:
        saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
    except OSError:  # no file descriptor 2 to borrow: quiet the Python stream alone
        if saved is not None:
            os.close(saved)
        saved = None
    hook, sys.excepthook = sys.excepthook, _drop_exception
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        sys.excepthook = hook
        if saved is not None:
            os.dup2(saved, 2)
            os.close(saved)


def capture_side(
    net: Any,
    inputs: List[Any],
    name: str,
    keep_tensors: bool = False,
    sample_size: int = SAMPLE_SIZE,
) -> Tuple[SideRecord, Any]:
    """Run ``net(*inputs)`` in PyNative with a forward hook on every Cell; (records, output)."""
    import mindspore as ms

    if not isinstance(net, ms.nn.Cell):
        raise NumericsInputError(
            f"side {name} is a {type(net).__name__}, not a mindspore.nn.Cell "
            "(nor a reference dict or .npz)"
        )
    records: List[OpRecord] = []
    calls: Dict[str, int] = {}
    scopes = _scopes(net)
    handles: List[Any] = []

    def make_hook(path: str) -> Callable[..., None]:
        scope, cls = scopes[path]

        def hook(cell: Any, args: Any, output: Any) -> None:
            call = calls.get(path, 0)
            calls[path] = call + 1
            ins = [_stats_of(t, sample_size, keep_tensors) for t in _tensor_list(args)]
            outs = [_stats_of(t, sample_size, keep_tensors) for t in _tensor_list(output)]
            rec = OpRecord(len(records), path, call, cls, scope, _call_site(cell), ins, outs)
            records.append(rec)

        return hook

    seen = set()
    for cname, cell in net.cells_and_names():
        path = normalize_path(cname)
        if path in seen:
            continue
        seen.add(path)
        handles.append(cell.register_forward_hook(make_hook(path)))

    mode = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    kept: List[Tuple[Any, Any]] = []
    try:
        prime_pynative()
        kept = _state_kept(net)
        output = net(*to_tensors(inputs))
    except Exception as exc:  # noqa: BLE001 - reported with the side and MindSpore's text
        reset_mixed_precision(exc)
        text = str(exc).strip()
        first = _first_line(text) or type(exc).__name__
        where = _failing_line(exc)
        who = f"side {name} ({type(net).__name__})"
        message = f"{who} failed on the inputs {_shapes(inputs)}: {first}{limit_hint(text)}{where}"
        low = own_message(text).lower()  # not the construct's code MindSpore quotes
        if isinstance(exc, (ValueError, TypeError)) and any(w in low for w in _SHAPE_WORDS):
            raise NumericsInputError(message) from exc
        raise NumericsRunError(message) from exc
    finally:
        _restore_state(kept)
        for handle in handles:
            handle.remove()
        ms.set_context(mode=mode)
    return SideRecord(name, "cell", records, type(net).__name__), output


def own_message(text: str) -> str:
    """MindSpore's message without what it appends after its first ``----`` rule (the C++
    stack, the construct's code with its ``x.shape[0]``), which says nothing of the cause."""
    return text.split("\n----", 1)[0]


def _state_kept(net: Any) -> List[Tuple[Any, Any]]:
    """Copies of the Parameters a forward run may change (those that take no gradient:
    BatchNorm's moving mean and variance in train mode), to put back after the capture."""
    kept = []
    for param in net.get_parameters(expand=True):
        if not param.requires_grad:
            kept.append((param, param.value().copy()))
    return kept


def _restore_state(kept: List[Tuple[Any, Any]]) -> None:
    for param, value in kept:
        param.set_data(value)


def reset_mixed_precision(exc: BaseException) -> int:
    """Undo what the ``to_float`` Cells that ``exc`` went through left set in PyNative; the
    number of pops.

    ``Cell._complex_call`` pushes the Cell's mixed-precision type on the executor's stack
    (``_call_pre_process``) and pops it (``_call_post_process``) only after a ``construct``
    that returned: after a failed bfloat16 side (MindSpore 2.8-2.10 on CPU: no bfloat16
    MatMul) every later PyNative op of the process was cast to bfloat16 and failed the same
    way. One pop per ``_complex_call`` frame of such a Cell in the traceback (more pops than
    pushes crashed MindSpore 2.9 and 2.10)."""
    pushed = 0
    for frame, _line in _walk(exc.__traceback__):
        cell_self = frame.f_locals.get("self") if frame.f_code.co_name == "_complex_call" else None
        if getattr(cell_self, "mixed_precision_type", None) is not None:
            pushed += 1
    if not pushed:
        return 0
    try:
        from mindspore.nn import cell

        for _ in range(pushed):
            cell._pynative_executor.set_mixed_precision_type(cell.MixedPrecisionType.NOTSET, False)
    except Exception:  # noqa: BLE001 - a MindSpore without these names: nothing to undo
        return 0
    return pushed


def _first_line(text: str) -> str:
    """MindSpore's first line that says something (not its ``----`` rules or ``- Kernel
    select failed:`` headings)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("-"):
            return line
    return ""


_NO_CPU_KERNEL = re.compile(r"Select CPU operator\[(\w{1,100})\] fail")
# PyNative: "but get input[[const vector]{BFloat16, Bool}]"; graph: "but get input[BFloat16 Bool ]"
_GOT_TYPES = re.compile(r"but get input\[(?:\[const vector\]\{)?([\w, ]{0,400})")


def limit_hint(text: str) -> str:
    """What two of MindSpore's own limits mean, to append to the message ("" for any other
    text): "Select CPU operator[MatMul] fail! Unsupported data type!" (its CPU backend has
    no kernel of that op for those dtypes: a net under ``to_float(ms.bfloat16)``), and "The
    Numpy bfloat16 data type is not supported now" (a build for NumPy 1 under NumPy 2
    cannot fold a constant to bfloat16 when it compiles a graph)."""
    if "Numpy bfloat16 data type is not supported" in text:
        import numpy as np

        return (
            f" (this MindSpore cannot hold bfloat16 constants with NumPy {np.__version__}: a "
            "limit of MindSpore with NumPy 2, not of the net; make the constant a Parameter, "
            "which is cast at run time, or use numpy<2)"
        )
    found = _NO_CPU_KERNEL.search(text)
    if found is None:
        return ""
    got = _GOT_TYPES.search(text)
    types = got.group(1).replace(",", " ").split() if got else []
    types = sorted({t for t in types if t and t != "Bool"})
    what = " for " + ", ".join(types) if types else " for these dtypes"
    return (
        f" (MindSpore's CPU backend has no {found.group(1)} kernel{what}: a limit of "
        "MindSpore on CPU, not of the net; compare in a dtype the CPU has kernels for, such "
        "as float32, or on an Ascend device)"
    )


def _shapes(inputs: List[Any]) -> str:
    shapes = []
    for x in inputs:
        shape = getattr(x, "shape", None)
        shapes.append(str(tuple(shape)) if shape is not None else type(x).__name__)
    return "[" + ", ".join(shapes) + "]"


def _failing_line(exc: BaseException) -> str:
    """`` (at file:line)`` of the deepest user frame of the traceback, if any."""
    tb = exc.__traceback__
    where = ""
    for frame, line in _walk(tb):
        filename = frame.f_code.co_filename
        if "site-packages" not in filename and "ascend_lab" not in filename:
            where = f" (at {filename}:{line})"
    return where


def _walk(tb: Any) -> List[Tuple[Any, int]]:
    out = []
    while tb is not None:
        out.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return out


__all__ = ["amp_copy", "capture_side", "nonfinite_inputs", "random_cells"]

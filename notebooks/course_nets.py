"""Shared pieces of the ascend-lab course: device choice, the nets we follow, small helpers.

The notebooks import this file from their own folder (``from course_nets import ...``).
It must run on Python 3.8 (Ascend notebook images, MindSpore 2.3 and later).
"""

import atexit
import os
import shutil
import socket
import statistics
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import mindspore as ms
import numpy as np
from mindspore import nn

from ascend_lab import i18n
from ascend_lab.capture.cell_outputs import prime_pynative
from ascend_lab.course.launch import run_workers  # noqa: F401 - notebook 08 runs msrun with it
from ascend_lab.course.nets import LeNet5
from ascend_lab.course.nets import ResidualGeLU as ResidualGeLU  # notebook 3 traces it
from ascend_lab.course.nets import ResidualLayerNorm as ResidualLayerNorm  # and this one
from ascend_lab.exercises.language import CHINESE, edition
from ascend_lab.i18n.plot_font import prefer_cjk_font

# The course's folder: this file's own (the edition's folder; ``zh/course_nets.py`` links here
# in a checkout and is a copy in a learner's folder), never the current folder, which
# ``scratch_folder()`` changes: a second Run All in the same kernel finds the same files.
COURSE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(COURSE, "data")  # recorded on real Ascend machines: see data/README.md


def _load_magics() -> None:
    """Register ascend-lab's magics in this IPython, quietly: the MindSpore kernel already
    has them (``%load_ext`` would print "already loaded"); a plain kernel gets them here."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python (the msrun workers of notebook 08)
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "extension_manager"):
        shell.extension_manager.load_extension("ascend_lab")  # silent when already loaded


_load_magics()

# Printed in the reader's language (the Chinese edition's kernel picks Chinese by itself).
CPU_NOTE = i18n.N_(
    "No Ascend NPU here: running on CPU. What differs: kernels are CPU kernels (no AI Core / "
    "AI CPU split, no CANN graph engine), graph-kernel fusion uses AKG's CPU backend (jit_level "
    "O1 does not fuse on CPU), memory is host memory (the reuse algorithm is set_memory's "
    "optimize_level on every device: O0, the default, reuses dynamically, O1 plans static SOMAS "
    "offsets), AMP keeps Conv2D/MatMul in float32, "
    "data parallel uses MindSpore's own collective backend (mccl) instead of HCCL, and every "
    "time you measure is a CPU time. The structure (graphs, passes, plans) is the same."
)


def pick_device(verbose: bool = True) -> str:
    """``"Ascend"`` if ascend-lab sees an NPU, else ``"CPU"``; sets MindSpore's device.

    Works with MindSpore >= 2.5 (``ms.set_device``) and older (``set_context``).
    """
    import ascend_lab

    status = ascend_lab.status()
    target = "Ascend" if status.mode == "ascend" else "CPU"
    setter = getattr(ms, "set_device", None)
    try:
        if setter is not None:
            setter(target)
        else:
            ms.set_context(device_target=target)
    except RuntimeError:
        if target == "Ascend":  # npu-smi sees NPUs, but MindSpore cannot load CANN's libraries
            print(i18n._(NO_ASCEND_BACKEND).format(len(status.chips)))
        raise
    if target == "CPU":
        # MindSpore 2.10 under NumPy 2 prints NumPy's long "compiled using NumPy 1.x" error
        # at a process's first PyNative op, once: let it happen here, silenced, not in the
        # middle of a lesson. Only on CPU: on an NPU the op would open the device in this
        # process (notebook 8's workers need it).
        prime_pynative()
    if edition() == CHINESE:  # the figures' tr() titles in Chinese, not as empty boxes
        prefer_cjk_font()
    keep_cell_sources()
    if verbose:
        print(i18n._("MindSpore {}, device: {}").format(ms.__version__, target))
        if target == "CPU":
            if status.reason:
                print(i18n._("(CPU mode: {})").format(i18n.localize(status.reason)))
            print(i18n._("NOTE: {}").format(i18n._(CPU_NOTE)))
    return target


def keep_cell_sources() -> bool:
    """From the next cell on, write each cell's code to the file IPython names it after.

    ipykernel compiles a cell under the name ``/tmp/ipykernel_<pid>/<hash>.py`` but writes
    that file only for its debugger. MindSpore's graph mode reads the source line of every
    frame it reports from that file: without it, each ``@ms.jit`` function or Cell defined in
    a cell prints ``[ERROR] CORE ... Get realpath failed`` and ``[WARNING] CORE ... may not
    exists`` lines (2.10), and its error tracebacks lack the learner's own lines. Returns
    whether the hook is in place (not in plain Python, or without ipykernel).
    """
    try:
        from ipykernel.compiler import get_file_name
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    if getattr(shell, "_course_keeps_cell_sources", False):
        return True

    def write(info: Any) -> None:
        code = getattr(info, "raw_cell", None)
        if not code:
            return
        try:
            path = get_file_name(code)
            if not os.path.exists(path):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(code)
        except OSError:
            pass  # a read-only /tmp: MindSpore prints its lines, nothing else changes

    shell.events.register("pre_run_cell", write)
    shell._course_keeps_cell_sources = True
    return True


# Printed when npu-smi sees NPUs but MindSpore cannot load its Ascend backend (CANN's
# libraries, e.g. libge_runner.so, are not on the library path of this kernel).
NO_ASCEND_BACKEND = i18n.N_(
    "npu-smi shows {} NPU chip(s), but MindSpore cannot load its Ascend backend: CANN's "
    "libraries are not found by this kernel. Use the MindSpore kernel (ascend-lab "
    "install-kernel sources CANN's set_env.sh), or source set_env.sh before starting Jupyter; "
    "then restart the kernel. MindSpore's own error follows."
)

# Printed when a notebook wants several worker processes on NPUs that are not there.
TOO_FEW_NPUS = i18n.N_(
    "{} workers need one visible NPU each, but this machine shows {} ({}). "
    "HCCL would fail to build the group, so the workers run on CPU with MindSpore's own "
    "collectives: the ranks, the AllReduce and the weights are the same, the times are CPU "
    "times."
)

NPU_SMI_LISTS = i18n.N_("npu-smi lists {} chip(s)")


def visible_npus(chips: int, visible: Optional[str]) -> int:
    """How many NPUs MindSpore can use: ``chips`` from ``npu-smi``, narrowed by the value of
    ``ASCEND_RT_VISIBLE_DEVICES`` (``None``: unset). Ids that are not chips do not count."""
    if visible is None:
        return chips
    ids = {p.strip() for p in visible.split(",") if p.strip()}
    return sum(1 for i in ids if i.isdigit() and int(i) < chips)


def worker_device(device: str, workers: int = 2, verbose: bool = True) -> str:
    """The device for ``workers`` worker processes (one NPU each): ``device``, or ``"CPU"``
    when fewer than ``workers`` NPUs are visible (one 910B per notebook instance is common;
    HCCL then fails). Says why when it falls back."""
    if device != "Ascend":
        return device
    import ascend_lab

    status = ascend_lab.status()
    visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
    count = visible_npus(len(status.chips), visible)
    if count >= workers:
        return device
    if visible is None:
        why = i18n._(NPU_SMI_LISTS).format(len(status.chips))
    else:
        why = f"ASCEND_RT_VISIBLE_DEVICES={visible}"
    if verbose:
        print(i18n._(TOO_FEW_NPUS).format(workers, count, why))
    return "CPU"


def fusion_backend(device: str) -> str:
    """Who builds graph-kernel fusion's kernels here, from the device and npu-smi's chip name:
    AKG on CPU (and GPU); DVM on Atlas A2/A3 (910B, 910_93) at O1; AKG on older NPUs."""
    if device != "Ascend":
        return f"AKG, {device}"
    import ascend_lab

    chips = ascend_lab.status().chips
    name = chips[0].name if chips else "?"
    if name.upper().startswith(("910B", "910_93", "910C", "ASCEND910B")):
        return f"DVM, {name}"
    return f"AKG, {name}"


_SCRATCH: Dict[str, str] = {}


def scratch_folder(prefix: str = "ascend-course-") -> str:
    """Make a temporary folder (once per kernel) and make it the current directory.

    MindSpore drops files into the current directory (``rank_0/``, ``analyze_fail.ir``,
    AKG's ``akg_kernel_meta/``, profiler output): the course keeps them out of the
    notebooks folder, which may be read-only (Binder, CI). Running the notebook again in
    the same kernel reuses the folder. It is removed when the kernel shuts down. Paths to the
    course's own files come from ``COURSE`` and ``DATA``, not from the current folder.
    """
    folder = _SCRATCH.get(prefix)
    if folder is None or not os.path.isdir(folder):
        folder = tempfile.mkdtemp(prefix=prefix)
        _SCRATCH[prefix] = folder
        atexit.register(shutil.rmtree, folder, True)  # removed when the kernel shuts down
    os.chdir(folder)
    return folder


def median_seconds(fn: Callable[[], Any], repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` over ``repeat`` calls, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times: List[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def synthetic_images(
    n: int, shape: Tuple[int, ...] = (1, 32, 32), classes: int = 10, seed: int = 0
) -> Tuple[np.ndarray, np.ndarray]:
    """``n`` images and labels that a small net can learn: each class has its own mean image."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n).astype(np.int32)
    prototypes = rng.standard_normal((classes,) + tuple(shape)).astype(np.float32)
    images = prototypes[labels] + 0.5 * rng.standard_normal((n,) + tuple(shape)).astype(np.float32)
    return images.astype(np.float32), labels


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ConvBNReLU(nn.Cell):
    """The net the course follows: Conv2d -> BatchNorm2d -> ReLU."""

    def __init__(self, in_channels: int = 3, out_channels: int = 16) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()

    def construct(self, x: Any) -> Any:
        return self.relu(self.bn(self.conv(x)))


class ConvClassifier(nn.Cell):
    """ConvBNReLU, a global average pool and a Dense layer: the course's net with a loss."""

    def __init__(self, in_channels: int = 1, classes: int = 10) -> None:
        super().__init__()
        self.block = ConvBNReLU(in_channels, 16)
        # a pooling layer, not mean(axis=(2, 3)): ReduceMean/ReduceSum over a tuple of axes
        # fails in PyNative on MindSpore 2.10 with NumPy 2 (a helper built for NumPy 1.x)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(16, classes)

    def construct(self, x: Any) -> Any:
        return self.fc(self.flatten(self.pool(self.block(x))))


# LeNet-5 for 1x32x32 inputs: two conv+ReLU+pool blocks and three dense layers; the same
# reference net ascend-lab's own tests and benchmarks use.
LeNet = LeNet5


def count_ops(graph: Any, op: Optional[str] = None) -> int:
    """Kernels in an ascend-lab ``Graph`` (all, or those whose op name is ``op``)."""
    kernels = list(graph.kernels)
    if op is None:
        return len(kernels)
    return sum(1 for k in kernels if k.op == op)

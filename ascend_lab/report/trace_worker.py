"""``python -m ascend_lab.report.trace_worker OUT DEVICE``: the ``--with-trace`` part, in a
child process so the report's time budget can stop a compile that hangs.

Traces the course's Conv2d+BatchNorm2d+ReLU net (notebooks/course_nets.py: 3->16 channels,
3x3 "same", no bias) at each ``jit_level`` the device supports (O0 and O1; O2 is CANN's
GraphEngine, Ascend only), keeps the dumps, takes a short profile and exports its MindIR.
After each step ``OUT/worker.json`` says what is done, so a timeout loses only the rest.
"""

import json
import os
import sys
import time
import traceback
from typing import Any, Dict, List

SHAPE = (1, 3, 32, 32)
PROFILE_STEPS = 3


def levels_for(device: str) -> List[str]:
    return ["O0", "O1", "O2"] if device == "Ascend" else ["O0", "O1"]


def _course_net() -> Any:
    import mindspore.nn as nn

    class ConvBNReLU(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 16, 3, pad_mode="same", has_bias=False)
            self.bn = nn.BatchNorm2d(16)
            self.relu = nn.ReLU()

        def construct(self, x: Any) -> Any:
            return self.relu(self.bn(self.conv(x)))

    return ConvBNReLU()


def main(out: str, device: str) -> int:
    progress: Dict[str, Any] = {"device": device, "steps": []}

    def step(name: str, status: str, detail: str = "", seconds: float = 0.0) -> None:
        progress["steps"].append(
            {"step": name, "status": status, "detail": detail[:4000], "seconds": round(seconds, 2)}
        )
        with open(os.path.join(out, "worker.json"), "w", encoding="utf-8") as f:
            json.dump(progress, f, indent=2)

    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    import mindspore as ms
    import numpy as np

    # the tracing package itself, not the top-level ascend_lab.trace: report stays below the
    # package root in the import graph (scripts/import_graph.py)
    from ascend_lab.tracing.api import trace_net

    if device != "CPU":
        try:
            ms.set_device(device)
        except Exception as exc:  # e.g. the CPU wheel on an NPU machine, or a fake one
            step(f"use the {device} backend", "failed", f"{type(exc).__name__}: {exc}")
            device = progress["device"] = "CPU"
    progress["mindspore"] = ms.__version__
    step("import mindspore", "ok", seconds=time.monotonic() - t0)
    x = ms.Tensor(np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32))
    for level in levels_for(device):
        t0 = time.monotonic()
        try:
            net = _course_net()  # a fresh net: the compile cache would hide the dumps
            net.set_jit_config(ms.JitConfig(jit_level=level))
            tr = trace_net(
                net, [x], fusion=False, level=1, keep_dumps=True, run=True, progress=False
            )
            target = os.path.join(out, level)
            os.makedirs(target, exist_ok=True)
            if tr.dump_dir is None:  # keep_dumps=True always names one; say so if not
                raise RuntimeError("the trace kept no dump folder")
            os.replace(tr.dump_dir, os.path.join(target, "dump"))
            with open(os.path.join(target, "summary.txt"), "w", encoding="utf-8") as f:
                f.write(tr.summary() + "\n")
            step(
                f"trace jit_level={level}",
                "ok",
                f"{tr.kernel_count} kernels",
                time.monotonic() - t0,
            )
        except Exception as exc:
            step(
                f"trace jit_level={level}",
                "failed",
                f"{type(exc).__name__}: {exc}",
                time.monotonic() - t0,
            )
    t0 = time.monotonic()
    try:
        net = _course_net()
        net(x).asnumpy()  # the first call builds the kernels: not a step to profile
        prof_dir = os.path.join(out, "profile")
        profiler = ms.Profiler(output_path=prof_dir)
        for _ in range(PROFILE_STEPS):
            net(x).asnumpy()
        profiler.analyse()
        step(f"profile ({PROFILE_STEPS} steps)", "ok", seconds=time.monotonic() - t0)
    except Exception as exc:
        step(
            f"profile ({PROFILE_STEPS} steps)",
            "failed",
            f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}",
            time.monotonic() - t0,
        )
    t0 = time.monotonic()
    try:
        ms.export(_course_net(), x, file_name=os.path.join(out, "net"), file_format="MINDIR")
        step("MindIR export", "ok", seconds=time.monotonic() - t0)
    except Exception as exc:
        step("MindIR export", "failed", f"{type(exc).__name__}: {exc}", time.monotonic() - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "CPU"))

"""Write the course notebooks (``notebooks/NN_*.ipynb``) from the cells listed here.

    python scripts/make_notebooks.py          # write all notebooks (without outputs)
    python scripts/make_notebooks.py --check  # exit 1 if a committed notebook is stale

Each notebook is a list of markdown and code cells. Code cells of exercises are tagged
``exercise`` and their checks ``self-check`` (the structure test looks for them). The
notebooks name the ``mindspore`` kernel (``ascend-lab install-kernel``).
"""

import argparse
import os
import sys
from textwrap import dedent
from typing import Dict, List, Sequence, Tuple

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))
NOTEBOOKS = os.path.join(os.path.dirname(HERE), "notebooks")

Cell = Tuple[str, str, Tuple[str, ...]]

KERNELSPEC = {"name": "mindspore", "display_name": "MindSpore", "language": "python"}


def md(text: str) -> Cell:
    return ("markdown", dedent(text).strip("\n"), ())


def code(text: str, *tags: str) -> Cell:
    return ("code", dedent(text).strip("\n"), tuple(tags))


def exercise(number: int, task: str, solution: str, self_check: str) -> List[Cell]:
    """Markdown task, a code cell holding a working answer, and a self-check cell."""
    return [
        md(f"### Exercise {number} · 练习 {number}\n\n" + dedent(task).strip("\n")),
        code(solution, "exercise"),
        code(self_check, "self-check"),
    ]


def setup(extra: str = "") -> Cell:
    """The first code cell of every notebook: imports, device choice, scratch folder."""
    return code(
        """
        %load_ext ascend_lab
        import os, sys, time, tempfile
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        import ascend_lab
        from course_nets import pick_device, check, median_seconds, scratch_folder

        DEVICE = pick_device()  # "Ascend" if an NPU is present, else "CPU" (with a note)
        # Files this notebook writes (and MindSpore's own droppings) go to a scratch folder.
        WORK = scratch_folder()
        print("scratch folder:", WORK)
        """
        + extra
    )


NB: Dict[str, List[Cell]] = {}

# ---------------------------------------------------------------------------------------
NB["00_stack_and_machine"] = [
    md(
        """
        # 0 · The stack and your machine · 软件栈与你的机器

        **Learning goals · 学习目标**
        - Name the layers of the Ascend stack (昇腾 Ascend hardware, driver and firmware
          驱动/固件, CANN 异构计算架构, MindSpore 框架, application enablement 应用使能) and
          say what each one does.
        - Read `%ascend_status` on this machine: mode, versions, compatibility, warnings.
        - Know the install order (firmware → driver → CANN → MindSpore) and check a version
          combination against MindSpore's compatibility table (版本配套表).
        - Know which Jupyter kernel (内核) runs this course and what CPU mode can and can't show.

        The course follows one `nn.Conv2d` (卷积 convolution) from Python to a kernel on the
        device. Everything you see is measured on the machine you run it on.
        """
    ),
    setup(),
    md(
        """
        ## The stack, bottom to top · 从下到上

        | Layer | 中文 | What it is | Examples |
        |---|---|---|---|
        | Hardware | 昇腾 AI 处理器 | NPUs with Da Vinci AI Cores (Cube unit for matrix math, Vector unit, Scalar unit) and AI CPUs | Atlas 800T A2 (910B), Atlas 300I Duo (310P3) |
        | Firmware + driver | 固件 / 驱动 | Board firmware and the kernel driver that exposes `/dev/davinci*`; `npu-smi` | driver 24.1.RC2 |
        | CANN | 异构计算架构 | Runtime, graph engine (GE, 图引擎), operator library (算子库, TBE/AscendC kernels), HCCL collectives (集合通信) | CANN 8.0.RC2 |
        | MindSpore | AI 框架 | Python front end, compiler (MindIR, 图编译), runtime that launches kernels through CANN | MindSpore 2.3.1 |
        | Application enablement | 应用使能 | Model suites and deployment: MindFormers, MindSpore Lite, Serving, ModelZoo | LLaMA fine-tuning, INT8 inference |

        Each layer only talks to the one below it. Python never calls the NPU directly: a
        MindSpore operator (算子) becomes a CANN kernel, launched by the runtime on a device stream.

        `%ascend_status` asks this machine which layers are present (no MindSpore import, so
        it is fast):
        """
    ),
    code("%ascend_status"),
    code(
        """
        status = ascend_lab.status()
        print("mode:", status.mode, "|", status.reason)
        for name, value in status.versions.to_dict().items():
            print(f"  {name:10} {value or '-'}")
        print("compatibility:", status.compatibility.verdict, "-", status.compatibility.message)
        """
    ),
    md(
        """
        ## Install order and the compatibility check · 安装顺序与版本配套

        On an Ascend machine the order is **firmware → driver → CANN → MindSpore** (on a
        first install Huawei's guide puts the driver before the firmware; on upgrades the
        firmware goes first). Each MindSpore release is built against one CANN release, and
        each CANN release needs a minimum driver. ascend-lab keeps MindSpore's table as data:
        """
    ),
    code(
        """
        from ascend_lab.device import compat

        table = compat.load_table()
        print(f"{'MindSpore':18} {'CANN':10} driver")
        for row in table:
            print(f"{row.mindspore_text():18} {row.cann:10} {row.driver or '-'}")
        """
    ),
    md(
        """
        The same function `%ascend_status` uses can judge any combination. Try a good one
        and a bad one (the versions are examples, not this machine's):
        """
    ),
    code(
        """
        for ms_v, cann_v, drv in [("2.3.1", "8.0.RC2", "24.1.RC2"), ("2.3.1", "7.0.0", "23.0.0")]:
            verdict, warnings = compat.check(ms_v, cann_v, drv)
            print(f"MindSpore {ms_v} + CANN {cann_v} + driver {drv}: {verdict.verdict}")
            print("   ", verdict.message)
            for w in warnings:
                print("    fix:", w.fix)
        """
    ),
    md(
        """
        ## The kernel · 内核

        The course runs on a Jupyter kernel named **`mindspore`** ("MindSpore"), registered by
        `ascend-lab install-kernel`. On an Ascend image the kernel sources CANN's
        `set_env.sh` before Python starts, so `LD_LIBRARY_PATH` and `ASCEND_OPP_PATH` are set
        in the kernel and not only in your terminal. The kernels Jupyter knows here:
        """
    ),
    code(
        """
        from jupyter_client.kernelspec import KernelSpecManager

        specs = KernelSpecManager().get_all_specs()
        for name, info in sorted(specs.items()):
            spec = info["spec"]
            print(f"{name:12} {spec['display_name']:20} {' '.join(spec['argv'][:3])}")
        print()
        print("this kernel runs:", sys.executable)
        print("'mindspore' kernel registered:", "mindspore" in specs)
        if "mindspore" not in specs:
            print("  -> register it with:  ascend-lab install-kernel  (then pick 'MindSpore')")
        """
    ),
    md(
        """
        ## What CPU mode can and can't show · CPU 模式能看到什么

        | Same on CPU and Ascend | Only on Ascend |
        |---|---|
        | MindIR, the compiler's passes, 图模式 graph mode vs 动态图 PyNative | AI Core kernels, CANN's graph engine (GE) and its fusion rules |
        | graph-kernel fusion (算子融合) with AKG, kernel counts | Cube-unit float16 speed, real 混合精度 mixed-precision gains |
        | tensor lifetimes and a planned memory map (内存复用 memory reuse) | the runtime's own SOMAS offsets and device memory peak |
        | the profiler's per-op times (CPU kernels) | AI Core / AI CPU task times, HBM bandwidth |
        | 数据并行 data parallel with `msrun` (MindSpore's own collectives) | HCCL over HCCS / RoCE |

        A first operator on this device, timed:
        """
    ),
    code(
        """
        conv = nn.Conv2d(3, 16, 3)
        x = ms.Tensor(np.ones((1, 3, 32, 32), np.float32))
        seconds = median_seconds(lambda: conv(x).asnumpy(), repeat=5)
        print(f"device_target = {ms.get_context('device_target')}, output {conv(x).shape}, "
              f"{seconds * 1e3:.2f} ms per call")
        """
    ),
    *exercise(
        1,
        """
        Put the four pieces of an Ascend install in the order you install them on an
        upgrade: `"MindSpore"`, `"driver"`, `"CANN"`, `"firmware"`.
        """,
        """
        my_install_order = ["firmware", "driver", "CANN", "MindSpore"]
        """,
        """
        check(
            [s.lower() for s in my_install_order] == ["firmware", "driver", "cann", "mindspore"],
            "firmware, then driver, then CANN (toolkit + kernels), then MindSpore.",
            "each layer needs the one below it; MindSpore comes last.",
        )
        """,
    ),
    *exercise(
        2,
        """
        A ModelArts image ships MindSpore 2.3.1. Which CANN release must the image have?
        Use the table above (or `compat.load_table()`).
        """,
        """
        cann_for_mindspore_2_3_1 = "8.0.RC2"
        """,
        """
        row = [r for r in compat.load_table() if r.has_mindspore("2.3.1")][-1]
        check(
            cann_for_mindspore_2_3_1.upper() == row.cann.upper(),
            f"MindSpore 2.3.1 pairs with CANN {row.cann} (driver {row.driver} or newer).",
            "find the row whose MindSpore range contains 2.3.1.",
        )
        """,
    ),
    md(
        """
        ## Summary · 小结
        - Stack: 昇腾 hardware → firmware/driver → CANN → MindSpore → application enablement.
        - `%ascend_status` tells you the mode (Ascend or CPU), the versions and whether they
          fit together; the table behind it is MindSpore's release notes.
        - The `mindspore` kernel makes the notebook see the same environment as a shell with
          `set_env.sh` sourced.
        - On CPU you can see everything the compiler does; device speed and the device's own
          memory and kernels need an NPU.

        Next: **1 · One Conv2d**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["01_one_conv2d"] = [
    md(
        """
        # 1 · One Conv2d · 一个卷积

        **Learning goals · 学习目标**
        - Build an `nn.Conv2d` (卷积层) and check one output value by hand with NumPy.
        - Build the net we follow for the whole course: Conv2d + BatchNorm (批归一化) + ReLU.
        - Measure 动态图 PyNative mode against 图模式 graph mode (`GRAPH_MODE`) on this machine.
        - Explain why graph mode wins on Ascend (整图下沉 whole-graph sinking, 算子融合 operator
          fusion, 内存复用 memory reuse).
        """
    ),
    setup(),
    md(
        """
        ## An `nn.Conv2d` · 卷积算子

        A Conv2d slides `out_channels` filters of size `in_channels × k × k` over the input.
        Its weight is a tensor of shape `(out, in, k, k)`; MindSpore's layout is NCHW.
        """
    ),
    code(
        """
        ms.set_seed(0)
        conv = nn.Conv2d(3, 16, kernel_size=3, pad_mode="valid", has_bias=False)
        x_np = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
        y = conv(ms.Tensor(x_np)).asnumpy()
        print("weight", conv.weight.shape, "-> output", y.shape)

        # Output channel 5 at row 7, column 11, by hand: a sum over a 3x3x3 window.
        w = conv.weight.asnumpy()
        by_hand = float((x_np[0, :, 7:10, 11:14] * w[5]).sum())
        print(f"MindSpore {y[0, 5, 7, 11]:.6f}  by hand {by_hand:.6f}")
        """
    ),
    md(
        """
        ## The net we follow · 本课程的网络

        `course_nets.ConvBNReLU` is Conv2d (3→16 channels, 3×3, `same` padding) →
        BatchNorm2d → ReLU. It is small, but it has the pattern every CNN repeats and that
        Ascend's graph engine fuses.
        """
    ),
    code(
        """
        from course_nets import ConvBNReLU

        net = ConvBNReLU()
        net.set_train(False)  # inference: BatchNorm uses its moving statistics
        x = ms.Tensor(np.random.default_rng(1).standard_normal((8, 3, 32, 32)).astype(np.float32))
        print(net)
        for p in net.get_parameters():
            print(f"  {p.name:22} {str(p.shape):16} trainable={p.requires_grad}")
        """
    ),
    md(
        """
        ## PyNative vs graph mode · 动态图 vs 图模式

        In **PyNative** (动态图) each operator runs as Python reaches it: easy to debug, but
        every op pays Python and launch overhead. In **graph mode** (图模式) MindSpore first
        compiles the whole `construct` into a graph, optimises it, then runs it. We time both
        on this machine. The first graph-mode call includes the compile.
        """
    ),
    code(
        """
        def stack_of_blocks(depth):
            return nn.SequentialCell([ConvBNReLU(3 if i == 0 else 16, 16) for i in range(depth)])

        # A small input, so the time is mostly per-op overhead rather than arithmetic.
        xs = ms.Tensor(np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32))
        results = {}
        for name, cell in [("ConvBNReLU", net), ("8 blocks", stack_of_blocks(8))]:
            cell.set_train(False)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            pynative = median_seconds(lambda: cell(xs).asnumpy(), repeat=10, warmup=2)
            ms.set_context(mode=ms.GRAPH_MODE)
            fresh = stack_of_blocks(8) if name == "8 blocks" else ConvBNReLU()
            fresh.set_train(False)
            start = time.perf_counter()
            fresh(xs).asnumpy()
            first = time.perf_counter() - start
            graph = median_seconds(lambda: fresh(xs).asnumpy(), repeat=10, warmup=1)
            results[name] = (pynative, first, graph)
        ms.set_context(mode=ms.PYNATIVE_MODE)

        print(f"{'net':12} {'PyNative':>12} {'graph 1st call':>16} {'graph':>10} {'speed-up':>9}")
        for name, (pyn, first, graph) in results.items():
            print(f"{name:12} {pyn*1e3:10.2f}ms {first*1e3:14.1f}ms {graph*1e3:8.2f}ms {pyn/graph:8.2f}x")
        """
    ),
    md(
        """
        What the numbers say here: the first graph-mode call pays for compilation once; after
        that graph mode saves the per-op Python dispatch, which matters more the more small
        ops a net has. On CPU the kernels themselves are the same in both modes, so the gain
        is modest.

        **Why graph mode wins on Ascend** · 为什么昇腾上图模式更快
        - *整图下沉 whole-graph sinking*: the compiled graph is handed to the device once and
          runs there step after step; the host does not launch each kernel.
        - *算子融合 operator fusion*: Conv+BN+ReLU become one kernel, so intermediate tensors
          never leave the AI Core's buffers (notebook 3).
        - *内存复用 memory reuse*: all tensor offsets are planned at compile time (SOMAS,
          notebook 4) instead of allocated op by op.

        `@ms.jit` on a function gives it the same compile inside PyNative code.
        """
    ),
    *exercise(
        1,
        """
        What output shape does `nn.Conv2d(3, 16, kernel_size=5, stride=2, pad_mode="valid")`
        give for an input of shape `(1, 3, 32, 32)`? (valid: `floor((32 - 5) / 2) + 1`)
        """,
        """
        my_shape = (1, 16, 14, 14)
        """,
        """
        real = nn.Conv2d(3, 16, kernel_size=5, stride=2, pad_mode="valid")(
            ms.Tensor(np.zeros((1, 3, 32, 32), np.float32))).shape
        check(tuple(my_shape) == tuple(real), f"shape {tuple(real)}",
              f"batch and channels are (1, 16); the spatial size is floor(27/2)+1.")
        """,
    ),
    *exercise(
        2,
        """
        How many **trainable** numbers does `ConvBNReLU()` hold? (Conv weight 16×3×3×3,
        no bias; BatchNorm's γ and β per channel; moving mean/variance are not trained.)
        """,
        """
        my_trainable_count = 16 * 3 * 3 * 3 + 16 + 16
        """,
        """
        real = sum(int(np.prod(p.shape)) for p in ConvBNReLU().trainable_params())
        check(my_trainable_count == real, f"{real} trainable numbers",
              "count the conv weight, then gamma and beta of BatchNorm (16 each).")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - A Conv2d is a sum over windows; we checked one value by hand.
        - The course's net is Conv2d → BatchNorm → ReLU.
        - Graph mode (图模式) compiles once, then runs without per-op Python dispatch; the
          measured speed-up on this machine is in the table above. PyNative (动态图) is for
          debugging.
        - On Ascend graph mode also enables whole-graph sinking, fusion and planned memory.

        Next: **2 · Python → MindIR**: what the compile actually does.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["02_python_to_mindir"] = [
    md(
        """
        # 2 · Python → MindIR · 从 Python 到 MindIR

        **Learning goals · 学习目标**
        - Trace (跟踪) the net through MindSpore's compiler with `ascend_lab.trace` and read
          the pass timeline (编译流程) from `bootstrap` to the kernel graph.
        - Say what each stage does (parse, type inference 类型推导, optimisation, kernel
          selection 算子选择, build) and find each node's Python source line.
        - Export a `.mindir` file (MindIR 中间表示), look inside it, load it back and compare
          outputs.
        """
    ),
    setup(
        """
        from course_nets import ConvBNReLU

        net = ConvBNReLU()
        net.set_train(False)
        x = ms.Tensor(np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32))
        """
    ),
    md(
        """
        ## Trace the net · 跟踪编译

        `ascend_lab.trace(net, x)` compiles the net in graph mode with MindSpore's IR dumps
        (`save_graphs`) switched on in a private folder, then parses every dumped pass.
        """
    ),
    code(
        """
        t = ascend_lab.trace(net, x)
        print(t.summary())
        """
    ),
    md(
        """
        ## The pass timeline · 编译流程

        Stages: **frontend** (parse `construct` into MindIR, infer types and shapes, order
        side effects), **optimize** (inlining, constant folding, algebraic rewrites, …),
        **backend** (ops unified for the device, kernel selection, fusion), **build** (the
        final kernel graph and its execution order). Passes that changed the graph:
        """
    ),
    code(
        """
        print("first pass:", t.passes[0].name, "| last pass:", t.passes[len(t.passes) - 1].name)
        for stage, snaps in t.passes.by_stage().items():
            print(f"{stage:9} {len(snaps):3} passes")
        print()
        for s in t.passes:
            if s.changed:
                print(f"{s.index:3} {s.name[:50]:50} {s.node_count or 0:4} nodes  {s.explain}")
        """
    ),
    md(
        """
        Watch the node count: `bootstrap` is the raw parse (a few nodes: calls to the
        cells), type inference expands every cell, the optimiser inlines and simplifies.
        A diff shows exactly what one pass did:
        """
    ),
    code(
        """
        opt_a = [s for s in t.passes if s.name.endswith("_opt_a") and s.changed][0]
        d = t.diff(opt_a.index)
        print(f"{opt_a.name}: +{len(d.added)} nodes, -{len(d.removed)} nodes, {len(d.modified)} changed")
        """
    ),
    md(
        """
        ## The final kernel graph · 最终的算子图

        Each kernel (算子) knows its scope (which cell it came from), its input/output
        dtypes and shapes after kernel selection, and the Python line it came from:
        """
    ),
    code(
        """
        for k in t.graph.kernels:
            out = k.outputs[0] if k.outputs else None
            src = k.source[0] if k.source else "?"
            print(f"{k.op:10} {k.scope or '':24} out {out.shape if out else '?'} "
                  f"{out.device_dtype if out else ''} {out.format if out else ''}")
            print(f"{'':10} from {os.path.basename(src.split(':')[0])}:{src.rsplit(':', 1)[-1]}")
        """
    ),
    md(
        """
        In JupyterLab, the trace itself renders as an interactive graph (the ascend-lab
        viewer); in other front ends it prints its summary:
        """
    ),
    code("t"),
    md(
        """
        `t.show()` opens the interactive viewer as a widget; the `timeline` view has a pass
        slider that replays the compile, with added / removed / changed nodes highlighted:
        """
    ),
    code('t.show(view="timeline")'),
    md(
        """
        The same trace as a magic, for quick looks: `%ascend_trace net x` (add `--fusion`
        for fused kernels); the Trace is kept in `_trace`.
        """
    ),
    code(
        """
        %ascend_trace net x -o t_magic
        print(t_magic.kernel_count == t.kernel_count)
        """
    ),
    md(
        """
        ## Export MindIR · 导出 MindIR

        MindIR is MindSpore's serialised graph (a protobuf). `Trace.export_mindir` calls
        `ms.export(..., file_format="MINDIR")`, parses the file, loads it back with
        `ms.load` + `nn.GraphCell`, and compares the outputs.
        """
    ),
    code(
        """
        path = os.path.join(WORK, "conv_bn_relu.mindir")
        cmp = t.export_mindir(path)
        print(cmp.summary())
        print("outputs match:", cmp.match)
        """
    ),
    md(
        """
        What is inside: the protobuf's nodes refer to primitives (the operators); the weights
        are stored as parameters. `Load`, `UpdateState`, `Depend`, … are bookkeeping nodes
        that order reads and writes of parameters.
        """
    ),
    code(
        """
        from mindspore.train import mind_ir_pb2

        model = mind_ir_pb2.ModelProto()
        with open(path, "rb") as fh:
            model.ParseFromString(fh.read())
        print("producer:", model.producer_name, model.model_version)
        # A node's op_type is "REF::<primitive>:<id>": a reference into model.primitives.
        print("first nodes:", [n.op_type for n in model.graph.node][:4])
        print("primitives:", sorted({p.op_type for p in model.primitives}))
        print("parameters:", [(p.name.split(":")[-1], list(p.dims)) for p in model.graph.parameter])
        BOOKKEEPING = {"Load", "UpdateState", "Depend", "MakeTuple", "TupleGetItem"}
        compute = [n.op for n in cmp.graph.nodes if n.kind == "op" and n.op not in BOOKKEEPING]
        print("compute ops (ascend-lab's parse, bookkeeping hidden):", compute)
        """
    ),
    *exercise(
        1,
        """
        How many kernels does the final kernel graph of `ConvBNReLU` have on this machine?
        (Look at the trace summary.)
        """,
        """
        my_kernel_count = t.kernel_count  # replace with your number, e.g. 3
        """,
        """
        check(my_kernel_count == t.kernel_count,
              f"{t.kernel_count} kernels: {[k.op for k in t.graph.kernels]}",
              "count the kernels in the final kernel graph (t.graph.kernels).")
        """,
    ),
    *exercise(
        2,
        """
        Export the net for a **batch of 4** into `WORK`, load it with `ms.load` +
        `nn.GraphCell`, and run it on a batch of 4. Store the loaded output in `out4`.
        """,
        """
        x4 = ms.Tensor(np.random.default_rng(2).standard_normal((4, 3, 32, 32)).astype(np.float32))
        ms.export(net, x4, file_name=os.path.join(WORK, "batch4"), file_format="MINDIR")
        loaded = nn.GraphCell(ms.load(os.path.join(WORK, "batch4.mindir")))
        out4 = loaded(x4)
        """,
        """
        ref = net(x4).asnumpy()
        check(tuple(out4.shape) == (4, 16, 32, 32) and np.allclose(out4.asnumpy(), ref, atol=1e-5),
              f"loaded graph gives {tuple(out4.shape)}, same values as the net",
              "export with a (4, 3, 32, 32) input and call the GraphCell on that input.")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - `construct` is parsed into MindIR, typed, optimised, lowered to device kernels and
          built into a kernel graph whose order is the execution order.
        - Each kernel keeps its scope and the Python line it came from.
        - A `.mindir` file is the graph plus its weights; `ms.load` + `nn.GraphCell` runs it
          without the Python class — the basis of deployment (notebook 7).

        Next: **3 · Graph compilation**: operator selection and fusion.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["03_graph_compilation"] = [
    md(
        """
        # 3 · Graph compilation · 图编译

        **Learning goals · 学习目标**
        - See operator selection (算子选择): each kernel's device dtype and format (数据格式).
        - Turn on graph-kernel fusion (图算融合 / 算子融合 operator fusion) and compare kernel
          counts and run time before and after, measured here.
        - Know what Ascend's graph engine (GE) does to Conv+BN+ReLU.
        - See what defeats compilation and fusion: Python control flow (控制流) on tensor
          values and changing shapes (动态 shape → recompiles, 重编译).
        """
    ),
    setup(
        """
        from course_nets import LeNet, count_ops

        ms.set_seed(0)
        net = LeNet()
        x = ms.Tensor(np.random.default_rng(0).standard_normal((32, 1, 32, 32)).astype(np.float32))
        """
    ),
    md(
        """
        ## Operator selection · 算子选择

        After type inference each op must be matched with a device kernel that supports its
        dtypes and data format. On Ascend, Conv2D inputs are converted to the 5-D `NC1HWC0`
        format the Cube unit reads and float16 kernels are preferred; on CPU everything stays
        `DefaultFormat` float32. We use LeNet from here on (more ops to fuse).
        """
    ),
    code(
        """
        plain = ascend_lab.trace(net, x)
        for k in plain.graph.kernels:
            ins = ", ".join(f"{t.device_dtype}/{t.format}" for t in k.input_types[:2])
            print(f"{k.op:8} inputs {ins}")
        """
    ),
    md(
        """
        ## Graph-kernel fusion, before and after · 算子融合前后

        `fusion=True` compiles with `enable_graph_kernel` (MindSpore's graph-kernel fusion,
        AKG kernels on CPU). The first fused compile takes several seconds.
        """
    ),
    code(
        """
        fused = ascend_lab.trace(net, x, fusion=True)
        print(fused.summary())
        print()
        print("before:", [k.op for k in fused.before_fusion.kernels])
        print("after: ", [k.op for k in fused.graph.kernels])
        for k in fused.fusion.kernels:
            print(f"  {k.name:28} <- {k.ops}")
        """
    ),
    md(
        """
        Side by side in the viewer: select a fused kernel to see the ops it replaced.
        """
    ),
    code('fused.show(view="compare")'),
    md(
        """
        Now time the net with fusion off and on (graph mode, same input):
        """
    ),
    code(
        """
        ms.set_context(mode=ms.GRAPH_MODE)
        timings = {}
        for flag in (False, True):
            ms.set_context(enable_graph_kernel=flag)
            ms.set_seed(0)
            n = LeNet()
            start = time.perf_counter()
            n(x).asnumpy()
            compile_s = time.perf_counter() - start
            timings[flag] = (compile_s, median_seconds(lambda: n(x).asnumpy(), repeat=10))
        ms.set_context(enable_graph_kernel=False, mode=ms.PYNATIVE_MODE)

        kernels = {False: fused.fusion.kernel_count_before, True: fused.fusion.kernel_count_after}
        print(f"{'fusion':7} {'kernels':>8} {'first call':>11} {'per step':>10}")
        for flag, (c, s) in timings.items():
            print(f"{'on' if flag else 'off':7} {kernels[flag]:8} {c:10.2f}s {s*1e3:8.2f}ms")
        """
    ),
    md(
        """
        Read these numbers honestly: fusion reduced the kernel count, but on this CPU the
        AKG-generated kernels may well be *slower* than MindSpore's hand-written CPU kernels
        (compare the "per step" column). Fusion pays where memory traffic dominates: on an
        NPU each unfused kernel writes its output to HBM and the next reads it back; a fused
        kernel keeps it in the AI Core's on-chip buffer.

        **What Ascend's graph engine does to Conv+BN+ReLU** · 昇腾图引擎的融合
        - In inference, BatchNorm is folded into the convolution's weights and bias
          (`w' = w·γ/σ`, `b' = β − μ·γ/σ`): the BN kernel disappears.
        - The ReLU becomes the Cube unit's fused activation: one `Conv2D` kernel remains.
        - In training, BN cannot be folded (its statistics change); GE splits it into
          reduce and update parts and fuses those with neighbouring element-wise ops.

        The folding is plain algebra; here it is on this machine:
        """
    ),
    code(
        """
        from course_nets import ConvBNReLU

        cbr = ConvBNReLU()
        cbr.set_train(False)
        bn = cbr.bn
        bn.moving_mean.set_data(ms.Tensor(np.linspace(-0.5, 0.5, 16).astype(np.float32)))
        bn.moving_variance.set_data(ms.Tensor(np.linspace(0.5, 2.0, 16).astype(np.float32)))
        xi = ms.Tensor(np.random.default_rng(3).standard_normal((2, 3, 32, 32)).astype(np.float32))

        sigma = np.sqrt(bn.moving_variance.asnumpy() + bn.eps)
        scale = bn.gamma.asnumpy() / sigma
        folded = nn.Conv2d(3, 16, 3, pad_mode="same", has_bias=True)
        folded.weight.set_data(ms.Tensor(cbr.conv.weight.asnumpy() * scale[:, None, None, None]))
        folded.bias.set_data(ms.Tensor(bn.beta.asnumpy() - bn.moving_mean.asnumpy() * scale))
        diff = np.abs(ops.relu(folded(xi)).asnumpy() - cbr(xi).asnumpy()).max()
        print(f"Conv+BN+ReLU (3 kernels) vs folded Conv+ReLU (2 kernels): max |diff| = {diff:.2e}")
        """
    ),
    md(
        """
        ## What defeats compilation · 什么会破坏编译

        **Python control flow on tensor values** (基于张量值的控制流): an `if` on a tensor's
        value cannot be decided at compile time, so the graph is split into several kernel
        graphs with a switch between them; fusion and memory planning work per piece.
        """
    ),
    code(
        """
        class Branchy(nn.Cell):
            # a conv whose next step depends on a tensor's value

            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(1, 4, 3)
                self.relu = nn.ReLU()

            def construct(self, x):
                y = self.conv(x)
                if y.sum() > 0:  # decided at run time, from the data
                    y = self.relu(y)
                else:
                    y = -y
                return y


        branchy = ascend_lab.trace(Branchy(), x)
        straight = plain
        graphs = lambda tr: len([s for s in tr.passes if s.name.startswith("graph_build")])
        print(f"LeNet:   {graphs(straight)} kernel graph(s), {len(straight.passes)} pass dumps")
        print(f"Branchy: {graphs(branchy)} kernel graph(s), {len(branchy.passes)} pass dumps")
        """
    ),
    md(
        """
        **Changing shapes** (动态 shape): graph mode compiles for the shapes it sees. A new
        batch size means a new compile. Declaring a dynamic dimension with `set_inputs`
        compiles once for all batch sizes (on Ascend, at some cost in kernel speed and memory
        planning — notebook 4).
        """
    ),
    code(
        """
        ms.set_context(mode=ms.GRAPH_MODE)
        batches = [8, 16, 24, 8]
        static_net, dynamic_net = LeNet(), LeNet()
        dynamic_net.set_inputs(ms.Tensor(shape=[None, 1, 32, 32], dtype=ms.float32))
        rows = []
        for bs in batches:
            xb = ms.Tensor(np.zeros((bs, 1, 32, 32), np.float32))
            times = []
            for cell in (static_net, dynamic_net):
                start = time.perf_counter()
                cell(xb).asnumpy()
                times.append(time.perf_counter() - start)
            rows.append((bs, *times))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        print(f"{'batch':>5} {'static shapes':>14} {'dynamic batch':>14}")
        for bs, s, d in rows:
            print(f"{bs:5} {s*1e3:12.1f}ms {d*1e3:12.1f}ms")
        """
    ),
    md(
        """
        With static shapes every new batch size pays a compile (the slow rows); batch 8 the
        second time is fast because that graph is cached. The dynamic net compiles once.
        """
    ),
    *exercise(
        1,
        """
        How many kernels did fusion remove from LeNet on this machine?
        (Use `fused.fusion.kernel_count_before` and `kernel_count_after`.)
        """,
        """
        my_kernels_removed = fused.fusion.kernel_count_before - fused.fusion.kernel_count_after
        """,
        """
        removed = fused.fusion.kernel_count_before - fused.fusion.kernel_count_after
        check(my_kernels_removed == removed,
              f"{removed} kernels removed ({fused.fusion.kernel_count_before} -> "
              f"{fused.fusion.kernel_count_after})",
              "count the kernels before and after fusion in the summary above.")
        """,
    ),
    *exercise(
        2,
        """
        Fold a BatchNorm into a convolution yourself: write `fold(conv_w, gamma, beta, mean,
        var, eps)` returning `(w, b)` so that `conv(x, w) + b == BN(conv(x, conv_w))`.
        """,
        """
        def fold(conv_w, gamma, beta, mean, var, eps):
            s = gamma / np.sqrt(var + eps)
            return conv_w * s[:, None, None, None], beta - mean * s
        """,
        """
        w2, b2 = fold(cbr.conv.weight.asnumpy(), bn.gamma.asnumpy(), bn.beta.asnumpy(),
                      bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy(), bn.eps)
        c2 = nn.Conv2d(3, 16, 3, pad_mode="same", has_bias=True)
        c2.weight.set_data(ms.Tensor(w2.astype(np.float32)))
        c2.bias.set_data(ms.Tensor(b2.astype(np.float32)))
        err = np.abs(ops.relu(c2(xi)).asnumpy() - cbr(xi).asnumpy()).max()
        check(err < 1e-4, f"folded conv matches Conv+BN+ReLU (max |diff| {err:.1e})",
              "scale each output channel's weights by gamma/sqrt(var+eps).")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - Operator selection gives each op a device kernel, dtype and format.
        - Fusion (算子融合) cut LeNet's kernel count (table above); on CPU the fused kernels
          are not faster — the win on Ascend is memory traffic saved.
        - GE folds inference BatchNorm into the conv and fuses the ReLU.
        - Tensor-valued `if` splits the graph; new shapes recompile unless declared dynamic.

        Next: **4 · Memory reuse**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["04_memory_reuse"] = [
    md(
        """
        # 4 · Memory reuse · 内存复用

        **Learning goals · 学习目标**
        - Read tensor lifetimes (生命周期) off the kernel graph: when each tensor is written
          and when it is last read.
        - Compare three numbers: no reuse (每个张量独占), a planned arena (规划后的峰值) and
          the lower bound (下界: the most bytes alive at one time), and draw the memory map.
        - Measure how fusion (算子融合) and batch size change the plan, and why static
          shapes (静态 shape) matter for planning.
        """
    ),
    setup(
        """
        from ascend_lab.memory import plan_graph, plot_memory_map, compare_plans, compare_many
        from course_nets import LeNet

        ms.set_seed(0)
        net = LeNet()
        def batch(n):
            return ms.Tensor(np.random.default_rng(n).standard_normal((n, 1, 32, 32)).astype(np.float32))
        """
    ),
    md(
        """
        ## Lifetimes · 张量生命周期

        Each kernel output is a tensor that lives from the step that writes it to the last
        step that reads it. Two tensors whose lifetimes do not overlap can share memory.
        On Ascend, MindSpore's SOMAS plans these offsets at compile time; on CPU MindSpore
        uses a dynamic pool, so ascend-lab plans the same way SOMAS does, from the traced
        kernel graph.
        """
    ),
    code(
        """
        t32 = ascend_lab.trace(net, batch(32))
        plan32 = plan_graph(t32.graph)
        print(f"{'tensor':28} {'op':9} {'bytes':>9} steps")
        for tl in plan32.tensors:
            print(f"{tl.label[:28]:28} {tl.op:9} {tl.size:9} {tl.start}..{tl.end}")
        """
    ),
    md("## The plan · 内存规划"),
    code("print(plan32.summary())"),
    md(
        """
        - **no reuse**: every tensor gets its own block (what a naive allocator would hold).
        - **lower bound**: at the busiest step, the bytes that are alive — no plan can do
          better.
        - **peak arena**: the best of several SOMAS-style heuristics (sort by size, by
          lifetime, …, then best-fit or first-fit).

        The memory map: x = execution step, y = address; each box is one tensor.
        """
    ),
    code(
        """
        import matplotlib.pyplot as plt

        ax = plot_memory_map(plan32, title="LeNet, batch 32")
        plt.show()
        """
    ),
    md("The same map in the interactive viewer, linked to the graph (click a tensor):"),
    code('t32.show(view="memory")'),
    md(
        """
        ## Fusion and batch size · 融合与批大小

        A fused kernel keeps its internal tensors on chip: they disappear from the plan.
        A larger batch scales every activation.
        """
    ),
    code(
        """
        fused32 = ascend_lab.trace(net, batch(32), fusion=True)
        t1 = ascend_lab.trace(net, batch(1))
        t64 = ascend_lab.trace(net, batch(64))
        plans = [plan_graph(t1.graph), plan32, plan_graph(t64.graph), plan_graph(fused32.graph)]
        comparison = compare_many(plans, ["batch 1", "batch 32", "batch 64", "batch 32 fused"])
        print(comparison.text())
        """
    ),
    md(
        """
        ## Why static shapes matter · 为什么需要静态 shape

        With a dynamic batch dimension (`-1`), tensor sizes are unknown at compile time, so
        no offsets can be planned: the runtime falls back to allocating from a dynamic
        pool, step by step.
        """
    ),
    code(
        """
        dyn = LeNet()
        dyn.set_inputs(ms.Tensor(shape=[None, 1, 32, 32], dtype=ms.float32))
        tdyn = ascend_lab.trace(dyn, batch(32))
        pdyn = plan_graph(tdyn.graph)
        print(compare_plans(plan32, pdyn, ("static batch 32", "dynamic batch")).text())
        """
    ),
    *exercise(
        1,
        """
        How many bytes does the output of LeNet's first `Conv2D` take at batch 32?
        (6 channels × 28 × 28 float32 values per sample.)
        """,
        """
        my_conv1_bytes = 32 * 6 * 28 * 28 * 4
        """,
        """
        conv1 = [tl for tl in plan32.tensors if tl.op == "Conv2D"][0]
        check(my_conv1_bytes == conv1.size, f"{conv1.size} bytes ({conv1.label})",
              "batch x channels x height x width x 4 bytes.")
        """,
    ),
    *exercise(
        2,
        """
        By what factor does the planned peak grow from batch 32 to batch 64? Give a number
        with one decimal (compute it from the plans, or predict it).
        """,
        """
        my_growth = round(plans[2].peak / plans[1].peak, 1)
        """,
        """
        real = plans[2].peak / plans[1].peak
        check(abs(my_growth - real) < 0.15, f"x{real:.2f}: activations scale with the batch",
              "activations are proportional to the batch size; weights are persistent.")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - Memory reuse (内存复用) shares memory between tensors whose lifetimes don't overlap;
          the planned peak sits between the lower bound and no-reuse.
        - Fusion removes intermediate tensors from the plan; batch size scales activations.
        - Planning needs static shapes: with `-1` dimensions the plan only covers what is known.
        - On Ascend, compare the plan with `mindspore.runtime.max_memory_allocated()`.

        Next: **5 · Execution on the device**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["05_execution_on_device"] = [
    md(
        """
        # 5 · Execution on the device · 在设备上执行

        **Learning goals · 学习目标**
        - Read the execution order (执行序) of a compiled graph.
        - Profile (性能分析) a net with `mindspore.Profiler` and read its per-op times.
        - Measure two classic traps: `asnumpy()` in the training loop (同步 synchronisation
          every step) and slow Python preprocessing (数据预处理) — before and after the fix.
        """
    ),
    setup(
        """
        import csv, glob
        import mindspore.dataset as ds
        from course_nets import LeNet, synthetic_images

        ms.set_seed(0)
        net = LeNet()
        x = ms.Tensor(np.random.default_rng(0).standard_normal((32, 1, 32, 32)).astype(np.float32))
        """
    ),
    md(
        """
        ## Execution order · 执行序

        The final kernel graph's order is the order the runtime launches kernels. On Ascend
        they are queued on a device stream (流) and run asynchronously to Python.
        """
    ),
    code(
        """
        t = ascend_lab.trace(net, x)
        for step, k in enumerate(t.graph.kernels):
            out = k.outputs[0].shape if k.outputs else ""
            print(f"{step:2} {k.op:9} {k.scope or '':24} -> {out}")
        """
    ),
    md(
        """
        ## The profiler · 性能分析器

        `mindspore.Profiler` records each kernel's time. It writes into a folder we choose
        (the scratch folder). On CPU it writes `cpu_op_type_info_*.csv`; on Ascend the
        per-kernel table is `kernel_details.csv`.
        """
    ),
    code(
        """
        ms.set_context(mode=ms.GRAPH_MODE)
        prof_dir = os.path.join(WORK, "profile")
        net(x).asnumpy()  # compile outside the profile
        profiler = ms.Profiler(output_path=prof_dir)
        for _ in range(10):
            net(x).asnumpy()
        profiler.analyse()
        ms.set_context(mode=ms.PYNATIVE_MODE)

        def read_csv(pattern):
            files = glob.glob(os.path.join(prof_dir, "**", pattern), recursive=True)
            if not files:
                return []
            with open(files[0], newline="") as fh:
                return list(csv.DictReader(fh))

        by_type = read_csv("cpu_op_type_info_*.csv")
        if by_type:
            by_type.sort(key=lambda r: -float(r["total_compute_time"]))
            total = sum(float(r["total_compute_time"]) for r in by_type)
            print(f"{'op type':10} {'calls':>6} {'total ms':>9} {'avg ms':>8} share")
            for r in by_type:
                ms_total = float(r["total_compute_time"])
                print(f"{r['op_type']:10} {r['type_occurrences']:>6} {ms_total:9.2f} "
                      f"{float(r['avg_time(ms)']):8.3f} {ms_total / total:5.1%}")
        else:
            details = read_csv("kernel_details.csv")
            print(f"{len(details)} kernel rows in kernel_details.csv (Ascend)")
        """
    ),
    md(
        """
        Convolutions and matrix multiplies dominate — on Ascend they run on the Cube unit,
        which is why their dtype (float16) and format matter so much.

        ## Trap 1: `asnumpy()` in the loop · 循环中的 asnumpy

        `loss.asnumpy()` copies a tensor to the host **and waits** for every queued kernel.
        Doing it every step stops the device from running ahead of Python. Keep values on
        the device and read them once.
        """
    ),
    code(
        """
        images, labels = synthetic_images(256)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        steps = [(ms.Tensor(images[i:i + 32]), ms.Tensor(labels[i:i + 32])) for i in range(0, 256, 32)]
        forward = lambda a, b: loss_fn(net(a), b)

        def every_step():
            total = 0.0
            for a, b in steps:
                total += float(forward(a, b).asnumpy())
            return total

        def once_at_the_end():
            total = ms.Tensor(0.0, ms.float32)
            for a, b in steps:
                total = total + forward(a, b)
            return float(total.asnumpy())

        t_every = median_seconds(every_step, repeat=5)
        t_once = median_seconds(once_at_the_end, repeat=5)
        print(f"asnumpy every step {t_every*1e3:7.1f} ms   once at the end {t_once*1e3:7.1f} ms  "
              f"(x{t_every / t_once:.2f})")
        print("same total:", np.isclose(every_step(), once_at_the_end(), rtol=1e-5))
        """
    ),
    md(
        """
        (If a "compiled using NumPy 1.x" message appeared above: MindSpore 2.10 on NumPy 2
        prints it from one of its compiled modules; it is a warning, the results are right.)

        On CPU the "device" is the host, so the copy is cheap and the difference small; on
        Ascend each `asnumpy()` is a device→host copy plus a stream synchronisation, and the
        gap grows with the number of steps. `%ascend_doctor` recognises this pattern in code
        (notebook 9).

        ## Trap 2: slow preprocessing · 预处理太慢

        A Python transform that runs per sample, in one worker, makes the device wait.
        Measured: one epoch of forward passes with the transform in 1 worker vs 2 parallel
        workers (`num_parallel_workers`), and with the work done once ahead of time. The
        `time.sleep` stands in for reading and decoding an image file (we have no files:
        synthetic data only).
        """
    ),
    code(
        """
        def slow_augment(img):
            # Stand-in for reading and decoding a JPEG from disk (~3 ms per image) ...
            time.sleep(0.003)
            # ... plus a per-sample transform in Python: a 5x5 box blur with numpy.
            out = np.zeros_like(img)
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    out += np.roll(np.roll(img, dy, axis=1), dx, axis=2)
            return (out / 25.0).astype(np.float32)

        def source():
            for i in range(len(images)):
                yield images[i], np.array(labels[i])  # 0-d array, not a numpy scalar

        def epoch(dataset):
            start = time.perf_counter()
            for a, b in dataset.create_tuple_iterator():
                forward(a, b)
            return time.perf_counter() - start

        def pipeline(workers):
            d = ds.GeneratorDataset(source, ["image", "label"], shuffle=False)
            d = d.map(slow_augment, input_columns=["image"], num_parallel_workers=workers)
            return d.batch(32)

        pre = np.stack([slow_augment(im) for im in images])
        def preprocessed():
            for i in range(len(pre)):
                yield pre[i], np.array(labels[i])

        ahead = lambda: ds.GeneratorDataset(preprocessed, ["image", "label"], shuffle=False).batch(32)
        epoch(ahead())  # warm-up: the first epoch also starts the pipeline machinery
        results = {"1 worker": epoch(pipeline(1)), "2 workers": epoch(pipeline(2)),
                   "preprocessed once": epoch(ahead())}
        for name, s in results.items():
            print(f"{name:18} {s*1e3:8.1f} ms per epoch")
        """
    ),
    *exercise(
        1,
        """
        Rewrite the loss loop so it calls `asnumpy()` only once, and store the total in
        `my_total`. (The self-check compares it with the per-step version.)
        """,
        """
        acc = ms.Tensor(0.0, ms.float32)
        for a, b in steps:
            acc = acc + forward(a, b)
        my_total = float(acc.asnumpy())
        """,
        """
        check(np.isclose(my_total, every_step(), rtol=1e-5), f"total loss {my_total:.4f}",
              "accumulate the loss tensors, call asnumpy() once after the loop.")
        """,
    ),
    *exercise(
        2,
        """
        Which op type took the most total time in the profile? Put its name in
        `my_top_op` (e.g. `"Conv2D"`); read it from the table above.
        """,
        """
        my_top_op = by_type[0]["op_type"] if by_type else "Conv2D"
        """,
        """
        top = by_type[0]["op_type"] if by_type else my_top_op
        check(my_top_op == top, f"{top} took the most time on this machine",
              "sort the op types by total time; the first row is the answer.")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - The kernel graph's order is the execution order; the profiler says where time goes.
        - `asnumpy()` every step synchronises; accumulate on the device, read once.
        - Slow per-sample Python preprocessing starves the device: run it in parallel
          workers or do it once ahead of time (times above).

        Next: **6 · Training with mixed precision**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["06_training_mixed_precision"] = [
    md(
        """
        # 6 · Training with mixed precision · 混合精度训练

        **Learning goals · 学习目标**
        - Build a data pipeline (数据管道): `GeneratorDataset` over NumPy arrays, parallel
          `map`, `batch`, and a MindRecord file; measure its effect on step time.
        - Write a custom training step (训练步) with `value_and_grad` (自动微分).
        - Train with `Model` and `amp_level` O0 / O2 / O3 (混合精度 mixed precision), a loss
          scale (损失缩放), and callbacks (`LossMonitor`, `TimeMonitor`, your own).
        """
    ),
    setup(
        """
        import mindspore.dataset as ds
        from mindspore.train import Model, LossMonitor, TimeMonitor, Callback
        from mindspore.amp import FixedLossScaleManager
        from course_nets import LeNet, synthetic_images

        images, labels = synthetic_images(512, seed=0)
        print("synthetic data:", images.shape, labels.shape, "classes", sorted(set(labels.tolist())))
        """
    ),
    md(
        """
        ## The data pipeline · 数据管道

        `GeneratorDataset` wraps any Python generator. Yield NumPy arrays — for a label use
        a 0-d array `np.array(y)`, not a NumPy scalar (MindSpore 2.10 with NumPy 2 fails on
        scalars with "Unable to avoid copy").
        """
    ),
    code(
        """
        def source():
            for i in range(len(images)):
                yield images[i], np.array(labels[i])

        def normalise(img):
            return ((img - img.mean()) / (img.std() + 1e-6)).astype(np.float32)

        def make_dataset(workers=1, batch_size=32):
            d = ds.GeneratorDataset(source, ["image", "label"], shuffle=True)
            d = d.map(normalise, input_columns=["image"], num_parallel_workers=workers)
            return d.batch(batch_size, drop_remainder=True)

        train_ds = make_dataset(workers=2)
        print("steps per epoch:", train_ds.get_dataset_size())
        """
    ),
    md(
        """
        ## A custom training step · 自定义训练步

        `ms.value_and_grad` turns the forward function into one that also returns gradients
        with respect to the optimizer's parameters.
        """
    ),
    code(
        """
        ms.set_seed(0)
        net = LeNet()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)

        def forward(a, b):
            return loss_fn(net(a), b)

        grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

        def train_step(a, b):
            loss, grads = grad_fn(a, b)
            optimizer(grads)
            return loss

        def accuracy(cell):
            logits = cell(ms.Tensor(np.stack([normalise(im) for im in images]))).asnumpy()
            return float((logits.argmax(axis=1) == labels).mean())

        print(f"accuracy before: {accuracy(net):.2%}")
        history = []
        for ep in range(2):
            start = time.perf_counter()
            losses = [train_step(a, b) for a, b in train_ds.create_tuple_iterator()]
            mean_loss = float(ops.stack(losses).mean().asnumpy())  # one sync per epoch
            history.append(mean_loss)
            print(f"epoch {ep + 1}: mean loss {mean_loss:.4f}  ({time.perf_counter() - start:.2f} s)")
        print(f"accuracy after:  {accuracy(net):.2%}")
        """
    ),
    md(
        """
        ## `Model`, `amp_level` and loss scale · 混合精度级别

        | amp_level | what is cast to float16 |
        |---|---|
        | O0 | nothing (float32) |
        | O1 | a white list of ops (Conv, MatMul, …) |
        | O2 | the whole net except BatchNorm and the loss (a black list stays float32) |
        | O3 | everything |

        float16 gradients can underflow, so the loss is multiplied by a **loss scale**
        (损失缩放) before the backward pass and the gradients divided by it afterwards.
        On CPU, the default dynamic loss scale of O2 does not work: use
        `FixedLossScaleManager(..., drop_overflow_update=False)` and give the optimizer the
        same `loss_scale`. On CPU, Conv2D and MatMul keep float32 kernels with Cast ops
        around them, so O2/O3 show the graph changes but not Ascend's speed-up.
        """
    ),
    code(
        """
        class StepTimes(Callback):
            def __init__(self):
                super().__init__()
                self.times = []

            def on_train_step_begin(self, run_context):
                self._start = time.perf_counter()

            def on_train_step_end(self, run_context):
                self.times.append(time.perf_counter() - self._start)

        amp_results = {}
        for level in ["O0", "O2", "O3"]:
            ms.set_seed(0)
            model_net = LeNet()
            scale = 1.0 if level == "O0" else 1024.0
            opt = nn.Momentum(model_net.trainable_params(), 0.05, 0.9, loss_scale=scale)
            manager = None if level == "O0" else FixedLossScaleManager(scale, drop_overflow_update=False)
            model = Model(model_net, loss_fn, opt, amp_level=level, loss_scale_manager=manager)
            timer = StepTimes()
            print(f"--- amp_level={level}")
            model.train(1, make_dataset(2), callbacks=[LossMonitor(8), TimeMonitor(), timer],
                        dataset_sink_mode=False)
            amp_results[level] = (float(np.median(timer.times[1:])), accuracy(model_net))
        print()
        for level, (step, acc) in amp_results.items():
            print(f"{level}: median step {step*1e3:6.1f} ms, accuracy after 1 epoch {acc:.2%}")
        """
    ),
    md("What O2 did to the graph: Cast ops appear around the float16 parts."),
    code(
        """
        from mindspore import amp

        probe = LeNet()
        x8 = ms.Tensor(images[:8])
        t_o0 = ascend_lab.trace(probe, x8)
        t_o2 = ascend_lab.trace(amp.auto_mixed_precision(LeNet(), "O2"), x8)
        casts = lambda tr: sum(1 for k in tr.graph.kernels if k.op == "Cast")
        print(f"O0: {t_o0.kernel_count} kernels, {casts(t_o0)} Cast")
        print(f"O2: {t_o2.kernel_count} kernels, {casts(t_o2)} Cast")
        """
    ),
    md(
        """
        ## Pipeline effect and MindRecord · 数据管道的影响与 MindRecord

        The same epoch with the `map` in 1 worker, in 2 workers, and read from a MindRecord
        file (MindSpore's own record format: converted once, read without Python code).
        """
    ),
    code(
        """
        from mindspore.mindrecord import FileWriter

        record = os.path.join(WORK, "train.mindrecord")
        writer = FileWriter(record, shard_num=1, overwrite=True)
        writer.add_schema({"image": {"type": "float32", "shape": [1, 32, 32]},
                           "label": {"type": "int32"}}, "synthetic")
        writer.write_raw_data([{"image": normalise(images[i]), "label": int(labels[i])}
                               for i in range(len(images))])
        writer.commit()
        print(f"MindRecord file {os.path.getsize(record) / 2**20:.1f} MiB for "
              f"{images.nbytes / 2**20:.1f} MiB of images (the file is written in fixed-size pages)")

        def epoch_time(dataset):
            start = time.perf_counter()
            for a, b in dataset.create_tuple_iterator():
                train_step(a, b)
            return time.perf_counter() - start

        record_ds = ds.MindDataset(record, columns_list=["image", "label"], shuffle=True)
        record_ds = record_ds.batch(32, drop_remainder=True)
        pipe = {"map, 1 worker": epoch_time(make_dataset(1)),
                "map, 2 workers": epoch_time(make_dataset(2)),
                "MindRecord": epoch_time(record_ds)}
        for name, s in pipe.items():
            print(f"{name:15} {s:6.2f} s per epoch ({s / 16 * 1e3:6.1f} ms per step)")
        """
    ),
    md(
        """
        Read the numbers above for this machine: extra `map` workers only help when there are
        idle cores — on a 2-core machine they compete with the training step itself. A
        MindRecord file moves the Python work to a one-time conversion. On an Ascend server
        (many host cores, the step on the NPU) parallel workers and sinking the data
        (`dataset_sink_mode=True`) keep the device busy.
        """
    ),
    *exercise(
        1,
        """
        How many steps does one epoch have with 512 samples, batch 32 and
        `drop_remainder=True`? And with batch 48?
        """,
        """
        my_steps_32 = 512 // 32
        my_steps_48 = 512 // 48
        """,
        """
        real32 = make_dataset(1, 32).get_dataset_size()
        real48 = make_dataset(1, 48).get_dataset_size()
        check((my_steps_32, my_steps_48) == (real32, real48), f"{real32} and {real48} steps",
              "drop_remainder drops the last partial batch: use integer division.")
        """,
    ),
    *exercise(
        2,
        """
        Did training work? Make `my_loss_went_down` a boolean computed from `history`
        (the mean loss per epoch of the custom loop).
        """,
        """
        my_loss_went_down = history[-1] < history[0]
        """,
        """
        check(my_loss_went_down == (history[-1] < history[0]) and my_loss_went_down,
              f"loss {history[0]:.3f} -> {history[-1]:.3f}",
              "compare the first and last epoch's mean loss.")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - A `GeneratorDataset` + `map` + `batch` pipeline feeds the net; parallel workers and
          MindRecord change the step time (numbers above).
        - `value_and_grad` + an optimizer is a full training step; `Model` wraps the same with
          callbacks.
        - Mixed precision (混合精度) adds Cast ops and needs a loss scale; its speed-up comes
          from Ascend's float16 Cube unit, not from a CPU.

        Next: **7 · Deployment**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["07_deployment"] = [
    md(
        """
        # 7 · Deployment · 部署

        **Learning goals · 学习目标**
        - Save a checkpoint (检查点), export MindIR (导出), load it as a `GraphCell` and check
          it gives the same answers as the Python net.
        - Know the Ascend inference paths: MindSpore Lite (端侧/推理框架) with
          `converter_lite`, Serving (服务化部署), and INT8 quantization (量化) on 310P3-class
          cards — and run the parts that work here.
        """
    ),
    setup(
        """
        from course_nets import LeNet, synthetic_images

        ms.set_seed(0)
        net = LeNet()
        net.set_train(False)
        images, labels = synthetic_images(64, seed=1)
        x = ms.Tensor(images[:1])
        """
    ),
    md(
        """
        ## Checkpoint → MindIR → GraphCell · 检查点 → MindIR → GraphCell

        A checkpoint (`.ckpt`) holds only weights: you need the Python class to use it.
        A MindIR file holds the graph *and* the weights: any MindSpore (or MindSpore Lite)
        can run it without your code.
        """
    ),
    code(
        """
        ckpt = os.path.join(WORK, "lenet.ckpt")
        ms.save_checkpoint(net, ckpt)
        restored = LeNet()
        not_loaded = ms.load_param_into_net(restored, ms.load_checkpoint(ckpt))
        restored.set_train(False)
        print("checkpoint:", os.path.getsize(ckpt), "bytes; parameters not loaded:", not_loaded)

        ms.export(net, x, file_name=os.path.join(WORK, "lenet"), file_format="MINDIR")
        mindir = os.path.join(WORK, "lenet.mindir")
        print("MindIR:", os.path.getsize(mindir), "bytes")

        graph_cell = nn.GraphCell(ms.load(mindir))
        a, b, c = net(x).asnumpy(), restored(x).asnumpy(), graph_cell(x).asnumpy()
        print(f"max |net - checkpoint| = {np.abs(a - b).max():.2e}, "
              f"max |net - GraphCell| = {np.abs(a - c).max():.2e}")
        """
    ),
    md(
        """
        The exported graph has a fixed input shape (batch 1 here). Time the Python net (in
        PyNative) against the loaded graph:
        """
    ),
    code(
        """
        t_net = median_seconds(lambda: net(x).asnumpy(), repeat=20)
        t_graph = median_seconds(lambda: graph_cell(x).asnumpy(), repeat=20)
        print(f"Python net (PyNative) {t_net*1e3:.2f} ms, GraphCell {t_graph*1e3:.2f} ms per call")
        """
    ),
    md(
        """
        ## The Ascend inference path · 昇腾推理路线

        On an inference card such as the **Atlas 300I Duo (310P3)**:
        1. Export MindIR (done above) — or `file_format="AIR"`, which needs CANN.
        2. Convert with **MindSpore Lite**'s `converter_lite --fmk=MINDIR --modelFile=lenet.mindir
           --outputFile=lenet_310p --optimize=ascend_oriented --configFile=ascend.cfg`; the
           config's `[ascend_context]` names the chip, input shapes and precision mode.
        3. For **INT8** (量化), add a `[common_quant_param]` section (`quant_type=FULL_QUANT`)
           and a `[data_preprocess_param]` with calibration data (校准数据): the converter
           measures activation ranges and stores int8 weights with per-channel scales.
        4. Run with MindSpore Lite's `Model.build_from_file(..., ModelType.MINDIR)` on an
           `AscendDeviceInfo`, or serve many requests with **MindSpore Serving** (a gRPC/REST
           server around the same model).

        What runs here: writing the converter config, and checking whether MindSpore Lite
        is installed (it is not on PyPI; Ascend images ship it).
        """
    ),
    code(
        """
        import importlib.util

        config = os.path.join(WORK, "ascend.cfg")
        with open(config, "w") as fh:
            fh.write("[ascend_context]\\n")
            fh.write("input_shape=x:[1,1,32,32]\\n")
            fh.write("precision_mode=enforce_fp16\\n")
            fh.write("\\n[common_quant_param]\\nquant_type=FULL_QUANT\\nbit_num=8\\n")
        print(open(config).read())
        print("mindspore_lite installed:", importlib.util.find_spec("mindspore_lite") is not None)
        """
    ),
    md(
        """
        ## INT8 by hand · 手动 INT8 量化

        What the converter does to each weight, in NumPy: symmetric per-channel quantization
        `q = round(w / s)`, `s = max|w| / 127`, and back `w ≈ q · s`. We quantize every
        Dense and Conv weight of LeNet, run the float net with the dequantized weights and
        compare predictions.
        """
    ),
    code(
        """
        def quantize(w):
            axes = tuple(range(1, w.ndim))
            s = np.abs(w).max(axis=axes, keepdims=True) / 127.0
            s[s == 0] = 1.0
            q = np.clip(np.round(w / s), -127, 127).astype(np.int8)
            return q, s.astype(np.float32)

        int8_net = LeNet()
        ms.load_param_into_net(int8_net, ms.load_checkpoint(ckpt))
        int8_net.set_train(False)
        stored = 0
        for p in int8_net.get_parameters():
            if p.name.endswith("weight"):
                q, s = quantize(p.asnumpy())
                stored += q.nbytes + s.nbytes
                p.set_data(ms.Tensor((q.astype(np.float32) * s).astype(np.float32)))
        xs = ms.Tensor(images)
        ref, deq = net(xs).asnumpy(), int8_net(xs).asnumpy()
        weights_fp32 = sum(p.asnumpy().nbytes for p in net.get_parameters() if p.name.endswith("weight"))
        agree = float((ref.argmax(1) == deq.argmax(1)).mean())
        print(f"weights: {weights_fp32} bytes float32 -> {stored} bytes int8 + scales")
        print(f"max |logit difference| {np.abs(ref - deq).max():.4f}, same prediction on {agree:.0%}")
        """
    ),
    *exercise(
        1,
        """
        Export LeNet for a **batch of 4**, load it as a `GraphCell` and store its output for
        `images[:4]` in `out4`.
        """,
        """
        x4 = ms.Tensor(images[:4])
        ms.export(net, x4, file_name=os.path.join(WORK, "lenet_b4"), file_format="MINDIR")
        out4 = nn.GraphCell(ms.load(os.path.join(WORK, "lenet_b4.mindir")))(x4).asnumpy()
        """,
        """
        check(out4.shape == (4, 10) and np.allclose(out4, net(ms.Tensor(images[:4])).asnumpy(), atol=1e-5),
              "the batch-4 graph gives the net's answers",
              "export with a (4, 1, 32, 32) input, then call the GraphCell on it.")
        """,
    ),
    *exercise(
        2,
        """
        Quantize `w = np.array([0.5, -1.27, 0.02, 1.0])` to int8 with one scale
        `s = max|w| / 127`. Store the int8 values in `my_q` and the scale in `my_s`.
        """,
        """
        w = np.array([0.5, -1.27, 0.02, 1.0], np.float32)
        my_s = float(np.abs(w).max() / 127)
        my_q = np.round(w / my_s).astype(np.int8)
        """,
        """
        w = np.array([0.5, -1.27, 0.02, 1.0], np.float32)
        check(abs(my_s - 0.01) < 1e-6 and list(my_q) == [50, -127, 2, 100]
              and np.abs(my_q * my_s - w).max() <= my_s / 2 + 1e-7,
              f"q = {my_q.tolist()}, s = {my_s:.4f}; error at most s/2",
              "s = 1.27 / 127 = 0.01; q = round(w / s).")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - Checkpoint = weights; MindIR = graph + weights, loadable as `nn.GraphCell`.
        - On 310P3-class cards, MindSpore Lite's converter turns MindIR into an Ascend model,
          optionally INT8 with calibration data; Serving puts it behind an API.
        - INT8 stores weights in a quarter of the bytes; the accuracy cost is measured above.

        Next: **8 · Parallel training**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["08_parallel_training"] = [
    md(
        """
        # 8 · Parallel training · 并行训练

        **Learning goals · 学习目标**
        - Run data parallel (数据并行) training with `msrun`: 2 worker processes here on CPU
          with MindSpore's own collective backend, HCCL (集合通信库) on Ascend.
        - Check that both ranks (卡/进程) end with the same weights, and that they equal one
          process training on the whole batch.
        - Know what model parallel (模型并行), pipeline parallel (流水线并行) and auto
          parallel (自动并行) add.
        """
    ),
    setup(
        """
        import subprocess, shutil
        from course_nets import free_port
        """
    ),
    md(
        """
        ## The training script · 训练脚本

        Data parallel: every rank holds the whole model, gets its own shard of each batch,
        computes gradients, and an **AllReduce** (全归约) averages the gradients across
        ranks before the update. So all ranks apply the same update and stay identical.
        `msrun` starts the processes and a scheduler; `init()` joins the group.
        """
    ),
    code(
        '''
        SCRIPT = r"""
        import os, sys
        import numpy as np
        import mindspore as ms
        from mindspore import nn
        from mindspore.communication import init, get_rank, get_group_size

        if hasattr(ms, "set_device"):  # MindSpore >= 2.5
            ms.set_device(sys.argv[2])
        else:
            ms.set_context(device_target=sys.argv[2])
        ms.set_context(mode=ms.GRAPH_MODE)
        init()  # HCCL on Ascend, MindSpore's own collectives on CPU
        rank, size = get_rank(), get_group_size()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        ms.set_seed(0)  # same initial weights on every rank

        rng = np.random.default_rng(0)
        X = rng.standard_normal((64, 8)).astype(np.float32)
        Y = X @ rng.standard_normal((8, 1)).astype(np.float32)
        Xr, Yr = X[rank::size], Y[rank::size]  # this rank's shard

        net = nn.Dense(8, 1)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
        train.set_train()
        for step in range(20):
            loss = train(ms.Tensor(Xr), ms.Tensor(Yr))
        print(f"rank {rank} of {size}: {len(Xr)} samples per step, final loss {float(loss.asnumpy()):.5f}")
        np.save(os.path.join(sys.argv[1], f"weight_rank{rank}.npy"), net.weight.asnumpy())
        """
        script_path = os.path.join(WORK, "train_dp.py")
        with open(script_path, "w") as fh:
            fh.write(SCRIPT)
        print(script_path)
        '''
    ),
    md(
        """
        ## Run it with msrun · 用 msrun 启动

        `msrun` launches the workers with `python` from `PATH`, so we put this kernel's
        Python first. The command is a list (no shell), with a timeout.
        """
    ),
    code(
        """
        bindir = os.path.dirname(sys.executable)
        msrun = os.path.join(bindir, "msrun") if os.path.exists(os.path.join(bindir, "msrun")) else shutil.which("msrun")
        log_dir = os.path.join(WORK, "msrun_logs")
        cmd = [msrun, "--worker_num=2", "--local_worker_num=2", "--master_addr=127.0.0.1",
               f"--master_port={free_port()}", f"--log_dir={log_dir}", "--join=True",
               script_path, WORK, DEVICE]
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        print(" ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)))
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=WORK, capture_output=True, text=True, timeout=300)
        print(f"exit code {proc.returncode} after {time.perf_counter() - start:.1f} s")
        if proc.returncode != 0:
            print(proc.stdout[-2000:], proc.stderr[-2000:], sep="\\n")
            for name in sorted(os.listdir(log_dir)) if os.path.isdir(log_dir) else []:
                print(f"--- {name}:", open(os.path.join(log_dir, name), errors="replace").read()[-1500:])
            raise RuntimeError("msrun failed: see the output and the worker logs above")
        for rank in range(2):
            with open(os.path.join(log_dir, f"worker_{rank}.log"), errors="replace") as fh:
                print([line for line in fh.read().splitlines() if line.startswith("rank ")])
        """
    ),
    md("## Same weights on both ranks? · 两个 rank 的权重一致吗"),
    code(
        """
        w0 = np.load(os.path.join(WORK, "weight_rank0.npy"))
        w1 = np.load(os.path.join(WORK, "weight_rank1.npy"))
        print("rank 0:", np.round(w0.ravel(), 4))
        print("rank 1:", np.round(w1.ravel(), 4))
        print("max |w0 - w1| =", float(np.abs(w0 - w1).max()))
        """
    ),
    md(
        """
        The two ranks saw different samples (their losses differ), yet their weights are
        identical: the AllReduce made every update the same. With `gradients_mean=True` the
        averaged gradient of two equal shards is the gradient of the whole batch — so one
        process training on all 64 samples should land on the same weights (exercise 2).

        ## Beyond data parallel · 更多并行方式
        - **Model / tensor parallel** (模型并行): split one layer's weight across devices
          (e.g. a MatMul by columns); each device computes part of the output; collectives
          glue the parts. Needed when a layer doesn't fit one device.
        - **Pipeline parallel** (流水线并行): put consecutive layers on different devices
          and stream micro-batches through them to keep all stages busy.
        - **Auto parallel** (自动并行, `parallel_mode="auto_parallel"`): MindSpore searches
          a sharding strategy per operator from a cost model; `semi_auto_parallel` lets you
          annotate some ops with `shard()` and derives the rest.
        - On Ascend, `msrun` (or a rank table file) sets up HCCL across the 8 NPUs of a node
          and across nodes.
        """
    ),
    *exercise(
        1,
        """
        With 64 samples and 2 workers, how many samples does each rank use per step?
        """,
        """
        my_samples_per_rank = 64 // 2
        """,
        """
        lines = open(os.path.join(log_dir, "worker_0.log"), errors="replace").read()
        check(f"{my_samples_per_rank} samples per step" in lines,
              f"{my_samples_per_rank} samples per rank per step (the log says so)",
              "each rank takes every 2nd sample: 64 / 2.")
        """,
    ),
    *exercise(
        2,
        """
        Train the same `nn.Dense(8, 1)` in *this* process on all 64 samples (same seed, same
        20 SGD steps with learning rate 0.1) and store its weight in `my_single_weight`.
        The self-check compares it with the ranks' weights.
        """,
        """
        ms.set_seed(0)
        rng = np.random.default_rng(0)
        X = rng.standard_normal((64, 8)).astype(np.float32)
        Y = X @ rng.standard_normal((8, 1)).astype(np.float32)
        single = nn.Dense(8, 1)
        step = nn.TrainOneStepCell(nn.WithLossCell(single, nn.MSELoss()),
                                   nn.SGD(single.trainable_params(), 0.1))
        for _ in range(20):
            step(ms.Tensor(X), ms.Tensor(Y))
        my_single_weight = single.weight.asnumpy()
        """,
        """
        gap = float(np.abs(my_single_weight - w0).max())
        check(gap < 1e-4, f"one process on the full batch = data parallel (max |diff| {gap:.1e})",
              "same seed, same data, same optimizer and 20 steps on all 64 samples.")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - `msrun` + `init()` + `DATA_PARALLEL` turns a one-device script into data parallel
          training (数据并行); only the launcher and the backend (HCCL) change on Ascend.
        - Gradient averaging keeps ranks identical, and equal to full-batch training.
        - Model, pipeline and auto parallel split the model instead of the data.

        Next: **9 · Troubleshooting and migration**.
        """
    ),
]

# ---------------------------------------------------------------------------------------
NB["09_troubleshooting_and_migration"] = [
    md(
        """
        # 9 · Troubleshooting and migration · 故障排查与迁移

        **Learning goals · 学习目标**
        - Use `%ascend_doctor` (诊断) on real error texts: errors raised here, and log lines
          recorded on Ascend machines.
        - Move a PyTorch model to MindSpore (模型迁移): map weight names (权重名映射), handle
          a LayerNorm without bias, build a RoPE (旋转位置编码) cos/sin cache for prefill
          (预填充) and decode (解码), and add a custom operator (自定义算子).
        """
    ),
    setup(
        """
        import traceback
        from ascend_lab.doctor import diagnose_text
        from course_nets import ConvBNReLU

        def error_text(fn):
            try:
                fn()
            except Exception:
                return traceback.format_exc()
            return ""
        """
    ),
    md(
        """
        ## `%ascend_doctor` on errors raised here · 诊断本机真实报错

        Three mistakes, three real MindSpore errors, three diagnoses. `%ascend_doctor`
        with no argument looks at the last exception; with quoted text it reads that text;
        `diagnose_text` is the same as a function.
        """
    ),
    code(
        """
        broadcast = error_text(lambda: (ms.Tensor(np.ones((2, 3), np.float32))
                                        + ms.Tensor(np.ones((4, 5), np.float32))).asnumpy())

        class TensorIf(nn.Cell):
            def construct(self, a):
                if a > 0:  # a has 2 elements: which one decides?
                    return a
                return -a

        ms.set_context(mode=ms.GRAPH_MODE)
        condition = error_text(lambda: TensorIf()(ms.Tensor(np.ones(2, np.float32))))
        ms.set_context(mode=ms.PYNATIVE_MODE)

        loop_code = '''
        for step, (x, y) in enumerate(dataset.create_tuple_iterator()):
            loss = train_step(x, y)
            losses.append(loss.asnumpy())
        '''
        for name, text in [("broadcast", broadcast), ("tensor if", condition), ("loop", loop_code)]:
            d = diagnose_text(text)
            print(f"{name:10} -> {[(f.id, f.title) for f in d.findings]}")
        """
    ),
    code("diagnose_text(condition)"),
    md(
        """
        Errors that only an Ascend machine produces come as log lines; here one recorded
        from an 8-NPU job whose ranks could not connect (HCCL 建链超时):
        """
    ),
    code(
        """
        %ascend_doctor "EI0006: Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck"
        """
    ),
    md(
        """
        ## From PyTorch: weight names · 权重名映射

        A PyTorch `state_dict` and a MindSpore net name the same tensors differently. For
        Conv+BN+ReLU: `bn.weight → bn.gamma`, `bn.bias → bn.beta`, `bn.running_mean →
        bn.moving_mean`, `bn.running_var → bn.moving_variance`, and
        `bn.num_batches_tracked` has no counterpart. (PyTorch isn't installed here: the
        state dict is NumPy arrays with PyTorch's names and layouts — Conv weights are
        `(out, in, kh, kw)` in both.)
        """
    ),
    code(
        """
        rng = np.random.default_rng(0)
        torch_state = {
            "conv.weight": rng.standard_normal((16, 3, 3, 3)).astype(np.float32),
            "bn.weight": rng.uniform(0.5, 1.5, 16).astype(np.float32),
            "bn.bias": rng.standard_normal(16).astype(np.float32),
            "bn.running_mean": rng.standard_normal(16).astype(np.float32),
            "bn.running_var": rng.uniform(0.5, 2.0, 16).astype(np.float32),
            "bn.num_batches_tracked": np.array(100, np.int64),
        }
        RENAME = {"bn.weight": "bn.gamma", "bn.bias": "bn.beta",
                  "bn.running_mean": "bn.moving_mean", "bn.running_var": "bn.moving_variance"}
        SKIP = {"bn.num_batches_tracked"}

        def convert(state):
            return {RENAME.get(k, k): ms.Parameter(ms.Tensor(v), name=RENAME.get(k, k))
                    for k, v in state.items() if k not in SKIP}

        migrated = ConvBNReLU()
        not_loaded, _ = ms.load_param_into_net(migrated, convert(torch_state))
        print("MindSpore parameters not loaded:", not_loaded)
        print([p.name for p in migrated.get_parameters()])
        """
    ),
    md(
        """
        Check the migrated net against the PyTorch formula, computed in NumPy
        (inference BatchNorm: `(y - mean) / sqrt(var + eps) * weight + bias`; PyTorch's
        default `eps` is 1e-5 like MindSpore's):
        """
    ),
    code(
        """
        def reference(x_np, s, eps=1e-5):
            w = s["conv.weight"]
            pad = np.pad(x_np, ((0, 0), (0, 0), (1, 1), (1, 1)))
            n, _, h, wd = x_np.shape
            y = np.zeros((n, w.shape[0], h, wd), np.float32)
            for i in range(3):
                for j in range(3):
                    y += np.einsum("nchw,oc->nohw", pad[:, :, i:i + h, j:j + wd], w[:, :, i, j])
            c = lambda v: v[None, :, None, None]
            y = (y - c(s["bn.running_mean"])) / np.sqrt(c(s["bn.running_var"]) + eps)
            return np.maximum(y * c(s["bn.weight"]) + c(s["bn.bias"]), 0)

        migrated.set_train(False)
        x_np = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
        gap = np.abs(migrated(ms.Tensor(x_np)).asnumpy() - reference(x_np, torch_state)).max()
        print(f"max |MindSpore - PyTorch formula| = {gap:.2e}")
        """
    ),
    md(
        """
        ## LayerNorm without bias · 无偏置的 LayerNorm

        Many LLMs use `nn.LayerNorm(d, bias=False)` (PyTorch ≥ 2.1). MindSpore's
        `nn.LayerNorm` always has `beta`: set it to zero and freeze it, so it stays zero in
        training and the weight names still map one to one.
        """
    ),
    code(
        """
        d_model = 8
        ln = nn.LayerNorm((d_model,), epsilon=1e-5)
        ln.beta.set_data(ms.Tensor(np.zeros(d_model, np.float32)))
        ln.beta.requires_grad = False
        gamma = rng.uniform(0.5, 1.5, d_model).astype(np.float32)
        ln.gamma.set_data(ms.Tensor(gamma))

        h = rng.standard_normal((3, d_model)).astype(np.float32)
        ref = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5) * gamma
        print(f"max |diff| {np.abs(ln(ms.Tensor(h)).asnumpy() - ref).max():.2e}; "
              f"trainable: {[p.name for p in ln.trainable_params()]}")
        """
    ),
    md(
        """
        ## RoPE with a cos/sin cache · RoPE 的 cos/sin 缓存

        Rotary position embedding rotates each pair of channels by an angle
        `pos · θ_i`, `θ_i = base^(-2i/d)`. Computing cos/sin every step is waste: build a
        cache for all positions once. **Prefill** (预填充) encodes the whole prompt with rows
        `0 … L-1`; **decode** (解码) adds one token at position `L` with row `L` — the same
        numbers, as long as both index the same cache.
        """
    ),
    code(
        """
        def rope_cache(max_len, dim, base=10000.0):
            inv_freq = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
            angles = np.outer(np.arange(max_len), inv_freq)         # (max_len, dim/2)
            angles = np.concatenate([angles, angles], axis=-1)       # (max_len, dim)
            return ms.Tensor(np.cos(angles).astype(np.float32)), ms.Tensor(np.sin(angles).astype(np.float32))

        def rotate_half(t):
            half = t.shape[-1] // 2
            return ops.cat([-t[..., half:], t[..., :half]], axis=-1)

        def apply_rope(q, cos, sin, positions):
            c, s = cos[positions], sin[positions]                   # gather rows of the cache
            return q * c + rotate_half(q) * s

        head_dim, prompt_len = 8, 5
        COS, SIN = rope_cache(64, head_dim)
        q_all = ms.Tensor(rng.standard_normal((prompt_len + 1, head_dim)).astype(np.float32))
        prefill = apply_rope(q_all, COS, SIN, ms.Tensor(np.arange(prompt_len + 1), ms.int32))
        decode = apply_rope(q_all[prompt_len:], COS, SIN, ms.Tensor([prompt_len], ms.int32))
        print("decode == prefill at the same position:",
              np.allclose(decode.asnumpy(), prefill.asnumpy()[prompt_len:], atol=1e-6))
        # a rotation keeps the vector's length
        print("norms kept:", np.allclose(np.linalg.norm(prefill.asnumpy(), axis=-1),
                                         np.linalg.norm(q_all.asnumpy(), axis=-1), atol=1e-5))
        """
    ),
    md(
        """
        ## A custom operator · 自定义算子

        When MindSpore lacks an op, `ops.Custom` adds one. `func_type="pyfunc"` runs Python
        (CPU, for prototyping); on Ascend you write the kernel in Ascend C (`func_type="aot"`)
        or let AKG generate it (`"akg"` / `"hybrid"`). A squared-ReLU, as a pyfunc:
        """
    ),
    code(
        """
        def squared_relu(a):
            return np.square(np.maximum(a, 0)).astype(a.dtype)

        sq_relu = ops.Custom(squared_relu, out_shape=lambda s: s, out_dtype=lambda t: t,
                             func_type="pyfunc")
        v = ms.Tensor(np.array([-2.0, -0.5, 0.0, 1.5, 3.0], np.float32))
        print(sq_relu(v), "vs", ops.square(ops.relu(v)))
        """
    ),
    *exercise(
        1,
        """
        A second PyTorch checkpoint also has `fc.weight` and `fc.bias` for a `Dense` layer.
        Extend `RENAME`/`SKIP` if needed and load it into `Extended` below so that **no**
        MindSpore parameter is left unloaded. (`nn.Dense` names its tensors `weight` and
        `bias`, like PyTorch — and both store the weight as `(out, in)`.)
        """,
        """
        class Extended(nn.Cell):
            def __init__(self):
                super().__init__()
                self.body = ConvBNReLU()
                self.fc = nn.Dense(16, 4)

            def construct(self, a):
                return self.fc(self.body(a).mean(axis=(2, 3)))

        state2 = {("body." + k): v for k, v in torch_state.items()}
        state2["fc.weight"] = rng.standard_normal((4, 16)).astype(np.float32)
        state2["fc.bias"] = np.zeros(4, np.float32)
        my_params = {}
        for k, v in state2.items():
            short = k[len("body."):] if k.startswith("body.") else k
            if short in SKIP:
                continue
            name = ("body." + RENAME.get(short, short)) if k.startswith("body.") else k
            my_params[name] = ms.Parameter(ms.Tensor(v), name=name)
        ext = Extended()
        my_not_loaded, _ = ms.load_param_into_net(ext, my_params)
        """,
        """
        check(my_not_loaded == [] and np.allclose(ext.fc.weight.asnumpy(), state2["fc.weight"]),
              "every parameter loaded, fc weights copied as they are",
              "rename only the BatchNorm tensors; keep fc.* names; skip num_batches_tracked.")
        """,
    ),
    *exercise(
        2,
        """
        Compute the cos/sin row for decode position 7 **without** the cache (straight from
        the formula, `head_dim = 8`, base 10000) and store it in `my_cos7`, `my_sin7`.
        """,
        """
        inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
        ang = np.concatenate([7 * inv, 7 * inv])
        my_cos7, my_sin7 = np.cos(ang), np.sin(ang)
        """,
        """
        check(np.allclose(my_cos7, COS.asnumpy()[7], atol=1e-6)
              and np.allclose(my_sin7, SIN.asnumpy()[7], atol=1e-6),
              "row 7 of the cache is what decode at position 7 uses",
              "angle_i = 7 * 10000^(-2i/8) for i = 0..3, repeated twice.")
        """,
    ),
    md(
        """
        ## Summary · 小结
        - `%ascend_doctor` turns an error text into a cause and a fix; CPU errors and Ascend
          log lines alike.
        - Migration (迁移) is mostly naming: map BatchNorm's four tensors, skip
          `num_batches_tracked`; verify against the original formula.
        - LayerNorm without bias = zero, frozen `beta`.
        - A RoPE cache serves prefill and decode with the same rows.
        - `ops.Custom` adds an operator (pyfunc here; Ascend C or AKG on the NPU).

        That is the course: one Conv2d from Python to the device, and on to training,
        deployment and scale. 祝学习顺利!
        """
    ),
]


# ---------------------------------------------------------------------------------------
def build(name: str, cells: Sequence[Cell]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, text, tags) in enumerate(cells):
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(text)
        else:
            cell = nbformat.v4.new_code_cell(text)
        cell["id"] = f"{name[:2]}-{i:02d}"
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def render(name: str) -> str:
    return nbformat.writes(build(name, NB[name])) + "\n"


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a notebook is stale")
    parser.add_argument("--out", default=NOTEBOOKS, help="folder to write into")
    args = parser.parse_args(argv)
    stale = []
    for name in sorted(NB):
        path = os.path.join(args.out, name + ".ipynb")
        text = render(name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as fh:
                    if fh.read() != text:
                        stale.append(path)
            except OSError:
                stale.append(path)
            continue
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        print("wrote", path)
    if stale:
        print("stale (run scripts/make_notebooks.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

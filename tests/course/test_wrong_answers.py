"""Every exercise's check, proven against wrong answers (issue #39).

One table: for each of the course's exercises, the context its notebook passes (built as the
notebook builds it, or from the recorded files it reads), the right answer (the exercise's
own solution where it can run here), and at least three plausible wrong answers, each one a
mistake a learner makes. Every wrong answer must get ✗ and the right one ✓.

No context leaves a parameter at a value that hides a mistake: the BatchNorm the fold is
checked on has gamma, beta and mean away from 1 and 0 (the check sets them itself, so the
notebook's fresh BatchNorm cannot hide them either), the ranks' weight differs from the
initial one, the moving variance is not the default ones, the host work is not 0.

A check that cannot tell right from wrong is a defect, like a test that cannot fail: this
file fails when any exercise lacks its table, or when a table has fewer than three wrongs.
"""

import os
import re
from types import SimpleNamespace as NS

import numpy as np
import pytest

from ascend_lab.exercises import EXERCISES, ____, exercises
from ascend_lab.parsers.npu_smi import parse_info
from benchmarks.support.nbrun import NOTEBOOKS
from tests.course.test_exercises import QUANT_OK, _step_times

NPU_SMI = os.path.join(NOTEBOOKS, "data", "npu_smi_info_910b3_x8.txt")
DATA = os.path.join(NOTEBOOKS, "data")
MIN_WRONG = 3


def verdict(q, answer, context):
    return q.verdict(answer, lang="en", **context)


def solved(q, **names):
    """Run exercise ``q``'s solution code with ``names`` defined; returns its namespace."""
    ns = dict(names)
    exec(q.solution_code, ns)  # noqa: S102 - the course's own solution text
    return ns


# -- contexts the notebooks pass -----------------------------------------------------------
def _info():
    with open(NPU_SMI, encoding="utf-8") as fh:
        return parse_info(fh.read())


# Each case: (context, right answer, {why: wrong answer}). Pure cases need no MindSpore.
def case_00_1(tmp_path):
    info = _info()
    busy = max((p for p in info.processes if p.memory_mb), key=lambda p: p.memory_mb)
    chip = next(c for c in info.chips if c.npu == busy.npu)
    other = next(c.npu for c in info.chips if c.npu != busy.npu)
    return (
        dict(info=info),
        (busy.npu, busy.memory_mb),
        {
            "the first NPU of the table": (0 if busy.npu else 1, busy.memory_mb),
            "the chip's HBM total, not the process's": (busy.npu, chip.hbm_total_mb),
            "another NPU": (other, busy.memory_mb),
            "the process id as the NPU": (busy.pid % 8 if busy.pid % 8 != busy.npu else 7, 0),
        },
    )


def case_00_2(tmp_path):
    info = _info()
    busy = {p.npu for p in info.processes}
    free = [c.npu for c in info.chips if c.npu not in busy][-2:]
    a, b = free
    one_busy = sorted(busy)[0]
    return (
        dict(info=info),
        (f"{a},{b}", 1),
        {
            "the physical id as device_id": (f"{a},{b}", b),
            "a busy NPU listed": (f"{one_busy},{a}", 1),
            "one NPU only": (str(a), 0),
            "an NPU the server does not have": (f"{a},99", 1),
            "counted from 1": (f"{a},{b}", 2),
        },
    )


def case_01_1(tmp_path):
    return (
        {},
        (1, 16, 14, 14),
        {
            "forgot the stride": (1, 16, 28, 28),
            "same padding": (1, 16, 16, 16),
            "channels first, batch second": (16, 1, 14, 14),
            "the input's channels": (1, 3, 14, 14),
            "rounded up": (1, 16, 15, 15),
        },
    )


def case_05_1(tmp_path):
    rows = [
        {"op_type": "Conv2D", "total_compute_time": "30.0"},
        {"op_type": "BatchNorm", "total_compute_time": "6.0"},
        {"op_type": "ReLU", "total_compute_time": "4.0"},
    ]
    return (
        dict(rows=rows),
        0.75,
        {
            "a percentage, not a fraction": 75,
            "left one op type out": 30.0 / 36.0,
            "a ratio to the other ops": 30.0 / 10.0,
            "the share of op types": 1 / 3,
        },
    )


def case_05_2(tmp_path):
    # the judgement over a measured profile: 2 calls x 3 kernels per profiled step
    kernels = [NS(op="Conv2D"), NS(op="BatchNorm"), NS(op="ReLU")]
    measured = NS(steps=[NS(launches=6), NS(launches=6), NS(launches=6)])
    return (
        dict(measured=measured, kernels=kernels),
        6,
        {
            "one call": 3,
            "batch 64 launches twice as many": 9,
            "one launch too many (the copy of the input)": 7,
            "four calls": 12,
        },
    )


def case_05b_2(tmp_path):
    before = NS(steps=_step_times(30.0, 50.0))  # 40 ms of gap before the change
    after = NS(steps=_step_times(236.0, 250.0))  # measured after 8 x 25 ms of host work
    context = dict(before=before, after=after, host_ms=25, batches=8)
    right = solved(exercises("05b")[1], base_gap_ms=40.0, steps=[None] * 8, HOST_MS=25)
    return (
        context,
        right["my_gap_ms"],
        {
            "host work hidden": 40.0,
            "one wait per step": 65.0,
            "the gap before left out": 200.0,
            "one batch too few": 215.0,
            "one batch too many": 265.0,
            "seconds, not milliseconds": 0.24,
        },
    )


def case_06_1(tmp_path):
    return (
        dict(n=512, batch=48),
        (10, 11),
        {
            "both floored": (10, 10),
            "both rounded up": (11, 11),
            "the fraction": (10, 512 / 48),
            "swapped": (11, 10),
        },
    )


def case_06_2(tmp_path):
    candidates = [1e-3, 1e-5, 1e-7, 3e-8, 1e-8, 1e-9]
    vanishing = [v for v in candidates if np.float16(v) == 0]
    return (
        dict(candidates=candidates),
        vanishing,
        {
            "only the smallest": [1e-9],
            "1e-7 thought to vanish": [1e-7] + vanishing,
            "one of them left out": vanishing[1:],
            "every candidate": list(candidates),
        },
    )


def case_07_1(tmp_path):
    calib = tmp_path / "calibration" / "x"
    calib.mkdir(parents=True)
    for i in range(8):
        np.zeros((1, 1, 32, 32), np.float32).tofile(str(calib / f"{i}.bin"))
    good = QUANT_OK.replace("/data/calibration/x", str(calib))
    wrongs = {
        "bit_num 16 (full quantization is 8 bits)": good.replace("bit_num=8", "bit_num=16"),
        "an activation method converter_lite does not know": good.replace(
            "activation_quant_method=MAX_MIN", "activation_quant_method=MINMAX"
        ),
        "bias_correction not a boolean": good.replace(
            "bias_correction=true", "bias_correction=yes"
        ),
        "bias_correction missing": good.replace("bias_correction=true\n", ""),
        "no [ascend_context]": good.replace("[ascend_context]\ninput_shape=x:[1,1,32,32]\n", ""),
        "the input named input": good.replace("input_shape=x:", "input_shape=input:").replace(
            "calibrate_path=x:", "calibrate_path=input:"
        ),
        "weight quantization only": good.replace("FULL_QUANT", "WEIGHT_QUANT"),
        "quantized for the CPU": good.replace("target_device=ASCEND", "target_device=CPU"),
        "no calibration data": good.split("[data_preprocess_param]")[0],
        "zero calibration inputs": good.replace("calibrate_size=8", "calibrate_size=0"),
    }
    paths = {}
    for i, (why, text) in enumerate(wrongs.items()):
        path = tmp_path / f"wrong{i}.cfg"
        path.write_text(text)
        paths[why] = str(path)
    right = tmp_path / "ascend.cfg"
    right.write_text(good)
    return dict(calib_dir=str(calib)), str(right), paths


def case_07_2(tmp_path):
    float_file, int8_file = tmp_path / "lenet.mindir", tmp_path / "lenet_q.mindir"
    float_file.write_bytes(b"\0" * 248_000)
    int8_file.write_bytes(b"\0" * 248_100)  # q * s kept as float32: about the same size
    size = 248_100
    return (
        dict(float_file=str(float_file), int8_file=str(int8_file)),
        size,
        {
            "one byte per weight": size // 4,
            "a quarter plus the graph": size // 4 + 4_000,
            "half: float16": size // 2,
            "twice: both copies": 2 * size,
        },
    )


def case_07_3(tmp_path):
    # the sizes 07's cell measured on MindSpore 2.10: LeNet exported with float32 parameters
    # (257,652 bytes) and again after set_dtype(float16) (134,494 bytes); 61,684 parameters
    float_file, half_file = tmp_path / "lenet.mindir", tmp_path / "lenet_fp16.mindir"
    float_file.write_bytes(b"\0" * 257_652)
    half_file.write_bytes(b"\0" * 134_494)
    params = [NS(size=61_684)]
    right = solved(
        exercises("07")[2], os=os, mindir=str(float_file), net=NS(get_parameters=lambda: params)
    )["my_fp16_bytes"]
    return (
        dict(float_file=str(float_file), fp16_file=str(half_file)),
        right,
        {
            "nothing changes": 257_652,
            "half the file": 257_652 // 2,
            "a quarter: int8": 257_652 // 4,
            "four bytes less per parameter": 257_652 - 4 * 61_684,
            "one byte less per parameter": 257_652 - 61_684,
        },
    )


def case_08_1(tmp_path):
    return (
        dict(n=64, workers=3),
        [22, 21, 21],
        {
            "64 // 3 each": [21, 21, 21],
            "the remainder on the last rank": [21, 21, 22],
            "rounded up each": [22, 22, 22],
            "two ranks": [32, 32],
        },
    )


def case_08_2(tmp_path):
    rng = np.random.default_rng(8)
    initial = rng.standard_normal((1, 8)).astype(np.float32)
    trained = initial - 0.05 * rng.standard_normal((1, 8)).astype(np.float32)
    return (
        dict(rank_weight=trained),
        trained + 1e-6,
        {
            "the initial weight (no step taken)": initial,
            "half the steps": initial + 0.5 * (trained - initial),
            "the gradient summed, not averaged, over 2 ranks": initial + 2 * (trained - initial),
            "transposed": trained.T,
        },
    )


def case_09_2(tmp_path):
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    half = 7 * inv
    right = (np.cos(np.concatenate([half, half])), np.sin(np.concatenate([half, half])))
    inter = np.repeat(half, 2)
    six = np.concatenate([6 * inv, 6 * inv])
    no_two = 7 * 10000.0 ** (-np.arange(0, 4) / 8)
    no_two = np.concatenate([no_two, no_two])
    return (
        dict(position=7, head_dim=8, base=10000.0),
        right,
        {
            "interleaved layout": (np.cos(inter), np.sin(inter)),
            "position counted from 1": (np.cos(six), np.sin(six)),
            "exponent i/d instead of 2i/d": (np.cos(no_two), np.sin(no_two)),
            "half the channels": (np.cos(half), np.sin(half)),
            "cos and sin swapped": right[::-1],
        },
    )


def case_09_3(tmp_path):
    return (
        dict(m_torch=0.01),
        0.99,
        {
            "copied from PyTorch": 0.01,
            "the default 0.9": 0.9,
            "1 - 0.1": 0.09,
            "no update": 1.0,
        },
    )


def case_10_1(tmp_path):
    # no list starts at 0 and device_id is not 0: each mistake lands on a different NPU
    return (
        dict(container="4,5,6,7", visible="2,3", device_id=1),
        7,
        {
            "device_id taken as the physical NPU": 1,
            "the logical id, the container forgotten": 3,
            "ASCEND_RT_VISIBLE_DEVICES ignored": 5,
            "device_id counted from 1": 6,
            "the container's first NPU": 4,
            "ASCEND_RT_VISIBLE_DEVICES taken as physical ids": 3,
            "a word": "NPU seven",
        },
    )


def case_10_2(tmp_path):
    with open(
        os.path.join(DATA, "errors", "ms_docs_ei0005_count_mismatch.txt"), encoding="utf-8"
    ) as fh:
        text = fh.read()
    return (
        dict(text=text, code="EI0005"),
        "HCCL",
        {"the runtime (EE)": "Runtime", "the graph engine": "GE", "AI CPU": "AICPU"},
    )


def case_10_3(tmp_path):
    import csv

    from ascend_lab.profiling import load_profile

    profile = load_profile(os.path.join(DATA, "recorded_profile"), net_name="recorded")
    kernels = os.path.join(DATA, "recorded_profile", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv")
    with open(kernels, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    aicpu = [r for r in rows if r["Accelerator Core"] == "AI_CPU"]
    right = solved(exercises("10")[2], recorded=profile)["my_aicpu_type"]
    other = next(r["Type"] for r in rows if r["Accelerator Core"] == "AI_CORE")
    return (
        dict(profile=profile),
        right,
        {
            "the kernel's Name, not its Type": aicpu[0]["Name"],
            "the slowest kernel's type": profile.kernels[0].op_type,
            "an AI Core op type": other,
            "the core's name": "AI_CPU",
        },
    )


# -- contexts that need MindSpore: a real net, trace and plan ---------------------------------
def course_nets():
    from tests.course.test_exercises import course_nets as load

    return load()


def _x(n, seed=None):
    import mindspore as ms

    rng = np.random.default_rng(n if seed is None else seed)
    return ms.Tensor(rng.standard_normal((n, 3, 32, 32)).astype(np.float32))


def _cbr():
    import mindspore as ms

    ms.set_seed(0)
    net = course_nets().ConvBNReLU()
    net.set_train(False)
    return net


def case_01_2(tmp_path):
    return (
        dict(net=_cbr()),
        16 * 27 + 2 * 16,
        {
            "conv weight only": 16 * 27,
            "moving statistics counted": 16 * 27 + 4 * 16,
            "gamma only": 16 * 27 + 16,
            "a conv bias counted": 16 * 27 + 3 * 16,
        },
    )


def case_02_1(tmp_path):
    x = _x(1, seed=0)
    right = solved(exercises("02")[0])["my_dynamic_shape"]
    return (
        dict(make_net=course_nets().ConvBNReLU, x=x),
        right,
        {
            "the static shape": (1, 16, 32, 32),
            "everything unknown": (-1, -1, -1, -1),
            "valid padding": (-1, 16, 30, 30),
            "the input's channels": (-1, 3, 32, 32),
            "three dimensions": (16, 32, 32),
        },
    )


def case_02_2(tmp_path):
    net = _cbr()
    params = sum(p.asnumpy().nbytes for p in net.get_parameters())
    trainable = sum(p.asnumpy().nbytes for p in net.trainable_params())
    count = sum(p.asnumpy().size for p in net.get_parameters())
    return (
        dict(net=net),
        params,
        {
            "trainable parameters only": trainable,
            "numbers, not bytes": count,
            "two bytes each": 2 * count,
            "eight bytes each": 8 * count,
        },
    )


def case_03_1(tmp_path):
    net = _cbr()
    q = exercises("03")[0]
    right = solved(q)["my_fusion"]
    kernels, fused = right
    return (
        dict(net=net, x=_x(2, seed=1)),
        right,
        {
            "everything in one kernel": (1, {"Conv2D", "BatchNorm", "ReLU"}),
            "BN into the conv": (kernels - 1, {"BatchNorm"}),
            "nothing fuses, the count right": (kernels, set()),
            "the conv too": (kernels, set(fused) | {"Conv2D"}),
            "more kernels than before": (kernels + 1, set(fused)),
        },
    )


def case_03_2(tmp_path):
    batches = [8, 16, 24, 8]
    right = solved(exercises("03")[1], batches=batches)["my_compiles"]
    return (
        dict(batches=batches, make_net=course_nets().ConvBNReLU),
        right,
        {
            "the cached batch counted again": (4, 1),
            "dynamic compiles per shape too": (3, 3),
            "static compiles once": (1, 1),
            "dynamic never compiles": (3, 0),
        },
    )


def _fold_like(scale_of, bias_of):
    def fold(conv_w, gamma, beta, mean, var, eps):
        s = scale_of(gamma, var, eps)
        return conv_w * s[:, None, None, None], bias_of(beta, mean, s)

    return fold


def case_03_3(tmp_path):
    import mindspore as ms

    # the notebook's BatchNorm is fresh: gamma 1, beta 0, mean 0 and variance 1, values
    # that hide a fold which drops them. The check must not be fooled by them.
    net = _cbr()
    x = ms.Tensor(np.random.default_rng(3).standard_normal((2, 3, 32, 32)).astype(np.float32))

    def scale(g, v, e):
        return g / np.sqrt(v + e)

    def bias(b, m, s):
        return b - m * s

    def identity(conv_w, gamma, beta, mean, var, eps):
        return conv_w, np.zeros(conv_w.shape[0], np.float32)

    return (
        dict(cbr=net, x=x),
        solved(exercises("03")[2], np=np)["fold"],
        {
            "no square root": _fold_like(lambda g, v, e: g / (v + e), bias),
            "no eps": _fold_like(lambda g, v, e: g / np.sqrt(v), bias),
            "eps outside the root": _fold_like(lambda g, v, e: g / (np.sqrt(v) + e), bias),
            "gamma dropped": _fold_like(lambda g, v, e: 1 / np.sqrt(v + e), bias),
            "beta dropped": _fold_like(scale, lambda b, m, s: -m * s),
            "mean dropped": _fold_like(scale, lambda b, m, s: b + 0 * m),
            "mean not scaled": _fold_like(scale, lambda b, m, s: b - m),
            "the sign of the mean": _fold_like(scale, lambda b, m, s: b + m * s),
            "gamma and beta dropped": _fold_like(
                lambda g, v, e: 1 / np.sqrt(v + e), lambda b, m, s: -m * s
            ),
            "the identity": identity,
        },
    )


# -- the change -> predict -> measure experiments added for issue #39 --------------------------
def case_01_3(tmp_path):
    from mindspore import nn

    conv_bn_relu = course_nets().ConvBNReLU

    def stack_of_blocks(depth):
        return nn.SequentialCell([conv_bn_relu(3 if i == 0 else 16, 16) for i in range(depth)])

    depth = 5  # not the notebook's 8 blocks: an answer for 8 is wrong here
    right = solved(exercises("01")[2], DEPTH=depth)["my_kernels"]
    return (
        dict(make_stack=stack_of_blocks, depth=depth, x=_x(1, seed=2)[:, :, :16, :16]),
        right,
        {
            "the 8 blocks of the timing cell": 3 * 8,
            "one kernel per block": depth,
            "the whole stack one kernel": 1,
            "a conv bias counted (4 per block)": 4 * depth,
            "one block too few": 3 * (depth - 1),
        },
    )


def loop_net():
    """Notebook 02's Loop: ConvBNReLU, then ``y * 0.5 + 1.0`` a Python-constant number of
    times."""
    from mindspore import nn

    conv_bn_relu = course_nets().ConvBNReLU

    class Loop(nn.Cell):
        def __init__(self, repeats=3):
            super().__init__()
            self.block = conv_bn_relu()
            self.repeats = repeats

        def construct(self, x):
            y = self.block(x)
            for _ in range(self.repeats):
                y = y * 0.5 + 1.0
            return y

    return Loop


def case_02_3(tmp_path):
    repeats = 5
    right = solved(exercises("02")[2], REPEATS=repeats)["my_loop_kernels"]
    return (
        dict(make_net=loop_net(), repeats=repeats, x=_x(1, seed=0)),
        right,
        {
            "the default 3 turns": 3 + 2 * 3,
            "one kernel per turn": 3 + repeats,
            "the loop as one kernel": 3 + 1,
            "the block alone": 3,
            "one turn too few": 3 + 2 * (repeats - 1),
        },
    )


def _chain_net(name):
    import mindspore as ms

    ms.set_seed(0)
    net = getattr(course_nets(), name)()
    net.set_train(False)
    return net


def case_03_4(tmp_path):
    import mindspore as ms

    # batch 48, not the notebook's 64: an answer worked out for batch 64 is wrong here
    x_chain = ms.Tensor(np.random.default_rng(4).standard_normal((48, 256)).astype(np.float32))
    block = 48 * 256 * 4
    right = solved(exercises("03")[3], x_chain=x_chain)["my_chain"]
    return (
        dict(net=_chain_net("ResidualGeLU"), x=x_chain),
        right,
        {
            "nothing fuses": (6, 0),
            "the MatMul fused too": (1, 4 * block),
            "the block's output counted": (2, 5 * block),
            "elements, not bytes": (2, 4 * 48 * 256),
            "one tensor saved": (2, block),
            "worked out for batch 64": (2, 4 * 64 * 256 * 4),
            "every op a kernel of its own, bytes right": (6, 4 * block),
        },
    )


def case_03_5(tmp_path):
    import mindspore as ms

    x_chain = ms.Tensor(np.random.default_rng(5).standard_normal((48, 256)).astype(np.float32))
    right = solved(exercises("03")[4])["my_ln_kernels"]
    return (
        dict(net=_chain_net("ResidualLayerNorm"), x=x_chain),
        right,
        {
            "the whole chain one kernel, as in exercise 4": 2,
            "nothing fuses": 12,
            "the reductions fused too": 4,
            "everything one kernel": 1,
            "fusion adds a kernel": 13,
        },
    )


def case_06_4(tmp_path):
    rng = np.random.default_rng(6)
    grads = [rng.normal(0, 0.01, (6, 1, 5, 5)), rng.normal(0, 0.001, (10, 84))]
    grads[1][3, 7] = -0.37  # the largest |gradient|: 65504 / 0.37 = 177,037 -> 2**17
    right = solved(exercises("06")[3], np=np, grads=grads)["my_scale_k"]
    smallest = min(float(np.abs(g[g != 0]).min()) for g in grads)
    return (
        dict(grads=grads),
        right,
        {
            "one power too far": right + 1,
            "one power too cautious": right - 1,
            "DynamicLossScaleManager's start, 2**24": 24,
            "the notebook's fixed scale, 1024": 10,
            "worked out for |g| = 1": 15,
            "from the smallest gradient": int(np.floor(np.log2(65504 / smallest))),
            "float32's range": 127,
        },
    )


@pytest.fixture(scope="module")
def plans():
    """Notebook 04's plans: ConvBNReLU at batch 32, the skip net, and plan_at(n)."""
    import ascend_lab
    from ascend_lab.memory import plan_graph

    net = _cbr()
    at = {}

    def plan_at(n):
        if n not in at:
            at[n] = plan_graph(ascend_lab.trace(net, _x(n), progress=False).graph)
        return at[n]

    class Skip(course_nets().ConvBNReLU):
        def construct(self, x):
            c = self.conv(x)
            return self.relu(self.bn(c)) + c

    skip = Skip()
    skip.set_train(False)
    plan_skip = plan_graph(ascend_lab.trace(skip, _x(32), progress=False).graph)
    return NS(plan32=plan_at(32), plan_at=plan_at, plan_skip=plan_skip, net=net)


def case_04_1(tmp_path, plans):
    conv = [t for t in plans.plan32.tensors if t.op == "Conv2D"][0]
    return (
        dict(plan=plans.plan32, batch=32, new_batch=48),
        48 * 16 * 32 * 32 * 4,
        {
            "batch 32's": conv.nbytes,
            "elements, not bytes": 48 * 16 * 32 * 32,
            "two bytes each": 48 * 16 * 32 * 32 * 2,
            "the input's channels": 48 * 3 * 32 * 32 * 4,
        },
    )


def case_04_2(tmp_path, plans):
    low = plans.plan32.lower_bound
    return (
        dict(plan_at=plans.plan_at, new_batch=16),
        solved(exercises("04")[1], plan32=plans.plan32)["my_lower_bound_16"],
        {
            "batch 32's": low,
            "doubled instead of halved": 2 * low,
            "a quarter": low // 4,
            "scaled from batch 48, not 32": low // 3,
        },
    )


def case_04_3(tmp_path, plans):
    block = [t for t in plans.plan_skip.tensors if t.op == "Conv2D"][0].nbytes
    return (
        dict(before=plans.plan32, after=plans.plan_skip),
        solved(exercises("04")[2], plan32=plans.plan32)["my_skip_peak"],
        {
            "the plan before the change": plans.plan32.peak,
            "the Add's output counted": 4 * block,
            "one block": block,
            "the input too": 3 * block + 32 * 3 * 32 * 32 * 4,
        },
    )


def case_04_4(tmp_path, plans):
    import mindspore as ms

    # the check traces the net itself on the larger images; 64 x 64 at batch 32
    x64 = ms.Tensor(np.random.default_rng(8).standard_normal((32, 3, 64, 64)).astype(np.float32))
    peak = plans.plan32.peak
    return (
        dict(net=plans.net, before=plans.plan32, x=x64),
        solved(exercises("04")[3], plan32=plans.plan32)["my_peak_64px"],
        {
            "the plan before the change": peak,
            "twice: one side doubled": 2 * peak,
            "the area squared": 16 * peak,
            "the lower bound at 32 x 32": plans.plan32.lower_bound,
            "8 times: height, width and batch": 8 * peak,
        },
    )


def case_05b_1(tmp_path):
    import mindspore as ms

    from tests.course.test_exercises import _four_steps

    steps, forward = _four_steps()

    def every_step(steps):
        return sum(float(forward(a, b).asnumpy()) for a, b in steps)

    def floats(steps):
        return sum(float(forward(a, b)) for a, b in steps)

    def items(steps):
        return sum(forward(a, b).item() for a, b in steps)

    def first_only(steps):
        a, b = steps[0]
        return float(forward(a, b).asnumpy())

    def last_only(steps):
        acc = None
        for a, b in steps:
            acc = forward(a, b)
        return float(acc.asnumpy())

    return (
        dict(steps=steps, forward=forward),
        solved(exercises("05b")[0], ms=ms, forward=forward)["total_loss"],
        {
            "read every step (asnumpy)": every_step,
            "read every step (float)": floats,
            "read every step (item)": items,
            "the first step only": first_only,
            "the last step only": last_only,
        },
    )


def case_06_3(tmp_path):
    from tests.course.test_numerics_exercise import NOTEBOOKS as NB
    from tests.course.test_numerics_exercise import notebook_cell, run_cell

    ns = run_cell(notebook_cell(NB, "class SensorNet"))
    net, x = ns["sensor_net"], ns["readings"]
    right = solved(exercises("06")[2], ascend_lab=ns["ascend_lab"], sensor_net=net, readings=x)
    return (
        dict(net=net, x=x),
        right["my_layer"],
        {
            "the first layer": "embed",
            "the last layer": "head",
            "the Cell's class": "BatchNorm1d",
            "a name the net does not have": "bn",
        },
    )


def case_09_1(tmp_path):
    import mindspore as ms
    from mindspore import nn

    ConvBNReLU = course_nets().ConvBNReLU  # noqa: N806 - a class

    class Extended(nn.Cell):
        def __init__(self):
            super().__init__()
            self.body = ConvBNReLU()
            self.fc = nn.Dense(16, 4)

    rng = np.random.default_rng(0)
    state = {
        "body.bn.running_var": rng.uniform(0.5, 2, 16).astype(np.float32),
        "fc.weight": rng.standard_normal((4, 16)).astype(np.float32),
    }

    def loaded(fc, var):
        ext = Extended()
        ext.fc.weight.set_data(ms.Tensor(fc))
        ext.body.bn.moving_variance.set_data(ms.Tensor(var))
        return ext

    right = loaded(state["fc.weight"], state["body.bn.running_var"])
    transposed = loaded(state["fc.weight"].T.copy().reshape(4, 16), state["body.bn.running_var"])
    var_left = loaded(state["fc.weight"], np.ones(16, np.float32))  # the default, not loaded
    return (
        dict(ext=right, state=state),
        [],
        {
            "a parameter not loaded": ["body.bn.gamma"],
            "every BatchNorm name": ["body.bn.gamma", "body.bn.beta"],
            "fc transposed on the way": ([], dict(ext=transposed, state=state)),
            "running_var left at its default": ([], dict(ext=var_left, state=state)),
        },
    )


def _gelu_port_case(tmp_path):
    """09b's port and reference, built as the notebook builds them: the port uses GELU where
    the original (the reference outputs) used ReLU; its weight and epsilon are right."""
    import mindspore as ms
    from mindspore import nn

    rng = np.random.default_rng(9)
    d_in, d_out = 16, 4
    w1 = (rng.standard_normal((d_in, d_in)) / 4).astype(np.float32)
    b1 = (rng.standard_normal(d_in) * 1e-3).astype(np.float32)
    g = rng.uniform(0.5, 1.5, d_in).astype(np.float32)
    w2 = (rng.standard_normal((d_out, d_in)) / 4).astype(np.float32)
    x = (rng.standard_normal((8, d_in)) * 1e-3).astype(np.float32)
    h1 = x @ w1.T + b1
    norm = (h1 - h1.mean(-1, keepdims=True)) / np.sqrt(h1.var(-1, keepdims=True) + 1e-5) * g
    act = np.maximum(norm, 0)
    ref = {"fc1": h1, "norm": norm, "act": act, "fc2": act @ w2.T, "(net)": act @ w2.T}
    path = str(tmp_path / "reference.npz")
    np.savez(path, **{k: v.astype(np.float32) for k, v in ref.items()})

    class Port(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(d_in, d_in)
            self.norm = nn.LayerNorm((d_in,), epsilon=1e-5)
            self.act = nn.GELU()
            self.fc2 = nn.Dense(d_in, d_out)

        def construct(self, a):
            return self.fc2(self.act(self.norm(self.fc1(a))))

    port = Port()
    for param, value in [
        (port.fc1.weight, w1),
        (port.fc1.bias, b1),
        (port.norm.gamma, g),
        (port.norm.beta, np.zeros(d_in, np.float32)),
        (port.fc2.weight, w2),
        (port.fc2.bias, np.zeros(d_out, np.float32)),
    ]:
        param.set_data(ms.Tensor(value))
    return dict(port=port, reference=path, x=x)


def case_09b_1(tmp_path):
    return (
        _gelu_port_case(tmp_path),
        "act",
        {
            "the layer before, which still agrees": "norm",
            "the first layer": "fc1",
            "the layer after, which only inherits the error": "fc2",
            "the net's output": "(net)",
            "the Cell's class": "GELU",
        },
    )


def element_if_cells():
    """Cells for 09b.2: the right one and the mistakes a learner makes."""
    from mindspore import nn, ops

    class ElementIf(nn.Cell):
        def construct(self, a):
            return ops.select(a > 0, a, -a)

    class TensorIf(nn.Cell):  # the notebook's error, unchanged
        def construct(self, a):
            if a > 0:
                return a
            return -a

    class AllIf(nn.Cell):  # the doctor's first fix: one scalar decides for every element
        def construct(self, a):
            if (a > 0).all():
                return a
            return -a

    class Swapped(nn.Cell):
        def construct(self, a):
            return ops.select(a > 0, -a, a)

    class Relu(nn.Cell):
        def construct(self, a):
            return ops.relu(a)

    return ElementIf, {
        "a Python if on the tensor": TensorIf,
        "if (a > 0).all(): one branch for every element": AllIf,
        "the branches swapped": Swapped,
        "ReLU (drops the negative side)": Relu,
    }


def case_09b_2(tmp_path):
    right, wrongs = element_if_cells()
    return ({}, right, wrongs)


PURE = {
    "00.1": case_00_1,
    "00.2": case_00_2,
    "01.1": case_01_1,
    "05.1": case_05_1,
    "05.2": case_05_2,
    "05b.2": case_05b_2,
    "06.1": case_06_1,
    "06.2": case_06_2,
    "07.1": case_07_1,
    "07.2": case_07_2,
    "07.3": case_07_3,
    "08.1": case_08_1,
    "08.2": case_08_2,
    "09.2": case_09_2,
    "09.3": case_09_3,
    "10.1": case_10_1,
    "10.2": case_10_2,
    "10.3": case_10_3,
}
WITH_MINDSPORE = {
    "01.2": case_01_2,
    "01.3": case_01_3,
    "02.1": case_02_1,
    "02.2": case_02_2,
    "02.3": case_02_3,
    "03.1": case_03_1,
    "03.2": case_03_2,
    "03.3": case_03_3,
    "03.4": case_03_4,
    "03.5": case_03_5,
    "05b.1": case_05b_1,
    "06.3": case_06_3,
    "06.4": case_06_4,
    "09.1": case_09_1,
    "09b.1": case_09b_1,
    "09b.2": case_09b_2,
}
WITH_PLANS = {"04.1": case_04_1, "04.2": case_04_2, "04.3": case_04_3, "04.4": case_04_4}


def _exercise(key):
    notebook, number = key.split(".")
    return exercises(notebook)[int(number) - 1]


def _check_table(key, built):
    context, right, wrongs = built
    q = _exercise(key)
    assert len(wrongs) >= MIN_WRONG, f"{key}: {len(wrongs)} wrong answers"
    assert q.verdict(____, **context)[0] == "open"
    kind, message = verdict(q, right, context)
    assert kind == "right", f"{key}: the right answer got {kind}: {message}"
    accepted = []
    for why, answer in wrongs.items():
        ctx = context
        if isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[1], dict):
            answer, ctx = answer  # a wrong state of the world, with the answer that fits it
        kind, message = verdict(q, answer, ctx)
        if kind != "wrong":
            accepted.append(f"{why}: {kind} ({message})")
        elif key in BOTH_LANGUAGES:
            _in_chinese(q, answer, ctx, "wrong")
    assert not accepted, f"{key} accepts wrong answers: " + "; ".join(accepted)
    if key in BOTH_LANGUAGES:
        _in_chinese(q, right, context, "right")


# The #39 experiments (their checks measure with MindSpore, so test_exercise_language's pure
# cases leave them out): every verdict of their tables is also given in Chinese.
BOTH_LANGUAGES = {"01.3", "02.3", "03.4", "03.5", "04.4", "06.4", "07.3"}


def _in_chinese(q, answer, context, want):
    kind, message = q.verdict(answer, lang="zh", **context)
    assert kind == want, (q.notebook, q.number, message)
    assert re.search(r"[\u4e00-\u9fff]", message), (q.notebook, q.number, message)


def test_every_exercise_has_a_wrong_answer_table():
    every = {f"{nb}.{q.number}" for nb, qs in EXERCISES.items() for q in qs}
    tables = set(PURE) | set(WITH_MINDSPORE) | set(WITH_PLANS)
    assert tables == every, (sorted(every - tables), sorted(tables - every))


@pytest.mark.parametrize("key", sorted(PURE))
def test_pure_check_rejects_every_wrong_answer(key, tmp_path):
    _check_table(key, PURE[key](tmp_path))


@pytest.mark.mindspore
@pytest.mark.parametrize("key", sorted(WITH_MINDSPORE))
def test_check_rejects_every_wrong_answer(key, tmp_path):
    _check_table(key, WITH_MINDSPORE[key](tmp_path))


@pytest.mark.mindspore
@pytest.mark.parametrize("key", sorted(WITH_PLANS))
def test_memory_check_rejects_every_wrong_answer(key, tmp_path, plans):
    _check_table(key, WITH_PLANS[key](tmp_path, plans))

"""The checks of notebook 01 (one Conv2d).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

import math
from typing import Any

from ascend_lab.exercises.core import Exercise, Result, Text
from ascend_lab.exercises.measure import kernel_count, measured_once

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _conv_shape(shape: Any) -> Result:
    side = math.floor((32 - 5) / 2) + 1
    want = (1, 16, side, side)
    got = tuple(int(v) for v in shape)
    if got[:2] != want[:2]:
        return False, T(
            "the first two numbers are the batch (1) and out_channels (16)",
            "前两个数是 batch 大小（1）和 out_channels（16）",
        )
    if got != want:
        return False, T(
            "valid padding: floor((32 - 5) / 2) + 1 per side",
            "valid 填充：每边 floor((32 - 5) / 2) + 1",
        )
    return True, T(
        f"{want}: with valid padding the 5x5 window fits {side} times per side",
        f"{want}：valid 填充下，5x5 窗口每边能放 {side} 次",
    )


def _trainable_count(count: Any, net: Any) -> Result:
    want = 0
    for p in net.trainable_params():
        size = 1
        for dim in p.shape:
            size *= int(dim)
        want += size
    if int(count) != want:
        return (
            False,
            T(
                "count the conv weight, then BatchNorm's gamma and beta "
                "(not its moving statistics)",
                "先数卷积权重，再数 BatchNorm 的 gamma 和 beta（不算它的滑动统计量）",
            ),
        )
    return True, T(
        f"{want} trainable numbers; moving_mean and moving_variance are state, not trained",
        f"共 {want} 个可训练的数；moving_mean 和 moving_variance 是状态，不参与训练",
    )


def _stack_kernels(count: Any, make_stack: Any, depth: int, x: Any) -> Result:
    """01.3: the kernels graph mode compiles ``make_stack(depth)`` into, measured by a trace."""

    depth = int(depth)
    want = measured_once("01.3", kernel_count, make_stack, x, values=(depth,))
    per_block = want // depth
    if int(count) == want:
        return True, T(
            f"measured: {want} kernels for {depth} blocks, {per_block} per block; "
            "graph mode launches each one without a Python dispatch",
            f"实测：{depth} 个块共 {want} 个算子，每块 {per_block} 个；"
            "图模式执行每个算子时都不经过 Python 分发",
        )
    if int(count) in (depth, 1):
        return False, T(
            "a block is not one kernel: Conv2d, BatchNorm and ReLU are each compiled to "
            "their own kernel (no fusion here)",
            "一个块不是一个算子：Conv2d、BatchNorm、ReLU 各自编译成一个算子（这里没有融合）",
        )
    return False, T(
        f"count the kernels of one ConvBNReLU, then multiply by the depth you chose ({depth})",
        f"先数一个 ConvBNReLU 有几个算子，再乘以你选的深度（{depth}）",
    )


EXERCISES = (
    Exercise(
        "01",
        1,
        _conv_shape,
        T(
            "Output side = floor((in - kernel) / stride) + 1 for valid padding.",
            "valid 填充时，输出边长 = floor((n - k) / s) + 1，"
            "其中 n 是输入边长，k 是卷积核边长，s 是步长。",
        ),
        "my_shape = (1, 16, 14, 14)",
    ),
    Exercise(
        "01",
        2,
        _trainable_count,
        T(
            "Conv weight 16x3x3x3 (no bias), then gamma and beta: 16 each.",
            "卷积权重 16x3x3x3（无偏置），再加 gamma 和 beta：各 16 个。",
        ),
        "my_trainable_count = 16 * 3 * 3 * 3 + 16 + 16",
    ),
    Exercise(
        "01",
        3,
        _stack_kernels,
        T(
            "One ConvBNReLU compiles to Conv2D, BatchNorm and ReLU; the stack repeats it.",
            "一个 ConvBNReLU 编译成 Conv2D、BatchNorm、ReLU 三个算子；堆叠就是重复它。",
        ),
        "my_kernels = 3 * DEPTH",
    ),
)

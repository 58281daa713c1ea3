"""The checks of notebook 02 (Python -> MindIR).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any, Tuple

from ascend_lab.exercises.core import Exercise, Result, Text
from ascend_lab.exercises.measure import kernel_count, measured_once, traced

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _shape_of(value: Any) -> Tuple[int, ...]:
    """A predicted shape as ints; ``None`` (unknown) is written -1, as the kernel graph does."""
    return tuple(-1 if v is None else int(v) for v in value)


def _dynamic_batch_shape(shape: Any, make_net: Any, x: Any) -> Result:
    import mindspore as ms

    guess = _shape_of(shape)

    def conv_shape(make_net: Any, x: Any) -> Tuple[int, ...]:
        cell = make_net()
        cell.set_train(False)
        cell.set_inputs(ms.Tensor(shape=[None, *x.shape[1:]], dtype=x.dtype))
        conv = [k for k in traced(cell, x).graph.kernels if k.op == "Conv2D"][0]
        return tuple(int(v) for v in conv.outputs[0].shape)

    measured = measured_once("02.1", conv_shape, make_net, x)
    static = tuple(x.shape[0] if v == -1 else v for v in measured)
    if guess == measured:
        return True, T(
            f"measured: Conv2D's output in the kernel graph is {measured}; -1 is the batch "
            "you declared None, every other dimension is still inferred",
            f"实测：算子图中 Conv2D 的输出是 {measured}；-1 就是声明为 None 的 batch 维，"
            "其余各维仍由类型推导算出",
        )
    if len(guess) != len(measured):
        return False, T(
            f"Conv2D's output has {len(measured)} dimensions (N, C, H, W)",
            f"Conv2D 的输出有 {len(measured)} 个维度（N、C、H、W）",
        )
    if guess == static:
        return False, T(
            "that is the static shape printed above: with None in set_inputs the compiler "
            "no longer knows the batch",
            "这是上面打印的静态 shape：set_inputs 中写了 None，编译器就不再知道 batch 大小",
        )
    if all(v == -1 for v in guess):
        return False, T(
            "only the dimension declared None is unknown: type inference still works out "
            "the channels, height and width",
            "只有声明为 None 的维度是未知的：通道数、高和宽仍可由类型推导算出",
        )
    return False, T(
        "Conv2d keeps the channels it was built with, and pad_mode='same' keeps H and W",
        "Conv2d 的输出通道数由构造参数决定，pad_mode='same' 保持 H 和 W 不变",
    )


def _mindir_weight_bytes(nbytes: Any, net: Any) -> Result:
    want = sum(int(p.asnumpy().nbytes) for p in net.get_parameters())
    trainable = sum(int(p.asnumpy().nbytes) for p in net.trainable_params())
    if int(nbytes) == trainable != want:
        return False, T(
            "the file also stores BatchNorm's moving statistics (every parameter)",
            "文件里还保存了 BatchNorm 的滑动统计量（所有参数都要算）",
        )
    if int(nbytes) != want:
        return False, T(
            "sum over the parameters: product of dims x 4 bytes (float32)",
            "对所有参数求和：各维度之积 x 4 字节（float32）",
        )
    return True, T(
        f"{want} bytes of parameters: the MindIR file carries the weights with the graph",
        f"参数共 {want} 字节：MindIR 文件把权重和图一起保存",
    )


def _unrolled(count: Any, make_net: Any, repeats: int, x: Any) -> Result:
    """02.3: kernels of the net whose ``construct`` loops ``repeats`` times (a Python ``for``
    over a constant range: unrolled at compile time), measured by a trace."""

    want = measured_once("02.3", kernel_count, make_net, x, values=(int(repeats),))
    got = int(count)
    if got == want:
        return True, T(
            f"measured: {want} kernels; the loop was unrolled into {repeats} copies of its "
            "body at compile time: no loop is left in the graph",
            f"实测：{want} 个算子；编译时循环被展开成 {repeats} 份循环体：图里不再有循环",
        )
    if got < want:
        return False, T(
            "a Python for over a constant range is unrolled: every iteration's ops are in "
            "the graph, each as its own kernel",
            "对常量 range 的 Python for 循环会被展开：每次迭代的算子都在图里，各自是一个算子",
        )
    return False, T(
        "count the kernels of one iteration (y * 0.5 + 1.0) and of the block before the loop",
        "数一数一次迭代（y * 0.5 + 1.0）和循环前的块各有几个算子",
    )


EXERCISES = (
    Exercise(
        "02",
        1,
        _dynamic_batch_shape,
        T(
            "Type inference still runs: it works out every dimension it can from "
            "what it knows. What does it know about the batch now?",
            "类型推导照样进行：凡是能从已知信息推出的维度它都会算出来。"
            "现在它对 batch 维知道些什么？",
        ),
        "my_dynamic_shape = (-1, 16, 32, 32)  # -1: the batch declared None",
    ),
    Exercise(
        "02",
        2,
        _mindir_weight_bytes,
        T(
            "Sum the products of the parameters' dims, times 4 bytes.",
            "把每个参数各维度的乘积相加，再乘以 4 字节。",
        ),
        "my_weight_bytes = sum(int(np.prod(p.dims)) * 4 for p in model.graph.parameter)",
    ),
    Exercise(
        "02",
        3,
        _unrolled,
        T(
            "The loop runs at compile time: each iteration adds its Mul and Add to the graph.",
            "循环在编译时执行：每次迭代都往图里加入自己的 Mul 和 Add。",
        ),
        "my_loop_kernels = 3 + 2 * REPEATS  # Conv2D, BatchNorm, ReLU, then Mul + Add per turn",
    ),
)

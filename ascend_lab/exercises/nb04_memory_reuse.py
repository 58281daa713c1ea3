"""The checks of notebook 04 (memory reuse).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any

from ascend_lab.exercises.core import Exercise, Result, Text
from ascend_lab.exercises.measure import measured_once, traced

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _conv_bytes_at(nbytes: Any, plan: Any, batch: int, new_batch: int) -> Result:
    conv = [t for t in plan.tensors if t.op == "Conv2D"][0]
    want = conv.nbytes * new_batch // batch
    if int(nbytes) == conv.nbytes:
        return False, T(
            f"that is batch {batch}; activations scale with the batch",
            f"这是 batch 大小 {batch} 的值；激活随 batch 大小按比例变化",
        )
    if int(nbytes) != want:
        return False, T(
            "batch x channels x height x width x 4 bytes (float32)",
            "batch 大小 x 通道数 x 高 x 宽 x 4 字节（float32）",
        )
    return True, T(
        f"{want} bytes: {new_batch}/{batch} of the traced {conv.nbytes}",
        f"{want} 字节：跟踪得到的 {conv.nbytes} 的 {new_batch}/{batch}",
    )


def _lower_bound_at(nbytes: Any, plan_at: Any, new_batch: int) -> Result:
    want = int(plan_at(new_batch).lower_bound)
    if abs(int(nbytes) - want) > 0.02 * want:
        return False, T(
            "every tensor here is an activation: the lower bound scales with the batch",
            "这里每个张量都是激活：下界随 batch 大小按比例变化",
        )
    return True, T(
        f"lower bound at batch {new_batch}: {want} bytes (traced to check)",
        f"batch 大小 {new_batch} 时的下界：{want} 字节（已跟踪核对）",
    )


def _conv_block(plan: Any) -> int:
    """Bytes of the Conv2D output in ``plan`` (the block the experiment counts in)."""
    return int([t for t in plan.tensors if t.op == "Conv2D"][0].nbytes)


def _skip_peak(nbytes: Any, before: Any, after: Any) -> Result:
    """04.3: the planned peak after the change (a skip connection), from the measured plan."""
    want, was = int(after.peak), int(before.peak)
    block = _conv_block(after)
    got = float(nbytes)
    blocks = want / block

    def near(value: float) -> bool:
        return abs(got - value) <= 0.02 * max(value, 1.0)

    if near(want):
        return True, T(
            f"planned peak {want} bytes = {blocks:.1f} Conv2D outputs (was {was}): the "
            "Conv2D output now lives until the Add, so while ReLU runs three tensors are alive",
            f"规划峰值 {want} 字节 = {blocks:.1f} 个 Conv2D 输出（原来是 {was}）：Conv2D 的输出"
            "现在要活到 Add，所以 ReLU 执行时有三个张量同时存活",
        )
    if near(was):
        return False, T(
            "that is the plan without the skip: the Add reads the Conv2D output after ReLU, "
            "so that tensor now lives longer",
            "这是没有跳连时的规划：Add 在 ReLU 之后还要读 Conv2D 的输出，这个张量活得更久了",
        )
    if got > want:
        return False, T(
            "count only the tensors alive at the same step; the Add's result is the graph's "
            "output, returned to the caller and kept outside the arena",
            "只数同一步里同时存活的张量；Add 的结果是图的输出，要返回给调用者，不参与规划",
        )
    return False, T(
        "at the ReLU step, which tensors are still to be read later? each is "
        f"{block} bytes (one Conv2D output)",
        f"在 ReLU 那一步，哪些张量之后还要被读？每个都是 {block} 字节（一个 Conv2D 输出）",
    )


def _larger_images(nbytes: Any, net: Any, before: Any, x: Any) -> Result:
    """04.4: the planned peak for larger images, from a trace of ``net`` on ``x`` (measured)."""
    from ascend_lab.analysis.planner import plan_graph

    def peak(net: Any, x: Any) -> int:
        return int(plan_graph(traced(net, x).graph).peak)

    want, was = measured_once("04.4", peak, net, x), int(before.peak)
    got = float(nbytes)

    def near(value: float) -> bool:
        return abs(got - value) <= 0.02 * max(value, 1.0)

    if near(want):
        return True, T(
            f"measured: planned peak {want} bytes at {tuple(x.shape)} (was {was}, "
            f"x{want / was:.2f}): every activation grows with height x width",
            f"实测：输入 {tuple(x.shape)} 时规划峰值 {want} 字节（原来 {was}，"
            f"x{want / was:.2f}）：每个激活都随高 x 宽增长",
        )
    if near(was):
        return False, T(
            "the plan changes: each activation holds height x width values per channel",
            "规划会变：每个激活在每个通道上都有高 x 宽个值",
        )
    if near(2 * was):
        return False, T(
            "both the height and the width grow: the area is what counts",
            "高和宽都变大了：要看的是面积",
        )
    return False, T(
        "the same tensors are alive at the peak; scale each one by the new area over the old",
        "峰值时存活的还是那些张量；把每个都按新面积与旧面积之比放大",
    )


EXERCISES = (
    Exercise(
        "04",
        1,
        _conv_bytes_at,
        T(
            "48 x 16 x 32 x 32 x 4 bytes, or the traced size x 48/32.",
            "48 x 16 x 32 x 32 x 4 字节，或者跟踪得到的大小 x 48/32。",
        ),
        "my_conv_bytes_48 = 48 * 16 * 32 * 32 * 4",
    ),
    Exercise(
        "04",
        2,
        _lower_bound_at,
        T(
            "All of ConvBNReLU's tensors scale with the batch.",
            "ConvBNReLU 的所有张量都随 batch 大小按比例变化。",
        ),
        "my_lower_bound_16 = plan32.lower_bound // 2",
    ),
    Exercise(
        "04",
        3,
        _skip_peak,
        T(
            "The Add runs last and reads the Conv2D output: list the tensors alive "
            "while ReLU runs. The returned output is not in the arena.",
            "Add 最后执行，它要读 Conv2D 的输出：列出 ReLU 执行时还活着的张量。"
            "返回的输出不参与规划。",
        ),
        "# Conv2D output, BatchNorm output and ReLU output, all alive at the ReLU step\n"
        'conv_bytes = [tl for tl in plan32.tensors if tl.op == "Conv2D"][0].nbytes\n'
        "my_skip_peak = 3 * conv_bytes",
    ),
    Exercise(
        "04",
        4,
        _larger_images,
        T(
            "The plan keeps its shape: only each tensor's size changes, by the ratio of the "
            "image areas.",
            "规划的形状不变：只有每个张量的大小变了，按图像面积之比变化。",
        ),
        "my_peak_64px = plan32.peak * (64 * 64) // (32 * 32)",
    ),
)

"""The checks of notebook 06 (training with mixed precision).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any, Sequence

from ascend_lab.exercises.core import Exercise, Result, Text
from ascend_lab.exercises.measure import measured_once

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _steps(pair: Any, n: int, batch: int) -> Result:
    drop, keep = (int(v) for v in pair)
    if drop != n // batch:
        return False, T(
            "drop_remainder=True drops the last partial batch: integer division",
            "drop_remainder=True 丢弃最后不满的一批：整除",
        )
    if keep != -(-n // batch):
        return False, T(
            "drop_remainder=False keeps the last, smaller batch: round up",
            "drop_remainder=False 保留最后较小的一批：向上取整",
        )
    return True, T(
        f"{drop} steps (drop the remainder) and {keep} (keep it)",
        f"{drop} 步（丢弃余数）和 {keep} 步（保留余数）",
    )


def _underflow(values: Any, candidates: Sequence[float]) -> Result:
    import numpy as np

    got = sorted(float(v) for v in values)
    want = sorted(v for v in candidates if np.float16(v) == 0)
    saved = sorted(v for v in want if np.float16(v * 1024) != 0)
    if got != want:
        return False, T(
            "try np.float16(v) for each value: which ones become 0.0?",
            "对每个值试试 np.float16(v)：哪些变成了 0.0？",
        )
    return True, T(
        f"{want} vanish in float16; with a loss scale of 1024, {saved} survive",
        f"{want} 在 float16 中变为 0；损失缩放为 1024 时，{saved} 得以保留",
    )


def _o3_layer(name: Any, net: Any, x: Any) -> Result:
    """The Cell where ``net`` under O3 first parts ways with itself in float32, measured here."""
    from ascend_lab.numerics import compare_numerics

    result = measured_once("06.3", lambda n, t: compare_numerics(n, t, amp="O3"), net, x)
    first = result.first_divergence
    if first is None:
        return False, T(
            "under O3 this net shows no divergence: there is no layer to find",
            "在 O3 下这个网络没有出现偏离：没有要找的层",
        )
    answer = str(name).strip()
    if answer in (first.path, first.label, first.scope_a):
        return True, T(
            f"{first.label} ({first.op_type_a}) breaks first under O3: rel err {first.max_rel:.2g}"
            f" while its inputs still agree ({first.input_rel:.2g})",
            f"{first.label}（{first.op_type_a}）在 O3 下最先出错：相对误差 {first.max_rel:.2g}，"
            f"而它的输入仍然一致（{first.input_rel:.2g}）",
        )
    by_label = {p.label: p for p in result.pairs}
    if answer in by_label:
        pair = by_label[answer]
        if pair.a.index < first.pair.a.index:
            return False, T(
                f"{answer} still agrees under O3 (rel err {pair.max_rel:.2g}):"
                " the break comes later",
                f"{answer} 在 O3 下仍然一致（相对误差 {pair.max_rel:.2g}）：出错的地方在后面",
            )
        return False, T(
            f"{answer} is wrong under O3, but its inputs are already wrong"
            f" (rel err {pair.input_rel:.2g}): look for the first Cell whose inputs still agree",
            f"{answer} 在 O3 下确实出错，但它的输入已经错了（相对误差 {pair.input_rel:.2g}）："
            "要找的是输入仍然一致的第一个 Cell",
        )
    if answer in {p.op_type for p in result.pairs}:
        return False, T(
            "that is a Cell class; the answer is the Cell's name (the table's `cell` column)",
            "这是 Cell 的类名；答案是 Cell 的名字（表格中的 `cell` 列）",
        )
    return False, T(
        f"no Cell of this net is called {answer!r}: the names are the table's `cell` column",
        f"这个网络里没有名为 {answer!r} 的 Cell：名字见表格中的 `cell` 列",
    )


FLOAT16_MAX = 65504.0


def _largest_safe_scale(grads: Sequence[Any]) -> int:
    """The largest k for which every gradient times 2**k is finite in float16, measured with
    MindSpore's Cast (2**k times a float32 is exact in float32: only the cast can overflow)."""
    import mindspore as ms
    import numpy as np
    from mindspore import ops

    arrays = [np.asarray(g, np.float32) for g in grads]
    safe = -1
    for k in range(0, 64):
        scale = np.float32(2.0**k)
        scaled = [ops.cast(ms.Tensor(a * scale), ms.float16) for a in arrays]
        if not all(bool(ops.isfinite(s).all().asnumpy()) for s in scaled):
            break
        safe = k
    return safe


def _loss_scale(k: Any, grads: Sequence[Any]) -> Result:
    """06.4: the largest power-of-two loss scale the gradients survive in float16 (measured)."""
    got = int(k)
    want = measured_once("06.4", _largest_safe_scale, grads)
    if want < 0:
        return False, T(
            "these gradients overflow float16 even unscaled: no loss scale helps",
            "这些梯度不缩放也会在 float16 中溢出：任何损失缩放都无济于事",
        )
    if got == want:
        return True, T(
            f"measured: with 2**{want} every gradient is finite in float16; with 2**{want + 1} "
            "the largest passes 65504 and becomes inf (the step would be skipped)",
            f"实测：乘以 2**{want} 时所有梯度在 float16 中都是有限值；乘以 2**{want + 1} 时"
            "最大的梯度超过 65504，变成 inf（这一步会被跳过）",
        )
    if got > want:
        return False, T(
            f"at 2**{got} the largest gradient passes 65504, float16's largest number: inf",
            f"乘以 2**{got} 时最大的梯度超过 float16 的最大值 65504：变成 inf",
        )
    return False, T(
        "that scale is safe, but not the largest: the larger the scale, the fewer small "
        "gradients vanish; find where the largest gradient reaches 65504",
        "这个缩放是安全的，但不是最大的：缩放越大，消失的小梯度越少；找出最大梯度到达 65504 的位置",
    )


EXERCISES = (
    Exercise(
        "06",
        1,
        _steps,
        T(
            "len(images) // 48, and the same rounded up.",
            "len(images) // 48，以及同一个数向上取整。",
        ),
        "my_steps = (len(images) // 48, -(-len(images) // 48))",
    ),
    Exercise(
        "06",
        2,
        _underflow,
        T(
            "float16's smallest positive number is about 6e-8.",
            "float16 能表示的最小正数约为 6e-8。",
        ),
        "my_vanishing = [v for v in CANDIDATES if np.float16(v) == 0]",
    ),
    Exercise(
        "06",
        3,
        _o3_layer,
        T(
            'Run ascend_lab.compare_numerics(sensor_net, readings, amp="O3") and read '
            "the row marked FIRST: its `cell` column is the layer's name.",
            '运行 ascend_lab.compare_numerics(sensor_net, readings, amp="O3")，'
            "看标着 FIRST 的那一行：它的 `cell` 列就是层的名字。",
        ),
        'r3 = ascend_lab.compare_numerics(sensor_net, readings, amp="O3")\n'
        "print(r3.table())\n"
        "my_layer = r3.first_divergence.label",
    ),
    Exercise(
        "06",
        4,
        _loss_scale,
        T(
            "Only the largest |gradient| matters: 2**k x max|g| must stay <= 65504.",
            "只有最大的 |梯度| 起作用：2**k x max|g| 必须不超过 65504。",
        ),
        "g_max = max(float(np.abs(g).max()) for g in grads)\n"
        "my_scale_k = int(np.floor(np.log2(65504 / g_max)))",
    ),
)

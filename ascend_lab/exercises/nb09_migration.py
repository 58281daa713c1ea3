"""The checks of notebook 09 (migrating a model from PyTorch).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any, Dict

from ascend_lab.exercises.core import Exercise, Result, Text

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _all_loaded(not_loaded: Any, ext: Any, state: Dict[str, Any]) -> Result:
    import numpy as np

    if list(not_loaded):
        return False, T(
            f"these MindSpore parameters were not loaded: {list(not_loaded)}",
            f"这些 MindSpore 参数没有加载：{list(not_loaded)}",
        )
    if not np.allclose(ext.fc.weight.asnumpy(), state["fc.weight"]):
        return False, T(
            "fc.weight was loaded but differs from the checkpoint (no transpose)",
            "fc.weight 已加载，但与检查点不一致（不需要转置）",
        )
    bn = ext.body.bn
    if not np.allclose(bn.moving_variance.asnumpy(), state["body.bn.running_var"]):
        return False, T(
            "running_var must land in moving_variance", "running_var 应该加载到 moving_variance"
        )
    return True, T(
        "every parameter loaded, BatchNorm renamed, fc copied as it is",
        "所有参数都已加载：BatchNorm 已改名，fc 原样复制",
    )


def _rope_row(cos_and_sin: Any, position: int, head_dim: int, base: float) -> Result:
    import numpy as np

    cos, sin = (np.asarray(v, np.float64).reshape(-1) for v in cos_and_sin)
    half = base ** (-np.arange(0, head_dim, 2) / head_dim) * position
    angles = np.concatenate([half, half])
    if cos.shape != (head_dim,) or sin.shape != (head_dim,):
        return False, T(
            f"one value per channel: {head_dim} cos and {head_dim} sin",
            f"每个通道一个值：{head_dim} 个 cos 和 {head_dim} 个 sin",
        )
    if not (
        np.allclose(cos, np.cos(angles), atol=1e-6) and np.allclose(sin, np.sin(angles), atol=1e-6)
    ):
        return False, T(
            f"angle_i = {position} * base^(-2i/d) for i < d/2, repeated for both halves",
            f"angle_i = {position} * base^(-2i/d), i < d/2；前后两半重复一次",
        )
    return True, T(
        f"row {position}: what decode at position {position} reads from the cache",
        f"第 {position} 行：解码到位置 {position} 时从缓存中读取的内容",
    )


def _momentum(m_ms: Any, m_torch: float) -> Result:
    m = float(m_ms)
    torch_stat = ms_stat = 0.0
    for batch_mean in (1.0, 2.0, 4.0):
        torch_stat = (1 - m_torch) * torch_stat + m_torch * batch_mean
        ms_stat = m * ms_stat + (1 - m) * batch_mean
    if abs(torch_stat - ms_stat) > 1e-9:
        return (
            False,
            T(
                "after 3 updates the running means differ: "
                "MindSpore weighs the OLD value by momentum",
                "更新 3 次后两者的滑动均值不同：MindSpore 用 momentum 加权的是旧值",
            ),
        )
    return True, T(
        f"momentum={m:g} in MindSpore = momentum={m_torch:g} in PyTorch",
        f"MindSpore 的 momentum={m:g} 等价于 PyTorch 的 momentum={m_torch:g}",
    )


EXERCISES = (
    Exercise(
        "09",
        1,
        _all_loaded,
        T(
            "Rename only the BatchNorm tensors under body.; keep fc.*; skip num_batches_tracked.",
            "只给 body. 下的 BatchNorm 张量改名；fc.* 保持不变；跳过 num_batches_tracked。",
        ),
        "my_params = {}\n"
        "for k, v in state2.items():\n"
        '    short = k[len("body."):] if k.startswith("body.") else k\n'
        "    if short in SKIP:\n"
        "        continue\n"
        '    name = ("body." + RENAME.get(short, short)) if k.startswith("body.") else k\n'
        "    my_params[name] = ms.Parameter(ms.Tensor(v), name=name)\n"
        "my_not_loaded, _ = ms.load_param_into_net(ext, my_params)",
    ),
    Exercise(
        "09",
        2,
        _rope_row,
        T(
            "angle_i = 7 * 10000^(-2i/8) for i = 0..3, repeated twice.",
            "angle_i = 7 * 10000^(-2i/8), i = 0..3；重复两遍。",
        ),
        "inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)\n"
        "ang = np.concatenate([7 * inv, 7 * inv])\n"
        "my_cos7, my_sin7 = np.cos(ang), np.sin(ang)",
    ),
    Exercise(
        "09",
        3,
        _momentum,
        T(
            "MindSpore's nn.BatchNorm2d (2.3-2.10): new = m * old + (1 - m) * batch; "
            "PyTorch (and mint.nn.BatchNorm2d): new = (1 - m) * old + m * batch.",
            "MindSpore 的 nn.BatchNorm2d（2.3-2.10）：new = m * old + (1 - m) * batch；"
            "PyTorch（以及 mint.nn.BatchNorm2d）：new = (1 - m) * old + m * batch。",
        ),
        "my_ms_momentum = 1 - 0.01",
    ),
)

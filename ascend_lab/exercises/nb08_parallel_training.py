"""The checks of notebook 08 (parallel training).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any

from ascend_lab.exercises.core import Exercise, Result, Text

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _shards(sizes: Any, n: int, workers: int) -> Result:
    want = [len(range(r, n, workers)) for r in range(workers)]
    got = [int(v) for v in sizes]
    if len(got) != workers:
        return False, T(
            f"one number per rank: {workers} ranks", f"每个 rank 一个数：共 {workers} 个 rank"
        )
    if got != want:
        return False, T(
            "rank r takes X[r::size]: samples r, r+size, r+2*size, ...",
            "rank r 取 X[r::size]：第 r、r+size、r+2*size……个样本",
        )
    return True, T(
        f"{want}: the shards differ by one sample when the batch does not divide",
        f"{want}：样本数不能被 rank 数整除时，各分片相差一个样本",
    )


def _single_process(weight: Any, rank_weight: Any) -> Result:
    import numpy as np

    gap = float(np.abs(np.asarray(weight) - np.asarray(rank_weight)).max())
    if gap > 1e-4:
        return False, T(
            f"your weight differs from the ranks' by up to {gap:.3g}",
            f"你的权重与各 rank 的权重最多相差 {gap:.3g}",
        )
    return True, T(
        f"one process on the full batch = data parallel (max |diff| {gap:.1e})",
        f"单进程跑完整批 = 数据并行（最大 |差| {gap:.1e}）",
    )


EXERCISES = (
    Exercise(
        "08",
        1,
        _shards,
        T(
            "len(range(r, 64, 3)) for each rank r.",
            "每个 rank r 分到的样本数 = len(range(r, 64, 3))",
        ),
        "my_shard_sizes = [len(range(r, 64, 3)) for r in range(3)]",
    ),
    Exercise(
        "08",
        2,
        _single_process,
        T(
            "Same seed, same data, same SGD, 20 steps on all 64 samples.",
            "相同的随机种子、相同的数据、相同的 SGD，在全部 64 个样本上训练 20 步。",
        ),
        "ms.set_seed(0)\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.standard_normal((64, 8)).astype(np.float32)\n"
        "Y = X @ rng.standard_normal((8, 1)).astype(np.float32)\n"
        "single = nn.Dense(8, 1)\n"
        "step = nn.TrainOneStepCell(nn.WithLossCell(single, nn.MSELoss()),\n"
        "                           nn.SGD(single.trainable_params(), 0.1))\n"
        "for _ in range(20):\n"
        "    step(ms.Tensor(X), ms.Tensor(Y))\n"
        "my_single_weight = single.weight.asnumpy()",
    ),
)

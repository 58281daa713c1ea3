"""The checks of notebook 05b (host and device).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any, Dict, List

from ascend_lab.exercises.core import Exercise, Result, Text, returned

T = Text  # T(english, chinese): every pointer and hint in both editions' languages

# Ways a Tensor's value reaches the host. On 2.10, float(t) and t.item() read through
# _item, not asnumpy: each is counted once, however the calls nest inside each other.
_READS = ("asnumpy", "item", "_item", "tolist", "__float__", "__int__", "__index__", "__bool__")


def _counting_reads(tensor_class: Any, calls: List[str]) -> Dict[str, Any]:
    """Wrap the read methods of ``tensor_class`` (returns the originals, to restore)."""
    originals = {n: tensor_class.__dict__[n] for n in _READS if n in tensor_class.__dict__}
    depth = [0]

    def wrap(name: str, original: Any) -> Any:
        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            if depth[0] == 0:
                calls.append(name)
            depth[0] += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                depth[0] -= 1

        return counted

    for name, original in originals.items():
        setattr(tensor_class, name, wrap(name, original))
    return originals


def _one_sync(total_loss: Any, steps: Any, forward: Any) -> Result:
    import mindspore as ms

    calls: List[str] = []
    originals = _counting_reads(ms.Tensor, calls)
    try:
        result = returned(total_loss(steps))
    finally:
        for name, original in originals.items():
            setattr(ms.Tensor, name, original)
    got = float(result)
    want = sum(float(forward(a, b).asnumpy()) for a, b in steps)
    if abs(got - want) > 1e-4 * max(1.0, abs(want)):
        return False, T(
            f"the total is {got:.4f}, the per-step sum is {want:.4f}",
            f"你的总和是 {got:.4f}，逐步相加应为 {want:.4f}",
        )
    if len(calls) > 1:
        how = ", ".join(sorted(set(calls)))
        return False, T(
            f"the loss was read to the host {len(calls)} times ({how}): "
            "add tensors, read once after the loop",
            f"loss 被读回 Host 侧 {len(calls)} 次（{how}）：先把张量相加，循环结束后只读一次",
        )
    return True, T(
        f"total {got:.4f} with {len(calls)} device->host read",
        f"总和 {got:.4f}，只有 {len(calls)} 次 Device 到 Host 的读取",
    )


def _mean_gap_ms(profile: Any) -> float:
    steps = list(profile.steps)
    return sum(float(s.gap_us) for s in steps) / len(steps) / 1e3 if steps else float("nan")


def _slowed_gap(gap_ms: Any, before: Any, after: Any, host_ms: float, batches: int) -> Result:
    """05b.2: the gap per profiled step after adding host work per batch.

    The tolerance is half of the smallest term the answer adds up (one batch's host work, or
    the gap before), so a prediction that leaves out the gap before, or counts one batch too
    few or too many, is wrong. The truth is what was measured: when the measured gap agrees
    with the model (gap before + one wait per batch, within the noise of a shared CPU: 10 ms
    + 20%), the model's value is right; when the measurement says otherwise (the host work
    overlapped after all), the measured gap is."""
    was, now = _mean_gap_ms(before), _mean_gap_ms(after)
    if not (now == now and was == was):  # NaN: a profile without measured steps
        return False, T(
            "a profile has no measured steps (see the cells above)",
            "有一份性能数据没有测到 step（见上面的单元格）",
        )
    got = float(gap_ms)
    model = was + batches * host_ms
    tight = max(1.0, min(float(host_ms), was if was > 0 else float(host_ms)) / 2)
    agrees = abs(now - model) <= 10.0 + 0.2 * now
    want = model if agrees else now
    if abs(got - want) <= tight:
        return True, T(
            f"measured {now:.0f} ms of gap per step (was {was:.0f} ms; you said {got:.0f}): "
            f"the host work ran while no kernel did, {batches} x {host_ms:g} ms per step",
            f"测得每个 step 的间隙 {now:.0f} ms（原来是 {was:.0f} ms；你预测 {got:.0f}）："
            f"Host 侧工作时没有算子在执行，每个 step {batches} x {host_ms:g} ms",
        )
    # the nearest of the plausible slips, when it explains the answer
    slips = [
        (
            abs(got - was),
            T(
                f"measured {now:.0f} ms: host work inside the step is time when no kernel "
                "runs, it lands in the gap",
                f"测得 {now:.0f} ms：step 内 Host 侧工作期间没有算子执行，这段时间落在间隙里",
            ),
        ),
        (
            abs(got - (was + host_ms)),
            T(
                f"measured {now:.0f} ms: the wait runs once per batch, {batches} batches per "
                "profiled step",
                f"测得 {now:.0f} ms：每个 batch 都要等一次，"
                f"每个被分析的 step 有 {batches} 个 batch",
            ),
        ),
        (
            abs(got - batches * host_ms),
            T(
                f"measured {now:.0f} ms: the gap was {was:.0f} ms before the change, and it "
                "is still there",
                f"测得 {now:.0f} ms：改动之前间隙就有 {was:.0f} ms，它依然存在",
            ),
        ),
    ]
    distance, pointer = min(slips, key=lambda slip: slip[0])
    if distance <= tight:
        return False, pointer
    return False, T(
        f"measured {now:.0f} ms: start from the gap before and add the host work of every "
        "batch (milliseconds)",
        f"测得 {now:.0f} ms：从原来的间隙出发，加上每个 batch 的 Host 侧工作（单位毫秒）",
    )


EXERCISES = (
    Exercise(
        "05b",
        1,
        _one_sync,
        T(
            "Start from ms.Tensor(0.0), add each step's loss, call asnumpy() once.",
            "从 ms.Tensor(0.0) 开始，累加每一步的 loss，最后只调用一次 asnumpy()。",
        ),
        "def total_loss(steps):\n"
        "    acc = ms.Tensor(0.0, ms.float32)\n"
        "    for a, b in steps:\n"
        "        acc = acc + forward(a, b)\n"
        "    return float(acc.asnumpy())",
    ),
    Exercise(
        "05b",
        2,
        _slowed_gap,
        T(
            "Host work in the step is time with no kernel running: the gap before, "
            "plus the wait of every batch in one profiled step.",
            "step 内 Host 侧工作期间没有算子在执行：原来的间隙，加上一个被分析的 step 里"
            "每个 batch 的等待。",
        ),
        "my_gap_ms = base_gap_ms + len(steps) * HOST_MS  # one wait per batch",
    ),
)

"""The checks of notebook 05 (execution on the device).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any, Sequence, Tuple

from ascend_lab.exercises.core import Exercise, Result, Text

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _op_time(row: Any) -> Tuple[str, float]:
    """(op type, total time) of a per-op-type row: ascend_lab's OpTypeStats (CPU or Ascend
    profile, ``total_us``) or a row of MindSpore's CPU ``cpu_op_type_info`` CSV."""
    if isinstance(row, dict):
        return str(row["op_type"]), float(row["total_compute_time"])
    return str(row.op_type), float(row.total_us)


def _is_conv(op_type: str) -> bool:
    return "conv" in op_type.lower()  # Conv2D on CPU; Conv2D / Conv2DV2 / Convolution on Ascend


def _conv_share(share: Any, rows: Sequence[Any]) -> Result:
    times = [_op_time(r) for r in rows]
    if not times:
        return False, T(
            "the profile has no per-op-type table (see the cell above)",
            "性能数据中没有按算子类型统计的表（见上面的单元）",
        )
    total = sum(t for _, t in times)
    conv = sum(t for op, t in times if _is_conv(op))
    want = conv / total
    got = float(share)
    if got > 1.0:
        return False, T(
            "a share is a fraction between 0 and 1 (0.25 for 25%)",
            "占比是 0 到 1 之间的小数（25% 写 0.25）",
        )
    if abs(got - want) > 0.02:
        return False, T(
            "the convolution's total time divided by the sum over all op types",
            "卷积的总时间除以所有算子类型的时间之和",
        )
    return True, T(
        f"Conv2D took {want:.0%} of the kernel time", f"Conv2D 占了算子时间的 {want:.0%}"
    )


def _launch_count(count: Any, measured: Any, kernels: Sequence[Any]) -> Result:
    """05.2: kernel launches in one profiled step of a changed step function, as measured;
    each call of a compiled graph launches its execution order once, whatever the batch."""
    launches = sorted(int(s.launches) for s in measured.steps)
    if not launches:
        return False, T(
            "the profile has no measured steps (see the cell above)",
            "这份性能数据没有测到 step（见上面的单元格）",
        )
    want = launches[(len(launches) - 1) // 2]  # the median step (they agree when all is well)
    got = float(count)
    per_call = len(kernels)
    if got == want:
        calls = want // per_call if per_call and want % per_call == 0 else None
        if calls:
            return True, T(
                f"{want} launches per step: {calls} calls x the {per_call} kernels of the "
                "execution order; the batch size changed their time, not their number",
                f"每个 step 启动 {want} 次：{calls} 次调用 x 执行序中的 {per_call} 个 kernel；"
                "batch 大小改变的是它们的耗时，而不是个数",
            )
        return True, T(
            f"{want} launches per step, as measured", f"每个 step 启动 {want} 次，与实测一致"
        )
    if got == per_call:
        return False, T(
            f"measured {want}: {per_call} is one call, and two_calls calls the net twice",
            f"实测 {want}：{per_call} 只是一次调用，而 two_calls 调用了两次网络",
        )
    if per_call and got > want and got % per_call == 0:
        return False, T(
            f"measured {want}: a bigger batch makes each kernel slower, it does not launch "
            "more kernels",
            f"实测 {want}：更大的 batch 让每个 kernel 变慢，并不会启动更多 kernel",
        )
    return False, T(
        f"measured {want}: each call launches every kernel of its execution order "
        "(t.graph.kernels) once",
        f"实测 {want}：每次调用都把执行序（t.graph.kernels）中的每个 kernel 启动一次",
    )


EXERCISES = (
    Exercise(
        "05",
        1,
        _conv_share,
        T(
            "Divide the convolution's total_us by the sum of total_us over all rows.",
            "用卷积那一行的 total_us 除以所有行的 total_us 之和。",
        ),
        "total = sum(r.total_us for r in by_type)\n"
        "my_conv_share = sum(r.total_us for r in by_type\n"
        '                    if "conv" in r.op_type.lower()) / total',
    ),
    Exercise(
        "05",
        2,
        _launch_count,
        T(
            "Each call of a compiled graph launches every kernel of its execution order "
            "once: count t.graph.kernels, then the calls.",
            "编译好的图每调用一次，就把执行序中的每个 kernel 启动一次："
            "先数 t.graph.kernels，再数调用次数。",
        ),
        "# two calls, each launching the kernels of its graph once (batch 64 or 32 alike)\n"
        "my_launches = 2 * len(t.graph.kernels)",
    ),
)

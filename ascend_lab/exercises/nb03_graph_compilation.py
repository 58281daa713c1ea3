"""The checks of notebook 03 (graph compilation).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

import os
import re
import shutil
import tempfile
from typing import Any, List, Sequence

from ascend_lab.exercises.core import Exercise, Result, Text, returned
from ascend_lab.exercises.measure import measured_once, traced

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _op_names(value: Any) -> List[str]:
    """A predicted set of op types, as names (``"ReLU"``); a lone string is one name."""
    names = [value] if isinstance(value, str) else list(value)
    return sorted({str(n).strip() for n in names})


def _fusion_prediction(guess: Any, net: Any, x: Any) -> Result:
    from ascend_lab.model.ops import op_name

    kernels, ops = guess
    kernels, ops = int(kernels), _op_names(ops)
    # the check measures: one compile with fusion on
    fused = measured_once("03.1", lambda n, t: traced(n, t, fusion=True), net, x)
    before = fused.fusion.kernel_count_before
    measured = len(fused.graph.kernels)
    inside = sorted({op_name(o) for k in fused.fusion.kernels for o in k.ops})
    if kernels > before:
        return False, T(
            f"fusion merges kernels, it never adds any: at most {before}, the count before",
            f"融合只会合并算子，不会增加算子：最多 {before} 个，即融合前的数目",
        )
    if kernels != measured:
        fewer = kernels < measured
        return False, T(
            "fewer kernels than the compiler makes: not every neighbour pair can be fused "
            "on this device"
            if fewer
            else "more kernels than the compiler makes: it fuses more than you expect",
            "比编译器实际生成的算子少：在这台设备上并不是每对相邻算子都能融合"
            if fewer
            else "比编译器实际生成的算子多：它融合的比你想的多",
        )
    missing = [o for o in inside if o not in ops]
    extra = [o for o in ops if o not in inside]
    if missing or extra:
        what = ", ".join(extra) if extra else ", ".join(missing)
        return False, T(
            f"the count is right; but {what} "
            + ("stays a kernel of its own" if extra else "also goes into a fused kernel"),
            f"数目对了；但 {what} " + ("仍是独立的算子" if extra else "也被放进了融合算子"),
        )
    return True, T(
        f"measured: {measured} kernels with fusion on, {before} without; fused: "
        f"{', '.join(inside) or 'nothing'} (the compare below shows them side by side)",
        f"实测：打开融合后 {measured} 个算子，关闭时 {before} 个；被融合的："
        f"{'、'.join(inside) or '无'}（下面的 compare 把它们并排列出）",
    )


_BOOTSTRAP = re.compile(r"^\d+_bootstrap(?:_\d+)?\.ir$")


def _count_compiles(cell: Any, inputs: Sequence[Any]) -> int:
    """How many times graph mode compiles ``cell`` while it runs on each of ``inputs``:
    each compile writes one ``*_bootstrap_*.ir`` dump (the parse of ``construct``)."""
    import mindspore as ms

    # the trace's own context helpers: restored afterwards, MindSpore's deprecation notices
    # for save_graphs kept out of the learner's check output
    from ascend_lab.capture.compile import _set_context, restoring_state, work_root

    folder = tempfile.mkdtemp(prefix="ascend-lab-compiles-")
    try:
        with restoring_state(ms):
            os.chdir(work_root())  # MindSpore's droppings stay out of the learner's folder
            _set_context(ms, {"mode": ms.GRAPH_MODE, "save_graphs": 1, "save_graphs_path": folder})
            for x in inputs:
                cell(x).asnumpy()
        return sum(
            1 for _dir, _subdirs, files in os.walk(folder) for f in files if _BOOTSTRAP.match(f)
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _compiles(pair: Any, batches: Sequence[int], make_net: Any) -> Result:
    import mindspore as ms
    import numpy as np

    static, dynamic = (int(v) for v in pair)

    def count(make_net: Any, *batches: int) -> List[int]:
        measured = []
        for declare in (False, True):  # the check measures both nets itself
            cell = make_net()
            cell.set_train(False)
            if declare:
                cell.set_inputs(ms.Tensor(shape=[None, 3, 32, 32], dtype=ms.float32))
            xs = [ms.Tensor(np.zeros((b, 3, 32, 32), np.float32)) for b in batches]
            measured.append(_count_compiles(cell, xs))
        return measured

    sizes = tuple(int(b) for b in batches)
    want_static, want_dynamic = measured_once("03.2", count, make_net, values=sizes)
    if batches and not want_static:  # a MindSpore that names its first dump differently
        return False, T(
            "the check counted no compile (this MindSpore wrote no *_bootstrap_*.ir dump): "
            "read the compiles off the measurement below",
            "检查没有数到任何编译（这个 MindSpore 没有写出 *_bootstrap_*.ir）："
            "请从下面的测量中读出编译次数",
        )
    if static != want_static:
        return (
            False,
            T(
                "a static-shape graph compiles once per new shape; a shape seen before is cached",
                "静态 shape 的图每遇到一个新 shape 编译一次；见过的 shape 会命中缓存",
            ),
        )
    if dynamic != want_dynamic:
        return False, T(
            "set_inputs with None declares the batch dynamic: one compile for all",
            "set_inputs 中用 None 声明 batch 维为动态：所有 batch 大小只编译一次",
        )
    return True, T(
        f"measured: {want_static} compiles with static shapes, {want_dynamic} with a dynamic batch",
        f"实测：静态 shape 编译 {want_static} 次，动态 batch 编译 {want_dynamic} 次",
    )


def _fold(fold: Any, cbr: Any, x: Any) -> Result:
    import mindspore as ms
    import numpy as np

    bn = cbr.bn
    # No statistic at an identity value that would hide a mistake: a fresh BatchNorm has
    # gamma = 1, beta = 0 and mean = 0 (a fold that drops any of them still passes there),
    # and variances near 1 (where leaving eps out is off by only eps). The check sets each
    # one away from its identity, as a trained net has them: variances as small as eps (a
    # fold without eps is off by up to 70%), gamma of both signs, a non-zero beta and mean.
    rng = np.random.default_rng(7)
    params = (bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance)
    saved = [p.asnumpy().copy() for p in params]
    shape = saved[0].shape
    trained = (
        rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape),
        rng.uniform(-1.0, 1.0, shape) + 0.5,
        rng.uniform(-1.0, 1.0, shape) + 0.5,
        bn.eps * rng.uniform(0.5, 3.0, shape),
    )
    try:
        for param, value in zip(params, trained):
            param.set_data(ms.Tensor(value.astype(np.float32)))
        return _check_fold(fold, cbr, x)
    finally:
        for param, value in zip(params, saved):
            param.set_data(ms.Tensor(value))


def _check_fold(fold: Any, cbr: Any, x: Any) -> Result:
    import mindspore as ms
    import numpy as np
    from mindspore import nn, ops

    bn = cbr.bn
    w, b = returned(
        fold(
            cbr.conv.weight.asnumpy(),
            bn.gamma.asnumpy(),
            bn.beta.asnumpy(),
            bn.moving_mean.asnumpy(),
            bn.moving_variance.asnumpy(),
            bn.eps,
        )
    )
    w, b = np.asarray(w, np.float32), np.asarray(b, np.float32).reshape(-1)
    if w.shape != tuple(cbr.conv.weight.shape) or b.shape != (w.shape[0],):
        return False, T(
            "return a weight shaped like the conv's and one bias per output channel",
            "返回与卷积权重形状相同的权重，以及每个输出通道一个偏置",
        )
    conv = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], pad_mode="same", has_bias=True)
    conv.weight.set_data(ms.Tensor(w))
    conv.bias.set_data(ms.Tensor(b))
    ref = cbr(x).asnumpy()
    err = float(np.abs(ops.relu(conv(x)).asnumpy() - ref).max()) / max(
        1.0, float(np.abs(ref).max())
    )
    if err > 1e-4:
        return (
            False,
            T(
                f"the folded conv differs by up to {err:.3g} (relative; the check uses a "
                "trained BatchNorm: gamma, beta and mean away from 1 and 0, variances as "
                "small as eps): scale by gamma / sqrt(var + eps), bias beta - mean * scale",
                f"折叠后的卷积最多相差 {err:.3g}（相对误差；检查用的是训练过的 BatchNorm："
                "gamma、beta、mean 都不取 1 或 0，方差小到与 eps 相当）："
                "要乘以 gamma / sqrt(var + eps)，偏置为 beta - mean * scale",
            ),
        )
    return True, T(
        f"Conv+BN+ReLU == folded Conv+ReLU, eps included (max relative |diff| {err:.1e})",
        f"Conv+BN+ReLU == 折叠后的 Conv+ReLU，eps 也算进去了（最大相对 |差| {err:.1e}）",
    )


def _planned_bytes(graph: Any) -> int:
    """Bytes of every intermediate tensor the memory plan of ``graph`` holds (the graph's
    output, returned to the caller, is not planned)."""
    from ascend_lab.analysis.planner import plan_graph

    return int(sum(t.nbytes for t in plan_graph(graph).tensors))


def _fused_chain(guess: Any, net: Any, x: Any) -> Result:
    """03.4: kernels left after fusion, and the intermediate bytes that no longer reach memory,
    both measured from one compile with fusion on."""
    kernels, saved = guess
    kernels, saved = int(kernels), int(saved)
    fused = measured_once("03.4", lambda n, t: traced(n, t, fusion=True), net, x)
    before = fused.fusion.kernel_count_before
    measured = len(fused.graph.kernels)
    want = _planned_bytes(fused.before_fusion) - _planned_bytes(fused.graph)
    block = 4  # one (batch, features) float32 tensor, in bytes
    for size in x.shape:
        block *= int(size)
    inside = [op for k in fused.fusion.kernels for op in k.ops]
    if kernels > before:
        return False, T(
            f"fusion merges kernels, it never adds any: at most {before}, the count before",
            f"融合只会合并算子，不会增加算子：最多 {before} 个，即融合前的数目",
        )
    if kernels != measured:
        return False, T(
            "MatMul keeps its hand-written CPU kernel; count what stays and the fused kernels"
            if kernels < measured
            else "the whole element-wise chain after the MatMul becomes one kernel here",
            "MatMul 保留手写的 CPU 算子；数一数留下的算子和融合算子"
            if kernels < measured
            else "在这里，MatMul 之后整条逐元素链都变成了一个算子",
        )
    if saved == want:
        return True, T(
            f"measured: {measured} kernels (was {before}); {len(inside)} ops in one fused "
            f"kernel, and {want} bytes of intermediates ({want // block} tensors of "
            f"{block} bytes) no longer reach memory",
            f"实测：{measured} 个算子（原来 {before} 个）；{len(inside)} 个算子进了一个融合算子，"
            f"{want} 字节的中间结果（{want // block} 个 {block} 字节的张量）不再写入内存",
        )
    if saved == want + block:
        return False, T(
            "the chain's last output is the block's output: it still goes to memory",
            "链上最后一个输出就是整个块的输出：它仍然要写入内存",
        )
    if saved * 4 == want:
        return False, T(
            "bytes, not elements: float32 takes 4 bytes each",
            "要的是字节数，不是元素个数：float32 每个元素占 4 字节",
        )
    return False, T(
        "count the tensors that were written between two of the fused ops; each is "
        "batch x features x 4 bytes",
        "数一数原来在被融合的算子之间写出的张量；每个都是 batch 大小 x 特征数 x 4 字节",
    )


def _reductions_split(kernels: Any, net: Any, x: Any) -> Result:
    """03.5: kernels left after fusion when a hand-written LayerNorm follows (measured)."""
    kernels = int(kernels)
    fused = measured_once("03.5", lambda n, t: traced(n, t, fusion=True), net, x)
    before = fused.fusion.kernel_count_before
    measured = len(fused.graph.kernels)
    reduces = sum(1 for k in fused.graph.kernels if k.op.startswith("Reduce"))
    if kernels > before:
        return False, T(
            f"fusion never adds kernels: at most {before}",
            f"融合不会增加算子：最多 {before} 个",
        )
    if kernels == before:
        return False, T(
            "the element-wise runs between the reductions still fuse",
            "两个归约之间的逐元素算子仍然会融合",
        )
    if kernels != measured:
        return False, T(
            "a reduction ends a fused run here: count the element-wise runs between the "
            "MatMul and the ReduceMeans, and the reductions themselves"
            if kernels < measured
            else "each run of element-wise ops between two reductions becomes one kernel",
            "在这里，归约会截断融合：数一数 MatMul 与各个 ReduceMean 之间的逐元素算子段，"
            "再加上归约本身"
            if kernels < measured
            else "两个归约之间的每一段逐元素算子都会变成一个算子",
        )
    return True, T(
        f"measured: {measured} kernels (was {before}); {reduces} reductions stay kernels of "
        f"their own and split the chain into {len(fused.fusion.kernels)} fused kernels",
        f"实测：{measured} 个算子（原来 {before} 个）；{reduces} 个归约仍是独立的算子，"
        f"把链分成 {len(fused.fusion.kernels)} 个融合算子",
    )


EXERCISES = (
    Exercise(
        "03",
        1,
        _fusion_prediction,
        T(
            "AKG fuses what it can generate code for; Conv2D and BatchNorm have "
            "hand-written CPU kernels. A fused kernel replaces, it never adds.",
            "AKG 只融合它能生成代码的算子；Conv2D 和 BatchNorm 在 CPU 上有手写的算子。"
            "融合算子只会替换原有算子，不会额外增加。",
        ),
        'my_fusion = (3, {"ReLU"})  # on CPU: Conv2D, BatchNorm, Fused_ReLU',
    ),
    Exercise(
        "03",
        2,
        _compiles,
        T(
            "Count the distinct batch sizes; a cached shape does not recompile.",
            "数一数有几种不同的 batch 大小；已缓存的 shape 不会重编译。",
        ),
        "my_compiles = (len(set(batches)), 1)",
    ),
    Exercise(
        "03",
        3,
        _fold,
        T(
            "s = gamma / sqrt(var + eps); w' = w * s per output channel; b' = beta - mean * s.",
            "s = gamma / sqrt(var + eps)；按输出通道 w' = w * s；b' = beta - mean * s。",
        ),
        "def fold(conv_w, gamma, beta, mean, var, eps):\n"
        "    s = gamma / np.sqrt(var + eps)\n"
        "    return conv_w * s[:, None, None, None], beta - mean * s",
    ),
    Exercise(
        "03",
        4,
        _fused_chain,
        T(
            "Only MatMul keeps a hand-written kernel; the BiasAdd, Add, GeLU, Mul and Add "
            "become one. The tensors between two fused ops stay inside the kernel; the "
            "block's output still goes to memory.",
            "只有 MatMul 保留手写算子；BiasAdd、Add、GeLU、Mul、Add 合成一个。被融合的算子之间的"
            "张量留在算子内部；块的输出仍然写入内存。",
        ),
        "# MatMul + one fused kernel; BiasAdd, Add, GeLU and Mul outputs no longer reach memory\n"
        "my_chain = (2, 4 * x_chain.shape[0] * x_chain.shape[1] * 4)",
    ),
    Exercise(
        "03",
        5,
        _reductions_split,
        T(
            "On CPU, AKG does not fuse a ReduceMean with its neighbours: the reductions stay, "
            "and each run of element-wise ops between them becomes one kernel.",
            "在 CPU 上，AKG 不会把 ReduceMean 与相邻算子融合：归约保留，它们之间的每一段"
            "逐元素算子变成一个算子。",
        ),
        "# MatMul, [BiasAdd+Add], ReduceMean, [Sub+Mul], ReduceMean, [Add+Rsqrt+Mul+Mul+Add]\n"
        "my_ln_kernels = 6",
    ),
)

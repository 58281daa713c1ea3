"""The course's exercises: two or three per notebook, keyed by its file name's prefix ("05b").

Every verifier computes the right answer itself, from what the notebook built (a trace, a
plan, a parsed ``npu-smi`` table, a net) or from an invariant (a formula, a simulation),
never from a value the learner's cell produced. MindSpore and NumPy are imported inside the
verifiers that need them: importing this module stays cheap.
"""

import configparser
import math
import os
import re
import shutil
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ascend_lab.exercises.core import Exercise, Message, Text, returned
from ascend_lab.exercises.day_one import day_one_exercises

T = Text  # T(english, chinese): every pointer and hint in both editions' languages

Result = Tuple[bool, Message]  # (right?, what to tell the learner, in one or both languages)


# -- 00 · the stack and your machine ----------------------------------------------------
def _busy_npu(npu_and_mb: Any, info: Any) -> Result:
    npu, mb = npu_and_mb
    busy = [(p.npu, p.memory_mb) for p in info.processes if p.memory_mb]
    if not busy:
        return False, T(
            "this npu-smi table lists no process: nothing to find",
            "这张 npu-smi 表里没有进程：没有可找的",
        )
    want_npu, want_mb = max(busy, key=lambda pair: pair[1])
    if int(npu) != want_npu:
        return False, T(
            "look at the process table at the bottom: which NPU runs a process?",
            "看看最下面的进程表：哪个NPU上在运行进程？",
        )
    if int(mb) != want_mb:
        return False, T(
            f"NPU {want_npu} is right; the MB come from 'Process memory(MB)'",
            f"NPU {want_npu} 对了；MB 数取自 'Process memory(MB)' 一列",
        )
    return True, T(
        f"NPU {want_npu} runs a process holding {want_mb} MB of HBM",
        f"NPU {want_npu} 上运行着一个进程，占用 {want_mb} MB HBM",
    )


def _visible_devices(visible_and_id: Any, info: Any) -> Result:
    visible, device_id = visible_and_id
    ids = [int(v) for v in str(visible).replace(" ", "").split(",") if v != ""]
    known = {c.npu for c in info.chips}
    busy = {p.npu for p in info.processes}
    if len(ids) != 2 or len(set(ids)) != 2:
        return False, T(
            "ASCEND_RT_VISIBLE_DEVICES lists two different NPU ids, e.g. '4,5'",
            "ASCEND_RT_VISIBLE_DEVICES 要列出两个不同的NPU编号，例如 '4,5'",
        )
    if not set(ids) <= known:
        return False, T(
            f"this server has NPUs {sorted(known)}", f"这台服务器上的NPU是 {sorted(known)}"
        )
    if set(ids) & busy:
        return False, T(
            f"NPU {sorted(set(ids) & busy)} is busy (see the process table)",
            f"NPU {sorted(set(ids) & busy)} 已被占用（见进程表）",
        )
    if int(device_id) != 1:
        return False, T(
            "MindSpore numbers the visible NPUs from 0 in the order listed",
            "MindSpore 按列出的顺序从 0 开始给可见的NPU编号",
        )
    return True, T(
        f"ASCEND_RT_VISIBLE_DEVICES={ids[0]},{ids[1]}: device_id 0 is NPU {ids[0]}, "
        f"device_id 1 is NPU {ids[1]}",
        f"ASCEND_RT_VISIBLE_DEVICES={ids[0]},{ids[1]}：device_id 0 是 NPU {ids[0]}，"
        f"device_id 1 是 NPU {ids[1]}",
    )


# -- 01 · one Conv2d ---------------------------------------------------------------------
def _conv_shape(shape: Any) -> Result:
    side = math.floor((32 - 5) / 2) + 1
    want = (1, 16, side, side)
    got = tuple(int(v) for v in shape)
    if got[:2] != want[:2]:
        return False, T(
            "the first two numbers are the batch (1) and out_channels (16)",
            "前两个数是批大小（1）和 out_channels（16）",
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
                "先数卷积权重，再数 BatchNorm 的 gamma 和 beta（不算它的移动统计量）",
            ),
        )
    return True, T(
        f"{want} trainable numbers; moving_mean and moving_variance are state, not trained",
        f"共 {want} 个可训练的数；moving_mean 和 moving_variance 是状态，不参与训练",
    )


# -- 02 · Python -> MindIR ---------------------------------------------------------------
# A check measures the real thing (a trace, a compile count, a numeric comparison), which
# takes seconds. A learner who checks a second answer to the same question, on the same net
# and input, gets the measurement already made: keyed by the objects' identities, which the
# memo keeps alive so that no id is reused while it holds them.
_MEASURED: Dict[Tuple[Any, ...], Tuple[Tuple[Any, ...], Any]] = {}
_MEASURED_MAX = 16


def measured_once(what: str, fn: Any, *objects: Any, values: Tuple[Any, ...] = ()) -> Any:
    """``fn(*objects, *values)``, computed once per ``what``, identity of ``objects`` and
    (hashable) ``values``."""
    key = (what, values) + tuple(id(o) for o in objects)
    held = _MEASURED.get(key)
    if held is not None:
        return held[1]
    value = fn(*objects, *values)
    if len(_MEASURED) >= _MEASURED_MAX:
        _MEASURED.pop(next(iter(_MEASURED)))
    _MEASURED[key] = (objects, value)
    return value


def _traced(net: Any, x: Any, fusion: bool = False) -> Any:
    """A fresh trace of ``net`` on ``x``, measured by the check itself (quiet)."""
    from ascend_lab.tracing.api import trace_net

    return trace_net(net, [x], fusion, 1, False, True, False)


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
        conv = [k for k in _traced(cell, x).graph.kernels if k.op == "Conv2D"][0]
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
            "文件里还保存了 BatchNorm 的移动统计量（所有参数都要算）",
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


# -- 03 · graph compilation --------------------------------------------------------------
def _op_names(value: Any) -> List[str]:
    """A predicted set of op types, as names (``"ReLU"``); a lone string is one name."""
    names = [value] if isinstance(value, str) else list(value)
    return sorted({str(n).strip() for n in names})


def _fusion_prediction(guess: Any, net: Any, x: Any) -> Result:
    from ascend_lab.model.ops import op_name

    kernels, ops = guess
    kernels, ops = int(kernels), _op_names(ops)
    # the check measures: one compile with fusion on
    fused = measured_once("03.1", lambda n, t: _traced(n, t, fusion=True), net, x)
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


# -- 04 · memory reuse -------------------------------------------------------------------
def _conv_bytes_at(nbytes: Any, plan: Any, batch: int, new_batch: int) -> Result:
    conv = [t for t in plan.tensors if t.op == "Conv2D"][0]
    want = conv.nbytes * new_batch // batch
    if int(nbytes) == conv.nbytes:
        return False, T(
            f"that is batch {batch}; activations scale with the batch",
            f"这是批大小 {batch} 的值；激活随批大小按比例变化",
        )
    if int(nbytes) != want:
        return False, T(
            "batch x channels x height x width x 4 bytes (float32)",
            "批大小 x 通道数 x 高 x 宽 x 4 字节（float32）",
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
            "这里每个张量都是激活：下界随批大小按比例变化",
        )
    return True, T(
        f"lower bound at batch {new_batch}: {want} bytes (traced to check)",
        f"批大小 {new_batch} 时的下界：{want} 字节（已跟踪核对）",
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


# -- 05 · execution on the device; 05b · host and device ---------------------------------
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
            f"loss 被读回主机 {len(calls)} 次（{how}）：先把张量相加，循环结束后只读一次",
        )
    return True, T(
        f"total {got:.4f} with {len(calls)} device->host read",
        f"总和 {got:.4f}，只有 {len(calls)} 次设备到主机的读取",
    )


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


# -- 06 · training with mixed precision -------------------------------------------------
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


# -- 07 · deployment ---------------------------------------------------------------------
def _calibration_folder(cfg: configparser.ConfigParser) -> Tuple[List[str], str]:
    """(input names of [ascend_context]'s input_shape, the folder of calibrate_path)."""
    shapes = cfg.get("ascend_context", "input_shape", fallback="")
    names = [part.split(":", 1)[0].strip() for part in shapes.split(";") if ":" in part]
    value = cfg.get("data_preprocess_param", "calibrate_path").strip()
    return names, value


# The values converter_lite accepts for a full quantization (MindSpore Lite 2.0-2.5
# "Quantization" page: full quantization is 8 bits; the activation methods; a boolean).
_QUANT_VALUES = (
    ("common_quant_param", "bit_num", ("8",)),
    ("full_quant_param", "activation_quant_method", ("MAX_MIN", "KL", "REMOVAL_OUTLIER")),
    ("full_quant_param", "bias_correction", ("true", "false")),
)


def _bad_quant_value(cfg: configparser.ConfigParser) -> Optional[Text]:
    """What is wrong with a value converter_lite would refuse, or None."""
    for section, key, allowed in _QUANT_VALUES:
        value = cfg.get(section, key).strip()
        if value not in allowed:
            choices = " | ".join(allowed)
            return T(
                f"[{section}] {key}={value!r} is not a value converter_lite takes for a full "
                f"quantization: {choices}",
                f"[{section}] {key}={value!r} 不是 converter_lite 全量化接受的取值：{choices}",
            )
    return None


def _quant_config(path: Any, calib_dir: Any = None) -> Result:
    import os

    cfg = configparser.ConfigParser()
    with open(str(path), encoding="utf-8") as fh:
        text = fh.read(64 * 1024)
    try:
        cfg.read_string(text)
    except configparser.Error as err:  # duplicate sections or keys: the cell ran twice
        first = str(err).splitlines()[0][:160]
        return False, T(
            f"the file does not parse ({first}): running an appending cell twice adds the "
            "sections twice; write the whole file each time",
            f"文件无法解析（{first}）：追加写入的单元运行两次就会重复添加这些节；"
            "每次都应重写整个文件",
        )
    need = {
        "ascend_context": ["input_shape"],
        "common_quant_param": ["quant_type", "bit_num"],
        "data_preprocess_param": ["calibrate_path", "calibrate_size", "input_type"],
        "full_quant_param": ["activation_quant_method", "bias_correction", "target_device"],
    }
    for section, keys in need.items():
        if not cfg.has_section(section):
            return False, T(f"the file has no [{section}] section", f"文件中没有 [{section}] 节")
        missing = [k for k in keys if not cfg.has_option(section, k)]
        if missing:
            return False, T(f"[{section}] lacks {missing}", f"[{section}] 缺少 {missing}")
    if cfg.get("common_quant_param", "quant_type").strip() != "FULL_QUANT":
        return False, T(
            "int8 weights and activations need quant_type=FULL_QUANT",
            "权重和激活都要 int8，需要 quant_type=FULL_QUANT",
        )
    bad = _bad_quant_value(cfg)
    if bad is not None:
        return False, bad
    names, value = _calibration_folder(cfg)
    if names != ["x"]:
        return False, T(
            f"[ascend_context]'s input_shape names the model's inputs: this net has one, "
            f"x, shaped [1,1,32,32] (got {names or 'no name'})",
            f"[ascend_context] 的 input_shape 要写模型的输入名：这个网络只有一个输入 x，"
            f"形状为 [1,1,32,32]（现在是 {names or '没有名字'}）",
        )
    name, sep, folder = value.partition(":")
    if not sep or not name.strip() or (names and name.strip() not in names):
        want = names[0] if names else "x"
        return False, T(
            f"calibrate_path names the model input first: {want}:<folder> "
            f"(the input of [ascend_context]'s input_shape)",
            f"calibrate_path 要先写模型输入的名字：{want}:<文件夹>"
            f"（即 [ascend_context] 中 input_shape 的输入名）",
        )
    if cfg.get("data_preprocess_param", "input_type").strip().upper() != "BIN":
        return False, T(
            "the calibration inputs are raw .bin tensors: input_type=BIN",
            "校准输入是原始的 .bin 张量：input_type=BIN",
        )
    size_text = cfg.get("data_preprocess_param", "calibrate_size").strip()
    if not size_text.isdigit() or int(size_text) < 1:
        return False, T(
            "calibrate_size is how many calibration inputs to use: a positive integer",
            "calibrate_size 是要用的校准输入个数：一个正整数",
        )
    if calib_dir is not None:
        here = os.path.realpath(str(calib_dir))
        if os.path.realpath(folder.strip()) != here:
            return False, T(
                f"calibrate_path points at {folder.strip()!r}; the inputs are in {here}",
                f"calibrate_path 指向 {folder.strip()!r}；校准输入在 {here}",
            )
        count = sum(1 for n in os.listdir(here) if n.endswith(".bin"))
        if int(size_text) != count:
            return False, T(
                f"calibrate_size={size_text}, but the folder holds {count} .bin inputs",
                f"calibrate_size={size_text}，但文件夹里有 {count} 个 .bin 输入",
            )
    if cfg.get("full_quant_param", "target_device").strip() != "ASCEND":
        return False, T(
            "the converter quantizes for Ascend only with target_device=ASCEND",
            "只有 target_device=ASCEND 时，转换工具才会面向昇腾量化",
        )
    return True, T(
        "a full-quantization config with calibration data, for Ascend",
        "一份面向昇腾、带校准数据的全量化配置",
    )


def _quantized_file(nbytes: Any, float_file: Any, int8_file: Any) -> Result:
    """07.2: the size of the MindIR exported from the net whose weights went through int8,
    measured on the file the check cell wrote."""
    import os

    want, was = os.path.getsize(str(int8_file)), os.path.getsize(str(float_file))
    got = float(nbytes)
    if abs(got - want) <= 0.02 * want:
        return True, T(
            f"{want} bytes, {want - was:+d} against lenet.mindir ({was}): the net holds q * s "
            "as float32, so export writes 4 bytes per weight as before",
            f"{want} 字节，比 lenet.mindir（{was}）{want - was:+d}：网络里存的是 float32 的 "
            "q * s，导出时每个权重仍是 4 字节",
        )
    if got < 0.75 * want:
        return False, T(
            "set_data put the dequantized q * s back into the net: what dtype are the "
            "parameters now, and how many bytes does each take?",
            "set_data 放回网络的是反量化后的 q * s：这些参数现在是什么 dtype，每个占几个字节？",
        )
    return False, T(
        "the file holds the graph and every parameter: compare with lenet.mindir's size",
        "文件里是图和所有参数：和 lenet.mindir 的大小比一比",
    )


# -- 08 · parallel training --------------------------------------------------------------
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
        f"{want}：批大小不能整除时，各分片相差一个样本",
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


# -- 09 · troubleshooting and migration --------------------------------------------------
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
            f"angle_i = {position} * base^(-2i/d)，i < d/2，前后两半重复一次",
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


def _exercises() -> Dict[str, Tuple[Exercise, ...]]:
    e = Exercise
    return {
        "00": (
            e(
                "00",
                1,
                _busy_npu,
                T(
                    "The process table under the chips names the NPU and its memory.",
                    "芯片下面的进程表写着NPU编号和它占用的内存。",
                ),
                "my_busy = (2, 37709)  # NPU 2 runs process 1333928 holding 37709 MB",
            ),
            e(
                "00",
                2,
                _visible_devices,
                T(
                    "Pick two NPUs with no process; the first listed becomes device_id 0.",
                    "选两个没有进程的NPU；列在前面的那个成为 device_id 0。",
                ),
                'my_visible = "4,5"\nmy_device_id = 1  # NPU 5 is the second visible device',
            ),
        ),
        "01": (
            e(
                "01",
                1,
                _conv_shape,
                T(
                    "Output side = floor((in - kernel) / stride) + 1 for valid padding.",
                    "valid 填充时，输出边长 = floor((输入 - 卷积核) / 步长) + 1。",
                ),
                "my_shape = (1, 16, 14, 14)",
            ),
            e(
                "01",
                2,
                _trainable_count,
                T(
                    "Conv weight 16x3x3x3 (no bias), then gamma and beta: 16 each.",
                    "卷积权重 16x3x3x3（无偏置），再加 gamma 和 beta：各 16 个。",
                ),
                "my_trainable_count = 16 * 3 * 3 * 3 + 16 + 16",
            ),
        ),
        "02": (
            e(
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
            e(
                "02",
                2,
                _mindir_weight_bytes,
                T(
                    "Sum the products of the parameters' dims, times 4 bytes.",
                    "把每个参数各维度的乘积相加，再乘以 4 字节。",
                ),
                "my_weight_bytes = sum(int(np.prod(p.dims)) * 4 for p in model.graph.parameter)",
            ),
        ),
        "03": (
            e(
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
            e(
                "03",
                2,
                _compiles,
                T(
                    "Count the distinct batch sizes; a cached shape does not recompile.",
                    "数一数有几种不同的 batch 大小；已缓存的 shape 不会重编译。",
                ),
                "my_compiles = (len(set(batches)), 1)",
            ),
            e(
                "03",
                3,
                _fold,
                T(
                    "s = gamma / sqrt(var + eps); w' = w * s per output channel; "
                    "b' = beta - mean * s.",
                    "s = gamma / sqrt(var + eps)；按输出通道 w' = w * s；b' = beta - mean * s。",
                ),
                "def fold(conv_w, gamma, beta, mean, var, eps):\n"
                "    s = gamma / np.sqrt(var + eps)\n"
                "    return conv_w * s[:, None, None, None], beta - mean * s",
            ),
        ),
        "04": (
            e(
                "04",
                1,
                _conv_bytes_at,
                T(
                    "48 x 16 x 32 x 32 x 4 bytes, or the traced size x 48/32.",
                    "48 x 16 x 32 x 32 x 4 字节，或者跟踪得到的大小 x 48/32。",
                ),
                "my_conv_bytes_48 = 48 * 16 * 32 * 32 * 4",
            ),
            e(
                "04",
                2,
                _lower_bound_at,
                T(
                    "All of ConvBNReLU's tensors scale with the batch.",
                    "ConvBNReLU 的所有张量都随批大小按比例变化。",
                ),
                "my_lower_bound_16 = plan32.lower_bound // 2",
            ),
            e(
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
        ),
        "05": (
            e(
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
            e(
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
        ),
        "05b": (
            e(
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
            e(
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
        ),
        "06": (
            e(
                "06",
                1,
                _steps,
                T(
                    "len(images) // 48, and the same rounded up.",
                    "len(images) // 48，以及同一个数向上取整。",
                ),
                "my_steps = (len(images) // 48, -(-len(images) // 48))",
            ),
            e(
                "06",
                2,
                _underflow,
                T(
                    "float16's smallest positive number is about 6e-8.",
                    "float16 能表示的最小正数约为 6e-8。",
                ),
                "my_vanishing = [v for v in CANDIDATES if np.float16(v) == 0]",
            ),
            e(
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
        ),
        "07": (
            e(
                "07",
                1,
                _quant_config,
                T(
                    "Add [data_preprocess_param] (calibrate_path, calibrate_size, input_type) "
                    "and [full_quant_param] (activation_quant_method, bias_correction, "
                    "target_device=ASCEND).",
                    "添加 [data_preprocess_param]（calibrate_path、calibrate_size、input_type）"
                    "和 [full_quant_param]（activation_quant_method、bias_correction、"
                    "target_device=ASCEND）。",
                ),
                "# rewrite the file from its first three sections: running the cell twice is safe\n"
                'base = open(config).read().split("\\n[data_preprocess_param]")[0]\n'
                'with open(config, "w") as fh:\n'
                "    fh.write(base)\n"
                '    fh.write("\\n[data_preprocess_param]\\n"\n'
                '             f"calibrate_path=x:{calib_dir}\\n"\n'
                '             f"calibrate_size={len(calib_files)}\\n"\n'
                '             "input_type=BIN\\n")\n'
                '    fh.write("\\n[full_quant_param]\\nactivation_quant_method=MAX_MIN\\n"\n'
                '             "bias_correction=true\\ntarget_device=ASCEND\\n")\n'
                "my_config = config",
            ),
            e(
                "07",
                2,
                _quantized_file,
                T(
                    "Which values did set_data put into int8_net's parameters, in which dtype?",
                    "set_data 往 int8_net 的参数里放的是什么值、什么 dtype？",
                ),
                "# the weights are q * s in float32 again: 4 bytes each, as in lenet.mindir\n"
                "my_int8_bytes = os.path.getsize(mindir)",
            ),
        ),
        "08": (
            e(
                "08",
                1,
                _shards,
                T(
                    "len(range(r, 64, 3)) for each rank r.",
                    "对每个 rank r 计算 len(range(r, 64, 3))。",
                ),
                "my_shard_sizes = [len(range(r, 64, 3)) for r in range(3)]",
            ),
            e(
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
        ),
        "09": (
            e(
                "09",
                1,
                _all_loaded,
                T(
                    "Rename only the BatchNorm tensors under body.; keep fc.*; "
                    "skip num_batches_tracked.",
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
            e(
                "09",
                2,
                _rope_row,
                T(
                    "angle_i = 7 * 10000^(-2i/8) for i = 0..3, repeated twice.",
                    "angle_i = 7 * 10000^(-2i/8)，i = 0..3，重复两遍。",
                ),
                "inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)\n"
                "ang = np.concatenate([7 * inv, 7 * inv])\n"
                "my_cos7, my_sin7 = np.cos(ang), np.sin(ang)",
            ),
            e(
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
        ),
        "10": day_one_exercises(),
    }


EXERCISES = _exercises()


def exercises(notebook: str) -> Tuple[Exercise, ...]:
    """The exercises of notebook ``"NN"`` (or ``"05b"``) in order: ``q1, q2 = exercises("03")``;
    a notebook's file name works too (``"05b_host_and_device"``)."""
    try:
        return EXERCISES[str(notebook).split("_", 1)[0]]
    except KeyError:
        raise KeyError(
            f"no exercises for notebook {notebook!r}; known: {sorted(EXERCISES)}"
        ) from None

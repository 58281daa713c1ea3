"""The course's exercises: two or three per notebook, keyed by the notebook's number.

Every verifier computes the right answer itself, from what the notebook built (a trace, a
plan, a parsed ``npu-smi`` table, a net) or from an invariant (a formula, a simulation),
never from a value the learner's cell produced. MindSpore and NumPy are imported inside the
verifiers that need them: importing this module stays cheap.
"""

import configparser
import math
from typing import Any, Dict, List, Sequence, Tuple

from .core import Exercise, Message, Text, returned
from .day_one import day_one_exercises

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
def _busiest_pass(name: Any, passes: Any) -> Result:
    counts = [(s.name, s.node_count or 0) for s in passes]
    top = max(c for _, c in counts)
    winners = [n for n, c in counts if c == top]
    if str(name) not in [n for n, _ in counts]:
        return False, T(
            "give a pass name exactly as t.passes prints it (s.name)",
            "按 t.passes 打印的样子给出 Pass 名（s.name）",
        )
    if str(name) not in winners:
        return False, T(
            "loop over t.passes and keep the snapshot with the largest node_count",
            "遍历 t.passes，找出 node_count 最大的那个快照",
        )
    return True, T(
        f"{name} holds the most nodes ({top}): the graph grows before it is simplified",
        f"{name} 的节点最多（{top} 个）：图先膨胀，然后才被化简",
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
def _compiles(pair: Any, batches: Sequence[int]) -> Result:
    static, dynamic = (int(v) for v in pair)
    want = len(set(batches))
    if static != want:
        return (
            False,
            T(
                "a static-shape graph compiles once per new shape; a shape seen before is cached",
                "静态shape 的图每遇到一个新 shape 编译一次；见过的 shape 会命中缓存",
            ),
        )
    if dynamic != 1:
        return False, T(
            "set_inputs with None declares the batch dynamic: one compile for all",
            "set_inputs 中用 None 声明批维度为动态：所有批大小只编译一次",
        )
    return True, T(
        f"{want} compiles with static shapes, 1 with a dynamic batch",
        f"静态shape 编译 {want} 次，动态批大小编译 1 次",
    )


def _fold(fold: Any, cbr: Any, x: Any) -> Result:
    import mindspore as ms
    import numpy as np

    bn = cbr.bn
    # Variances as small as eps (a channel that hardly varies): a fold that leaves eps out
    # is off by up to 70% here, where the notebook's variances near 1 would hide it.
    saved = bn.moving_variance.asnumpy().copy()
    rng = np.random.default_rng(7)
    small = (bn.eps * rng.uniform(0.5, 3.0, saved.shape)).astype(np.float32)
    bn.moving_variance.set_data(ms.Tensor(small))
    try:
        return _check_fold(fold, cbr, x)
    finally:
        bn.moving_variance.set_data(ms.Tensor(saved))


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
                f"the folded conv differs by up to {err:.3g} (relative; the check uses "
                "variances as small as eps): scale by gamma / sqrt(var + eps)",
                f"折叠后的卷积最多相差 {err:.3g}（相对误差；检查时方差小到与 eps 相当）："
                "要乘以 gamma / sqrt(var + eps)",
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


# -- 05 · execution on the device --------------------------------------------------------
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
    from ..numerics import compare_numerics

    result = compare_numerics(net, x, amp="O3")
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
        "common_quant_param": ["quant_type", "bit_num"],
        "data_preprocess_param": ["calibrate_path", "calibrate_size", "input_type"],
        "full_quant_param": ["activation_quant_method", "target_device"],
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
    names, value = _calibration_folder(cfg)
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


def _int8(q_and_s: Any, w: Any) -> Result:
    import numpy as np

    q, s = q_and_s
    q = np.asarray(q)
    s = float(s)
    w = np.asarray(w, np.float64)
    want_s = float(np.abs(w).max()) / 127.0
    if abs(s - want_s) > 1e-6 * want_s:
        return False, T("s = max|w| / 127", "缩放因子 s = max|w| / 127")
    if q.shape != w.shape or np.abs(q).max() > 127 or not np.all(q == np.round(q)):
        return False, T(
            "q holds one integer in -127..127 per weight",
            "q 中每个权重对应一个 -127..127 之间的整数",
        )
    if np.abs(q * s - w).max() > s / 2 + 1e-7:
        return False, T(
            "q = round(w / s): each weight is off by at most s/2 after dequantizing",
            "q = round(w / s)：反量化后每个权重的误差不超过 s/2",
        )
    return True, T(
        f"q = {q.astype(int).tolist()}, s = {s:.4f}; error at most s/2",
        f"q = {q.astype(int).tolist()}，s = {s:.4f}；误差不超过 s/2",
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
                _busiest_pass,
                T(
                    "Each snapshot in t.passes has a name and a node_count; "
                    "you want the name of the one that counts the most nodes.",
                    "t.passes 中的每个快照都有 name 和 node_count；"
                    "要找的是节点数最多的那个快照的名字。",
                ),
                "my_busiest_pass = max(t.passes, key=lambda s: s.node_count or 0).name",
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
                _compiles,
                T(
                    "Count the distinct batch sizes; a cached shape does not recompile.",
                    "数一数有几种不同的批大小；已缓存的 shape 不会重编译。",
                ),
                "my_compiles = (len(set(batches)), 1)",
            ),
            e(
                "03",
                2,
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
                    "and [full_quant_param] (activation_quant_method, target_device=ASCEND).",
                    "添加 [data_preprocess_param]（calibrate_path、calibrate_size、input_type）"
                    "和 [full_quant_param]（activation_quant_method、target_device=ASCEND）。",
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
                _int8,
                T(
                    "s = 1.27 / 127; q = round(w / s).",
                    "缩放因子 s = 1.27 / 127；q = round(w / s)。",
                ),
                "my_s = float(np.abs(w).max() / 127)\nmy_q = np.round(w / my_s).astype(np.int8)",
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
    """The exercises of notebook ``"NN"`` in order: ``q1, q2 = exercises("03")``."""
    try:
        return EXERCISES[str(notebook)[:2]]
    except KeyError:
        raise KeyError(
            f"no exercises for notebook {notebook!r}; known: {sorted(EXERCISES)}"
        ) from None

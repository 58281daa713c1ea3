"""The checks of notebook 00 (the stack and your machine).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any

from ascend_lab.exercises.core import Exercise, Result, Text

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _busy_npu(npu_and_mb: Any, info: Any) -> Result:
    npu, mb = npu_and_mb
    busy = [(p.npu, p.memory_mb) for p in info.processes if p.memory_mb]
    if not busy:
        return False, T(
            "this npu-smi table lists no process: nothing to find",
            "这张 npu-smi 表里没有进程：没有要找的 NPU",
        )
    want_npu, want_mb = max(busy, key=lambda pair: pair[1])
    if int(npu) != want_npu:
        return False, T(
            "look at the process table at the bottom: which NPU runs a process?",
            "看看最下面的进程表：哪个 NPU 上在运行进程？",
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
            "ASCEND_RT_VISIBLE_DEVICES 要列出两个不同的 NPU 编号，例如 '4,5'",
        )
    if not set(ids) <= known:
        return False, T(
            f"this server has NPUs {sorted(known)}", f"这台服务器上的 NPU 是 {sorted(known)}"
        )
    if set(ids) & busy:
        return False, T(
            f"NPU {sorted(set(ids) & busy)} is busy (see the process table)",
            f"NPU {sorted(set(ids) & busy)} 已被占用（见进程表）",
        )
    if int(device_id) != 1:
        return False, T(
            "MindSpore numbers the visible NPUs from 0 in the order listed",
            "MindSpore 按列出的顺序从 0 开始给可见的 NPU 编号",
        )
    return True, T(
        f"ASCEND_RT_VISIBLE_DEVICES={ids[0]},{ids[1]}: device_id 0 is NPU {ids[0]}, "
        f"device_id 1 is NPU {ids[1]}",
        f"ASCEND_RT_VISIBLE_DEVICES={ids[0]},{ids[1]}：device_id 0 是 NPU {ids[0]}，"
        f"device_id 1 是 NPU {ids[1]}",
    )


EXERCISES = (
    Exercise(
        "00",
        1,
        _busy_npu,
        T(
            "The process table under the chips names the NPU and its memory.",
            "芯片下面的进程表写着 NPU 编号和它占用的内存。",
        ),
        "my_busy = (2, 37709)  # NPU 2 runs process 1333928 holding 37709 MB",
    ),
    Exercise(
        "00",
        2,
        _visible_devices,
        T(
            "Pick two NPUs with no process; the first listed becomes device_id 0.",
            "选两个没有进程的 NPU；列在前面的那个成为 device_id 0。",
        ),
        'my_visible = "4,5"\nmy_device_id = 1  # NPU 5 is the second visible device',
    ),
)

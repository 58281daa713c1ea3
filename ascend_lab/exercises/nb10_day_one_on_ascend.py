"""The checks of notebook 10 ("Day one on an Ascend instance"), on recorded NPU material.

Each verifier computes the right answer from the object the notebook read (a parsed
profile, the recorded error text, a parsed ``npu-smi info`` table), never from a value the
learner's cell produced. Nothing here imports MindSpore.
"""

from typing import Any, List

from ascend_lab.exercises.core import Exercise, Result, Text

T = Text


def _aicpu_op_type(op_type: Any, profile: Any) -> Result:
    """The op type that ran on AI CPU in ``profile`` (Ascend's ``Accelerator Core`` column)."""
    launches = list(profile.launches)
    on_aicpu = sorted({k.op_type for k in launches if k.core == "AI_CPU"})
    if not on_aicpu:
        return False, T(
            "this profile has no AI_CPU launch: nothing to find",
            "这份性能数据里没有 AI_CPU 上的算子：没有要找的算子",
        )
    got = str(op_type).strip()
    wanted = {t.lower(): t for t in on_aicpu}
    if got.lower() in wanted:
        others = sorted({k.core or "-" for k in launches if k.op_type == wanted[got.lower()]})
        return True, T(
            f"{wanted[got.lower()]} ran on AI_CPU (cores of this type: {', '.join(others)}): "
            "an op that fell back from AI Core to the slower AI CPU",
            f"{wanted[got.lower()]} 在 AI_CPU 上执行（这类算子出现过的核：{'、'.join(others)}）："
            "它从 AI Core 回退到了更慢的 AI CPU",
        )
    if got in {k.name for k in launches}:
        return False, T(
            "that is a kernel's Name; the op type is the Type column (launch.op_type)",
            "这是算子实例的 Name；要的是 Type 一列（launch.op_type）",
        )
    return False, T(
        "keep the launches whose core is 'AI_CPU' and read their op_type",
        "只保留 core 为 'AI_CPU' 的那些执行记录，再看它们的 op_type",
    )


def _code_module(module: Any, text: str, code: str) -> Result:
    """The module (component) CANN's error code ``code`` names, as the doctor reads it."""
    from ascend_lab.doctor.codes import find_codes

    notes = [n for n in find_codes(text) if n.code == code]
    if not notes:
        return False, T(f"{code} is not in this text", f"这段文本里没有 {code}")
    want = notes[0].module.split(" (")[0].strip()
    got = str(module).strip()
    if got.upper() != want.upper():
        return False, T(
            f"the letter after 'E' names the module: look up {code} with find_codes(text)",
            f"E 后面的字母表示模块：用 find_codes(text) 查一查 {code}",
        )
    return True, T(
        f"{code} comes from {notes[0].module}: the ranks disagree, so read every rank's plog",
        f"{code} 来自 {notes[0].module}：各卡之间不一致，要看每张卡的 plog",
    )


def _ids(text: Any) -> List[int]:
    """'4,5,6,7' -> [4, 5, 6, 7]; as CANN reads it, up to the first character that is no id."""
    out: List[int] = []
    for part in str(text).split(","):
        if not part.isdigit():
            break
        out.append(int(part))
    return out


def _container_npu(npu: Any, container: str, visible: str, device_id: int) -> Result:
    """The physical NPU a job uses: the container mounts the physical NPUs ``container``
    (ASCEND_VISIBLE_DEVICES, Ascend Docker Runtime), which its processes number 0, 1, ...
    (logical ids); ASCEND_RT_VISIBLE_DEVICES keeps the logical ids ``visible`` and numbers
    them 0, 1, ... again; ``device_id`` picks among those."""
    mounted, kept = _ids(container), _ids(visible)
    if not mounted or not kept or not 0 <= device_id < len(kept):
        return False, T("this setting names no NPU", "这组设置没有指向任何 NPU")
    if max(kept) >= len(mounted):
        return False, T("this setting names no NPU", "这组设置没有指向任何 NPU")
    right = mounted[kept[device_id]]
    try:
        got = int(npu)
    except (TypeError, ValueError):
        return False, T(
            "answer with the physical NPU's number, e.g. 3", "用物理 NPU 的编号作答，例如 3"
        )
    if got == right:
        return True, T(
            f"device_id {device_id} -> logical NPU {kept[device_id]} (ASCEND_RT_VISIBLE_DEVICES="
            f"{visible}) -> physical NPU {right} (the container's NPUs {container}, numbered "
            "from 0 inside it): npu-smi on the host shows the job there",
            f"device_id {device_id} -> 逻辑 NPU {kept[device_id]}（ASCEND_RT_VISIBLE_DEVICES="
            f"{visible}）-> 物理 NPU {right}（容器挂载的 NPU {container}，在容器内从 0 编号）："
            "在宿主机上用 npu-smi 能看到作业在这张卡上",
        )
    if got == kept[device_id]:
        return False, T(
            "that is the logical id inside the container: the container numbers its NPUs "
            f"{container} from 0",
            f"这是容器内的逻辑编号：容器把它挂载的 NPU {container} 从 0 开始编号",
        )
    if got == device_id:
        return False, T(
            "device_id counts among the NPUs the process sees, not the server's",
            "device_id 是在进程能看到的 NPU 中计数，不是在整台服务器的 NPU 中计数",
        )
    if device_id < len(mounted) and got == mounted[device_id]:
        return False, T(
            "ASCEND_RT_VISIBLE_DEVICES applies too: it keeps some of the container's NPUs "
            "and numbers them from 0 again",
            "ASCEND_RT_VISIBLE_DEVICES 同样生效：它从容器的 NPU 中留下一部分，并重新从 0 编号",
        )
    return False, T(
        "go step by step: device_id -> ASCEND_RT_VISIBLE_DEVICES (logical ids, counted from 0) "
        "-> ASCEND_VISIBLE_DEVICES (physical ids, in the order listed)",
        "一步一步来：device_id -> ASCEND_RT_VISIBLE_DEVICES（逻辑编号，从 0 计数）"
        "-> ASCEND_VISIBLE_DEVICES（物理编号，按列出的顺序）",
    )


# Notebook 10's exercises, in order.
EXERCISES = (
    Exercise(
        "10",
        1,
        _container_npu,
        T(
            "Inside the container the NPUs it mounted are numbered 0, 1, ...; "
            "ASCEND_RT_VISIBLE_DEVICES keeps some of those; device_id indexes what it kept.",
            "容器内把挂载的 NPU 编号为 0、1……；ASCEND_RT_VISIBLE_DEVICES 从中留下一部分；"
            "device_id 是在留下的这些里取下标。",
        ),
        "mounted = [int(i) for i in CONTAINER.split(',')]\n"
        "kept = [int(i) for i in VISIBLE.split(',')]\n"
        "my_physical = mounted[kept[DEVICE_ID]]",
    ),
    Exercise(
        "10",
        2,
        _code_module,
        T(
            "find_codes(text) returns one note per error code; its .module names the component.",
            "find_codes(text) 为每个错误码返回一条说明；它的 .module 就是模块名。",
        ),
        'my_module = [n for n in find_codes(errors["EI0005"]) if n.code == "EI0005"][0]'
        '.module.split(" (")[0]',
    ),
    Exercise(
        "10",
        3,
        _aicpu_op_type,
        T(
            "Each launch in recorded.launches has .core and .op_type; "
            "keep the ones with core == 'AI_CPU'.",
            "recorded.launches 中每条记录都有 .core 和 .op_type；只保留 core == 'AI_CPU' 的。",
        ),
        "my_aicpu_type = sorted(\n"
        '    {k.op_type for k in recorded.launches if k.core == "AI_CPU"}\n'
        ")[0]",
    ),
)

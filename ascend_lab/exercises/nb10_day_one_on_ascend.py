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
            "这份性能数据里没有 AI_CPU 上的算子：没有可找的",
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


def _most_hbm(npu: Any, info: Any) -> Result:
    """The NPU with the most HBM in use in the parsed ``npu-smi info`` table."""
    chips: List[Any] = [c for c in info.chips if c.hbm_used_mb is not None]
    if not chips:
        return False, T("this table has no HBM-Usage column", "这张表没有 HBM-Usage 一列")
    top = max(c.hbm_used_mb for c in chips)
    busiest = sorted({c.npu for c in chips if c.hbm_used_mb == top})
    try:
        got = int(npu)
    except (TypeError, ValueError):
        return False, T("answer with the NPU's number, e.g. 3", "用NPU的编号作答，例如 3")
    if got not in busiest:
        return False, T(
            "Power and Temp are not load: compare the HBM-Usage(MB) column, second row of each NPU",
            "功率和温度不代表负载：比较每个NPU第二行的 HBM-Usage(MB) 一列",
        )
    return True, T(
        f"NPU {got} holds {top} MB of HBM; the others hold about 3.4 GB each at rest",
        f"NPU {got} 占用 {top} MB HBM；其余的空闲时各占约 3.4 GB",
    )


# Notebook 10's exercises, in order.
EXERCISES = (
    Exercise(
        "10",
        1,
        _most_hbm,
        T(
            "Each chip in info.chips has .hbm_used_mb; take the NPU with the largest.",
            "info.chips 中每个芯片都有 .hbm_used_mb；取最大的那个NPU。",
        ),
        "my_busiest = max(recorded_info.chips, key=lambda c: c.hbm_used_mb or 0).npu",
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

"""Status messages made elsewhere as English strings, translated by their template."""

from ascend_lab.i18n import localize, translation
from ascend_lab.i18n.templates import MAX_CHARS, split, translate_string


def test_split_finds_the_arguments_left_to_right():
    pieces = tuple("NPU {} chip {} health is {}".split("{}"))
    assert split("NPU 3 chip 0 health is Alarm", pieces) == ["3", "0", "Alarm"]
    assert split("NPU 3 chip 0 health", pieces) is None
    assert split("GPU 3 chip 0 health is Alarm", pieces) is None
    plural = tuple("{} NPU chip{} found by npu-smi".split("{}"))
    assert split("1 NPU chip found by npu-smi", plural) == ["1", ""]
    assert split("8 NPU chips found by npu-smi", plural) == ["8", "s"]


def test_status_messages_in_chinese():
    cases = {
        "npu-smi not found on PATH": "PATH 中找不到 npu-smi",
        "8 NPU chips found by npu-smi": "npu-smi 找到 8 个 NPU 芯片",
        "ASCEND_OPP_PATH=/opt/x y does not exist": "ASCEND_OPP_PATH=/opt/x y 不存在",
        # an argument that is itself a message is translated too
        "no NPU (npu-smi timed out after 5 s); NVIDIA GPU and a GPU build of MindSpore found": (
            "没有 NPU（npu-smi 在 5 秒后超时）；找到了 NVIDIA GPU 和 GPU 版 MindSpore"
        ),
        # two messages joined into one
        "MindSpore 2.9.0 is not in the compatibility table (check the CANN and driver it needs "
        "at https://www.mindspore.cn/docs/en/r2.9.0/RELEASE.html). CANN 8.0.0 pairs with "
        "MindSpore 2.5.0.": (
            "MindSpore 2.9.0 不在版本配套表中（它所需的 CANN 与驱动请在 "
            "https://www.mindspore.cn/docs/en/r2.9.0/RELEASE.html 查询）。CANN 8.0.0 配套的是 "
            "MindSpore 2.5.0。"
        ),
        "MindSpore 2.5.0 and CANN 8.0.0 match.": "MindSpore 2.5.0 与 CANN 8.0.0 配套。",
        "NPU 1x910B3 · HBM 12% · 2 errors": "NPU 1x910B3 · HBM 12% · 2 个错误",
        "npu-smi not found at /usr/bin/npu-smi": "在 /usr/bin/npu-smi 未找到 npu-smi",
    }
    for english, chinese in cases.items():
        assert localize(english, "zh") == chinese


def test_unknown_and_oversized_text_is_shown_as_it_is():
    assert localize("something npu-smi said", "zh") == "something npu-smi said"
    assert localize("", "zh") == ""  # not the catalogue header
    big = "npu-smi not found on PATH " + "x" * MAX_CHARS
    assert translate_string(big, translation("zh_CN")) == big
    # many near-misses of a template: still answered (linear per template)
    near = "NPU 1 chip " * 300
    assert localize(near, "zh") == near
    sentences = "the npu said no. " * 240  # many places to split, none translatable
    assert localize(sentences[:3999], "zh") == sentences[:3999]


def test_a_value_that_looks_like_a_format_field_is_not_formatted():
    text = "ASCEND_HOME_PATH={0}{__class__} does not exist"
    assert localize(text, "zh") == "ASCEND_HOME_PATH={0}{__class__} 不存在"

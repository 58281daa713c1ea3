"""The exercises speak the edition's language: Chinese under notebooks/zh, English otherwise.

Every exercise is checked in both languages with a right and a wrong answer (pure checks
on small stand-ins for the notebook's objects; the two that run a net use MindSpore).
The language detection is tested on its own: session path, working directory,
ASCEND_LAB_LANG, locale.
"""

import os
import re
from types import SimpleNamespace as NS

import numpy as np
import pytest

from ascend_lab.exercises import EXERCISES, NOT_ANSWERED, RIGHT, WRONG, ____, exercises, language
from ascend_lab.exercises.core import NOT_ANSWERED_ZH, WRONG_ZH, Text
from ascend_lab.parsers.npu_smi import parse_info
from benchmarks.support.nbrun import NOTEBOOKS

CJK = re.compile(r"[\u4e00-\u9fff]")
LANG_VARS = ("ASCEND_LAB_LANG", "JPY_SESSION_NAME", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def neutral_env(monkeypatch, tmp_path):
    """No language from the environment, and a working directory that is no course folder."""
    for name in LANG_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def info():
    with open(os.path.join(NOTEBOOKS, "data", "npu_smi_info_910b3_x8.txt"), encoding="utf-8") as fh:
        return parse_info(fh.read())


def fake_param(shape):
    return NS(shape=shape, asnumpy=lambda: np.zeros(shape, np.float32))


def quant_config(tmp_path, full):
    path = tmp_path / "quant.cfg"
    text = "[ascend_context]\ninput_shape=x:[1,1,32,32]\n"
    text += "[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n"
    if full:
        text += (
            "[data_preprocess_param]\ncalibrate_path=x:/c\ncalibrate_size=2\ninput_type=BIN\n"
            "[full_quant_param]\nactivation_quant_method=MAX_MIN\nbias_correction=true\n"
            "target_device=ASCEND\n"
        )
    path.write_text(text, encoding="utf-8")
    return str(path)


def rope(position, head_dim, base):
    half = base ** (-np.arange(0, head_dim, 2) / head_dim) * position
    angles = np.concatenate([half, half])
    return np.cos(angles), np.sin(angles)


def mindir_files(tmp_path):
    """Two stand-ins for the exported MindIR files of exercise 07.2 (sizes only matter)."""
    paths = {"float_file": tmp_path / "lenet.mindir", "int8_file": tmp_path / "lenet_int8.mindir"}
    for name, path in paths.items():
        path.write_bytes(b"\0" * (1000 if name == "float_file" else 1004))
    return {name: str(path) for name, path in paths.items()}


def half_file(tmp_path):
    """A stand-in for 07.3's float16 export: half of the 1000-byte float file."""
    path = tmp_path / "lenet_fp16.mindir"
    path.write_bytes(b"\0" * 500)
    return str(path)


def cases(tmp_path):
    """(notebook, number) -> (right answer, wrong answer, context) for every pure check."""
    table = info()
    trainable = [fake_param((16, 3, 3, 3)), fake_param((16,)), fake_param((16,))]
    net = NS(
        trainable_params=lambda: trainable,
        get_parameters=lambda: trainable + [fake_param((16,)), fake_param((16,))],
    )
    conv = NS(op="Conv2D", nbytes=32 * 16 * 32 * 32 * 4)
    rows = [
        {"op_type": "Conv2D", "total_compute_time": "3"},
        {"op_type": "ReLU", "total_compute_time": "1"},
    ]
    state = {"fc.weight": np.ones((2, 2)), "body.bn.running_var": np.ones(4)}
    ext = NS(
        fc=NS(weight=NS(asnumpy=lambda: np.ones((2, 2)))),
        body=NS(bn=NS(moving_variance=NS(asnumpy=lambda: np.ones(4)))),
    )
    ei0005 = "EI0005: The arguments for collective communication are inconsistent between ranks"
    launches = [
        NS(name="trans_Cast_5", op_type="Cast", core="AI_CPU"),
        NS(name="MatMul104", op_type="MatMul", core="AI_CORE"),
    ]
    return {
        ("00", 1): ((2, 37709), (3, 37709), {"info": table}),
        ("00", 2): (("4,5", 1), ("4,5", 0), {"info": table}),
        ("01", 1): ((1, 16, 14, 14), (1, 16, 28, 28), {}),
        ("01", 2): (16 * 27 + 32, 16 * 27, {"net": net}),
        ("02", 2): ((16 * 27 + 64) * 4, (16 * 27 + 32) * 4, {"net": net}),
        ("04", 1): (
            48 * 16 * 32 * 32 * 4,
            conv.nbytes,
            {"plan": NS(tensors=[conv]), "batch": 32, "new_batch": 48},
        ),
        ("04", 2): (16000, 32000, {"plan_at": lambda b: NS(lower_bound=b * 1000), "new_batch": 16}),
        ("04", 3): (
            3 * conv.nbytes,
            2 * conv.nbytes,
            {
                "before": NS(peak=2 * conv.nbytes, tensors=[conv]),
                "after": NS(peak=3 * conv.nbytes, tensors=[conv]),
            },
        ),
        ("05", 1): (0.75, 0.5, {"rows": rows}),
        ("05", 2): (
            6,
            3,
            {"measured": NS(steps=[NS(launches=6), NS(launches=6)]), "kernels": [1, 2, 3]},
        ),
        ("05b", 2): (
            240.0,
            40.0,
            {
                "before": NS(steps=[NS(gap_us=40e3), NS(gap_us=40e3)]),
                "after": NS(steps=[NS(gap_us=238e3), NS(gap_us=246e3)]),
                "host_ms": 25,
                "batches": 8,
            },
        ),
        ("06", 1): ((2, 3), (2, 2), {"n": 100, "batch": 48}),
        ("06", 2): ([1e-8, 1e-9], [1e-9], {"candidates": [1e-3, 1e-8, 1e-9]}),
        ("07", 1): (quant_config(tmp_path, True), quant_config(tmp_path / "..", False), {}),
        ("07", 2): (1000, 250, mindir_files(tmp_path)),
        ("07", 3): (
            500,
            1000,
            {"float_file": mindir_files(tmp_path)["float_file"], "fp16_file": half_file(tmp_path)},
        ),
        ("08", 1): ([22, 21, 21], [21, 21, 22], {"n": 64, "workers": 3}),
        ("08", 2): (np.ones(3), np.zeros(3), {"rank_weight": np.ones(3)}),
        ("09", 1): ([], ["fc.bias"], {"ext": ext, "state": state}),
        ("09", 2): (
            rope(7, 8, 10000.0),
            (np.zeros(8), np.zeros(8)),
            {"position": 7, "head_dim": 8, "base": 10000.0},
        ),
        ("09", 3): (0.99, 0.01, {"m_torch": 0.01}),
        ("10", 1): (7, 3, {"container": "4,5,6,7", "visible": "2,3", "device_id": 1}),
        ("10", 2): ("HCCL", "GE", {"text": ei0005, "code": "EI0005"}),
        ("10", 3): ("Cast", "MatMul", {"profile": NS(launches=launches)}),
    }


# tested below with a real net; the #28 experiments (02.1, 03.1, 03.2: the check traces or
# runs the net itself) in both languages in test_exercises.py; 06.3 (it runs
# compare_numerics) in test_numerics_exercise.py; 09b.1 and 09b.2 (compare_numerics, a graph-mode
# Cell) below
NEED_MINDSPORE = {
    ("02", 1),
    ("03", 1),
    ("03", 2),
    ("03", 3),
    ("05b", 1),
    ("06", 3),
    ("09b", 1),
    ("09b", 2),
}
# the #39 experiments: each check traces, plans or casts with MindSpore itself; their right and
# wrong answers are checked in both languages by test_wrong_answers.py
NEED_MINDSPORE |= {("01", 3), ("02", 3), ("03", 4), ("03", 5), ("04", 4), ("06", 4)}


def test_the_cases_cover_every_exercise(tmp_path):
    every = {(nb, q.number) for nb, qs in EXERCISES.items() for q in qs}
    assert set(cases(tmp_path)) | NEED_MINDSPORE == every


def test_every_exercise_right_and_wrong_in_both_languages(tmp_path):
    for (nb, number), (right, wrong, context) in sorted(cases(tmp_path).items()):
        q = exercises(nb)[number - 1]
        for lang in ("en", "zh"):
            kind, message = q.verdict(right, lang=lang, **context)
            assert kind == "right", (nb, number, lang, message)
            kind, pointer = q.verdict(wrong, lang=lang, **context)
            assert kind == "wrong", (nb, number, lang, pointer)
            if lang == "zh":
                assert CJK.search(message) and CJK.search(pointer), (nb, number, message, pointer)
            else:
                assert not CJK.search(message + pointer), (nb, number, message, pointer)
        assert q.verdict(____, lang="zh", **context) == ("open", NOT_ANSWERED_ZH)
        assert q.verdict(____, lang="en", **context) == ("open", NOT_ANSWERED)


def test_every_hint_exists_in_both_languages():
    for nb, qs in EXERCISES.items():
        for q in qs:
            assert isinstance(q._hint, Text), (nb, q.number)
            assert q._hint.en and not CJK.search(q._hint.en), (nb, q.number)
            assert CJK.search(q._hint.zh), (nb, q.number, q._hint.zh)


def zh_course(tmp_path):
    """A course folder with the English notebook and zh/ beside it (names only)."""
    course = tmp_path / "course"
    (course / "zh").mkdir(parents=True)
    (course / "00_stack_and_machine.ipynb").write_text("{}", encoding="utf-8")
    (course / "zh" / "00_stack_and_machine.ipynb").write_text("{}", encoding="utf-8")
    return course


def test_check_hint_and_solution_print_chinese_in_the_zh_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(language, "START_FOLDER", "")  # the kernel's start: not a course
    monkeypatch.chdir(zh_course(tmp_path) / "zh")
    q1 = exercises("01")[0]
    q1.check(____)
    q1.check((1, 16, 28, 28))
    q1.check("不是一个 shape")
    q1.check((1, 16, 14, 14))
    q1.hint()
    q1.solution()
    out = capsys.readouterr().out.splitlines()
    assert NOT_ANSWERED_ZH in out[0] and "\x1b[33m" in out[0] and "q1.solution()" in out[0]
    assert out[1].startswith("\x1b[31m" + WRONG_ZH) and "valid 填充" in out[1]
    assert out[2].startswith("\x1b[31m" + WRONG_ZH) and "你的答案引发了" in out[2]
    assert out[3].startswith("\x1b[32m" + RIGHT + " 练习 1：")
    assert out[4].startswith("\x1b[34m提示 1：") and "输出边长" in out[4]
    assert "参考答案 1" in out[5] and out[6] == "my_shape = (1, 16, 14, 14)"
    assert not any(NOT_ANSWERED in line or WRONG in line for line in out)


def test_the_english_course_folder_stays_english_under_a_chinese_locale(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.setattr(language, "START_FOLDER", "")
    monkeypatch.chdir(zh_course(tmp_path))
    exercises("01")[0].check((1, 16, 28, 28))
    out = capsys.readouterr().out
    assert out.startswith("\x1b[31m" + WRONG + ":") and "floor" in out


def test_edition_from_the_session_path_first(tmp_path):
    course = zh_course(tmp_path)
    zh_nb = {"JPY_SESSION_NAME": "notebooks/zh/03_graph_compilation.ipynb"}
    en_nb = {"JPY_SESSION_NAME": "/home/me/course/03_graph_compilation.ipynb", "LANG": "zh_CN"}
    assert language.edition(zh_nb, cwd=str(course)) == language.CHINESE  # the path beats the folder
    assert language.edition(en_nb, cwd=str(course / "zh")) == "en"
    # not a course notebook: the folder decides, then the environment
    mine = {"JPY_SESSION_NAME": "zh/my_notes.ipynb", "ASCEND_LAB_LANG": "en"}
    assert language.edition(mine, cwd=str(course / "zh")) == language.CHINESE
    assert language.edition(mine, cwd=str(tmp_path)) == "en"


def test_edition_from_the_folder_then_ascend_lab_lang_then_the_locale(tmp_path):
    course = zh_course(tmp_path)
    elsewhere = str(tmp_path)
    assert language.edition({}, cwd=str(course / "zh")) == language.CHINESE
    assert language.edition({"ASCEND_LAB_LANG": "zh"}, cwd=str(course)) == "en"
    assert language.edition({"ASCEND_LAB_LANG": "zh"}, cwd=elsewhere) == language.CHINESE
    assert language.edition({"ASCEND_LAB_LANG": "en", "LANG": "zh_CN.UTF-8"}, cwd=elsewhere) == "en"
    assert language.edition({"LANG": "zh_CN.UTF-8"}, cwd=elsewhere) == language.CHINESE
    assert (
        language.edition({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US"}, cwd=elsewhere)
        == language.CHINESE
    )
    assert language.edition({"LC_ALL": "fr_FR.UTF-8", "LANG": "zh_CN"}, cwd=elsewhere) == "en"
    assert (
        language.edition({"LC_MESSAGES": "zh_CN", "LANG": "C"}, cwd=elsewhere) == language.CHINESE
    )
    assert language.edition({"LANG": "C.UTF-8"}, cwd=elsewhere) == "en"
    assert language.edition({}, cwd=elsewhere) == "en"
    # a language we have no edition for is English where it is set, not an error
    assert language.edition({"ASCEND_LAB_LANG": "klingon", "LANG": "zh_CN"}, cwd=elsewhere) == "en"


def test_the_folder_the_kernel_started_in_beats_a_later_scratch_folder(tmp_path, monkeypatch):
    """The course's first cell imports the exercises in the notebook's folder, then
    scratch_folder() moves the kernel into a temporary folder."""
    course = zh_course(tmp_path)
    monkeypatch.setattr(language, "START_FOLDER", str(course / "zh"))
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert language.edition() == language.CHINESE  # cwd is tmp_path: no course folder
    monkeypatch.setattr(language, "START_FOLDER", str(course))
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert language.edition() == "en"
    monkeypatch.setattr(language, "START_FOLDER", str(tmp_path))
    monkeypatch.chdir(course / "zh")
    assert language.edition() == language.CHINESE  # then the current folder
    monkeypatch.chdir(tmp_path)
    assert language.edition() == language.CHINESE  # then the locale


def test_normalize():
    assert [language.normalize(t) for t in ("zh", "zh-CN", "zh_CN.UTF-8", "ZH_hk@x")] == [
        language.CHINESE
    ] * 4
    assert [language.normalize(t) for t in ("en", "en_US.UTF-8", "C", "", None, "fr")] == [
        "en",
        "en",
        None,
        None,
        None,
        None,
    ]


# -- the two checks that run a real net ------------------------------------------------------
@pytest.mark.mindspore
def test_fold_and_one_sync_in_both_languages():
    import importlib.util
    import sys

    import mindspore as ms
    from mindspore import nn

    if "course_nets" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "course_nets", os.path.join(NOTEBOOKS, "course_nets.py")
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["course_nets"] = module  # MindSpore re-imports a Cell's module by name
        spec.loader.exec_module(module)
    ms.set_seed(0)
    cbr = sys.modules["course_nets"].ConvBNReLU()
    cbr.set_train(False)
    cbr.bn.moving_variance.set_data(ms.Tensor(np.linspace(0.5, 2, 16).astype(np.float32)))
    x = ms.Tensor(np.random.default_rng(3).standard_normal((2, 3, 32, 32)).astype(np.float32))

    def fold(conv_w, gamma, beta, mean, var, eps):
        s = gamma / np.sqrt(var + eps)
        return conv_w * s[:, None, None, None], beta - mean * s

    def no_sqrt(conv_w, gamma, beta, mean, var, eps):
        s = gamma / (var + eps)
        return conv_w * s[:, None, None, None], beta - mean * s

    dense = nn.Dense(4, 1)
    rng = np.random.default_rng(0)
    steps = [(ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32)),) * 2 for _ in range(3)]

    def forward(a, b):
        return dense(a).mean()

    def every_step(steps):
        return sum(float(forward(a, b).asnumpy()) for a, b in steps)

    def once(steps):
        acc = ms.Tensor(0.0, ms.float32)
        for a, b in steps:
            acc = acc + forward(a, b)
        return float(acc.asnumpy())

    q_fold, q_sync = exercises("03")[2], exercises("05b")[0]
    for lang, script in (("zh", CJK), ("en", re.compile(r"^[^\u4e00-\u9fff]*$"))):
        for q, right, wrong, context in (
            (q_fold, fold, no_sqrt, {"cbr": cbr, "x": x}),
            (q_sync, once, every_step, {"steps": steps, "forward": forward}),
        ):
            kind, message = q.verdict(right, lang=lang, **context)
            assert kind == "right" and script.search(message), (lang, message)
            kind, pointer = q.verdict(wrong, lang=lang, **context)
            assert kind == "wrong" and script.search(pointer), (lang, pointer)


def test_tr_picks_the_label_of_the_notebook_edition(tmp_path, monkeypatch):
    from ascend_lab.exercises import tr

    monkeypatch.setattr(language, "START_FOLDER", "")
    course = zh_course(tmp_path)
    monkeypatch.chdir(course / "zh")
    assert tr("Memory over steps", "各步的内存") == "各步的内存"
    monkeypatch.chdir(course)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # the English course folder stays English
    assert tr("Memory over steps", "各步的内存") == "Memory over steps"


@pytest.mark.mindspore
def test_first_divergence_and_element_if_in_both_languages(tmp_path):
    from tests.course.test_wrong_answers import _gelu_port_case, element_if_cells

    right_cell, wrongs = element_if_cells()
    cases = {
        1: ("act", "fc2", _gelu_port_case(tmp_path)),
        2: (right_cell, wrongs["if (a > 0).all(): one branch for every element"], {}),
    }
    for number, (right, wrong, context) in cases.items():
        q = exercises("09b")[number - 1]
        for lang in ("en", "zh"):
            kind, message = q.verdict(right, lang=lang, **context)
            assert kind == "right", (number, lang, message)
            kind, pointer = q.verdict(wrong, lang=lang, **context)
            assert kind == "wrong", (number, lang, pointer)
            has_cjk = bool(CJK.search(message)) and bool(CJK.search(pointer))
            assert has_cjk == (lang == "zh"), (number, lang, message, pointer)

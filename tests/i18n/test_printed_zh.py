"""What the course's code cells print from ascend_lab, in Chinese: the trace summary and its
progress lines, the memory plan and comparison, the runtime-peak reason, the profile and
MindIR summaries, pick_device()'s CPU note. Each is Chinese under zh and carries exactly
the numbers (and names) of the English text."""

import os
import re
import sys
from collections import Counter
from types import SimpleNamespace as NS

import pytest

from ascend_lab.capture.compile import CaptureResult
from ascend_lab.capture.mindir_export import MindIRComparison
from ascend_lab.i18n import display_width, ljust, using
from ascend_lab.memory import compare_plans, plan_graph, runtime_peak
from ascend_lab.parsers.ir.timeline import PassTimeline
from ascend_lab.profiling.api import load_profile
from ascend_lab.tracing.progress import Progress
from tests.profiling.test_parsers import ASCEND, FakeTrace, ascend_graph

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IR = os.path.join(REPO, "tests", "fixtures", "ir")
HAN = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def both(make):
    """``make()`` in English and in Chinese."""
    with using("en"):
        en = make()
    with using("zh"):
        zh = make()
    return en, zh


def assert_same_numbers_in_chinese(en, zh):
    assert HAN.search(zh) and not HAN.search(en), zh
    assert Counter(NUMBER.findall(zh)) == Counter(NUMBER.findall(en)), (en, zh)


def trace(folder, fusion, level):
    from ascend_lab.results.trace import Trace

    dumps = os.path.join(IR, folder)
    result = CaptureResult(
        workdir=dumps,
        dump_dir=dumps,
        output=None,
        compile_seconds=3.25,
        fusion=fusion,
        level=level,
        ran=False,
        mindspore_version="2.10.0",
        device="CPU",
    )
    tr = Trace("LeNet5", result, PassTimeline(dumps))
    tr.analysis_seconds = 0.75
    return tr


def test_trace_summary_line_by_line():
    tr = trace("lenet_fusion", fusion=True, level=2)
    tr.dump_dir = "/tmp/lenet-dumps"
    en, zh = both(tr.summary)
    assert_same_numbers_in_chinese(en, zh)
    assert len(en.splitlines()) == len(zh.splitlines()) == 5
    for en_line, zh_line in zip(en.splitlines(), zh.splitlines()):
        assert HAN.search(zh_line), zh_line
        assert Counter(NUMBER.findall(zh_line)) == Counter(NUMBER.findall(en_line))
    assert zh.splitlines()[0] == (
        "LeNet5 的跟踪：MindSpore 2.10.0，设备 CPU，融合开启，save_graphs 级别 2"
    )
    # op and pass names as they are
    assert "Fused_BiasAdd_ReLU_fusion x2" in zh and "graph_build_0" in zh
    assert "/tmp/lenet-dumps" in zh
    with using("zh"):
        assert repr(tr) == zh  # what a notebook shows for a bare `t`


def test_trace_summary_without_fusion():
    en, zh = both(trace("lenet", fusion=False, level=1).summary)
    assert_same_numbers_in_chinese(en, zh)
    assert "融合关闭" in zh and "fusion off" in en


def test_progress_done_in_the_readers_language():
    bar = Progress("x", enabled=False)
    with using("zh"):
        bar.done()
    with using("en"):
        bar.done()
    assert bar.messages == ["完成", "done"]


def test_memory_plan_and_comparison():
    fused = plan_graph(trace("lenet_fusion", fusion=True, level=2).graph)
    plain = plan_graph(trace("lenet", fusion=False, level=1).graph)
    en, zh = both(fused.summary)
    assert_same_numbers_in_chinese(en, zh)
    assert zh.splitlines()[0] == "内存规划" and "greedy-size-best-fit" in zh
    assert "融合把 2 个中间张量（1.0 KiB）留在融合算子内部" in zh
    # the rows line up in terminal columns (a Chinese character takes two)
    rows = zh.splitlines()[1:11]
    starts = {display_width(r[: r.rindex("  ") + 2]) for r in rows}
    assert len(starts) == 1, rows
    comparison = compare_plans(plain, fused, ("off", "on"))
    en, zh = both(comparison.text)
    assert_same_numbers_in_chinese(en, zh)
    # the caller's labels stay as given; the columns are Chinese
    assert [line.split()[0] for line in zh.splitlines()[1:3]] == ["off", "on"]
    assert zh.splitlines()[0].split()[:3] == ["张量", "未纳入", "峰值"]
    html_zh = both(comparison._repr_html_)[1]
    assert "<th>峰值 / 下界</th>" in html_zh


def test_runtime_peak_reason():
    en, zh = both(lambda: runtime_peak("CPU")[1])
    assert HAN.search(zh) and "CPU" in zh and "CPU" in en and zh != en


def test_profile_summary_and_its_notes():
    profile = load_profile(ASCEND, "LeNet5", trace=FakeTrace(ascend_graph()))
    en, zh = both(profile.summary)
    assert_same_numbers_in_chinese(en, zh)
    assert "Default/hcom_allReduce_1" in zh  # kernel names as they are
    assert all(HAN.search(line) for line in zh.splitlines()), zh


def test_mindir_export_summary():
    result = MindIRComparison(path="/tmp/net.mindir", size=52817, graph=None, max_abs_diff=2.5e-7)
    en, zh = both(result.summary)
    assert_same_numbers_in_chinese(en, zh)
    assert "ms.load + nn.GraphCell" in zh


def test_ljust_counts_terminal_columns():
    assert ljust("峰值", 6) == "峰值  " and display_width("峰值 KiB") == 8


@pytest.mark.mindspore
def test_pick_device_note_in_chinese(monkeypatch, capsys):
    import ascend_lab

    monkeypatch.syspath_prepend(os.path.join(REPO, "notebooks"))
    sys.modules.pop("course_nets", None)
    import course_nets

    reason = "npu-smi not found on PATH"
    monkeypatch.setattr(ascend_lab, "status", lambda: NS(mode="cpu", reason=reason))
    # MindSpore's device can be set once per process, before anything ran (other tests in
    # this process may have run nets): the note is what is tested here, so record the call
    targets = []
    monkeypatch.setattr(course_nets.ms, "set_device", targets.append, raising=False)
    outputs = []
    for lang in ("en", "zh"):
        with using(lang):
            assert course_nets.pick_device() == "CPU"
        outputs.append(capsys.readouterr().out)
    assert targets == ["CPU", "CPU"]
    en, zh = outputs
    assert_same_numbers_in_chinese(en, zh)
    assert "本机没有昇腾 NPU：在 CPU 上运行" in zh and "npu-smi" in zh
    assert "No Ascend NPU here" in en and reason in en


@pytest.mark.mindspore
def test_trace_progress_lines_in_chinese(monkeypatch):
    import mindspore as ms
    import numpy as np
    from mindspore import nn

    import ascend_lab
    from ascend_lab.tracing import api

    bars = []

    class Recording(Progress):
        def __init__(self, title, enabled=None):
            super().__init__(title, enabled=False)
            bars.append(self)

    monkeypatch.setattr(api, "Progress", Recording)
    net = nn.Dense(4, 3)
    x = ms.Tensor(np.ones((2, 4), np.float32))
    with using("zh"):
        tr = ascend_lab.trace(net, x)
        summary = tr.summary()
    (bar,) = bars
    assert bar.title == "正在跟踪 Dense"
    assert bar.messages[0] == "正在以静态图模式编译"
    assert bar.messages[1].startswith("编译用时 ") and bar.messages[1].endswith(
        "正在读取 dump 文件"
    )
    assert bar.messages[2] == f"正在解析最终算子图（共 {len(tr.passes)} 个 dump 文件）"
    assert bar.messages[3] == f"{len(tr.passes)} 个 Pass，{tr.kernel_count} 个算子"
    with using("en"):
        assert Counter(NUMBER.findall(summary)) == Counter(NUMBER.findall(tr.summary()))


def test_pass_explanations_follow_the_language_of_the_trace():
    dumps = os.path.join(IR, "lenet_fusion")
    en, zh = both(lambda: [s.explain for s in PassTimeline(dumps)])
    assert len(en) == len(zh) == 7
    assert all(HAN.search(z) for z in zh) and not any(HAN.search(e) for e in en)
    assert "Fused_*" in " ".join(zh)  # names in the explanations stay as they are


def test_profile_table_headings_in_chinese_rows_unchanged():
    profile = load_profile(ASCEND, "LeNet5", trace=FakeTrace(ascend_graph()))
    en, zh = both(lambda: profile.table(3).splitlines())
    assert zh[0].split() == ["算子", "类型", "次数", "总计", "us", "平均", "us", "占比", "图节点"]
    assert zh[2:] == en[2:]  # the rows: names and numbers as they are
    assert display_width(zh[1]) == display_width(zh[0])


def test_profile_html_table_headings_in_chinese_rows_unchanged():
    profile = load_profile(ASCEND, "LeNet5", trace=FakeTrace(ascend_graph()))
    en, zh = both(profile._repr_html_)
    heads = re.compile(r"<th>([^<]*)</th>")
    assert heads.findall(en) == ["kernel", "type", "calls", "total µs", "mean µs", "share", "node"]
    assert heads.findall(zh) == ["算子", "类型", "次数", "总计 µs", "平均 µs", "占比", "图节点"]
    rows = re.compile(r"<tr><td.*?</tr>")
    assert rows.findall(zh) == rows.findall(en) and rows.findall(en)  # names and numbers


def test_memory_notes_give_their_inner_reason_in_chinese():
    from ascend_lab.model.graph import Graph, TensorType
    from tests.memory.graphs import op, param, ret, t

    nodes = [
        param("%x", -1, 3, kind="input"),
        param("%w", -1, 3),
        op("%0", "ReLU", ["%x"], [t(-1, 3)]),
        op("%1", "Shape", ["%0"], [TensorType(dtype="Tuple", shape=(2,))]),
        op("%2", "Zeros", [], [t(0, 3)]),
        op("%3", "Neg", ["%2"], [t(4, 3)]),
        op("%4", "Add", ["%0", "%3", "%w"], [t(-1, 3)]),
    ] + ret("%mt", ["%4"])
    en, zh = both(lambda: plan_graph(Graph("dyn", nodes)).summary())
    assert "Input x: size unknown (dynamic shape [-1, 3])" in en
    assert "Parameter w: size unknown (dynamic shape [-1, 3])" in en
    assert "输入 x：大小未知（动态 shape [-1, 3]），按 0 字节常驻内存计。" in zh
    assert "参数 w：大小未知（动态 shape [-1, 3]）" in zh
    assert "%1:0 [" in zh and "未知的 dtype 'Tuple'" in zh  # the exclusion examples
    assert "大小为 0（shape [0, 3]）" in zh and "、" in zh
    assert not re.search(r"dynamic shape|unknown dtype|size 0|size unknown", zh), zh
    assert_same_numbers_in_chinese(en, zh)

"""The Chinese edition prints Chinese (issue #29): a zh run of every notebook (00-10 with 05b
and 09b: the status card, MindIR, passes, memory plans, profiles, the Conv2d chain, host and
device, training and mixed precision, deployment, parallel training, migration,
troubleshooting, day one), as
shipped, in the zh folder (as a learner's kernel starts there), prints no English sentence
outside code identifiers, paths and the tools' own verbatim output
(:mod:`tests.course.english_text` says what counts: 06, 09 and 10 print MindSpore's
TimeMonitor line, its error reports and run_check's verdict, NumPy's 1.x message, the
doctor's quoted evidence and native files quoted behind a gutter, as the tools wrote them).
compare_numerics' summary is Chinese there, and the doctor reads it pasted in either
language (tests/numerics, tests/doctor).

The fast tests pin the definition on lines the zh run printed before #29 (each was an
English sentence under Chinese text) and on what it prints now."""

import os
import shutil

import nbformat
import pytest

from benchmarks.support.nbrun import EXPECTED, NOTEBOOKS, execute_in_place
from tests.course.english_text import html_text, output_texts, sentences

# printed by the zh run of 00 / 04 / 05 before #29 (recorded 2026-12-01, MindSpore 2.10 CPU)
ENGLISH_BEFORE = [
    ("  Device malloc failed, size:1073741824", ["Device malloc failed,"]),  # no │ gutter
    ("The result of multiplication calculation is wrong", None),  # not run_check's verdict
    ("mode: cpu | npu-smi not found on PATH", ["not found on"]),
    (
        "compatibility: unknown - No Ascend software found: MindSpore runs on CPU.",
        ["No Ascend software found:"],
    ),
    ("    MindSpore 2.3.1 is built for CANN 8.0.RC2, but CANN 7.0.0 is installed.", None),
    ("    fix: Install CANN 8.0.RC2, or keep CANN 7.0.0 and pip install mindspore==2.2.14", None),
    ("this kernel runs: /work/main/.venv/bin/python", ["this kernel runs:"]),
    ("'mindspore' kernel registered: False", None),
    ("  -> register it with:  ascend-lab install-kernel  (then pick 'MindSpore')", None),
    ("device_target = CPU, output (1, 16, 32, 32), 12.07 ms per call", ["ms per call"]),
    ("findfont: Font family 'Bitstream Vera Sans' not found.", None),
    (
        "/work/wt/h-zh/ascend_lab/render/memory_plot.py:41: UserWarning: This figure includes Axes "
        "that are not compatible with tight_layout, so results might be incorrect.",
        None,
    ),
    ("solve exercise 2 to time your version against every_step", None),
    # printed by the zh run of 06 / 09 before compare_numerics spoke Chinese (2026-12-02)
    ("no divergence (k=10); largest rel err 0.00064 at fc2", ["largest rel err"]),
    (
        "#   cell     op         max abs   max rel   cosine  in rel    nan/inf a  nan/inf b  "
        "fp16 ovf a/b",
        ["cell op max abs max rel cosine in rel"],
    ),
    (
        "  doctor: numerics-dense-transposed (paste this summary into %ascend_doctor or "
        "`ascend-lab doctor -` for the fix)",
        ["(paste this summary into", "for the fix)"],
    ),
    # a list of English phrases is still English; a quoted name in a sentence is a word
    ("['the device is not found', 'retry']", ["['the device is not found',"]),
    ("the 'mindspore' kernel is registered", ["the 'mindspore' kernel is registered"]),
    # English in full-width brackets that follows no Chinese term is no gloss
    ("（the kernel is not registered）", None),
]

# printed by the zh run now, or by tools verbatim: no English sentence
CHINESE_NOW = [
    "  │ [ERROR] RUNTIME(3456,python):2024-05-01 Device malloc failed, size:1073741824",
    "The result of multiplication calculation is correct, MindSpore has been installed on "
    "platform [CPU] successfully!",
    "临时文件夹： /tmp/ascend-course-vmo_saiv",
    "模式： cpu | PATH 中找不到 npu-smi",
    "MindSpore 2.3.1 + CANN 8.0.RC2 + 驱动 24.1.RC2: 匹配",
    "    解决办法： 安装 CANN 8.0.RC2，或保留 CANN 7.0.0 并执行 pip install mindspore==2.2.14",
    "device_target = CPU, 输出 (1, 16, 32, 32), 每次调用 32.44 ms",
    "python3      Python 3 (ipykernel) python -m ipykernel_launcher",
    "| No running processes found in NPU 0                                  |",
    "[WARNING] ME(11914:1400,MainProcess):2026-12-02 [profiler.py:267] 'mindspore.Profiler' "
    "will be deprecated and removed in a future version.",
    "[12184] Parsing: [####################] 2/2 Done Elapsed: 0s",
    "本页面不含统计信息。请用 `ascend-lab view MODEL.mindir --weight-stats -o PAGE.html` 生成页面",
    "\x1b[33m练习 1：尚未作答——请替换上面的 ____（提示：q1.hint()）\x1b[0m",
    # 06 / 09 now
    "层： ['embed', 'act', 'norm', 'hidden', 'act2', 'head']",
    "('broadcast', 'tensor if', 'loop')",
    "首个偏离点：fc1（Dense）相对误差 1.06 > 0.0001 cos 0.58（输入误差 0，取自此前的 Cell）",
    "建链超时（link setup timeout）",
    # MindSpore's TimeMonitor and error report, NumPy's 1.x message, Python's traceback
    "Train epoch time: 722.459 ms, per step time: 90.307 ms",
    "- C++ Call Stack: (For framework developers)",
    "- The Traceback of Net Construct Code:",
    " (See file '/tmp/ascend-course-nhzwknki/rank_0/om/analyze_fail.ir' for more details. Get "
    "instructions about `analyze_fail.ir` at https://www.mindspore.cn/search?inputValue="
    "analyze_fail.ir)",
    "A module that was compiled using NumPy 1.x cannot be run in\n"
    "NumPy 2.4.6 as it may crash. To support both 1.x and 2.x\n"
    "versions of NumPy, modules must be compiled with NumPy 2.0.\n"
    "Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.\n\n"
    "If you are a user of the module, the easiest solution will be to\n"
    "downgrade to 'numpy<2' or try to upgrade the affected module.\n"
    "We expect that some modules will need time to support NumPy 2.",
    'Traceback (most recent call last):  File "<frozen runpy>", line 198, in _run_module_as_main',
    '  File "/work/main/.venv/lib/python3.11/site-packages/ipykernel/kernelapp.py", line 768, '
    "in start",
]


@pytest.mark.parametrize("line,expected", ENGLISH_BEFORE)
def test_the_english_the_zh_run_printed_before_counts_as_english(line, expected):
    found = sentences(line)
    assert found, line
    if expected is not None:
        assert found == expected


@pytest.mark.parametrize("line", CHINESE_NOW)
def test_chinese_lines_identifiers_and_tool_output_are_no_english_sentence(line):
    assert sentences(line) == []


def test_html_outputs_are_read_as_their_text():
    cell = {
        "outputs": [
            {
                "output_type": "display_data",
                "data": {
                    "text/html": "<style>.a { color: red }</style><b>模式</b>：the device "
                    "is not found &amp; gone",
                    "text/plain": "<IPython.core.display.HTML object>",
                },
            },
            {"output_type": "display_data", "data": {"image/png": "...", "text/plain": "x y z"}},
        ]
    }
    texts = list(output_texts(cell))
    assert len(texts) == 1 and "color" not in texts[0]
    assert sentences(texts[0]) == ["the device is not found"]


def test_the_doctors_quoted_evidence_is_the_tools_text_and_the_rest_is_read():
    markup = (
        '<div>1. HCCL 未能在规定时间内完成各 rank 的建链</div><div class="ascend-doctor-evidence" '
        'style="font-family: monospace;"><span style="color: #666;">第 1 行：</span> EI0006: '
        "Getting socket times out. Reason: Remote Rank did not send the data</div>"
        "<div><b>原因：</b> the ranks did not all arrive in time</div>"
    )
    text = html_text(markup)
    assert "EI0006" not in text and "HCCL" in text
    assert sentences(text) == ["the ranks did not all arrive in time"]


def test_the_verbatim_rules_take_only_the_tools_fixed_lines():
    # the same words in another form are read
    assert sentences("Train epoch time was long, per step time too") != []
    assert sentences("We expect that some modules will need time to support it") != []
    assert sentences('  File "x.py", line 3, in f: the value is not set') != []
    # an exception's own message under a traceback is read
    text = 'Traceback (most recent call last):\n  File "x.py", line 3, in f\nValueError: it is gone'
    assert sentences(text) == ["it is gone"]


@pytest.mark.mindspore
@pytest.mark.slow
@pytest.mark.parametrize("name", EXPECTED)  # the zh folder has the same notebooks
def test_zh_notebook_as_shipped_prints_no_english_sentence(name, tmp_path, monkeypatch):
    copy = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"))
    path = str(copy / "zh" / name)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("JPY_SESSION_NAME", path)  # what jupyter_server gives the kernel
    for var in ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)  # the folder decides, not the machine
    nb = nbformat.read(path, as_version=4)
    execute_in_place(nb, path)
    printed = {
        i: "\n".join(output_texts(cell))
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
    }
    shown = "\n".join(printed.values())
    english = {i: sentences(text) for i, text in printed.items() if sentences(text)}
    assert english == {}, f"English sentences in the zh run of {name} (cell: sentences): {english}"
    # the figures drew their Chinese with a Chinese font: matplotlib warns for each glyph
    # its font lacks (an empty box in the image)
    tofu = [i for i, text in printed.items() if "missing from font" in text or "findfont:" in text]
    assert tofu == [], f"{name}: figures drew Chinese as empty boxes in cells {tofu}"
    # something was printed, and in Chinese
    assert sum(1 for text in printed.values() if text.strip()) >= 5
    assert sum(1 for ch in shown if "\u4e00" <= ch <= "\u9fff") >= 100
    assert os.path.basename(os.path.dirname(path)) == "zh"

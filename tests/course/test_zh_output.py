"""The Chinese edition prints Chinese (issue #29): a zh run of notebooks 00, 02-05 and 07 (the
status card, MindIR, passes, memory plans, profiles, the Conv2d chain, deployment), as
shipped, in the zh folder (as a learner's kernel starts there), prints no English sentence
outside code identifiers, paths and the tools' own verbatim output
(:mod:`tests.course.english_text` says what counts). Notebooks 06 and 09 are left out: they
print MindSpore's own callback lines and error texts, and compare_numerics' summary, which
stays English so %ascend_doctor can read it when pasted.

The fast tests pin the definition on lines the zh run printed before #29 (each was an
English sentence under Chinese text) and on what it prints now."""

import os
import shutil

import nbformat
import pytest

from tests.course.english_text import output_texts, sentences
from tests.course.nbrun import NOTEBOOKS, execute_in_place

# printed by the zh run of 00 / 04 / 05 before #29 (recorded 2026-12-01, MindSpore 2.10 CPU)
ENGLISH_BEFORE = [
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
]

# printed by the zh run now, or by tools verbatim: no English sentence
CHINESE_NOW = [
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


@pytest.mark.mindspore
@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "00_stack_and_machine.ipynb",
        "02_python_to_mindir.ipynb",
        "03_graph_compilation.ipynb",
        "04_memory_reuse.ipynb",
        "05_execution_on_device.ipynb",
        "07_deployment.ipynb",
    ],
)
def test_zh_notebook_as_shipped_prints_no_english_sentence(name, tmp_path, monkeypatch):
    copy = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"))
    path = str(copy / "zh" / name)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("JPY_SESSION_NAME", path)  # what jupyter_server gives the kernel
    for name in ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)  # the folder decides, not the machine
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
    # something was printed, and in Chinese
    assert sum(1 for text in printed.values() if text.strip()) >= 8
    assert sum(1 for ch in shown if "\u4e00" <= ch <= "\u9fff") >= 100
    assert os.path.basename(os.path.dirname(path)) == "zh"

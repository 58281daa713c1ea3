"""The committed notebooks: names, no outputs, structure (goals, exercises, summary, 中文)."""

import ast
import os
import re
import subprocess
import sys

import nbformat
import pytest

from benchmarks.support.nbrun import EXPECTED, NOTEBOOKS, tagged
from tests.course.solutions import with_solutions

CJK = re.compile(r"[\u4e00-\u9fff]")

# Chinese terms each notebook must use beside the English ones (issue 8).
TERMS = {
    "00": ["昇腾", "算子", "图模式", "内存复用", "混合精度", "数据并行"],
    "01": ["图模式", "动态图", "算子融合", "内存复用"],
    "02": ["算子选择", "类型推导"],
    "03": ["算子融合", "算子选择"],
    "04": ["内存复用", "算子融合"],
    "05": ["执行序", "性能分析"],
    "05b": ["同步", "数据预处理", "数据下沉"],
    "06": ["混合精度", "损失缩放", "数据管道"],
    "07": ["部署", "量化"],
    "08": ["数据并行", "模型并行", "流水线并行", "自动并行"],
    "09": ["迁移", "自定义算子", "全量推理", "增量推理"],
    "09b": ["诊断", "数值比对", "故障排查"],
    "10": ["昇腾", "错误码", "日志", "性能分析", "编译优化等级", "精度"],
}


def load(name):
    return nbformat.read(os.path.join(NOTEBOOKS, name), as_version=4)


def test_the_course_notebooks_exist_and_nothing_else():
    names = sorted(n for n in os.listdir(NOTEBOOKS) if n.endswith(".ipynb"))
    assert names == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_committed_without_outputs_or_execution_counts(name):
    nb = load(name)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name}: a code cell has outputs"
            assert cell.execution_count is None, f"{name}: a code cell has an execution count"
    assert "widgets" not in nb.metadata


@pytest.mark.parametrize("name", EXPECTED)
def test_kernelspec_is_the_mindspore_kernel(name):
    spec = load(name).metadata["kernelspec"]
    assert spec["name"] == "mindspore"
    assert spec["display_name"] == "MindSpore"


@pytest.mark.parametrize("name", EXPECTED)
def test_structure_goals_exercises_summary_and_terms(name):
    nb = load(name)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    # learning goals at the top, a summary at the end
    assert "Learning goals" in markdown[0] and "学习目标" in markdown[0]
    assert markdown[0].count("\n- ") >= 2, "at least two goals"
    assert "## Summary" in markdown[-1]
    # the first code cell picks the device and makes a scratch folder
    assert "pick_device()" in code[0].source and "scratch_folder()" in code[0].source
    # at least two exercises, each followed by a self-check that calls check(...)
    exercises = tagged(nb, "exercise")
    checks = tagged(nb, "self-check")
    assert len(exercises) >= 2 and len(checks) == len(exercises)
    headings = [m for m in markdown if m.startswith("### Exercise")]
    assert len(headings) == len(exercises)
    for ex in exercises:
        following = nb.cells[nb.cells.index(ex) + 1]
        assert "self-check" in following.metadata.get("tags", [])
        assert re.search(r"\bq\d+\.check\(", following.source)
        # the learner's cell ships a blank, never an answer
        assert "____" in ex.source, f"{name}: an exercise cell ships without a placeholder"
    # Chinese terms beside English ones
    text = "\n".join(markdown)
    assert len(CJK.findall(text)) >= 40
    missing = [t for t in TERMS[name.split("_")[0]] if t not in text]
    assert not missing, f"{name}: missing Chinese terms {missing}"


@pytest.mark.parametrize("name", EXPECTED)
def test_no_downloads_no_shell_no_writes_next_to_the_notebook(name):
    source = "\n".join(c.source for c in load(name).cells if c.cell_type == "code")
    for bad in ("urlopen", "requests.", "wget", "curl ", "download", "shell=True", "os.system"):
        assert bad not in source, f"{name} uses {bad!r}"


SOURCES = os.path.join(NOTEBOOKS, "src")


def cell_signature(nb):
    """What a notebook says: cell types, sources and tags (ids and outputs aside)."""
    return [
        (c.cell_type, c.source.strip("\n"), tuple(c.get("metadata", {}).get("tags", [])))
        for c in nb.cells
    ]


def test_every_notebook_has_a_myst_source_and_nothing_else_is_there():
    sources = sorted(n for n in os.listdir(SOURCES) if n.endswith(".md"))
    assert sources == [n[: -len(".ipynb")] + ".md" for n in EXPECTED]


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_matches_its_myst_source(name):
    import jupytext

    source = jupytext.read(os.path.join(SOURCES, name[: -len(".ipynb")] + ".md"))
    committed = load(name)
    assert cell_signature(committed) == cell_signature(source), (
        f"{name} differs from src/{name[:-6]}.md: run jupytext --sync notebooks/src/*.md"
    )
    # paired both ways, so JupyterLab (with jupytext) keeps them in step
    assert committed.metadata["jupytext"]["formats"] == "ipynb,src//md:myst"
    assert source.metadata["jupytext"]["formats"] == "ipynb,src//md:myst"
    assert source.metadata["kernelspec"]["name"] == "mindspore"


COURSE_NETS = os.path.join(NOTEBOOKS, "course_nets.py")


def code_cells_as_python(name):
    """A notebook's code cells as one Python text (IPython magics left out)."""
    cells = [c.source for c in load(name).cells if c.cell_type == "code"]
    lines = [ln for src in cells for ln in src.splitlines() if not ln.lstrip().startswith("%")]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", [*EXPECTED, "course_nets.py"])
def test_grammar_is_python_3_8(name):
    if name == "course_nets.py":
        with open(COURSE_NETS, encoding="utf-8") as fh:
            text = fh.read()
    else:
        text = code_cells_as_python(name)
    ast.parse(text, filename=name, feature_version=(3, 8))


def test_no_library_or_typing_feature_newer_than_python_3_8(tmp_path):
    """What the grammar check cannot see (str.removeprefix, ``X | None`` evaluated at run
    time, newer modules and functions): vermin, as `make lint` runs it on ascend_lab."""
    files = [COURSE_NETS]
    for name in EXPECTED:
        path = tmp_path / (name[: -len(".ipynb")] + ".py")
        path.write_text(code_cells_as_python(name), encoding="utf-8")
        files.append(str(path))
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())"]
        + ["--no-tips", "--eval-annotations"]
        + ["--feature", "union-types", "--target=3.8-", "--violations", *files],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_solutions_use_only_names_the_notebook_defines(tmp_path):
    """Each notebook with its solutions put in, as one script: ruff finds no undefined name
    (a solution must not rely on an import the shipped notebook does not need)."""
    files = []
    for name in EXPECTED:
        solved = with_solutions(load(name), name.split("_")[0])
        cells = [c.source for c in solved.cells if c.cell_type == "code"]
        lines = [ln for src in cells for ln in src.splitlines() if not ln.lstrip().startswith("%")]
        path = tmp_path / (name[: -len(".ipynb")] + "_solved.py")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(path))
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F821", *files],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_every_explained_warning_is_explained_in_both_editions():
    from tests.course.printed_warnings import EXPLAINED, flat

    by_prefix = {name.split("_")[0]: name for name in EXPECTED}
    missing = []
    for e in EXPLAINED:
        for folder, words in (("", e.en), ("zh", e.zh)):
            nb = nbformat.read(os.path.join(NOTEBOOKS, folder, by_prefix[e.notebook]), 4)
            markdown = flat("\n".join(c.source for c in nb.cells if c.cell_type == "markdown"))
            if flat(words) not in markdown:
                missing.append((folder or "en", e.notebook, words))
    assert missing == [], missing


def test_the_warning_lines_are_found_in_outputs():
    from types import SimpleNamespace as NS

    from tests.course.printed_warnings import printed_lines, unexplained

    def cell(text):
        return {"outputs": [{"output_type": "stream", "name": "stderr", "text": text}]}

    nb = NS(
        cells=[
            cell(
                "[WARNING] ME(1:2,MainProcess):2026-12-07 [mindspore/context.py:1582] For "
                "'context.set_context', 'enable_graph_kernel' parameter is deprecated\n"
                "plain output\n"
            ),
            cell("/x/y.py:12: DeprecationWarning: gone soon\n[INFO] ME(1,2): fine\n"),
            cell("[ERROR] CORE(1,7f,python):... GetRealPath] Get realpath failed, path[/t.py]\n"),
        ]
    )
    assert [i for i, _ in printed_lines(nb)] == [0, 1, 2]
    assert [i for i, _ in unexplained("03", nb)] == [1, 2]
    assert [i for i, _ in unexplained("09b", nb)] == [0, 1]

"""The memory map figure, the comparison table and the runtime-peak helper."""

from pathlib import Path

import pytest

from ascend_lab.analysis.lifetimes import problem_from_intervals
from ascend_lab.memory import (
    compare_many,
    compare_plans,
    plan_best,
    plan_graph,
    plot_memory_map,
    runtime_peak,
    with_runtime_peak,
)
from ascend_lab.model.graph import Graph
from tests.support.python import run_python

from .graphs import chain, op, param, ret, t


def test_memory_map_draws_one_box_per_tensor_and_the_two_lines():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.patches import Rectangle

    # Three planned tensors (the input and the returned output are not): %0 8 KiB alive at
    # steps 0-1, %1 16 KiB at 1-2, %2 8 KiB at 2-3. The largest goes first, at 0; %0 and %2
    # never live together and share the 8 KiB above it: peak = lower bound = 24 KiB.
    g = chain([(1, 8, 16, 16), (1, 16, 16, 16), (1, 8, 16, 16), (1, 4, 16, 16)])
    p = plan_graph(g)
    fig = plot_memory_map(p, title="conv <b>net</b>")
    ax, ax_live = fig.axes[:2]
    boxes = [a for a in ax.patches if isinstance(a, Rectangle)]
    assert len(boxes) == len(p.tensors) == 3
    # (x = first step - 0.45, y = offset in KiB, width = steps alive + 0.9, height = KiB)
    got = sorted((b.get_x(), b.get_y(), b.get_width(), b.get_height()) for b in boxes)
    want = [(-0.45, 16.0, 1.9, 8.0), (0.55, 0.0, 1.9, 16.0), (1.55, 16.0, 1.9, 8.0)]
    assert len(got) == len(want)
    for g_box, w_box in zip(got, want):
        assert g_box == pytest.approx(w_box)
    hlines = sorted(line.get_ydata()[0] for line in ax.get_lines())
    assert hlines == pytest.approx([24.0, 24.0])  # peak and lower bound, KiB
    curve = ax_live.get_lines()[0]
    assert list(curve.get_ydata()) == pytest.approx([8.0, 24.0, 24.0, 8.0])  # KiB live per step
    assert ax.get_title() == "conv <b>net</b>"
    assert ax.get_ylabel() == "address (KiB)"
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_memory_map_on_given_axes_and_on_an_empty_plan():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    p = plan_best(problem_from_intervals([(1 << 20, 0, 2), (2 << 20, 1, 3)], alignment=512))
    out = plot_memory_map(p, ax=ax)
    assert out is fig and len(fig.axes) == 2 and len(ax.patches) == 2
    assert "peak 3.00 MiB" in ax.get_title()
    plt.close(fig)
    empty = plan_graph(Graph("empty"))
    fig2 = plot_memory_map(empty)
    assert len(fig2.axes[0].patches) == 0
    plt.close(fig2)


def test_memory_map_on_a_callers_axes_leaves_the_layout_to_the_caller():
    # notebook 05 draws the map into a GridSpec cell: tight_layout over the appended
    # live-bytes axes only warned "This figure includes Axes that are not compatible with
    # tight_layout" (English, under a Chinese plot) and laid nothing out
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(8, 4))
    grid = fig.add_gridspec(2, 2, width_ratios=[1.35, 1], hspace=0.45, wspace=0.25)
    fig.add_subplot(grid[:, 0])
    p = plan_best(problem_from_intervals([(1 << 20, 0, 2), (2 << 20, 1, 3)], alignment=512))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plot_memory_map(p, ax=fig.add_subplot(grid[0, 1]))
        fig.canvas.draw()
    assert [str(w.message) for w in caught] == []
    assert len(fig.axes) == 3
    plt.close(fig)


def test_plot_module_does_not_import_matplotlib_at_import_time():

    code = (
        "import sys, ascend_lab.memory; "
        "print('matplotlib' in sys.modules, 'mindspore' in sys.modules)"
    )
    out = run_python(code)
    assert out.stdout.split() == ["False", "False"]


def fused_and_plain():
    plain = chain([(1, 64), (1, 64), (1, 64), (1, 64)])
    sub = Graph(
        "_k",
        attrs={"info_name": "Fused_ReLU_ReLU_fusion_123456789"},
        nodes=[
            param("%p", 1, 64, kind="input"),
            op("%0", "ReLU", ["%p"], [t(1, 64)]),
            op("%1", "ReLU", ["%0"], [t(1, 64)]),
            op("%r", "Return", ["%1"], []),
        ],
    )
    fused = Graph(
        "fused",
        nodes=[
            param("%x", 1, 64, kind="input"),
            op("%0", "ReLU", ["%x"], [t(1, 64)]),
            op("%1", "call", ["%0"], [t(1, 64)], kind="call", subgraph="_k"),
            op("%2", "ReLU", ["%1"], [t(1, 64)]),
        ]
        + ret("%mt", ["%2"]),
        subgraphs={"_k": sub},
    )
    return plan_graph(plain), plan_graph(fused)


def test_compare_plans_table_numbers_text_and_escaped_html():
    a, b = fused_and_plain()
    table = compare_plans(a, b, ("fusion <off>", "fusion on"))
    rows = table.to_dict()
    assert [r["tensors"] for r in rows] == [3, 2]
    assert [r["peak"] for r in rows] == [a.peak, b.peak] == [1024, 1024]
    assert [r["no_reuse"] for r in rows] == [1536, 1024]
    assert rows[1]["fused_internal_tensors"] == 1 and rows[1]["fused_internal_bytes"] == 512
    text = table.text()
    assert text.splitlines()[0].split()[:3] == ["tensors", "excluded", "peak"]
    assert "fusion on: fusion keeps 1 intermediate tensor(s) (512 B)" in text
    html_text = table._repr_html_()
    assert "fusion &lt;off&gt;" in html_text and "<off>" not in html_text
    with pytest.raises(ValueError, match="one label per plan"):
        compare_plans(a, b, ("only one",))
    three = compare_many([a, b, a], ["x", "y", "z"])
    assert len(three.rows()) == 3


def test_runtime_peak_is_never_read_on_cpu():
    peak, why = runtime_peak("CPU")
    assert peak is None
    assert "only meaningful on Ascend" in why and "zeros" in why
    a, _ = fused_and_plain()
    table = with_runtime_peak(a, device="CPU")
    assert "only meaningful on Ascend" in table.text()


def test_runtime_peak_on_cpu_does_not_import_mindspore():

    code = (
        "import sys; from ascend_lab.memory import runtime_peak; "
        "print(runtime_peak('CPU')[0], 'mindspore' in sys.modules)"
    )
    out = run_python(code)
    assert out.stdout.split() == ["None", "False"]


@pytest.mark.parametrize("where", ["runtime", "hal"])
def test_runtime_peak_on_ascend_reads_the_runtime(tmp_path, where):
    # A stand-in ``mindspore`` package (this machine has no NPU): 2.5+ has
    # mindspore.runtime.max_memory_allocated, 2.3/2.4 only mindspore.hal's.

    pkg = tmp_path / "mindspore"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from . import hal\n" + ("from . import runtime\n" if where == "runtime" else "")
    )
    (pkg / f"{where}.py").write_text("def max_memory_allocated():\n    return 3 * 1024 * 1024\n")
    if where != "hal":
        (pkg / "hal.py").write_text("def max_memory_allocated():\n    raise AssertionError\n")
    code = (
        "from ascend_lab.memory import runtime_peak; peak, why = runtime_peak('Ascend'); "
        "print(peak); print(why)"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}", "PATH": "/usr/bin"}
    out = run_python(code, env=env)
    lines = out.stdout.splitlines()
    assert lines[0] == str(3 * 1024 * 1024)
    assert lines[1] == f"mindspore.{where}.max_memory_allocated() on Ascend: 3.0 MiB"


def test_a_tiny_tensor_is_drawn_visibly_and_the_map_says_so():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.patches import Rectangle

    from ascend_lab.analysis.lifetimes import problem_from_intervals
    from ascend_lab.memory import plan_best

    # a 2 MiB activation beside a 512 B statistic (ConvBNReLU's BatchNorm on CPU)
    p = plan_best(problem_from_intervals([(2 << 20, 0, 1), (512, 1, 1)], alignment=512))
    ax = plot_memory_map(p).axes[0]
    heights = sorted(b.get_height() for b in ax.patches if isinstance(b, Rectangle))
    assert heights[0] >= 0.015 * heights[1]  # not a 512 B line in a 2 MiB map
    assert "1 of 2 tensors (512 B or less) drawn taller than their size" in [
        t.get_text() for t in ax.texts
    ]

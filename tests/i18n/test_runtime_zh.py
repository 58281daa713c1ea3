"""What the library prints and draws at run time, in the learner's language (#29).

The compat fix is one catalogue template (not an English tail glued to a translated head),
status objects print through the catalogue, and the library plots are labelled in Chinese
with a CJK font matplotlib finds at run time, or in English with a note when there is none
(never boxes for missing glyphs).
"""

import json
import os
import warnings

import pytest

from ascend_lab.analysis.compat import check
from ascend_lab.i18n import CHINESE, ENGLISH, localize, plot_font, using
from ascend_lab.memory import plan_graph, plot_memory_map
from ascend_lab.model.device_status import Compatibility, StatusWarning
from ascend_lab.profiling.api import load_profile
from tests.memory.graphs import chain

HAN = ("\u4e00", "\u9fff")
PROFILES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "profile")
CPU_PROFILE = "cpu-2.10-convbnrelu"  # recorded with MindSpore 2.10 on CPU


def has_chinese(text):
    return any(HAN[0] <= ch <= HAN[1] for ch in text)


def mismatch():
    """MindSpore 2.3.1 (built for CANN 8.0.RC2) on a machine with CANN 8.0.RC3."""
    comp, found = check("2.3.1", "8.0.RC3", None)
    assert comp.verdict == "mismatch"
    return comp, next(w for w in found if w.component == "cann")


def test_the_keep_cann_fix_is_one_chinese_sentence():
    _, warning = mismatch()
    assert warning.fix == (
        "Install CANN 8.0.RC2, or keep CANN 8.0.RC3 and pip install mindspore==2.4.1"
    )
    zh = localize(warning.fix, CHINESE)
    assert zh == "安装 CANN 8.0.RC2，或保留 CANN 8.0.RC3 并执行 pip install mindspore==2.4.1"
    assert "or keep" not in zh and ", " not in zh


def test_status_objects_print_in_the_current_language_and_their_json_stays_english():
    comp, warning = mismatch()
    with using(CHINESE):
        text = str(warning)
        verdict = str(comp)
    assert text.startswith("[错误] MindSpore 2.3.1 是为 CANN 8.0.RC2 构建的")
    assert "解决方法：安装 CANN 8.0.RC2，或保留 CANN 8.0.RC3" in text
    assert verdict.startswith("不匹配：MindSpore 2.3.1")
    with using(ENGLISH):
        assert str(warning).startswith("[error] MindSpore 2.3.1 is built for CANN 8.0.RC2")
        assert str(comp).startswith("mismatch: MindSpore 2.3.1")
    assert json.dumps(warning.to_dict()).isascii() and json.dumps(comp.to_dict()).isascii()


def test_a_status_object_without_a_fix_or_message_prints_just_what_it_has():
    with using(CHINESE):
        assert str(StatusWarning("MindSpore is not installed", "", "warning")) == (
            "["
            + localize("warning", CHINESE)
            + "] "
            + localize("MindSpore is not installed", CHINESE)
        )
        assert str(Compatibility("unknown")) == localize("unknown", CHINESE)


def draw(fig, made=()):
    """Render with Agg; the glyph warnings matplotlib gave for characters its font lacks,
    while drawing and (``made``) while the plot was made (its layout measures the texts)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fig.canvas.draw()
    return [str(w.message) for w in list(made) + seen if "missing from" in str(w.message)]


class Recording:
    """The warnings raised inside the block, as ``.seen``."""

    def __enter__(self):
        self._catch = warnings.catch_warnings(record=True)
        self.seen = self._catch.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


def texts(fig):
    found = []
    for ax in fig.axes:
        found += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        legend = ax.get_legend()
        if legend is not None:
            found += [t.get_text() for t in legend.get_texts()]
    return [t for t in found if t]


def small_plan():
    return plan_graph(chain([(1, 8, 16, 16), (1, 16, 16, 16), (1, 8, 16, 16), (1, 4, 16, 16)]))


@pytest.fixture
def agg():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def test_this_machine_has_a_cjk_font_matplotlib_finds():
    # the image installs fonts-wqy-microhei; the Chinese plot tests below rely on it
    assert plot_font.cjk_font() in plot_font.CJK_FONTS


def test_the_memory_map_in_chinese_uses_a_cjk_font_and_draws_every_glyph(agg):
    with Recording() as made:
        fig = plot_memory_map(small_plan(), lang=CHINESE)
    ax, ax_live = fig.axes[:2]
    assert ax.get_xlabel() == "执行步（算子）"
    assert ax.get_ylabel() == "地址（KiB）"
    assert ax_live.get_xlabel() == "执行步"
    assert "峰值" in ax.get_title() and "下界" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[1] == "下界" and legend[0].startswith("峰值（")
    assert ax.xaxis.label.get_fontfamily()[0] == plot_font.cjk_font()
    assert draw(fig, made.seen) == []


def test_the_profile_chart_in_chinese(agg):
    p = load_profile(os.path.join(PROFILES, CPU_PROFILE), "ConvBNReLU")
    with Recording() as made:
        fig, ax = plot_top_zh(p)
    assert ax.get_xlabel() == "每个 step 的耗时（µs）"
    assert ax.get_title().startswith("ConvBNReLU：耗时最多的 3 个算子")
    assert draw(fig, made.seen) == []


def plot_top_zh(p):
    from ascend_lab.render.profile_plot import plot_top

    return plot_top(p, n=3, lang=CHINESE)


def test_without_a_cjk_font_the_labels_are_english_with_one_note(agg, monkeypatch, capsys):
    monkeypatch.setattr(plot_font, "CJK_FONTS", ("No Such Font SC",))
    monkeypatch.setattr(plot_font, "_noted", set())
    with Recording() as made:
        fig = plot_memory_map(small_plan(), lang=CHINESE)
    labels = texts(fig)
    assert "execution step (kernel)" in labels and not any(map(has_chinese, labels))
    assert draw(fig, made.seen) == []
    note = capsys.readouterr().err.strip().splitlines()
    assert len(note) == 1 and "中文字体" in note[0] and "英文" in note[0]
    plot_memory_map(small_plan(), lang=CHINESE)  # the note is said once
    assert capsys.readouterr().err == ""


def test_the_english_plots_stay_english(agg):
    fig = plot_memory_map(small_plan(), lang=ENGLISH)
    assert fig.axes[0].get_xlabel() == "execution step (kernel)"
    assert not any(map(has_chinese, texts(fig)))


def test_chinese_with_the_default_font_would_be_boxes(agg):
    """What the font choice prevents: the same Chinese label drawn with matplotlib's
    default font loses its glyphs (so draw() above would notice a missing CJK font)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.set_xlabel("执行步（算子）", fontfamily="DejaVu Sans")
    assert draw(fig) != []


def test_a_chinese_plot_logs_no_missing_font_lines(agg, caplog):
    """The fallback list holds installed families only: with matplotlib's whole sans-serif
    list (Arial, Helvetica, ... not installed here), drawing a Chinese memory map logged
    "findfont: Font family 'Arial' not found." hundreds of times, English lines under the
    Chinese plot in notebook 04."""
    import logging

    fig = plot_memory_map(small_plan(), lang=CHINESE)
    with caplog.at_level(logging.WARNING, logger="matplotlib.font_manager"):
        fig.canvas.draw()
    missing = [r.getMessage() for r in caplog.records if "not found" in r.getMessage()]
    assert missing == []
    assert fig.axes[0].xaxis.label.get_fontfamily()[0] == plot_font.cjk_font()

"""Plots in the learner's language: a CJK font found at run time, else English labels.

matplotlib's default font (DejaVu Sans) has no Chinese glyphs: Chinese labels drawn with it
come out as empty boxes ("tofu"). :func:`plot_language` picks the language a library plot is
labelled in: the current one (:func:`ascend_lab.i18n.current`) when it is English or when
matplotlib's font manager knows a font with Chinese glyphs (the first of :data:`CJK_FONTS`
installed), else English, with a one-line note saying which fonts would do. matplotlib is
imported here only when a plot is drawn.
"""

import contextlib
import sys
from typing import Any, Iterator, Optional, Sequence, Set, Tuple

from ascend_lab.i18n import CHINESE, ENGLISH, _, current, using

# families with Simplified Chinese glyphs, the ones Linux images (Debian fonts-noto-cjk,
# fonts-wqy-microhei, fonts-wqy-zenhei), macOS and Windows ship, best first
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "AR PL UMing CN",
    "PingFang SC",
    "Microsoft YaHei",
    "SimHei",
)
_noted = set()  # languages whose "no font" note was printed (once per process)


def _installed_families() -> Set[str]:
    """The family names matplotlib's font manager has."""
    from matplotlib import font_manager

    return {f.name for f in font_manager.fontManager.ttflist}


def cjk_font(candidates: Sequence[str] = CJK_FONTS) -> Optional[str]:
    """The first of ``candidates`` matplotlib's font manager has, or None."""
    installed = _installed_families()
    return next((name for name in candidates if name in installed), None)


def plot_language(
    lang: Optional[str] = None, candidates: Optional[Sequence[str]] = None
) -> Tuple[str, Optional[str]]:
    """``(language, font family)`` to label a plot in: Chinese with a CJK font when one is
    installed; English (font None) when English is asked for or no CJK font is found, then
    with a one-line note on stderr (once)."""
    lang = lang or current()
    if lang != CHINESE:
        return ENGLISH, None
    font = cjk_font(CJK_FONTS if candidates is None else candidates)
    if font is not None:
        return CHINESE, font
    if lang not in _noted:
        _noted.add(lang)
        with using(CHINESE):
            note = _(
                "No Chinese font found for matplotlib (e.g. {}): plot labels are in English."
            ).format(" / ".join(CJK_FONTS[:2] + CJK_FONTS[4:5]))
        print(note, file=sys.stderr)
    return ENGLISH, None


@contextlib.contextmanager
def plot_labels(
    lang: Optional[str] = None, candidates: Optional[Sequence[str]] = None
) -> Iterator[Tuple[str, Optional[str]]]:
    """Inside: ``_()`` translates into the plot's language. Yields ``(language, font)``;
    the plot passes its figure and the font to :func:`use_font` when it is drawn."""
    lang, font = plot_language(lang, candidates)
    with using(lang):
        yield lang, font


def use_font(fig: Any, font: Optional[str]) -> Any:
    """Every text of ``fig`` holding Chinese is set in ``font`` (then matplotlib's default
    sans-serif list for what it lacks). matplotlib resolves a family name when it draws,
    so the font goes on the texts themselves, not into an rc context that is gone by then."""
    if font is None:
        return fig
    import matplotlib
    from matplotlib.text import Text

    # only installed families: matplotlib logs "findfont: Font family 'Arial' not found."
    # for every missing name of the list, on every text it measures (hundreds of English
    # lines under a Chinese plot)
    installed = _installed_families()
    fallback = [f for f in matplotlib.rcParams["font.sans-serif"] if f != font and f in installed]
    families = [font] + (fallback or ["DejaVu Sans"])
    for text in fig.findobj(Text):
        if any("\u4e00" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in text.get_text()):
            text.set_fontfamily(families)
    return fig


def prefer_cjk_font(candidates: Optional[Sequence[str]] = None) -> Optional[str]:
    """Put the first installed CJK font at the head of matplotlib's sans-serif list, for
    the rest of the process: figures drawn in code cells (``plt.subplots`` with Chinese
    titles) then show Chinese, not boxes. For a Chinese course notebook's first cell; the
    library's own plots use :func:`plot_labels` and :func:`use_font` instead. Returns the
    font, or None (then with :func:`plot_language`'s one-line note) when none is installed."""
    lang, font = plot_language(CHINESE, candidates)
    if font is None:
        return None
    import matplotlib

    installed = _installed_families()
    rest = [f for f in matplotlib.rcParams["font.sans-serif"] if f != font and f in installed]
    matplotlib.rcParams["font.sans-serif"] = [font] + (rest or ["DejaVu Sans"])
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["axes.unicode_minus"] = False  # the CJK fonts lack U+2212 (minus)
    return font

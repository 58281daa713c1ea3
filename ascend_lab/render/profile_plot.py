"""A matplotlib top-N bar chart of a :class:`Profile` (for static output: PDFs, CI logs).

Labels are in the learner's language when a Chinese font is installed
(:mod:`ascend_lab.i18n.plot_font`), else in English."""

from typing import Any, Optional

from ascend_lab.i18n import _
from ascend_lab.i18n.plot_font import plot_labels, use_font

# One colour per accelerator core (Ascend) or one for CPU kernels.
CORE_COLOURS = {
    "AI_CORE": "#d62728",
    "AI_VECTOR_CORE": "#1f77b4",
    "AI_CPU": "#ff7f0e",
    "MIX_AIC": "#9467bd",
    "MIX_AIV": "#8c564b",
    "HCCL": "#2ca02c",
    None: "#4c72b0",
}


def _label(name: str, op_type: str, width: int = 42) -> str:
    """``Conv2D  conv1-Conv2d`` (the op type and the innermost scope, where it differs)."""
    parts = name.split("/")
    cell = parts[-2] if len(parts) >= 2 else ""
    text = f"{op_type}  {cell}" if cell and cell != "Default" else op_type
    return text if len(text) <= width else text[: width - 1] + "…"


def plot_top(profile: Any, n: int = 10, ax: Any = None, lang: Optional[str] = None) -> Any:
    """Horizontal bars: time per step of the ``n`` slowest kernels; returns ``(fig, ax)``,
    labelled in ``lang`` (None: the current language)."""
    with plot_labels(lang) as (_lang, font):
        fig, ax = _draw(profile, n, ax)
        use_font(fig, font).tight_layout()  # the font first: the layout measures the texts
        return fig, ax


def _draw(profile: Any, n: int, ax: Any) -> Any:
    import matplotlib.pyplot as plt

    top = profile.top(n)
    steps = max(1, len(profile.steps))
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 0.35 * max(3, len(top)) + 1.2))
    else:
        fig = ax.figure
    values = [k.total_us / steps for k in reversed(top)]
    labels = [_label(k.name, k.op_type) for k in reversed(top)]
    colours = [CORE_COLOURS.get(k.core, CORE_COLOURS[None]) for k in reversed(top)]
    ax.barh(range(len(top)), values, color=colours)
    ax.set_yticks(range(len(top)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel(_("µs per step"))
    mean = profile.mean_step_us
    title = _("{}: top {} kernels").format(profile.net_name, len(top))
    if mean:
        title += _(" (mean step {:.2f} ms)").format(mean / 1000)
    ax.set_title(title, fontsize=10)
    cores = sorted({k.core for k in top if k.core})
    if cores:
        from matplotlib.patches import Patch

        ax.legend(
            handles=[Patch(color=CORE_COLOURS.get(c, CORE_COLOURS[None]), label=c) for c in cores],
            fontsize=7,
            loc="lower right",
        )
    for i, (k, v) in enumerate(zip(reversed(top), values)):
        if k.share is not None:
            ax.text(v, i, f" {k.share * 100:.1f}%", va="center", fontsize=7)
    return fig, ax

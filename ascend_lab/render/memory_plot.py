"""A static memory map of a plan: x = execution step, y = address, one box per tensor.

For slides and static notebook output (the interactive map is part of the graph widget).
matplotlib is imported on first use only. Labels are in the learner's language when a
Chinese font is installed (:mod:`ascend_lab.i18n.plot_font`), else in English.
"""

from typing import Any, Dict, List, Optional

from ascend_lab.analysis.lifetimes import fmt_bytes
from ascend_lab.analysis.planner import MemoryPlan
from ascend_lab.i18n import _
from ascend_lab.i18n.plot_font import plot_labels, use_font

MB = 1024.0 * 1024.0


def _colours(ops: List[str]) -> Dict[str, Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    return {op: cmap(i % 20) for i, op in enumerate(ops)}


def plot_memory_map(
    plan: MemoryPlan,
    ax: Optional[Any] = None,
    title: Optional[str] = None,
    lang: Optional[str] = None,
) -> Any:
    """Draw ``plan`` and return the matplotlib Figure, labelled in ``lang`` (None: the
    current language; Chinese needs a CJK font, else the labels are English).

    Left: one rectangle per tensor (x from its first to its last step, y from its offset to
    offset + size, in KiB or MiB), coloured by op type, with the peak arena and the lower bound as
    horizontal lines. Right: bytes alive at each step (the curve whose maximum is the lower
    bound). With ``ax`` given, the map is drawn there and the live-bytes axis is appended
    beside it.
    """
    with plot_labels(lang) as (_lang, font):
        fig = use_font(_draw(plan, ax, title), font)  # before the layout measures the texts
        if ax is None:
            # a figure of its own; a caller's figure is laid out by the caller (its axes
            # from make_axes_locatable make tight_layout warn, in English, and do nothing)
            fig.tight_layout()
        return fig


def _draw(plan: MemoryPlan, ax: Optional[Any], title: Optional[str]) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if ax is None:
        fig, (ax, ax_live) = plt.subplots(
            1, 2, figsize=(11, 4.5), sharey=True, gridspec_kw={"width_ratios": [4, 1]}
        )
    else:
        fig = ax.figure
        from mpl_toolkits.axes_grid1 import make_axes_locatable

        ax_live = make_axes_locatable(ax).append_axes("right", size="25%", pad=0.1, sharey=ax)

    top_bytes = max(plan.peak, plan.lower_bound, 1)
    unit, scale = ("MiB", MB) if top_bytes >= MB else ("KiB", 1024.0)
    tensors = plan.problem.tensors
    ops = sorted({t.op for t in tensors})
    colours = _colours(ops)
    # A tensor far smaller than the arena (BatchNorm's 512 B statistics beside 2 MiB
    # activations) would be a line no one sees: it is drawn at least this tall, and said so.
    min_height = top_bytes / scale * 0.015
    small = [t for t in tensors if t.size / scale < min_height]
    for t in tensors:
        ax.add_patch(
            Rectangle(
                (t.start - 0.45, plan.offsets[t.id] / scale),
                t.end - t.start + 0.9,
                max(t.size / scale, min_height),
                facecolor=colours[t.op],
                edgecolor="black",
                linewidth=0.3,
            )
        )
    steps = max(plan.problem.steps, 1)
    ax.set_xlim(-0.5, steps - 0.5)
    top = max(plan.peak, plan.lower_bound, 1) / scale
    ax.set_ylim(0, top * 1.08)
    peak_label = _("peak ({})").format(plan.strategy)
    ax.axhline(plan.peak / scale, color="tab:red", linestyle="-", linewidth=1, label=peak_label)
    ax.axhline(
        plan.lower_bound / scale,
        color="tab:green",
        linestyle="--",
        linewidth=1,
        label=_("lower bound"),
    )
    if small:
        ax.text(
            0.01,
            0.99,
            _("{} of {} tensors ({} or less) drawn taller than their size").format(
                len(small), len(tensors), fmt_bytes(max(t.size for t in small))
            ),
            transform=ax.transAxes,
            fontsize=7,
            va="top",
        )
    ax.set_xlabel(_("execution step (kernel)"))
    ax.set_ylabel(_("address ({})").format(unit))
    handles, _labels = ax.get_legend_handles_labels()
    shown = ops[:12]
    handles += [Rectangle((0, 0), 1, 1, facecolor=colours[op], edgecolor="black") for op in shown]
    labels = [peak_label, _("lower bound")] + shown
    if len(ops) > len(shown):
        handles.append(Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="white"))
        labels.append(_("... {} more op types").format(len(ops) - len(shown)))
    ax.legend(handles, labels, fontsize=7, loc="upper right", ncol=2)
    ratio = plan.ratio
    ax.set_title(
        title
        or _("{}: peak {:.2f} {}, lower bound {:.2f} {}{}").format(
            plan.problem.graph,
            plan.peak / scale,
            unit,
            plan.lower_bound / scale,
            unit,
            _(" (x{:.3f})").format(ratio) if ratio is not None else "",
        ),
        fontsize=10,
    )

    live = [b / scale for b in plan.live_bytes]
    # Same y unit as the map, so the curve's maximum meets the lower-bound line.
    ax_live.plot(range(len(live)), live, color="tab:blue", drawstyle="steps-mid")
    ax_live.fill_between(range(len(live)), 0, live, step="mid", alpha=0.3, color="tab:blue")
    ax_live.axhline(plan.lower_bound / scale, color="tab:green", linestyle="--", linewidth=1)
    ax_live.set_xlabel(_("execution step"))
    ax_live.set_title(_("bytes alive per step ({})").format(unit), fontsize=9)
    ax_live.tick_params(labelleft=False)
    return fig

"""Showing anything: ``show(obj)``, ``to_html(obj, path)``, ``mimebundle(obj)``, ``plot(obj)``.

Each verb dispatches on the object's type (``functools.singledispatch``) and turns it into a
payload with :func:`ascend_lab.payload.dispatch.to_payload` first where a viewer draws it. The
results' and the model's convenience methods (``t.show()``, ``cmp.to_html(path)``,
``profile.plot()``) are façades over these, bound by the package root in
:mod:`ascend_lab.model.display`: an object never draws itself.
"""

import functools
from typing import Any, Dict, Optional

from ascend_lab.model.graph import Graph
from ascend_lab.model.profile import Profile
from ascend_lab.payload.dispatch import to_payload
from ascend_lab.payload.schema import MIME_TYPE
from ascend_lab.payload.validate import check_payload
from ascend_lab.render import standalone
from ascend_lab.render.cards import card_html
from ascend_lab.results.comparison import Comparison
from ascend_lab.results.numerics import NumericsResult
from ascend_lab.results.trace import Trace

__all__ = ["mimebundle", "plot", "show", "to_html"]


# -- show: the interactive viewer as a notebook widget -----------------------------------------
@functools.singledispatch
def show(obj: Any, **options: Any) -> Any:
    """The viewer widget for ``obj`` (anything :func:`to_payload` takes)."""
    from ascend_lab.render.widgets import ViewerWidget

    return ViewerWidget(to_payload(obj), **options)


@show.register(Trace)
def _show_trace(trace: Trace, **options: Any) -> Any:
    from ascend_lab.render.widgets import show_trace

    return show_trace(trace, **options)


@show.register(Comparison)
def _show_comparison(cmp: Comparison, **options: Any) -> Any:
    from ascend_lab.render.widgets import TraceView

    return TraceView(to_payload(cmp), **options)


@show.register(NumericsResult)
def _show_numerics(result: NumericsResult, trace: Any = None, **options: Any) -> Any:
    from ascend_lab.render.widgets import ViewerWidget

    return ViewerWidget(payload=to_payload(result, trace=trace), view="graph", **options)


# -- to_html: one self-contained page ----------------------------------------------------------
@functools.singledispatch
def to_html(obj: Any, path: str, title: Optional[str] = None, **options: Any) -> str:
    """Write one self-contained HTML page with the viewer for ``obj``; returns its path."""
    return standalone.to_html(to_payload(obj), path, title=title, **options)


@to_html.register(Trace)
def _trace_html(trace: Trace, path: str, title: Optional[str] = None, **options: Any) -> str:
    # the page packs the passes as they are built (standalone reads the trace itself)
    return standalone.to_html(trace, path, title=title or trace.net_name, **options)


@to_html.register(Comparison)
def _comparison_html(
    cmp: Comparison, path: str, title: Optional[str] = None, **options: Any
) -> str:
    title = title or f"{cmp.a.title} vs {cmp.b.title}"
    return standalone.to_html(to_payload(cmp), path, title=title, **options)


@to_html.register(Profile)
def _profile_html(profile: Profile, path: str, title: Optional[str] = None, **options: Any) -> str:
    return standalone.to_html(to_payload(profile), path, title=title or profile.net_name, **options)


# -- mimebundle: what JupyterLab's renderer gets -----------------------------------------------
@functools.singledispatch
def mimebundle(obj: Any) -> Dict[str, Any]:
    """The MIME bundle of ``obj``: the checked payload, its card and its text."""
    payload = to_payload(obj)
    check_payload(payload)  # JupyterLab's renderer gets only what the viewer can read
    return {MIME_TYPE: payload, "text/html": card_html(obj), "text/plain": repr(obj)}


@mimebundle.register(Trace)
def _trace_bundle(trace: Trace) -> Dict[str, Any]:
    payload = to_payload(trace, passes="none", memory=True)
    check_payload(payload)
    return {MIME_TYPE: payload, "text/plain": trace.summary()}


# -- plot: a static matplotlib figure ----------------------------------------------------------
@functools.singledispatch
def plot(obj: Any, **options: Any) -> Any:
    """A matplotlib figure of ``obj``; returns ``(figure, axes)``."""
    raise TypeError(f"nothing to plot for a {type(obj).__name__}")


@plot.register(Graph)
def _plot_graph(graph: Graph, **options: Any) -> Any:
    from ascend_lab.render.graph_plot import plot_graph

    return plot_graph(graph, **options)


@plot.register(Profile)
def _plot_profile(profile: Profile, **options: Any) -> Any:
    from ascend_lab.render.profile_plot import plot_top

    return plot_top(profile, **options)

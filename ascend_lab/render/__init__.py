"""Render: the interactive viewer as anywidgets, the standalone HTML, cards and plots.

``GraphView``, ``PassTimelineView``, ``MemoryView`` and ``TraceView`` are anywidget classes
around one ES module (``ascend_lab/static/viewer.js``, built from ``labextension/src/viewer``
by ``jlpm build:viewer``). ``to_html`` writes one self-contained HTML file with the same
viewer. ``device_html`` / ``device_text`` are the status cards, ``*_plot`` the matplotlib
figures (for static output), ``error_page`` the page shown for an unreadable file.
Importing this package is cheap: anywidget loads only when a widget is made.
"""

from typing import Any

from ascend_lab.render.standalone import to_html

__all__ = ["GraphView", "MemoryView", "PassTimelineView", "TraceView", "show_trace", "to_html"]

_WIDGETS = ("GraphView", "MemoryView", "PassTimelineView", "TraceView", "ViewerWidget")


def __getattr__(name: str) -> Any:
    if name in _WIDGETS:
        from ascend_lab.render import widgets as views

        return getattr(views, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def show_trace(trace: Any, view: str = "all", passes: str = "none", **kwargs: Any) -> Any:
    """The viewer for a :class:`~ascend_lab.results.trace.Trace` (used by ``Trace.show()``)."""
    from ascend_lab.render.widgets import show_trace as _show_trace

    return _show_trace(trace, view=view, passes=passes, **kwargs)

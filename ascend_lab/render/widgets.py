"""anywidget classes around the one viewer ES module (``ascend_lab/static/viewer.js``)."""

import pathlib
from typing import Any, Dict, Optional

import anywidget
import traitlets

from ascend_lab.payload.view_input import SnapshotFn, payload_for_view
from ascend_lab.render.assets import STATIC_DIR, bundle_path
from ascend_lab.render.standalone import VIEWS, page_language


def lazy_passes(payload: Dict[str, Any]) -> Dict[str, Any]:
    """A copy of ``payload`` without the pass snapshots that no view shows by default.

    Their ``graph`` becomes null; the page asks the kernel for one when the slider reaches
    it. Keeps a live widget light (a ResNet-50 trace embeds ~30 MB of snapshots).
    """
    keep_roots = {k for k in payload.get("views", {}).values() if isinstance(k, str)}
    memory = payload.get("memory")
    if isinstance(memory, dict) and isinstance(memory.get("graph"), str):
        keep_roots.add(memory["graph"])

    def kept(key: str) -> bool:
        return key in keep_roots or key.split("/", 1)[0] in keep_roots

    out = dict(payload)
    out["graphs"] = {k: g for k, g in payload.get("graphs", {}).items() if kept(k)}
    passes = []
    for entry in payload.get("passes") or []:
        entry = dict(entry)
        if entry.get("graph") is not None and entry["graph"] not in out["graphs"]:
            entry["graph"] = None
        passes.append(entry)
    if "passes" in payload:
        out["passes"] = passes
    return out


class ViewerWidget(anywidget.AnyWidget):  # type: ignore[misc]
    """The viewer showing ``payload`` (an ``ascend-lab.graph/1`` dict) in ``view``.

    ``snapshot(index)`` answers the page's requests for pass snapshots that the payload
    does not include (a Trace's ``snapshot``); it returns a Graph or a graph dict.

    ``lang`` (``"zh"``, ``"en"``): the language of the viewer's labels, default the
    kernel's (:func:`ascend_lab.i18n.current`). The page translates with the catalogue
    bundled in viewer.js: an anywidget cannot reach JupyterLab's translator.
    """

    _esm = pathlib.Path(STATIC_DIR) / "viewer.js"
    payload = traitlets.Dict().tag(sync=True)
    view = traitlets.Unicode("all").tag(sync=True)
    lang = traitlets.Unicode("en").tag(sync=True)  # BCP 47, e.g. "zh-CN"
    _default_view = "all"

    def __init__(
        self,
        payload: Any = None,
        view: Optional[str] = None,
        snapshot: Optional[SnapshotFn] = None,
        passes: str = "none",
        lang: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        bundle_path("viewer.js")  # clear error when the bundle is not built
        if payload is None:
            raise ValueError("pass a payload (trace.to_payload()) or a Trace")
        # From a Trace, build only the default views (``passes="none"``): other snapshots
        # and their diffs are parsed when the page asks for them.
        data, trace_snapshot = payload_for_view(payload, passes=passes)
        if trace_snapshot is not None:  # built from a Trace: snapshots load on demand
            data = lazy_passes(data)
        view = view or self._default_view
        if view not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(VIEWS)}; got {view!r}")
        super().__init__(payload=data, view=view, lang=page_language(lang), **kwargs)
        self._snapshot = snapshot or trace_snapshot
        self.on_msg(self._on_message)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "request-pass":
            return
        self.send(self.answer_pass_request(content.get("index")))

    def answer_pass_request(self, index: Any) -> Dict[str, Any]:
        """The reply to a ``request-pass`` message: the graph dict or an error text."""
        if not isinstance(index, int) or isinstance(index, bool):
            return {"type": "pass", "index": index, "error": f"bad pass index {index!r}"}
        if self._snapshot is None:
            return {
                "type": "pass",
                "index": index,
                "error": "this viewer has no trace to load snapshots from "
                "(build it with show_trace(trace) or pass snapshot=)",
            }
        try:
            graph = self._snapshot(index)
        except Exception as exc:  # shown in the page, never a traceback in the kernel
            return {"type": "pass", "index": index, "error": f"pass {index}: {exc}"}
        if hasattr(graph, "to_dict"):
            graph = graph.to_dict()
        if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list):
            return {"type": "pass", "index": index, "error": f"pass {index}: no graph"}
        return {"type": "pass", "index": index, "graph": graph}


class GraphView(ViewerWidget):
    """The graph (``views.main``): layered layout, scopes, search, node panel."""

    _default_view = "graph"


class PassTimelineView(ViewerWidget):
    """The compile pipeline pass by pass, with changes highlighted."""

    _default_view = "timeline"


class MemoryView(ViewerWidget):
    """The memory map: tensors by step and address, live bytes, peak and lower bound."""

    _default_view = "memory"


class TraceView(ViewerWidget):
    """Everything: graph, before/after fusion, passes and memory, in tabs."""

    _default_view = "all"


def show_trace(trace: Any, view: str = "all", passes: str = "none", **kwargs: Any) -> ViewerWidget:
    """A viewer widget for a Trace (``Trace.show()``).

    Only the default views are parsed and synced; every other pass snapshot, with its diff,
    is parsed when the page asks for it (``trace.snapshot(i)``, ``trace.diff(i)``): a
    ResNet-50 trace shows in a fraction of a second instead of parsing ~100 passes first.
    """
    classes = {
        "all": TraceView,
        "graph": GraphView,
        "compare": TraceView,
        "timeline": PassTimelineView,
        "memory": MemoryView,
    }
    if view not in classes:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}; got {view!r}")
    return classes[view](trace, view=view, passes=passes, **kwargs)

"""The :class:`Trace` of one compile, and :func:`trace_net`, behind ``ascend_lab.trace(net, x)``.

Dumps go to a private temporary folder that is removed before ``trace()`` returns (the
dump texts stay in memory, zlib-compressed: ~32 MB for a 32-layer decoder's 470 MB, so
snapshots can still be parsed lazily), unless ``keep_dumps=True``: then ``Trace.dump_dir``
says where they are.
"""

import os
import shutil
import time
from typing import Any, Dict, List, Optional

from ..graph.limits import IR_MAX_BYTES_ENV, read_text_capped
from ..graph.model import Graph
from .capture import CaptureResult, capture
from .execution_order import apply_execution_order, kernel_execution_order
from .fusion import FusionMap, build_fusion_map
from .progress import Progress
from .timeline import PassDiff, PassSnapshot, PassTimeline, kernel_graph_id, stage_key

__all__ = ["Trace", "trace_net"]


class Trace:
    """Everything one trace found: the pass timeline, the final graph, the fusion map."""

    def __init__(
        self,
        net_name: str,
        result: CaptureResult,
        timeline: PassTimeline,
        inputs: Optional[List[Any]] = None,
        net: Any = None,
        actor_sets: Optional[Dict[str, str]] = None,
    ) -> None:
        self.net_name = net_name
        self.capture = result
        self.passes = timeline
        self.output = result.output
        self.fusion_enabled = result.fusion
        self.level = result.level
        self.mindspore_version = result.mindspore_version
        self.device = result.device
        self.compile_seconds = result.compile_seconds
        # What MindSpore's C++ side printed while compiling (distinct lines, with counts).
        self.compile_log: List[str] = list(result.messages)
        self.analysis_seconds = 0.0
        self.dump_dir: Optional[str] = None
        self.actor_sets: Dict[str, str] = dict(actor_sets or {})
        self._inputs = list(inputs or [])
        self._net = net
        self.final_index = _final_index(timeline)
        self.before_index = _before_fusion_index(timeline, self.final_index)
        self.graph: Graph = timeline.pin(self.final_index)
        self.before_fusion: Optional[Graph] = None
        self.fusion: Optional[FusionMap] = None
        if self.fusion_enabled and self.before_index is not None:
            self.before_fusion = timeline.pin(self.before_index)
            # walks the kernels in printed order, as the before-fusion graph is printed
            self.fusion = build_fusion_map(self.before_fusion, self.graph)
        # kernels in the order the runtime runs them (a training step's differs from the
        # dump's printed order); kept as printed when the actor sets do not name them all
        final_sets = [t for n, t in sorted(self.actor_sets.items()) if n.startswith("final_")]
        if final_sets:
            apply_execution_order(self.graph, kernel_execution_order(final_sets))

    # -- timeline -----------------------------------------------------------------------
    def snapshot(self, index: int) -> Graph:
        """The parsed graph of pass ``index`` (parsed on first use, then cached)."""
        return self.passes.snapshot(index)

    def diff(self, index: int) -> PassDiff:
        """What pass ``index`` added, removed and modified relative to the pass before."""
        return self.passes.diff(index)

    @property
    def kernel_count(self) -> int:
        return len(self.graph.kernels)

    @property
    def final_pass(self) -> PassSnapshot:
        return self.passes[self.final_index]

    # -- text ---------------------------------------------------------------------------
    def summary(self) -> str:
        """A few lines on the trace, in the reader's language (numbers and names as they are)."""
        from ..i18n import _

        stages = self.passes.by_stage()
        changed = sum(1 for s in self.passes if s.changed)
        lines = [
            _("Trace of {}: MindSpore {} on {}, {}, save_graphs level {}").format(
                self.net_name,
                self.mindspore_version or "?",
                self.device or "?",
                _("fusion on") if self.fusion_enabled else _("fusion off"),
                self.level,
            ),
            "  "
            + _("{} pass dumps ({} changed the text): {}").format(
                len(self.passes), changed, ", ".join(f"{k} {len(v)}" for k, v in stages.items())
            ),
            "  "
            + _("final kernel graph {} ({}): {} kernels, {} nodes").format(
                self.graph.name, self.final_pass.name, self.kernel_count, len(self.graph.nodes)
            ),
        ]
        if self.fusion is not None:
            names = ", ".join(f"{n} x{c}" for n, c in sorted(self.fusion.by_name().items()))
            lines.append(
                "  "
                + _("fusion: {} kernels before -> {} after; {} fused kernels ({})").format(
                    self.fusion.kernel_count_before,
                    self.fusion.kernel_count_after,
                    len(self.fusion.kernels),
                    names or _("none"),
                )
            )
        elif self.fusion_enabled:
            lines.append("  " + _("fusion: no graph before fusion found in the dumps"))
        lines.append(
            "  "
            + _("compile {:.2f} s, analysis {:.2f} s").format(
                self.compile_seconds, self.analysis_seconds
            )
            + (_(", dumps kept in {}").format(self.dump_dir) if self.dump_dir else "")
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    # -- payload and display ------------------------------------------------------------
    def to_payload(
        self, passes: str = "changed", memory: bool = True, pass_sink: Any = None
    ) -> Dict[str, Any]:
        """The ``ascend-lab.graph/1`` JSON document (see :mod:`ascend_lab.payload`).

        ``pass_sink`` (a :class:`~ascend_lab.pass_packing.PassPacker`) receives each pass's
        graph as it is built instead of the payload (how the standalone HTML is written).
        """
        from ..payload import build_payload

        return build_payload(self, passes=passes, memory=memory, pass_sink=pass_sink)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Dict[str, Any]:
        from ..payload import MIME_TYPE, check_payload

        payload = self.to_payload(passes="none", memory=True)
        check_payload(payload)  # JupyterLab's renderer gets only what the viewer can read
        return {
            MIME_TYPE: payload,
            "text/plain": self.summary(),
        }

    def show(self, **options: Any) -> Any:
        """Open the interactive viewer: graph before/after fusion, pass timeline, memory map.

        Options go to :func:`ascend_lab.widgets.show_trace` (``view="all"|"graph"|...``).
        """
        from ..widgets import show_trace

        return show_trace(self, **options)

    def to_html(
        self, path: str, view: str = "all", redact: bool = True, project: Optional[str] = None
    ) -> str:
        """Write one self-contained HTML file with the viewer (no server, no network).

        With ``redact`` (default) the page names no path of this machine: paths become
        relative to ``project`` (default: the current folder) or are shortened (see
        :func:`ascend_lab.widgets.to_html`). Returns the file's absolute path.
        """
        from ..widgets import to_html

        return to_html(self, path, title=self.net_name, view=view, redact=redact, project=project)

    # -- MindIR -------------------------------------------------------------------------
    def export_mindir(self, path: str) -> Any:
        """Export the traced net to ``path`` (.mindir), parse it, load it back and compare.

        Returns a :class:`~ascend_lab.tracing.mindir_io.MindIRComparison`.
        """
        if self._net is None:
            raise ValueError("this Trace does not hold its net; use export_and_compare()")
        from .mindir_io import export_and_compare

        return export_and_compare(self._net, *self._inputs, path=path)


def _final_index(timeline: PassTimeline) -> int:
    builds = [s for s in timeline if s.name.startswith("graph_build")]
    if not builds:
        kernels = [s for s in timeline if s.stage in ("backend", "build") and "kernel" in s.name]
        if not kernels:
            raise ValueError(
                f"no graph_build_*.ir among the {len(timeline)} dumps in {timeline.dump_dir}: "
                "MindSpore did not build a kernel graph"
            )
        return kernels[-1].index
    # Several kernel graphs (control flow): the largest is the net's main graph.
    return max(builds, key=lambda s: (s.node_count or 0, s.counter)).index


def _before_fusion_index(timeline: PassTimeline, final: int) -> Optional[int]:
    """The kernel graph after kernel selection and before any graph-kernel pass."""
    final_snap = timeline[final]
    gid = kernel_graph_id(final_snap.name)
    candidates = [
        s
        for s in timeline
        if s.counter < final_snap.counter
        and s.stage == "backend"
        and s.fused_kernels == 0
        and (gid is None or kernel_graph_id(s.name) == gid)
    ]
    if not candidates:
        return None
    selected = [s for s in candidates if stage_key(s.name) == "comm_after_kernel_select"]
    return (selected or candidates)[-1].index


def _read_actor_sets(dump_dir: str) -> Dict[str, str]:
    folder = os.path.join(dump_dir, "actor_set")
    out: Dict[str, str] = {}
    if not os.path.isdir(folder):
        return out
    for name in sorted(os.listdir(folder)):
        if name.endswith(".ir"):
            out[name] = read_text_capped(os.path.join(folder, name), IR_MAX_BYTES_ENV)
    return out


def trace_net(
    net: Any,
    inputs: List[Any],
    fusion: bool,
    level: int,
    keep_dumps: bool,
    run: bool,
    progress: Optional[bool],
) -> Trace:
    """The implementation of :func:`ascend_lab.trace` (its defaults and docs are there)."""
    from ..i18n import _

    bar = Progress(_("Tracing {}").format(type(net).__name__), enabled=progress)
    bar.step(
        _("compiling in graph mode with graph-kernel fusion")
        if fusion
        else _("compiling in graph mode")
    )
    result = capture(net, inputs, fusion=fusion, level=level, run=run)
    started = time.perf_counter()
    try:
        bar.step(_("compiled in {:.1f} s; reading dumps").format(result.compile_seconds))
        timeline = PassTimeline(result.dump_dir, keep_text=not keep_dumps)
        actor_sets = _read_actor_sets(result.dump_dir)
        bar.step(_("parsing the final kernel graph ({} dumps)").format(len(timeline)))
        tr = Trace(
            type(net).__name__,
            result,
            timeline,
            inputs=inputs,
            net=net,
            actor_sets=actor_sets,
        )
    except BaseException:
        shutil.rmtree(result.workdir, ignore_errors=True)
        raise
    if keep_dumps:
        tr.dump_dir = result.dump_dir
    else:
        shutil.rmtree(result.workdir, ignore_errors=True)
    tr.analysis_seconds = time.perf_counter() - started
    bar.done(
        _("{} passes, {} kernels").format(len(timeline), tr.kernel_count)
        + (_(", {} fused").format(len(tr.fusion.kernels)) if tr.fusion is not None else "")
    )
    return tr

"""The :class:`Trace` of one compile: its pass timeline, final kernel graph and fusion map.

A Trace is made from dumps: by :func:`ascend_lab.trace` (which runs the capture, see
:mod:`ascend_lab.tracing.api`) or from a dump folder someone already has
(:meth:`Trace.from_dump_folder`). It never runs MindSpore itself.
"""

import os
from typing import Any, Dict, List, Optional, Sequence

from ascend_lab.analysis.fusion import FusionMap, build_fusion_map
from ascend_lab.capture.input_notes import constant_input_notes
from ascend_lab.errors.trace import NoKernelGraphError
from ascend_lab.model import display
from ascend_lab.model.capture_info import CaptureInfo, RecordedCapture
from ascend_lab.model.graph import Graph
from ascend_lab.parsers.ir.execution_order import apply_execution_order, kernel_execution_order
from ascend_lab.parsers.ir.timeline import (
    PassDiff,
    PassSnapshot,
    PassTimeline,
    kernel_graph_id,
    stage_key,
)
from ascend_lab.parsers.limits import IR_MAX_BYTES_ENV, read_text_capped

__all__ = ["Trace", "before_fusion_index", "final_index", "read_actor_sets"]


class Trace:
    """Everything one trace found: the pass timeline, the final graph, the fusion map.

    Made by :func:`ascend_lab.trace` (a live capture) or by :meth:`from_dump_folder` (dumps
    someone already has); ``capture`` says how the dumps came to be (:class:`CaptureInfo`).
    """

    def __init__(
        self,
        net_name: str,
        result: CaptureInfo,
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
        live = not isinstance(result, RecordedCapture)  # its dump folder is gone by now
        notes = constant_input_notes(self._inputs)
        self.final_index = final_index(timeline, net_name if live else None, notes)
        self.before_index = before_fusion_index(timeline, self.final_index)
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

    # -- from files ---------------------------------------------------------------------
    @classmethod
    def from_dump_folder(cls, folder: str, name: Optional[str] = None) -> "Trace":
        """The Trace of a dump folder MindSpore wrote with ``save_graphs`` (the ``.ir`` files
        and, when the net ran, ``actor_set/``). Nothing is compiled and nothing is copied:
        the dumps are read where they are (each with its byte cap).

        Raises :class:`~ascend_lab.errors.trace.NoKernelGraphError` (a ``ValueError``)
        when no kernel graph is among the dumps.
        """
        timeline = PassTimeline(folder)
        fused = os.path.isdir(os.path.join(folder, "verbose_ir_files", "graph_kernel")) or any(
            s.fused_kernels for s in timeline
        )
        recorded = RecordedCapture(
            fusion=bool(fused), level=1, ran=os.path.isdir(os.path.join(folder, "actor_set"))
        )
        label = name or os.path.basename(os.path.normpath(folder)) or folder
        return cls(label, recorded, timeline, actor_sets=read_actor_sets(folder))

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

    def other_kernel_graphs(self) -> List[PassSnapshot]:
        """The kernel graphs the compile built besides the one the views show. Control flow
        (a ``while`` or ``if`` over a tensor) gives a loop body or branch a kernel graph of
        its own; the views show the largest, so these are easy to miss."""
        return [
            s
            for s in self.passes
            if s.name.startswith("graph_build") and s.index != self.final_index
        ]

    def notes(self) -> List[str]:
        """What the reader should know before trusting the views (in the reader's language);
        the summary prints them and the page shows them above the views."""
        from ascend_lab.i18n import _

        others = self.other_kernel_graphs()
        if not others:
            return []
        shown = ", ".join(f"{s.name} ({s.node_count or '?'})" for s in others[:8])
        if len(others) > 8:
            shown += ", …"
        return [
            _(
                "MindSpore built {} kernel graphs for this net (control flow gives a loop body "
                "or a branch a graph of its own); the views show the largest, {} ({} kernels). "
                "The others are in the pass timeline (nodes): {}"
            ).format(len(others) + 1, self.final_pass.name, self.kernel_count, shown)
        ]

    # -- text ---------------------------------------------------------------------------
    def summary(self) -> str:
        """A few lines on the trace, in the reader's language (numbers and names as they are)."""
        from ascend_lab.i18n import _

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
        lines.extend("  " + note for note in self.notes())
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

        ``pass_sink`` (a :class:`~ascend_lab.payload.packing.PassPacker`) receives each pass's
        graph as it is built instead of the payload (how the standalone HTML is written).
        """
        return display.call("payload", self, passes=passes, memory=memory, pass_sink=pass_sink)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Dict[str, Any]:
        return display.call("mimebundle", self)

    def show(self, **options: Any) -> Any:
        """Open the interactive viewer: graph before/after fusion, pass timeline, memory map.

        Options go to :func:`ascend_lab.render.show_trace` (``view="all"|"graph"|...``).
        """
        return display.call("show", self, **options)

    def to_html(
        self, path: str, view: str = "all", redact: bool = True, project: Optional[str] = None
    ) -> str:
        """Write one self-contained HTML file with the viewer (no server, no network).

        With ``redact`` (default) the page names no path of this machine: paths become
        relative to ``project`` (default: the current folder) or are shortened (see
        :func:`ascend_lab.render.to_html`). Returns the file's absolute path.
        """
        return display.call("html", self, path, view=view, redact=redact, project=project)

    # -- MindIR -------------------------------------------------------------------------
    def export_mindir(self, path: str) -> Any:
        """Export the traced net to ``path`` (.mindir), parse it, load it back and compare.

        Returns a :class:`~ascend_lab.capture.mindir_export.MindIRComparison`.
        """
        if self._net is None:
            raise ValueError("this Trace does not hold its net; use export_and_compare()")
        from ascend_lab.capture.mindir_export import export_and_compare

        return export_and_compare(self._net, *self._inputs, path=path)


def final_index(
    timeline: PassTimeline, net_name: Optional[str] = None, notes: Sequence[str] = ()
) -> int:
    """The index of the final kernel graph; :class:`NoKernelGraphError` when there is none.

    ``net_name``: the net a live capture compiled (its dump folder is gone by the time the
    error is read, so it is not named); ``None`` for a dump folder someone has. ``notes``:
    lines about its inputs that the error adds (tuples compiled as constants).
    """
    builds = [s for s in timeline if s.name.startswith("graph_build")]
    if not builds:
        kernels = [s for s in timeline if s.stage in ("backend", "build") and "kernel" in s.name]
        if not kernels:
            where = f"for {net_name}" if net_name else f"in {timeline.dump_dir}"
            raise NoKernelGraphError(
                f"MindSpore built no kernel graph {where}: none of its {len(timeline)} "
                "dumps is a graph_build_*.ir. A net whose outputs need no operator (it "
                "returns its inputs, or only constants) compiles to no kernels, so there is "
                "nothing to run, fuse or plan; trace a net that computes something."
                + "".join("\n" + note for note in notes)
            )
        return kernels[-1].index
    # Several kernel graphs (control flow): the largest is the net's main graph.
    return max(builds, key=lambda s: (s.node_count or 0, s.counter)).index


def before_fusion_index(timeline: PassTimeline, final: int) -> Optional[int]:
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


def read_actor_sets(dump_dir: str) -> Dict[str, str]:
    folder = os.path.join(dump_dir, "actor_set")
    out: Dict[str, str] = {}
    if not os.path.isdir(folder):
        return out
    for name in sorted(os.listdir(folder)):
        if name.endswith(".ir"):
            out[name] = read_text_capped(os.path.join(folder, name), IR_MAX_BYTES_ENV)
    return out

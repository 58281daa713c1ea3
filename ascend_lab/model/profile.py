"""The :class:`Profile` of a net and its rows. Pure data: no MindSpore, no file access.

Times are in microseconds (``_us``), as both MindSpore's CPU files (after conversion) and
the Ascend files (natively) give them. Shares are fractions of the mean measured step.
"""

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

from ascend_lab.model import display


@dataclass
class KernelLaunch:
    """One execution of one kernel, as the profiler recorded it."""

    name: str  # the profiler's name: on CPU and Ascend, the full scope name
    op_type: str
    start_us: float  # absolute (the profiler's clock, microseconds since the epoch)
    duration_us: float
    lane: str  # "thread 0" (CPU) or "stream 7" (Ascend): one row of the timeline
    step: Optional[int] = None
    core: Optional[str] = None  # Ascend: AI_CORE, AI_CPU, AI_VECTOR_CORE, MIX_AIC, ...
    wait_us: Optional[float] = None
    block_dim: Optional[int] = None

    @property
    def end_us(self) -> float:
        return self.start_us + self.duration_us


@dataclass
class KernelStats:
    """All measured launches of one kernel (one name), and the graph node it belongs to."""

    name: str
    op_type: str
    calls: int
    total_us: float
    mean_us: float
    min_us: float
    max_us: float
    share: Optional[float] = None  # of the mean measured step (total / steps / mean step)
    core: Optional[str] = None
    wait_us: Optional[float] = None  # total wait (Ascend)
    block_dim: Optional[int] = None
    first_start_us: float = 0.0
    node_id: Optional[str] = None  # the traced graph's node, when joined
    joined_by: Optional[str] = None  # "name" or "order"


@dataclass
class OpTypeStats:
    """All measured launches of one op type (on Ascend, per op type and core)."""

    op_type: str
    calls: int
    total_us: float
    mean_us: float
    min_us: float
    max_us: float
    share: Optional[float] = None
    core: Optional[str] = None
    kernels: int = 0


@dataclass
class StepTime:
    """One measured step: wall time and what filled it.

    ``busy_us`` is the union of kernel intervals (kernels on several lanes at once count
    once); ``gap_us = wall_us - busy_us`` is host work, launch gaps, Python and waits.
    ``data_us`` is data loading where the profiler reports it (None: not reported).
    """

    index: int
    start_us: float
    wall_us: float
    kernel_sum_us: float
    busy_us: float
    compute_us: float
    communication_us: float
    gap_us: float
    data_us: Optional[float] = None
    launches: int = 0


@dataclass
class Unjoined:
    """A kernel row that could not be put on a graph node, or a node without a row."""

    name: str
    op_type: str
    reason: str
    node_id: Optional[str] = None
    total_us: Optional[float] = None


@dataclass
class Profile:
    """What MindSpore's profiler measured for a net, joined to its traced graph."""

    net_name: str
    source: str  # "cpu" (MindSpore's CPU files) or "ascend" (kernel_details.csv, ...)
    kernels: List[KernelStats]
    op_types: List[OpTypeStats]
    steps: List[StepTime]
    launches: List[KernelLaunch]
    unjoined_rows: List[Unjoined] = field(default_factory=list)
    unmeasured_nodes: List[Unjoined] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    device: Optional[str] = None
    mindspore_version: Optional[str] = None
    profiler_dir: Optional[str] = None  # set when the profiler's folder was kept
    files: Dict[str, str] = field(default_factory=dict)
    trace: Any = None  # the ascend_lab Trace the rows were joined to, if any
    # Ascend: the profiler's own step breakdown, memory over time, and the ranks beside
    measured_steps: List["MeasuredStep"] = field(default_factory=list)
    memory: List["MemorySample"] = field(default_factory=list)
    rank: Optional[int] = None
    ranks: List["RankRun"] = field(default_factory=list)
    # where the step times come from (ascend_lab.profiling.step_table.STEPS_FROM_*): the
    # profiler's own step table, or the kernels' span as the labelled fallback
    step_source: Optional[str] = None

    # -- numbers ------------------------------------------------------------------------
    @property
    def mean_step_us(self) -> Optional[float]:
        if not self.steps:
            return None
        return sum(s.wall_us for s in self.steps) / len(self.steps)

    def top(self, n: int = 10) -> List[KernelStats]:
        """The ``n`` kernels with the largest total time, largest first."""
        return sorted(self.kernels, key=lambda k: (-k.total_us, k.name))[: max(0, n)]

    @property
    def slowest(self) -> Optional[KernelStats]:
        """The kernel with the largest total time (None if nothing was measured)."""
        top = self.top(1)
        return top[0] if top else None

    def kernel_for_node(self, node_id: str) -> Optional[KernelStats]:
        for k in self.kernels:
            if k.node_id == node_id:
                return k
        return None

    @property
    def joined(self) -> bool:
        return self.trace is not None

    # -- text ---------------------------------------------------------------------------
    def table(self, n: int = 10) -> str:
        """The top-``n`` kernels as a plain-text table (headings in the reader's language)."""
        from ascend_lab.i18n import _, display_width, ljust, rjust

        head = (
            f"{ljust(_('kernel'), 48)} {ljust(_('type'), 14)} {rjust(_('calls'), 5)} "
            f"{rjust(_('total us'), 10)} {rjust(_('mean us'), 9)} {rjust(_('share'), 6)}  "
            + _("node")
        )
        lines = [head, "-" * display_width(head)]
        for k in self.top(n):
            share = f"{k.share * 100:5.1f}%" if k.share is not None else "     -"
            name = k.name if len(k.name) <= 48 else "…" + k.name[-47:]
            lines.append(
                f"{name:<48} {k.op_type[:14]:<14} {k.calls:>5} {k.total_us:>10.1f} "
                f"{k.mean_us:>9.1f} {share}  {k.node_id or '-'}"
            )
        return "\n".join(lines)

    def summary(self) -> str:
        """A few lines on the profile, in the reader's language (numbers and names as they are)."""
        from ascend_lab.i18n import _, localize

        lines = [
            _("Profile of {} ({}, {} step(s), {} kernels, {} launches)").format(
                self.net_name, self.source, len(self.steps), len(self.kernels), len(self.launches)
            )
        ]
        if self.steps:
            mean = self.mean_step_us or 0.0
            busy = sum(s.busy_us for s in self.steps) / len(self.steps)
            comm = sum(s.communication_us for s in self.steps) / len(self.steps)
            gap = sum(s.gap_us for s in self.steps) / len(self.steps)
            lines.append(
                _(
                    "mean step {:.3f} ms: kernels {:.3f} ms (communication {:.3f} ms), "
                    "host/launch gaps {:.3f} ms"
                ).format(mean / 1000, busy / 1000, comm / 1000, gap / 1000)
            )
            if self.step_source:
                lines.append(_("step times from: {}").format(_(self.step_source)))
        if self.measured_steps:
            n = len(self.measured_steps)
            lines.append(
                _(
                    "measured by the profiler, mean of {} step(s): {:.3f} ms computing, {:.3f} ms "
                    "communication not overlapped, {:.3f} ms free"
                ).format(
                    n,
                    sum(m.computing_us for m in self.measured_steps) / n / 1000,
                    sum(m.communication_not_overlapped_us for m in self.measured_steps) / n / 1000,
                    sum(m.free_us for m in self.measured_steps) / n / 1000,
                )
            )
        slow = self.slowest
        if slow is not None:
            lines.append(
                _("slowest kernel: {} ({}), {:.1f} us per call").format(
                    slow.name, slow.op_type, slow.mean_us
                )
            )
        if self.unjoined_rows:
            lines.append(
                _("{} profiler row(s) not on a graph node").format(len(self.unjoined_rows))
            )
        if self.unmeasured_nodes:
            lines.append(
                _("{} graph kernel(s) without a measured time").format(len(self.unmeasured_nodes))
            )
        lines.extend(_("note: {}").format(localize(n)) for n in self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary() + "\n" + self.table()

    def _repr_html_(self) -> str:
        return display.call("card_html", self)

    # -- views --------------------------------------------------------------------------
    def plot(self, n: int = 10, ax: Any = None) -> Any:
        """A matplotlib bar chart of the top-``n`` kernels; returns ``(figure, axes)``."""
        return display.call("plot", self, n=n, ax=ax)

    def to_dict(self) -> Dict[str, Any]:
        """The payload's ``profile`` section (see :mod:`ascend_lab.payload.profile_section`)."""
        return display.call("section", self)

    def to_payload(self) -> Dict[str, Any]:
        """A whole ``ascend-lab.graph/1`` payload: the joined graph plus ``profile``."""
        return display.call("payload", self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Dict[str, Any]:
        return display.call("mimebundle", self)

    def show(self, **options: Any) -> Any:
        """The interactive viewer (graph coloured by time, Profile tab) as a notebook widget."""
        return display.call("show", self, **options)

    def to_html(
        self, path: str, redact: bool = True, project: Optional[str] = None, view: str = "all"
    ) -> str:
        """Write one self-contained HTML file with the viewer (``view="profile"``: the Profile
        tab alone); returns its absolute path."""
        return display.call("html", self, path, redact=redact, project=project, view=view)

    def rows(self) -> List[Dict[str, Any]]:
        """Per-kernel rows as dicts (e.g. for ``pandas.DataFrame(profile.rows())``)."""
        return [asdict(k) for k in self.kernels]


@dataclass
class MeasuredStep:
    """One step as the Ascend profiler measured it (``step_trace_time.csv``), microseconds.

    ``computing_us`` + ``communication_not_overlapped_us`` + ``free_us`` fill the step;
    ``overlapped_us`` is communication hidden under computing; ``stage_us`` the step's
    device span less ``bubble_us`` (time waiting to receive, in pipeline parallelism);
    ``preparing_us`` the host time before the first task. ``step`` is None without a step
    schedule; ``rank`` is the device the file names.
    """

    step: Optional[int]
    rank: Optional[int]
    computing_us: float
    communication_not_overlapped_us: float
    free_us: float
    overlapped_us: Optional[float] = None
    communication_us: Optional[float] = None
    stage_us: Optional[float] = None
    bubble_us: Optional[float] = None
    preparing_us: Optional[float] = None

    @property
    def total_us(self) -> float:
        """The step's device span: computing + not-overlapped communication + free (the
        overlap analysis tiles the span with these three; ``stage_us`` is it less bubble)."""
        return self.computing_us + self.communication_not_overlapped_us + self.free_us


@dataclass
class MemorySample:
    """Memory in use at one moment (``memory_record.csv``, or summed ``operator_memory.csv``)."""

    time_us: float
    allocated_mb: float
    reserved_mb: Optional[float] = None
    component: str = ""


@dataclass
class RankRun:
    """One rank's profiler folder among several (``*_ascend_ms`` / ``*_ascend_pt``)."""

    rank: Optional[int]
    path: str
    analysed: bool
    measured_steps: List[MeasuredStep] = field(default_factory=list)

"""ascend-lab: learn and use Huawei Ascend NPUs with MindSpore from inside Jupyter.

Importing this package is cheap on purpose: nothing here imports MindSpore, NumPy or
matplotlib. Heavy parts load on first use (:func:`trace` imports MindSpore only when a
trace is captured; its parts live in :mod:`ascend_lab.tracing`).
"""

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

from ascend_lab._version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from ascend_lab.model.profile import Profile
    from ascend_lab.results.comparison import Comparison
    from ascend_lab.results.trace import Trace

__all__ = [
    "__version__",
    "compare",
    "compare_numerics",
    "load_ipython_extension",
    "profile",
    "status",
    "trace",
]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext ascend_lab``: register the magics (without importing MindSpore)."""
    from ascend_lab.magics import register

    register(ipython)


def status(refresh: bool = False) -> Any:
    """Return a :class:`~ascend_lab.model.device_status.DeviceStatus` snapshot of this machine."""
    from ascend_lab.probes.device import collect_status

    return collect_status(refresh=refresh)


def trace(
    net: Any,
    *inputs: Any,
    fusion: bool = False,
    level: int = 1,
    keep_dumps: bool = False,
    run: bool = True,
    progress: Optional[bool] = None,
) -> "Trace":
    """Compile ``net`` on ``inputs`` in GRAPH_MODE with IR dumps and analyse the dumps.

    >>> t = ascend_lab.trace(net, x)               # fusion off, save_graphs level 1
    >>> t.graph, t.passes, t.diff(12)              # final kernel graph, the pipeline, a diff
    >>> t = ascend_lab.trace(net, x, fusion=True)  # graph-kernel fusion (AKG) on
    >>> t.fusion, t.before_fusion, t.show(), t.to_html("trace.html")

    Args:
        net: a ``mindspore.nn.Cell`` (it may have been called before, in any mode).
        inputs: sample inputs, as you would pass them to ``net(...)``.
        fusion: turn on graph-kernel fusion (``enable_graph_kernel``) for this compile.
            On CPU this runs AKG, needs the ``decorator`` package, and is slow (cold
            6-25 s for a small net).
        level: MindSpore's ``save_graphs`` level: 1 (~100 dumps), 2 (adds
            ``verbose_ir_files`` incl. one per graph-kernel stage), 3 (adds ``.dot`` files).
        keep_dumps: keep the dump folder; ``Trace.dump_dir`` names it. Otherwise the dumps
            are read into memory and their temporary folder is removed before returning.
        run: run the net after compiling (default; ``Trace.output`` holds the result, and
            the runtime dumps ``actor_set/`` exist). ``False`` compiles only. Running a net
            in training mode updates its BatchNorm statistics, as calling it would.
        progress: show progress (default: in notebooks, not in CI or terminals).

    Returns:
        a :class:`ascend_lab.results.trace.Trace`.

    Traces are serialised per process: a second trace while one runs raises
    :class:`~ascend_lab.errors.trace.TraceBusyError`. A net that does not compile raises
    :class:`~ascend_lab.errors.trace.TraceError` with MindSpore's message and the line.
    MindSpore's context, the environment and the working directory are restored
    afterwards, also when compiling fails.
    """
    from ascend_lab.tracing.api import trace_net

    return trace_net(net, list(inputs), fusion, level, keep_dumps, run, progress)


def profile(
    net: Any,
    *inputs: Any,
    steps: int = 5,
    warmup: int = 2,
    keep: bool = False,
    trace: Any = None,
    step: Any = None,
) -> "Profile":
    """Run ``net(*inputs)`` under MindSpore's own profiler in GRAPH_MODE and read it back.

    >>> p = ascend_lab.profile(net, x)     # 2 warm-up calls, then 5 profiled steps
    >>> p.slowest, p.top(5), p.steps       # per kernel, per step (wall, kernels, gaps)
    >>> print(p.table()); p.plot()         # text table, matplotlib top-N

    Args:
        net: a ``mindspore.nn.Cell``.
        inputs: sample inputs, as you would pass them to ``net(...)``.
        steps: profiled steps (each timed; kernels are put in the step they ran in).
        warmup: unprofiled calls first (the first call compiles the graph).
        keep: keep the profiler's folder (``Profile.profiler_dir``); otherwise it is
            written to a private temporary folder and removed before returning.
        trace: a :class:`~ascend_lab.results.trace.Trace` of this net to join the kernels to;
            ``None`` traces the net first (one compile with IR dumps); ``False`` skips it.
        step: a function to call once per step instead of ``net(*inputs)``, e.g. your
            training step with its data loading: what it does on the host (a slow
            preprocessing, ``asnumpy()`` in the loop) shows as gaps in the timeline.

    Returns:
        a :class:`ascend_lab.model.profile.Profile`. Rows that could not be joined to a
        graph node are in ``Profile.unjoined_rows``; graph kernels without a measured
        time, with the reason, in ``Profile.unmeasured_nodes``.

    MindSpore's context (``mode``) and the working directory are restored afterwards.
    """
    from ascend_lab.profiling.api import profile_net

    return profile_net(net, list(inputs), steps, warmup, keep, trace, step)


def compare(
    a: Any,
    b: Any,
    titles: Optional[Any] = None,
    profiles: Optional[Any] = None,
) -> "Comparison":
    """Compare two traces side by side: their final graphs' nodes aligned.

    >>> cmp = ascend_lab.compare(ascend_lab.trace(net, x),
    ...                          ascend_lab.trace(auto_mixed_precision(net, "O2"), x))
    >>> cmp.added, cmp.removed, cmp.changed, cmp.matched   # nodes and pairs
    >>> cmp.kernel_counts, cmp.peaks, cmp.casts_added       # totals per side
    >>> cmp.show(); cmp.to_html("cmp.html")                 # the two graphs, linked

    Nodes pair by scope, op and source line first, then by structure (neighbours of
    already-paired nodes), and a fused kernel with the set of ops it replaced (through
    its trace's fusion map); what cannot be paired is added (only in B) or removed (only
    in A), never guessed. ``-opN`` numbering is ignored, so traces from two MindSpore
    versions compare too.

    Args:
        a, b: traces (:func:`trace`), ``ascend-lab.graph/1`` payload dicts (a saved
            ``trace.to_payload()``) or :class:`~ascend_lab.model.graph.Graph` objects.
        titles: ``(title_a, title_b)``; default the nets' names.
        profiles: ``(profile_a, profile_b)`` from :func:`profile`, for the time per step.

    Returns:
        a :class:`ascend_lab.results.comparison.Comparison`.
    """
    from ascend_lab.comparison import compare as _compare

    return _compare(a, b, titles=titles, profiles=profiles)


def compare_numerics(a: Any, *args: Any, **kwargs: Any) -> Any:
    """Where do two runs of a network part ways? Compare them Cell by Cell, or op by op.

    >>> r = ascend_lab.compare_numerics(net, port, x)        # two Cells, same inputs
    >>> r = ascend_lab.compare_numerics(net, x, amp="O2")    # net vs its AMP copy
    >>> r = ascend_lab.compare_numerics(net, "ref.npz", x)   # vs reference arrays by Cell path
    >>> r = ascend_lab.compare_numerics(net, port, x, capture="dump")  # op by op, graph mode
    >>> print(r); print(r.table()); r.first_divergence

    ``capture="cells"`` (default): each side runs once in PyNative mode with a forward hook
    on every sub-Cell (context restored afterwards); an op inside a ``construct`` counts as
    part of its Cell. ``capture="dump"``: each side is compiled and run once in GRAPH_MODE
    (graph-kernel fusion off; ``fusion=True``, ``"a"`` or ``"b"`` turns it on) in a child
    process with MindSpore's own dump on, one record per kernel (outputs only), named by the
    Cell its data flow puts it in (MindSpore's own scope shown too) and matched by Cell path
    and op type (``attn/Softmax``) through one-sided Casts (unmatched, never a divergence)
    and fused kernels (compared at the last op they compute); an op's input error is its
    producers' in the dumped kernel graph. Reference arrays are keyed by op
    (``attn/Softmax#2``) or Cell path. It costs a MindSpore start and a compile per side,
    and leaves nothing on disk (see :mod:`ascend_lab.numerics.api`). Statistics only
    by default (min/max/mean/std, NaN/Inf, float16 and bfloat16 overflow/underflow, a
    4096-value sample for the errors); ``tensors=True`` keeps whole tensors (exact
    errors). Keywords: ``amp``, ``mapping`` (``{a_path: b_path}``), ``k`` and ``floor``
    (first divergence: rel err > max(k x input rel err, floor)), ``tensors``,
    ``sample_size``, ``capture``, ``fusion``. Returns a
    :class:`~ascend_lab.results.numerics.NumericsResult`; bad sides, inputs or references
    raise :class:`~ascend_lab.errors.numerics.NumericsError` subclasses.
    """
    from ascend_lab.numerics.api import compare_numerics as run

    return run(a, *args, **kwargs)


def _jupyter_labextension_paths() -> List[Dict[str, str]]:
    """Where JupyterLab finds the prebuilt front-end extension (``jupyter labextension``)."""
    return [{"src": "labextension", "dest": "ascend-lab"}]


def _jupyter_server_extension_points() -> List[Dict[str, str]]:
    """The server extension (``/ascend-lab/api/...``); loading it never imports MindSpore."""
    return [{"module": "ascend_lab.server"}]


# -- the verbs of the results' and the model's façades ---------------------------------------
# ``t.show()``, ``cmp.to_html(path)``, ``status._repr_html_()``, ``profile.plot()`` reach the
# payload and render stages above them through :mod:`ascend_lab.model.display`; the root, the
# top of the layout, binds each verb to one function that dispatches on the object's type. Each
# is imported on first use (importing ascend_lab stays cheap).
_VERBS = {
    "payload": ("ascend_lab.payload.dispatch", "to_payload"),
    "section": ("ascend_lab.payload.profile_section", "profile_section"),
    "show": ("ascend_lab.render.show", "show"),
    "html": ("ascend_lab.render.show", "to_html"),
    "mimebundle": ("ascend_lab.render.show", "mimebundle"),
    "plot": ("ascend_lab.render.show", "plot"),
    "card_html": ("ascend_lab.render.cards", "card_html"),
    "card_text": ("ascend_lab.render.cards", "card_text"),
}


def _bound(module: str, name: str) -> Callable[..., Any]:
    def verb(*args: Any, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    verb.__name__ = name
    return verb


def _bind_verbs() -> None:
    from ascend_lab.model import display

    for verb, (module, name) in _VERBS.items():
        display.register(verb, _bound(module, name))


_bind_verbs()

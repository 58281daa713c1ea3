"""``ascend_lab.trace(net, x)``: run the capture, then read its dumps into a :class:`Trace`.

Dumps go to a private temporary folder that is removed before ``trace()`` returns (the
dump texts stay in memory, zlib-compressed and one per set of identical dumps: ~8 MB for a
32-layer decoder's 470 MB, so snapshots can still be parsed lazily), unless
``keep_dumps=True``: then ``Trace.dump_dir`` says where they are. The Trace itself is
:mod:`ascend_lab.results.trace`.
"""

import shutil
import time
from typing import Any, List, Optional

from ascend_lab.capture.compile import capture
from ascend_lab.parsers.ir.timeline import PassTimeline
from ascend_lab.results.trace import Trace, read_actor_sets
from ascend_lab.tracing.progress import Progress

__all__ = ["trace_net"]


# MindSpore's AMP wraps the user's net in a private cell (amp.auto_mixed_precision gives
# an _OutputTo32 whose _backbone is the net); a trace is titled by the user's net.
_AMP_WRAPPERS = ("_OutputTo32", "_OutputTo16")


def net_title(net: Any) -> str:
    """The name a trace (and a comparison's side) is known by: the net's class, or, for a
    net wrapped by MindSpore's mixed precision, the wrapped net's class with a note."""
    name = type(net).__name__
    backbone = getattr(net, "_backbone", None)
    if name in _AMP_WRAPPERS and backbone is not None:
        from ascend_lab.i18n import _

        return _("{} (mixed precision)").format(net_title(backbone))
    return name


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
    from ascend_lab.i18n import _

    bar = Progress(_("Tracing {}").format(net_title(net)), enabled=progress)
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
        actor_sets = read_actor_sets(result.dump_dir)
        bar.step(_("parsing the final kernel graph ({} dumps)").format(len(timeline)))
        tr = Trace(
            net_title(net),
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

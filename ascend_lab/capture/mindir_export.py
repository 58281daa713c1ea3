"""Export a net to ``.mindir``, parse the file, load it back and compare outputs.

"This file *is* the graph": ``ms.export(net, *inputs, file_format="MINDIR")`` writes the
graph and weights; :func:`ascend_lab.parsers.mindir.mindir.parse_mindir` reads it into the same
``Graph`` model as the IR dumps; ``ms.load`` + ``nn.GraphCell`` run it, and the outputs are
compared with the net's own (max absolute difference).

The export is written into a private temporary folder first and then moved into place, so
a failed export never leaves a half-written file or destroys an existing one; a target
folder that cannot be written raises :class:`MindIRExportError` before anything runs.
"""

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, List, Optional

from ascend_lab.capture.compile import CAPTURE_LOCK, _set_context, restoring_state
from ascend_lab.errors.trace import TraceBusyError, TraceError
from ascend_lab.model.graph import Graph
from ascend_lab.safe_write import atomic_output


class MindIRExportError(TraceError):
    """The ``.mindir`` file could not be written where asked."""


@dataclass
class MindIRComparison:
    path: str
    size: int
    graph: Optional[Graph]
    max_abs_diff: Optional[float]
    outputs_net: List[Any] = field(default_factory=list)
    outputs_loaded: List[Any] = field(default_factory=list)
    parse_error: Optional[str] = None

    @property
    def match(self) -> bool:
        return self.max_abs_diff is not None and self.max_abs_diff <= 1e-5

    def summary(self) -> str:
        """What was exported and how it compares, in the reader's language."""
        from ascend_lab.i18n import _

        nodes = (
            _("{} nodes").format(len(self.graph.nodes))
            if self.graph is not None
            else _("not parsed")
        )
        diff = "n/a" if self.max_abs_diff is None else f"{self.max_abs_diff:.3g}"
        lines = [
            _(
                "MindIR {} ({} bytes): {}; loaded back with ms.load + nn.GraphCell, "
                "max |difference| = {}"
            ).format(self.path, self.size, nodes, diff)
        ]
        if self.parse_error:
            lines.append("  " + _("parse error: {}").format(self.parse_error))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()


def _flatten(value: Any) -> List[Any]:
    import numpy as np

    if isinstance(value, (tuple, list)):
        out: List[Any] = []
        for item in value:
            out.extend(_flatten(item))
        return out
    if hasattr(value, "asnumpy"):
        return [value.asnumpy()]
    return [np.asarray(value)]


def max_abs_diff(a: Any, b: Any) -> float:
    """Largest absolute elementwise difference between two (nested) outputs."""
    import numpy as np

    left, right = _flatten(a), _flatten(b)
    if len(left) != len(right):
        raise ValueError(f"outputs differ in count: {len(left)} vs {len(right)}")
    worst = 0.0
    for x, y in zip(left, right):
        if x.shape != y.shape:
            raise ValueError(f"outputs differ in shape: {x.shape} vs {y.shape}")
        if x.size:
            worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))))
    return worst


def _check_target(path: str) -> str:
    target = os.path.abspath(os.fspath(path))
    if not target.endswith(".mindir"):
        target += ".mindir"
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise MindIRExportError(f"cannot export to {target}: folder {folder} does not exist")
    try:  # a real probe: os.access() says yes to root even on read-only file systems
        fd, probe = tempfile.mkstemp(prefix=".ascend-lab-probe-", dir=folder)
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise MindIRExportError(
            f"cannot export to {target}: folder {folder} is not writable ({exc.strerror}). "
            "Choose another path (nothing was written)."
        ) from None
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise MindIRExportError(f"cannot export to {target}: the file exists and is read-only")
    return target


def export_and_compare(net: Any, *inputs: Any, path: str) -> MindIRComparison:
    """Export ``net`` on ``inputs`` to ``path`` (MINDIR), parse, load back, compare outputs."""
    target = _check_target(path)
    if not CAPTURE_LOCK.acquire(blocking=False):
        raise TraceBusyError("a trace is running in this process; export after it finishes")
    try:
        import mindspore as ms
        from mindspore import nn

        tmp = tempfile.mkdtemp(prefix="ascend-lab-mindir-")
        try:
            base = os.path.join(tmp, os.path.splitext(os.path.basename(target))[0])
            written = base + ".mindir"
            try:
                # The context, then the current folder, are put back even if that folder
                # disappears meanwhile; an export error is the one raised.
                with restoring_state(ms, ("mode",)):
                    os.chdir(tmp)
                    _set_context(ms, {"mode": ms.GRAPH_MODE})
                    ms.export(net, *inputs, file_name=base, file_format="MINDIR")
                    if not os.path.exists(written):
                        raise MindIRExportError(f"ms.export wrote no file {written}")
                    loaded_cell = nn.GraphCell(ms.load(written))
                    out_loaded = loaded_cell(*inputs)
                    out_net = net(*inputs)
            except TraceError:
                raise
            except Exception as exc:
                raise MindIRExportError(
                    f"MindIR export/load of {type(net).__name__} failed: {exc}"
                ) from exc
            try:  # an unpredictable, exclusive temporary name and one atomic rename (#37)
                with open(written, "rb") as src, atomic_output(target) as out:
                    shutil.copyfileobj(src, out, 1 << 20)
            except OSError as exc:
                raise MindIRExportError(f"cannot write {target}: {exc}") from exc
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        CAPTURE_LOCK.release()
    graph: Optional[Graph] = None
    parse_error: Optional[str] = None
    try:
        from ascend_lab.parsers.mindir.mindir import parse_mindir_file

        graph = parse_mindir_file(target)  # refuses a file over ASCEND_LAB_MINDIR_MAX_BYTES
    except ImportError as exc:
        parse_error = f"MindIR parser not available: {exc}"
    except Exception as exc:
        parse_error = str(exc)
    return MindIRComparison(
        path=target,
        size=os.path.getsize(target),
        graph=graph,
        max_abs_diff=max_abs_diff(out_net, out_loaded),
        outputs_net=_flatten(out_net),
        outputs_loaded=_flatten(out_loaded),
        parse_error=parse_error,
    )

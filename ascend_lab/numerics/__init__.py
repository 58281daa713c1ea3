"""Op-by-op (Cell-by-Cell) numeric comparison of two runs: where do the numbers go wrong?

>>> r = ascend_lab.compare_numerics(net, port, x)        # two Cells
>>> r = ascend_lab.compare_numerics(net, x, amp="O2")    # a Cell and its AMP copy
>>> r = ascend_lab.compare_numerics(net, "ref.npz", x)   # a Cell and reference outputs
>>> print(r); print(r.table()); r.first_divergence

Modules: :mod:`.capture` (the only one importing MindSpore: PyNative forward hooks),
:mod:`.stats` (per-tensor statistics), :mod:`.reference` (``.npz``/dict sides),
:mod:`.compare` (alignment, first divergence), :mod:`.result` (views), :mod:`.advice`
(doctor entries), :mod:`.graph_view` (per-node ``numerics`` for the graph payload).
Importing this package imports neither MindSpore nor NumPy.
"""

from typing import Any


def compare_numerics(a: Any, *args: Any, **kwargs: Any) -> Any:
    """Lazy entry point; see :func:`ascend_lab.compare_numerics`."""
    from ascend_lab.numerics.api import compare_numerics as run

    return run(a, *args, **kwargs)


__all__ = ["compare_numerics"]

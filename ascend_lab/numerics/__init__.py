"""Op-by-op (Cell-by-Cell) numeric comparison of two runs: where do the numbers go wrong?

>>> r = ascend_lab.compare_numerics(net, port, x)        # two Cells
>>> r = ascend_lab.compare_numerics(net, x, amp="O2")    # a Cell and its AMP copy
>>> r = ascend_lab.compare_numerics(net, "ref.npz", x)   # a Cell and reference outputs
>>> print(r); print(r.table()); r.first_divergence

Where the pieces live (stages, see CONTRIBUTING.md): :mod:`ascend_lab.capture.cell_outputs`
(the only one importing MindSpore: PyNative forward hooks), :mod:`ascend_lab.model.tensor_stats`
(per-tensor statistics), :mod:`ascend_lab.model.numeric_records`, :mod:`.reference`
(``.npz``/dict sides), :mod:`ascend_lab.analysis.numeric_compare` (alignment, first
divergence), :mod:`.result` (views), :mod:`.advice` (doctor entries),
:mod:`ascend_lab.payload.numerics_section` (per-node ``numerics`` for the graph payload).
Importing this package imports neither MindSpore nor NumPy.

Why PyNative hooks and not MindSpore's own dump (issue #30). Checked by running each on CPU
in GRAPH_MODE with MindSpore 2.7.0 (Python 3.9) and 2.10.0 (Python 3.11), a three-op net:

* Synchronous Dump (``MINDSPORE_DUMP_CONFIG``, ``e2e_dump_settings.enable: true``):
  ``"saved_data": "statistic"`` and ``"full"`` are refused when the graph first runs
  (``RuntimeError: Dump Json parse failed, storing statistic dump is only supported on GPU
  and Ascend``), in both versions; the docs' support table says the same (r2.4.10
  and the current page: "统计信息dump: CPU不支持"). ``"tensor"`` works: one ``.npy`` per
  kernel output and per Parameter/input under ``rank_0/<net_name>/<graph_id>/<iteration>/``
  (``MatMul.Default_d1-Dense_MatMul-op0.0.0.<timestamp>.output.0.DefaultFormat.Float32.npy``),
  plus ``execution_order/ms_execution_order_graph_0.csv`` (full names in run order),
  ``graphs/ms_output_trace_code_graph_0.{ir,pb}`` and ``.dump_metadata/``. The CSV's names
  (``Default/d1-Dense/MatMul-op0``) are exactly the traced graph's node names (scope + op),
  so they join; the file names replace ``/`` by ``_`` and must be joined through the CSV.
  Cost, 16 x (Dense 512 + GELU), batch 64, MindSpore 2.10: 81 files and 23 MB per call
  (parameters included), first call 1.28 s against 1.04 s without dump.
* Asynchronous dump (``e2e_dump_settings.enable: false``) is for Ascend only (docs 2.3); on
  CPU it is not refused but writes the same files as the synchronous dump (2.7.0 and 2.10.0).
* ``ops.TensorDump`` in GRAPH_MODE: ``Unsupported op [TensorDump] on CPU`` (2.7.0 and 2.10.0).

So on CPU MindSpore's dump can only give whole tensors on disk, never statistics: there is no
``capture="dump"`` (statistics by default and nothing left on disk is what the hooks give).
2.8 and 2.9 were not run here (no venv); 2.3-2.6 only from their docs. Docs:
https://www.mindspore.cn/tutorials/en/r2.10.0/debug/dump.html,
https://www.mindspore.cn/tutorials/en/r2.7.1/debug/dump.html,
https://www.mindspore.cn/tutorials/zh-CN/br_base/debug/dump.html (the support table),
https://mindspore.cn/docs/zh-CN/r2.4.10/_sources/model_train/debug/dump.md.txt,
https://mindspore.cn/tutorials/experts/en/r2.3.1/debug/dump.html.
"""

from typing import Any


def compare_numerics(a: Any, *args: Any, **kwargs: Any) -> Any:
    """Lazy entry point; see :func:`ascend_lab.compare_numerics`."""
    from ascend_lab.numerics.api import compare_numerics as run

    return run(a, *args, **kwargs)


__all__ = ["compare_numerics"]

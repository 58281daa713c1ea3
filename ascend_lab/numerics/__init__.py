"""Cell-by-Cell or op-by-op numeric comparison of two runs: where do the numbers go wrong?

>>> r = ascend_lab.compare_numerics(net, port, x)        # two Cells
>>> r = ascend_lab.compare_numerics(net, x, amp="O2")    # a Cell and its AMP copy
>>> r = ascend_lab.compare_numerics(net, "ref.npz", x)   # a Cell and reference outputs
>>> r = ascend_lab.compare_numerics(net, port, x, capture="dump")  # op by op (graph mode)
>>> print(r); print(r.table()); r.first_divergence

Where the pieces live (stages, see CONTRIBUTING.md): :mod:`ascend_lab.capture.cell_outputs`
and :mod:`ascend_lab.capture.op_dump` (the only ones importing MindSpore: PyNative forward
hooks; the graph-mode dump in a child process), :mod:`ascend_lab.parsers.op_dump` (the dump's
names, pure), :mod:`ascend_lab.model.tensor_stats`
(per-tensor statistics), :mod:`ascend_lab.model.numeric_records`, :mod:`.reference`
(``.npz``/dict sides), :mod:`ascend_lab.analysis.numeric_compare` (alignment, first
divergence), :mod:`.result` (views), :mod:`.advice` (doctor entries),
:mod:`ascend_lab.payload.numerics_section` (per-node ``numerics`` for the graph payload).
Importing this package imports neither MindSpore nor NumPy.

Two captures (issue #30). ``capture="cells"`` (default): PyNative forward hooks, one
record per Cell call. ``capture="dump"`` (:mod:`ascend_lab.capture.op_dump`): MindSpore's own
dump in GRAPH_MODE, one record per kernel. What MindSpore's dump does on CPU, checked by
running each with MindSpore 2.7.0 (Python 3.9) and 2.10.0 (Python 3.11):

* Synchronous Dump (``MINDSPORE_DUMP_CONFIG``, ``e2e_dump_settings.enable: true``):
  ``"saved_data": "statistic"`` and ``"full"`` are refused when the graph first runs
  (``RuntimeError: Dump Json parse failed, storing statistic dump is only supported on GPU
  and Ascend``), in both versions; the docs' support table says the same (r2.4.10
  and the current page: "统计信息dump: CPU不支持"). ``"tensor"`` works: one ``.npy`` per
  kernel output and per Parameter/input under ``rank_0/<net_name>/<graph_id>/<iteration>/``
  (``MatMul.Default_d1-Dense_MatMul-op0.0.0.<timestamp>.output.0.DefaultFormat.Float32.npy``),
  plus ``execution_order/ms_execution_order_graph_0.csv`` (full names in run order),
  ``graphs/ms_output_trace_code_graph_0.{ir,pb}`` (the kernel graph: producers and source
  lines) and ``.dump_metadata/``. The CSV's names (``Default/d1-Dense/MatMul-op0``) are the
  traced graph's node names; file names replace ``/`` by ``_``, and their ``-opN`` is not
  always the CSV's (explicit Casts: ``Cast-op2`` in the CSV, ``Cast-op0`` on disk), so files
  join by scope + op type in run order (:mod:`ascend_lab.parsers.op_dump`). A kernel that ran
  in float32 although the graph types it float16 (AMP's MatMul on CPU) is written with a
  float16 header over float32 bytes; it is read as float32.
  Cost, 16 x (Dense 512 + GELU), batch 64, MindSpore 2.10: 81 files and 23 MB per call
  (parameters included), first call 1.28 s against 1.04 s without dump.
* The variable is read once per process, at the first GRAPH_MODE compile (after
  ``import mindspore`` is fine; PyNative runs do not count); set after a graph compile it is
  ignored, and once read every later graph run dumps (``_dump_set_dynamic``/``_dump_stop``
  do not stop it on CPU). Hence ``capture="dump"`` runs each side in a child process.
* Asynchronous dump (``e2e_dump_settings.enable: false``) is for Ascend only (docs 2.3); on
  CPU it is not refused but writes the same files as the synchronous dump (2.7.0 and 2.10.0).
* ``ops.TensorDump`` in GRAPH_MODE: ``Unsupported op [TensorDump] on CPU`` (2.7.0 and 2.10.0).

So on CPU MindSpore's dump gives whole tensors on disk, never statistics: the dump capture
reduces them to statistics one file at a time and removes the folder.
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

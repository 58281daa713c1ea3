"""The IR family: the text MindSpore's compiler writes while it compiles a graph.

One grammar, several shapes of it:

- ``ir_text``: a dumped ``.ir`` file (``save_graphs``), read into a
  :class:`~ascend_lab.model.graph.Graph`;
- ``ir_values``: the value grammar its lines share (bracket-aware splitting, type expressions);
- ``ir_dat``: the ``.dat`` flavour of the same dump (``analyze_fail.dat``);
- ``ir_paste``: IR text pasted from a log or a chat (prompts and wrapping cleaned off);
- ``analyze_fail``: where ``analyze_fail.ir`` says compilation stopped;
- ``execution_order``: the kernel order a ``hwopt`` dump lists;
- ``timeline``: a dump folder's passes, one snapshot each, compared lazily.

The face below re-exports the entry points; they load on first use, so importing one module
of the family does not import the others (``timeline`` never pulls ``ir_text`` in early).
"""

from ascend_lab.parsers.faces import lazy_exports

__all__ = [
    "FailurePoint",
    "PassTimeline",
    "apply_execution_order",
    "clean_pasted_ir",
    "failure_point",
    "kernel_execution_order",
    "parse_dat_text",
    "parse_ir_file",
    "parse_ir_text",
]

_LAZY = {
    "parse_ir_text": "ascend_lab.parsers.ir.ir_text",
    "parse_ir_file": "ascend_lab.parsers.ir.ir_text",
    "parse_dat_text": "ascend_lab.parsers.ir.ir_dat",
    "clean_pasted_ir": "ascend_lab.parsers.ir.ir_paste",
    "FailurePoint": "ascend_lab.parsers.ir.analyze_fail",
    "failure_point": "ascend_lab.parsers.ir.analyze_fail",
    "kernel_execution_order": "ascend_lab.parsers.ir.execution_order",
    "apply_execution_order": "ascend_lab.parsers.ir.execution_order",
    "PassTimeline": "ascend_lab.parsers.ir.timeline",
}


__getattr__ = lazy_exports(__name__, _LAZY)

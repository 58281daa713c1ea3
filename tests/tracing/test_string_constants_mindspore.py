"""A net that prints a message with brackets, quotes and a line break traces: MindSpore puts
the string into its dumps raw (the parser's side is tests/parsers/test_ir_string_constants.py)."""

import numpy as np
import pytest

pytestmark = pytest.mark.mindspore


def test_a_net_printing_strings_with_brackets_traces_and_renders(tmp_path):
    import mindspore as ms
    from mindspore import nn, ops

    import ascend_lab

    class PrintStrings(nn.Cell):
        def construct(self, x):
            ops.Print()("value (x:", x, '\nnext) "quoted" {', x.sum())
            return {"a(": x, 'b)"': x * 2}

    trace = ascend_lab.trace(
        PrintStrings(), ms.Tensor(np.ones((2, 2), np.float32)), run=False, progress=False
    )
    (printed,) = [n for n in trace.graph.kernels if n.op == "Print"]
    by_id = {n.id: n for n in trace.graph.nodes}
    values = [by_id[i].attrs.get("value") for i in printed.inputs]
    assert '"value (x:"' in values and '" next) "quoted" {"' in values, values
    page = tmp_path / "t.html"
    trace.to_html(str(page))
    assert page.stat().st_size > 0

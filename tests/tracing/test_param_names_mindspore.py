"""A net whose parameters are named with spaces, brackets and a comma traces, each read by the
node that loads it (the parser's side is tests/parsers/test_ir_param_names.py)."""

import numpy as np
import pytest

pytestmark = pytest.mark.mindspore


def test_a_net_with_oddly_named_parameters_traces_and_renders(tmp_path):
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn, ops

    import ascend_lab

    class ParamNames(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones((4, 4), np.float32)), name="w (copy) [1], {x}")

        def construct(self, x):
            return ops.matmul(x, self.w)

    trace = ascend_lab.trace(
        ParamNames(), ms.Tensor(np.ones((2, 4), np.float32)), run=False, progress=False
    )
    (param,) = [n for n in trace.graph.nodes if n.name == "w (copy) [1], {x}"]
    assert param.kind == "parameter"
    assert any(param.id in n.inputs for n in trace.graph.nodes), "no node reads it"
    trace.to_html(str(tmp_path / "t.html"))
    assert (tmp_path / "t.html").stat().st_size > 0

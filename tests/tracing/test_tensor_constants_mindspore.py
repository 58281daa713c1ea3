"""A net with small tensor constants traces: MindSpore prints their values over several lines
of its dumps (the parser's side is tests/parsers/test_ir_tensor_constants.py)."""

import numpy as np
import pytest

pytestmark = pytest.mark.mindspore


def test_a_net_with_multi_line_constants_traces_with_its_kernels():
    import mindspore as ms
    from mindspore import nn, ops

    import ascend_lab

    class Consts(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Tensor(np.arange(16, dtype=np.float32).reshape(4, 4) / 7)  # 2-D
            self.b = ms.Tensor(np.arange(16, dtype=np.float32) / 3)  # a wrapped 1-D value
            self.t = ms.Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))  # 3-D

        def construct(self, x):
            y = ops.matmul(x, self.w) + self.b[:4]
            return y, x[:2, :1].reshape(2, 1, 1) * self.t

    trace = ascend_lab.trace(Consts(), ms.Tensor(np.ones((4, 4), np.float32)), progress=False)
    ops_run = [n.op for n in trace.graph.kernels]
    assert ops_run.count("MatMul") == 1 and ops_run.count("Mul") == 1, ops_run
    (matmul,) = [n for n in trace.graph.kernels if n.op == "MatMul"]
    assert [str(t.shape) for t in matmul.outputs] == ["(4, 4)"]

"""Nets that compile to something unusual: what ascend_lab.trace says about them."""

import numpy as np
import pytest

pytestmark = pytest.mark.mindspore


def test_a_net_that_returns_its_input_says_it_has_no_kernels():
    import mindspore as ms
    from mindspore import nn

    import ascend_lab
    from ascend_lab.errors.trace import NoKernelGraphError

    class Identity(nn.Cell):
        def construct(self, x):
            return x

    with pytest.raises(NoKernelGraphError) as err:
        ascend_lab.trace(Identity(), ms.Tensor(np.ones((2, 2), np.float32)), progress=False)
    text = str(err.value)
    assert text.startswith("MindSpore built no kernel graph for Identity:"), text
    assert "/tmp" not in text  # the dump folder is gone: it is not named


def test_a_jit_function_or_a_cell_class_is_refused_with_what_to_trace_instead():
    import mindspore as ms
    from mindspore import nn

    import ascend_lab

    @ms.jit
    def scaled(x):
        return x * 2

    x = ms.Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError) as err:
        ascend_lab.trace(scaled, x, progress=False)
    assert "got the function 'scaled'" in str(err.value)
    assert "return scaled(x)" in str(err.value)
    with pytest.raises(TypeError) as err:
        ascend_lab.trace(nn.ReLU, x, progress=False)
    assert "got the class ReLU: trace ReLU(...) instead" in str(err.value)


def test_a_tuple_input_folded_to_constants_and_a_numpy_input_are_explained():
    import mindspore as ms
    from mindspore import nn

    import ascend_lab
    from ascend_lab.errors.trace import NoKernelGraphError, TraceError

    class Pair(nn.Cell):
        def construct(self, xs):
            a, b = xs
            return a + b

    class Dense(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            return self.fc(x)

    x = ms.Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(NoKernelGraphError) as err:
        ascend_lab.trace(Pair(), (x, x), progress=False)
    assert "input 0 is a tuple: graph mode compiles it" in str(err.value)
    assert len(ascend_lab.trace(Pair(), ms.mutable((x, x)), progress=False).graph.kernels) == 1
    with pytest.raises(TraceError) as err:
        ascend_lab.trace(Dense(), np.ones((2, 2), np.float32), progress=False)
    assert "input 0 is a numpy.ndarray" in str(err.value)


def test_multihead_attention_compared_with_itself_pairs_every_node():
    import mindspore as ms
    from mindspore import nn

    import ascend_lab

    class Attention(nn.Cell):
        def __init__(self):
            super().__init__()
            self.att = nn.MultiheadAttention(16, 4, batch_first=True)

        def construct(self, x):
            return self.att(x, x, x)[0]

    x = ms.Tensor(np.ones((2, 6, 16), np.float32))
    trace = ascend_lab.trace(Attention(), x, run=False, progress=False)
    cmp = ascend_lab.compare(trace, trace.to_payload())
    assert cmp.added == [] and cmp.removed == []

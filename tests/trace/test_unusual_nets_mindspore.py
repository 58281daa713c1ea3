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

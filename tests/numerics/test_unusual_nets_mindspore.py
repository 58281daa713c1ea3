"""compare_numerics on nets the planted tests do not have (issue #30's sweep): dict outputs,
random Cells in train mode, dtypes MindSpore's CPU backend has no kernel for. Real MindSpore
on CPU, both captures where the behaviour is the capture's."""

import mindspore as ms
import pytest
from mindspore import nn

import ascend_lab
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


class DictOut(nn.Cell):
    """A dict output holding a tensor and a tuple; ``gain`` scales one of its values in the
    net's own construct."""

    def __init__(self, d=16, gain=2.0):
        super().__init__()
        self.a = nn.Dense(d, d)
        self.b = nn.Dense(d, d)
        self.gain = gain

    def construct(self, x):
        return {"a": self.a(x), "pair": (self.b(x), x * self.gain)}


def test_a_dict_output_is_compared():
    net = DictOut()
    r = ascend_lab.compare_numerics(net, net, nets.inputs())
    assert not r.unmatched and r.first_divergence is None
    assert len(r.find("(net)").errors) == 3  # a, pair[0], pair[1]
    other = nets.twin(net, lambda: DictOut(gain=3.0))
    d = ascend_lab.compare_numerics(net, other, nets.inputs()).first_divergence
    assert d is not None and d.label == "(net)"

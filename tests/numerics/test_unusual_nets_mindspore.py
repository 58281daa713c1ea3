"""compare_numerics on nets the planted tests do not have (issue #30's sweep): dict outputs,
random Cells in train mode, dtypes MindSpore's CPU backend has no kernel for. Real MindSpore
on CPU, both captures where the behaviour is the capture's."""

import mindspore as ms
import pytest
from mindspore import nn

import ascend_lab
from ascend_lab.errors.numerics import NumericsRunError
from ascend_lab.i18n import using
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


class Dropping(nn.Cell):
    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Dense(d, d)
        self.drop = nn.Dropout(p=0.5)
        self.out = nn.Dense(d, 4)

    def construct(self, x):
        return self.out(self.drop(self.fc(x)))


@pytest.mark.parametrize("capture", ["cells", "dump"])
def test_dropout_in_train_mode_is_called_randomness(capture, private_tmp):
    """Two runs of one net in train mode differ at its Dropout (cells: every call draws a
    new mask; dump: each side's child draws its own): the summary says it is randomness
    and how to compare without it; in eval mode nothing is said."""
    net = Dropping()
    other = nets.twin(net, Dropping)
    net.set_train(True)
    other.set_train(True)
    r = ascend_lab.compare_numerics(net, other, nets.inputs(), capture=capture)
    text = str(r)
    assert r.random == {"a": ["drop"], "b": ["drop"]}
    assert "note: both sides draw random numbers in drop" in text and "set_train(False)" in text
    assert text.count("note:") == 1
    # two masks drawn apart (cells: twin Cells' own seeds; dump: each side's own child)
    assert r.first_divergence is not None and r.first_divergence.path.startswith("drop")
    assert "the first divergence is in a random Cell" in text
    with using("zh"):
        assert "两侧在 drop 中抽取随机数" in str(r) and "首个偏离点位于一个随机 Cell 中" in str(r)
    net.set_train(False)
    other.set_train(False)
    calm = ascend_lab.compare_numerics(net, other, nets.inputs(), capture=capture)
    assert calm.random == {} and calm.first_divergence is None
    assert "random" not in str(calm)


@pytest.mark.parametrize("capture", ["cells", "dump"])
def test_bfloat16_matmul_on_cpu_is_said_to_be_mindspores_limit(capture, private_tmp):
    """MindSpore's CPU backend has no bfloat16 MatMul: the message says so in words."""
    net = Dropping()  # no constant: MindSpore 2.10 under NumPy 2 cannot cast one to bfloat16
    other = nets.twin(net, Dropping).to_float(ms.bfloat16)
    with pytest.raises(NumericsRunError) as info:
        ascend_lab.compare_numerics(net, other, nets.inputs(), capture=capture)
    msg = str(info.value)
    assert msg.startswith("side b (Dropping)") and "Select CPU operator[MatMul] fail" in msg
    assert "MindSpore's CPU backend has no MatMul kernel for BFloat16" in msg
    assert list(private_tmp.iterdir()) == []


class RaisesOnShape(nn.Cell):
    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Dense(d, d)

    def construct(self, x):
        y = self.fc(x)
        if y.shape[0] > 0:
            raise ValueError("this side refuses")
        return y


@pytest.mark.parametrize("capture", ["cells", "dump"])
def test_a_construct_that_raises_is_a_run_error_not_an_input_error(capture, private_tmp):
    """Graph mode quotes the construct's code (``y.shape[0]``) after MindSpore's message:
    the word "shape" there does not make the learner's own raise a bad input."""
    net = Dropping()
    with pytest.raises(NumericsRunError, match="side b \\(RaisesOnShape\\).*this side refuses"):
        ascend_lab.compare_numerics(net, RaisesOnShape(), nets.inputs(), capture=capture)


class Port(nn.Cell):
    """fc -> relu -> out, or with one more Dense between relu and out (a port that grew a
    layer): the extra layer has no partner, and out's inputs differ."""

    def __init__(self, d=16, extra=False):
        super().__init__()
        self.fc = nn.Dense(d, d)
        self.act = nn.ReLU()
        self.out = nn.Dense(d, 4)
        self.extra = nn.Dense(d, d) if extra else None

    def construct(self, x):
        y = self.act(self.fc(x))
        if self.extra is not None:
            y = self.extra(y)
        return self.out(y)


def test_an_extra_layer_is_a_divergence_whose_numbers_agree():
    net = Port()
    other = nets.twin(net, lambda: Port(extra=True))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert [(u.side, u.record.label) for u in r.unmatched] == [("b", "extra")]
    d = r.first_divergence
    assert d is not None and d.label == "(net)" and d.pair.jump_before == "out"
    # the summary's "rel err X > Y" holds (it said "rel err 0.34 > 8.54": the bar counted
    # the jump's own error, through the net's inner Cells)
    assert d.max_rel > d.threshold, str(r)


@pytest.mark.parametrize("capture", ["cells", "dump"])
def test_nan_already_in_the_input_is_said(capture, private_tmp):
    """A NaN in the input reaches every op on both sides: the summary says it came in with
    the input (the sides still agree: no divergence)."""
    net = Port()
    x = nets.inputs()
    x[0, 0] = float("nan")
    r = ascend_lab.compare_numerics(net, net, x, capture=capture)
    assert r.first_divergence is None and r.nonfinite_inputs == ["input 0: 1 NaN"]
    assert "the inputs already hold NaN or Inf (input 0: 1 NaN)" in str(r)
    with using("zh"):
        assert "输入中已有 NaN 或 Inf（input 0: 1 NaN）" in str(r)
    clean = ascend_lab.compare_numerics(net, net, nets.inputs(), capture=capture)
    assert clean.nonfinite_inputs == [] and "NaN" not in str(clean)


def test_an_extra_layer_op_by_op_is_named_as_the_divergence_input(private_tmp):
    """capture="dump": out/MatMul diverges with its side a inputs exact; the summary says
    that side b feeds it from the extra layer, which side a does not have."""
    net = Port()
    other = nets.twin(net, lambda: Port(extra=True))
    r = ascend_lab.compare_numerics(net, other, nets.inputs(), capture="dump")
    d = r.first_divergence
    assert d is not None and d.label == "out/MatMul", str(r)
    assert d.pair.unpaired_inputs == [("b", "extra/BiasAdd")]
    assert "side b feeds it from extra/BiasAdd, which has no partner" in str(r)
    with using("zh"):
        assert "b 侧的输入来自 extra/BiasAdd" in str(r)
    clean = ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    assert all(not p.unpaired_inputs for p in clean.pairs)


def test_a_failed_bfloat16_side_leaves_later_runs_alone():
    """A to_float(bfloat16) side that fails on CPU used to leave MindSpore's PyNative
    mixed-precision type set: every later op of the process ran in bfloat16 and failed."""
    net = Port()
    other = nets.twin(net, Port).to_float(ms.bfloat16)
    with pytest.raises(NumericsRunError, match="no MatMul kernel for BFloat16"):
        ascend_lab.compare_numerics(net, other, nets.inputs())
    r = ascend_lab.compare_numerics(net, net, nets.inputs())
    assert r.first_divergence is None and len(r.pairs) == 4


class Normed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def construct(self, x):
        return self.bn(self.conv(x))


def test_batchnorm_in_train_mode_keeps_the_learners_moving_statistics():
    """A run in train mode updates BatchNorm's moving mean and variance: the comparison
    must not change the learner's net (capture="dump" runs a copy in its child)."""
    net = Normed()
    net.set_train(True)
    before = net.bn.moving_mean.asnumpy().copy(), net.bn.moving_variance.asnumpy().copy()
    x = nets.inputs((2, 3, 6, 6))
    r = ascend_lab.compare_numerics(net, net, x)
    assert r.first_divergence is None and len(r.pairs) == 3
    assert (net.bn.moving_mean.asnumpy() == before[0]).all()
    assert (net.bn.moving_variance.asnumpy() == before[1]).all()
    net(ms.Tensor(x))  # the learner's own run still updates them
    assert not (net.bn.moving_mean.asnumpy() == before[0]).all()

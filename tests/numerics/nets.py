"""Small nets with planted numeric discrepancies (each pair: a net and its faulty twin)."""

import mindspore as ms
import numpy as np
from mindspore import nn, ops


class Head(nn.Cell):
    """Dense -> LayerNorm -> Dense -> Softmax, the shape of an attention score head."""

    def __init__(self, d=16, eps=1e-5, offset=0.0):
        super().__init__()
        self.proj = nn.Dense(d, d)
        self.norm = nn.LayerNorm((d,), epsilon=eps)
        self.logits = nn.Dense(d, d)
        self.softmax = nn.Softmax()
        self.offset = ms.Tensor(np.float32(offset))  # a Tensor, see below

    def construct(self, x):
        # MindSpore 2.10 with NumPy 2: the first `Tensor + Python float` of a process can fail
        # ("Numpy init failed" leaves an exception set), so the offset is a Tensor.
        y = self.norm(self.proj(x))
        return self.softmax(self.logits(y) + self.offset)


class Residual(nn.Cell):
    """x + mlp(norm(x)), or without the residual (the planted port bug)."""

    def __init__(self, d=16, residual=True):
        super().__init__()
        self.norm = nn.LayerNorm((d,))
        self.mlp = nn.SequentialCell([nn.Dense(d, d), nn.ReLU(), nn.Dense(d, d)])
        self.residual = residual

    def construct(self, x):
        y = self.mlp(self.norm(x))
        if self.residual:
            return x + y
        return y


class Stack(nn.Cell):
    """Three residual blocks and an output Dense."""

    def __init__(self, d=16, residual_at=-1):
        super().__init__()
        self.blocks = nn.CellList([Residual(d, residual=(i != residual_at)) for i in range(3)])
        self.out = nn.Dense(d, 4)

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return self.out(x)


class GeluTwin(nn.Cell):
    """Dense -> GELU (exact or tanh-approximate) -> Dense.

    The two GELUs differ by at most 4.7e-4 (near x = -2.7), which is below the float32 floor
    (1e-4 relative to the largest output) when a random Dense spreads its outputs wide. So fc1
    is the identity: the GELU sees the inputs themselves (``gelu_inputs``).
    """

    def __init__(self, d=16, approximate=False):
        super().__init__()
        self.fc1 = nn.Dense(
            d, d, weight_init=ms.Tensor(np.eye(d, dtype=np.float32)), bias_init="zeros"
        )
        self.act = nn.GELU(approximate=approximate)
        self.fc2 = nn.Dense(d, d)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Overflow(nn.Cell):
    """Dense then an exp: large in float32, inf in float16."""

    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Dense(d, d)
        self.exp = Exp()

    def construct(self, x):
        return self.exp(self.fc(x))


class Exp(nn.Cell):
    def construct(self, x):
        return ops.exp(x)


def twin(net, make):
    """A second net from ``make()`` holding the same parameter values as ``net``."""
    other = make()
    params = {
        k: ms.Parameter(ms.Tensor(v.asnumpy()), name=k) for k, v in net.parameters_dict().items()
    }
    ms.load_param_into_net(other, params)
    return other


def inputs(shape=(4, 16), scale=1.0, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale


def gelu_inputs(shape=(4, 16)):
    """Where exact and tanh GELU differ most relative to their outputs: [-2.5, 0.5]."""
    return np.linspace(-2.5, 0.5, int(np.prod(shape)), dtype=np.float32).reshape(shape)


class Twice(nn.Cell):
    """One Dense called twice, and a tuple output."""

    def __init__(self, d=16, gain=1.0):
        super().__init__()
        self.fc = nn.Dense(d, d)
        self.gain = ms.Tensor(np.float32(gain))

    def construct(self, x):
        y = self.fc(x)
        z = self.fc(y * self.gain)
        return y, z


class ScoreHead(nn.Cell):
    """Dense logits (+ a large offset), then ``ops.softmax`` written in the construct, in
    float16 when ``half`` (the planted bug sits inside this Cell, not in a sub-Cell)."""

    def __init__(self, d=16, offset=1000.0, half=False):
        super().__init__()
        self.logits = nn.Dense(d, d)
        self.offset = ms.Tensor(np.float32(offset))
        self.half = half

    def construct(self, x):
        z = self.logits(x) + self.offset
        if self.half:
            return ops.softmax(z.astype(ms.float16), -1).astype(ms.float32)
        return ops.softmax(z, -1)


class InlineSoftmax(nn.Cell):
    """Dense -> ScoreHead (softmax via ops inside its construct) -> Dense."""

    def __init__(self, d=16, half=False):
        super().__init__()
        self.proj = nn.Dense(d, d)
        self.head = ScoreHead(d, half=half)
        self.out = nn.Dense(d, d)

    def construct(self, x):
        return self.out(self.head(self.proj(x)))


class NoGraph(nn.Cell):
    """Runs in PyNative but does not compile in GRAPH_MODE: a generator in ``construct``
    ("Unsupported expression 'Yield'", MindSpore 2.10 and 2.7)."""

    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Dense(d, d)

    def construct(self, x):
        def layers():
            yield self.fc

        for layer in layers():
            x = layer(x)
        return x


class Shift(nn.Cell):
    """Dense, ReLU, plus a shift written in the construct (an op of no sub-Cell)."""

    def __init__(self, d=16, shift=0.25):
        super().__init__()
        self.fc = nn.Dense(d, d)
        self.shift = ms.Tensor(np.float32(shift))

    def construct(self, x):
        return ops.relu(self.fc(x)) + self.shift


class TwoShifts(nn.Cell):
    """Two instances of one Cell class: MindSpore scopes the second one's ``Add`` (written
    in ``Shift.construct``) under the first instance; ``shift`` plants a different shift
    in the second."""

    def __init__(self, d=16, shift=0.25):
        super().__init__()
        self.first = Shift(d)
        self.second = Shift(d, shift)

    def construct(self, x):
        return self.second(self.first(x))

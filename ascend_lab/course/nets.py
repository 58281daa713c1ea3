"""Reference networks for the tests and the benchmarks: a small Conv2d+BatchNorm+ReLU
net, LeNet-5 (also the course's LeNet), ResNet-50, a Transformer encoder block, and the two
element-wise chains notebook 3 fuses on CPU (``ResidualGeLU``, ``ResidualLayerNorm``).

Importing this module imports MindSpore (~2.5 s): nothing imports it implicitly.

The one place for these nets: the tests trace these classes (tests/tracing, tests/profiling).
``tests/fixtures/ir/nets.py`` keeps its own ConvBNReLU and LeNet-5, the same nets, on
purpose: the recorded dumps' ``# In file <FIXTURES>/nets.py:N`` lines point at its lines.
"""

import mindspore.nn as nn
import mindspore.ops as ops
import numpy as np
from mindspore import Parameter, Tensor


class ConvBNReLU(nn.Cell):
    """Conv2d(3->8, 3x3, valid padding, bias) + BatchNorm2d + ReLU: four CPU kernels
    (Conv2D, BiasAdd, BatchNorm, ReLU), the smallest graph with a conv, a norm and an
    activation. Not the course's net: notebooks/course_nets.py's ``ConvBNReLU`` is
    Conv2d(3->16, same padding, no bias) + BatchNorm2d + ReLU.
    """

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


class LeNet5(nn.Cell):
    """LeNet-5 for 1x32x32 inputs."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_classes)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class Bottleneck(nn.Cell):
    expansion = 4

    def __init__(self, in_ch, width, stride=1):
        super().__init__()
        out_ch = width * self.expansion
        self.conv1 = nn.Conv2d(in_ch, width, 1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_ch, 1)
        self.bn3 = nn.BatchNorm2d(out_ch)
        self.relu = nn.ReLU()
        self.down = None
        if stride != 1 or in_ch != out_ch:
            self.down = nn.SequentialCell(
                [nn.Conv2d(in_ch, out_ch, 1, stride=stride), nn.BatchNorm2d(out_ch)]
            )

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.down is not None:
            identity = self.down(x)
        return self.relu(out + identity)


class ResNet50(nn.Cell):
    """ResNet-50 (bottleneck blocks 3-4-6-3) for 224x224 inputs."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        layers = []
        in_ch = 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(blocks):
                layers.append(Bottleneck(in_ch, width, stride if i == 0 else 1))
                in_ch = width * Bottleneck.expansion
        self.layers = nn.SequentialCell(layers)
        self.mean = ops.ReduceMean(keep_dims=False)
        self.fc = nn.Dense(2048, num_classes)

    def construct(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.layers(x)
        return self.fc(self.mean(x, (2, 3)))


class EncoderBlock(nn.Cell):
    """One Transformer encoder layer (self-attention + GELU feed-forward)."""

    def __init__(self, d_model=128, nhead=4, ffn=512):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            d_model, nhead, dim_feedforward=ffn, dropout=0.0, activation="gelu", batch_first=True
        )

    def construct(self, x):
        return self.layer(x)


class ResidualGeLU(nn.Cell):
    """A Transformer-style element-wise chain after one MatMul: ``gelu(dense(x) + x)``, then a
    per-feature scale and shift (a LayerNorm's affine pieces). Six CPU kernels without fusion
    (MatMul, BiasAdd, Add, GeLU, Mul, Add); with graph-kernel fusion AKG makes the five
    element-wise ops one kernel on CPU (MindSpore 2.7 to 2.10), so four intermediate tensors
    no longer reach memory. Notebook 3 traces it beside the Conv2d spine.
    """

    def __init__(self, features=256):
        super().__init__()
        self.fc = nn.Dense(features, features)
        self.gelu = nn.GELU()
        self.scale = Parameter(Tensor(np.full((features,), 0.5, np.float32)), name="scale")
        self.shift = Parameter(Tensor(np.full((features,), 0.1, np.float32)), name="shift")

    def construct(self, x):
        return self.gelu(self.fc(x) + x) * self.scale + self.shift


class ResidualLayerNorm(nn.Cell):
    """``dense(x) + x``, then a LayerNorm written out of its pieces (mean, centre, variance,
    rsqrt, scale, shift): twelve CPU kernels without fusion. AKG on CPU fuses the element-wise
    runs between the two ReduceMeans but not the reductions themselves (MindSpore 2.10: 12 ->
    6 kernels).
    """

    def __init__(self, features=256, eps=1e-5):
        super().__init__()
        self.fc = nn.Dense(features, features)
        self.gamma = Parameter(Tensor(np.full((features,), 1.5, np.float32)), name="gamma")
        self.beta = Parameter(Tensor(np.full((features,), 0.1, np.float32)), name="beta")
        self.eps = eps

    def construct(self, x):
        y = self.fc(x) + x
        centred = y - y.mean(-1, keep_dims=True)
        variance = (centred * centred).mean(-1, keep_dims=True)
        return centred * ops.rsqrt(variance + self.eps) * self.gamma + self.beta

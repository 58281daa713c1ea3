"""DenseNet written the usual way (torchvision's): each dense layer concatenates *all* the
features before it, so Concat input lists grow with the block. ``DenseNet((6, 12, 24, 16))``
is DenseNet-121; ``DenseNet((4,) * n, pool=False)`` is a small DenseNet-like net with n
dense blocks (transitions that do not pool, so any n fits a small input).

Importing this module imports MindSpore.
"""

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import numpy as np


class DenseLayer(nn.Cell):
    def __init__(self, in_ch, growth, bn_size=4):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(in_ch)
        self.conv1 = nn.Conv2d(in_ch, bn_size * growth, 1, has_bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth)
        self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, has_bias=False)
        self.relu = nn.ReLU()

    def construct(self, features):
        x = ops.cat(features, 1)
        x = self.conv1(self.relu(self.norm1(x)))
        return self.conv2(self.relu(self.norm2(x)))


class DenseBlock(nn.Cell):
    def __init__(self, layers, in_ch, growth):
        super().__init__()
        self.layers = nn.CellList([DenseLayer(in_ch + i * growth, growth) for i in range(layers)])

    def construct(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(features))
        return ops.cat(features, 1)


class Transition(nn.Cell):
    def __init__(self, in_ch, out_ch, pool=True):
        super().__init__()
        self.norm = nn.BatchNorm2d(in_ch)
        self.relu = nn.ReLU()
        self.conv = nn.Conv2d(in_ch, out_ch, 1, has_bias=False)
        self.pool = nn.AvgPool2d(2, 2) if pool else nn.Identity()

    def construct(self, x):
        return self.pool(self.conv(self.relu(self.norm(x))))


class DenseNet(nn.Cell):
    def __init__(self, blocks=(6, 12, 24, 16), growth=32, init=64, classes=1000, pool=True):
        super().__init__()
        self.stem = nn.SequentialCell(
            [
                nn.Conv2d(3, init, 7, stride=2, has_bias=False),
                nn.BatchNorm2d(init),
                nn.ReLU(),
                nn.MaxPool2d(3, 2, pad_mode="same"),
            ]
        )
        cells = []
        ch = init
        for i, n in enumerate(blocks):
            cells.append(DenseBlock(n, ch, growth))
            ch += n * growth
            if i != len(blocks) - 1:
                cells.append(Transition(ch, ch // 2, pool))
                ch //= 2
        self.features = nn.SequentialCell(cells)
        self.norm = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(ch, classes)

    def construct(self, x):
        x = self.relu(self.norm(self.features(self.stem(x))))
        return self.fc(ops.mean(x, (2, 3)))


def densenet_input(size=224):
    return ms.Tensor(np.zeros((1, 3, size, size), np.float32))

"""Nets whose scopes MindSpore names wrongly: a MobileNet-style stack of inverted-residual
blocks and a Llama-style decoder (RMSNorm, rotary embeddings, grouped-query attention,
SwiGLU). ``benchmarks/bench_llm.py`` traces the 32-layer decoder.

Importing this module imports MindSpore.
"""

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import numpy as np


class InvertedResidual(nn.Cell):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 project, residual when it fits."""

    def __init__(self, in_ch, out_ch, stride=1, expand=4):
        super().__init__()
        mid = in_ch * expand
        self.expand = nn.SequentialCell([nn.Conv2d(in_ch, mid, 1), nn.BatchNorm2d(mid), nn.ReLU6()])
        self.depthwise = nn.SequentialCell(
            [nn.Conv2d(mid, mid, 3, stride=stride, group=mid), nn.BatchNorm2d(mid), nn.ReLU6()]
        )
        self.project = nn.SequentialCell([nn.Conv2d(mid, out_ch, 1), nn.BatchNorm2d(out_ch)])
        self.residual = stride == 1 and in_ch == out_ch

    def construct(self, x):
        y = self.project(self.depthwise(self.expand(x)))
        if self.residual:
            return x + y
        return y


class MobileNetStack(nn.Cell):
    """A stem conv and six inverted-residual blocks (four with a residual Add)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2)
        plan = ((16, 16, 1), (16, 24, 2), (24, 24, 1), (24, 24, 1), (24, 32, 2), (32, 32, 1))
        self.blocks = nn.SequentialCell([InvertedResidual(i, o, s) for i, o, s in plan])

    def construct(self, x):
        return self.blocks(self.stem(x))


class RMSNorm(nn.Cell):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.ones(dim, np.float32)))
        self.eps = eps

    def construct(self, x):
        variance = ops.mean(x * x, -1, keep_dims=True)
        return x * ops.rsqrt(variance + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return ops.cat((-x[..., half:], x[..., :half]), -1)


class Attention(nn.Cell):
    """Grouped-query attention with rotary position embeddings and a causal mask."""

    def __init__(self, dim, heads, kv_heads):
        super().__init__()
        self.heads = heads
        self.kv_heads = kv_heads
        self.head_dim = dim // heads
        self.q_proj = nn.Dense(dim, heads * self.head_dim, has_bias=False)
        self.k_proj = nn.Dense(dim, kv_heads * self.head_dim, has_bias=False)
        self.v_proj = nn.Dense(dim, kv_heads * self.head_dim, has_bias=False)
        self.o_proj = nn.Dense(heads * self.head_dim, dim, has_bias=False)
        self.scale = 1.0 / float(np.sqrt(self.head_dim))

    def construct(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).reshape(b, s, self.heads, self.head_dim).transpose(0, 2, 1, 3)
        k = self.k_proj(x).reshape(b, s, self.kv_heads, self.head_dim).transpose(0, 2, 1, 3)
        v = self.v_proj(x).reshape(b, s, self.kv_heads, self.head_dim).transpose(0, 2, 1, 3)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        repeat = self.heads // self.kv_heads
        k = ops.repeat_interleave(k, repeat, 1)
        v = ops.repeat_interleave(v, repeat, 1)
        scores = ops.matmul(q, k.transpose(0, 1, 3, 2)) * self.scale + mask
        out = ops.matmul(ops.softmax(scores, -1), v)
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(b, s, -1))


class SwiGLU(nn.Cell):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Dense(dim, hidden, has_bias=False)
        self.up_proj = nn.Dense(dim, hidden, has_bias=False)
        self.down_proj = nn.Dense(hidden, dim, has_bias=False)

    def construct(self, x):
        return self.down_proj(ops.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Cell):
    def __init__(self, dim, heads, kv_heads, hidden):
        super().__init__()
        self.attn_norm = RMSNorm(dim)
        self.attn = Attention(dim, heads, kv_heads)
        self.mlp_norm = RMSNorm(dim)
        self.mlp = SwiGLU(dim, hidden)

    def construct(self, x, cos, sin, mask):
        h = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return h + self.mlp(self.mlp_norm(h))


class Decoder(nn.Cell):
    """A Llama-style decoder: ``layers`` blocks of width ``dim`` over ``seq`` tokens."""

    def __init__(self, layers=32, dim=64, heads=4, kv_heads=2, hidden=172, vocab=256, seq=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.CellList([Block(dim, heads, kv_heads, hidden) for _ in range(layers)])
        self.norm = RMSNorm(dim)
        self.lm_head = nn.Dense(dim, vocab, has_bias=False)
        head_dim = dim // heads
        inv = 1.0 / (10000 ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
        angles = np.outer(np.arange(seq, dtype=np.float32), inv)
        angles = np.concatenate([angles, angles], -1)
        self.cos = ms.Tensor(np.cos(angles)[None, None])
        self.sin = ms.Tensor(np.sin(angles)[None, None])
        self.mask = ms.Tensor(np.triu(np.full((seq, seq), -1e9, np.float32), 1)[None, None])

    def construct(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, self.cos, self.sin, self.mask)
        return self.lm_head(self.norm(x))


def decoder_tokens(seq=16, vocab=256):
    return ms.Tensor(np.arange(seq, dtype=np.int32).reshape(1, seq) % vocab)


def mobilenet_input():
    return ms.Tensor(np.random.default_rng(0).random((1, 3, 32, 32), dtype=np.float32))

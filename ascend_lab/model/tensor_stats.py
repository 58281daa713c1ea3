"""Statistics of one tensor and the error between two (pure NumPy, no MindSpore).

A captured tensor is kept as :class:`TensorStats`: min, max, mean, std, NaN/Inf counts,
float16/bfloat16 overflow and underflow counts (over the whole tensor), and an evenly
strided sample of at most ``sample_size`` values (the whole tensor when it is small) on
which errors and cosine similarity are computed. ``exact`` says the sample is the whole
tensor; with ``tensors=True`` the full array is kept too and errors are exact.
"""

from typing import Any, Dict, Optional, Tuple

import numpy as np

FP16_MAX = 65504.0
FP16_MIN_NORMAL = 6.103515625e-05
BF16_MAX = 3.3895313892515355e38
BF16_MIN_NORMAL = 1.1754943508222875e-38
SAMPLE_SIZE = 4096
TINY = 1e-30


class TensorStats:
    """What is kept of one tensor: statistics, a sample, and optionally the array."""

    __slots__ = (
        "shape",
        "dtype",
        "size",
        "min",
        "max",
        "mean",
        "std",
        "nan",
        "inf",
        "fp16_overflow",
        "fp16_underflow",
        "bf16_overflow",
        "bf16_underflow",
        "sample",
        "exact",
        "array",
    )

    def __init__(
        self, array: Any, dtype: str = "", sample_size: int = SAMPLE_SIZE, keep: bool = False
    ):
        a = np.asarray(array)
        self.shape: Tuple[int, ...] = tuple(int(d) for d in a.shape)
        self.dtype = dtype or str(a.dtype)
        flat = a.reshape(-1).astype(np.float64, copy=False)
        self.size = int(flat.size)
        finite = np.isfinite(flat)
        self.nan = int(np.isnan(flat).sum())
        self.inf = int(self.size - self.nan - int(finite.sum()))
        vals = flat[finite] if self.nan or self.inf else flat
        if vals.size:
            self.min = float(vals.min())
            self.max = float(vals.max())
            self.mean = float(vals.mean())
            self.std = float(vals.std())
            mag = np.abs(vals)
            nonzero = mag > 0
            self.fp16_overflow = int((mag > FP16_MAX).sum())
            self.fp16_underflow = int((nonzero & (mag < FP16_MIN_NORMAL)).sum())
            self.bf16_overflow = int((mag > BF16_MAX).sum())
            self.bf16_underflow = int((nonzero & (mag < BF16_MIN_NORMAL)).sum())
        else:
            self.min = self.max = self.mean = self.std = float("nan")
            self.fp16_overflow = self.fp16_underflow = 0
            self.bf16_overflow = self.bf16_underflow = 0
        if self.size <= sample_size:
            self.sample = flat.copy()
            self.exact = True
        else:
            idx = np.linspace(0, self.size - 1, sample_size).astype(np.int64)
            self.sample = flat[idx]
            self.exact = False
        self.array: Optional[np.ndarray] = a.copy() if keep else None

    def values(self) -> np.ndarray:
        """The values errors are computed on: the array if kept, else the sample."""
        if self.array is not None:
            return self.array.reshape(-1).astype(np.float64, copy=False)
        return self.sample

    def to_dict(self) -> Dict[str, Any]:
        return {
            "shape": list(self.shape),
            "dtype": self.dtype,
            "min": _num(self.min),
            "max": _num(self.max),
            "mean": _num(self.mean),
            "std": _num(self.std),
            "nan": self.nan,
            "inf": self.inf,
            "fp16_overflow": self.fp16_overflow,
            "fp16_underflow": self.fp16_underflow,
            "bf16_overflow": self.bf16_overflow,
            "bf16_underflow": self.bf16_underflow,
        }


def _num(x: float) -> Optional[float]:
    return None if x != x or x in (float("inf"), float("-inf")) else x


class ErrorStats:
    """Max absolute and relative error and cosine similarity of ``b`` against ``a``."""

    __slots__ = ("max_abs", "max_rel", "cosine", "nonfinite_mismatch", "exact")

    def __init__(
        self, max_abs: float, max_rel: float, cosine: float, nonfinite_mismatch: bool, exact: bool
    ):
        self.max_abs = max_abs
        self.max_rel = max_rel
        self.cosine = cosine
        self.nonfinite_mismatch = nonfinite_mismatch
        self.exact = exact

    def to_dict(self) -> Dict[str, Any]:
        return {
            "max_abs": _num(self.max_abs),
            "max_rel": _num(self.max_rel) if not self.nonfinite_mismatch else None,
            "cosine": _num(self.cosine),
            "nonfinite_mismatch": self.nonfinite_mismatch,
            "exact": self.exact,
        }


def compare(a: TensorStats, b: TensorStats) -> ErrorStats:
    """The error of ``b`` against ``a`` (same shape; checked by the caller).

    Relative error is ``max|a - b| / max|a|`` (one scale per tensor, so values near zero do
    not blow it up). Different NaN/Inf counts are a mismatch: relative error is infinite.
    """
    va, vb = a.values(), b.values()
    exact = a.array is not None and b.array is not None or (a.exact and b.exact)
    if va.shape != vb.shape:  # one side kept the array, the other only a sample
        va, vb = a.sample, b.sample
    mismatch = a.nan != b.nan or a.inf != b.inf
    both = np.isfinite(va) & np.isfinite(vb)
    if not both.all():
        mismatch = mismatch or bool((np.isfinite(va) != np.isfinite(vb)).any())
        va, vb = va[both], vb[both]
    if va.size == 0:
        return ErrorStats(0.0, float("inf") if mismatch else 0.0, float("nan"), mismatch, exact)
    diff = np.abs(va - vb)
    max_abs = float(diff.max())
    scale = float(np.abs(va).max())
    max_rel = max_abs / scale if scale > TINY else (0.0 if max_abs <= TINY else float("inf"))
    if mismatch:
        max_rel = float("inf")
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    if na <= TINY and nb <= TINY:
        cosine = 1.0
    elif na <= TINY or nb <= TINY:
        cosine = 0.0
    else:
        cosine = float(np.dot(va, vb) / (na * nb))
    return ErrorStats(max_abs, max_rel, cosine, mismatch, exact)


def fingerprint(stats: TensorStats) -> Tuple[Any, ...]:
    """Identifies a tensor on one side (shape + sample bytes), to find who produced an input."""
    return (stats.shape, stats.sample.tobytes())

"""Which doctor knowledge entry explains a divergence (pure: a comparison in, entry ids out)."""

from typing import Any, List

SOFTMAX_LIKE = ("softmax", "logsoftmax", "crossentropy", "loss")
NORM_LIKE = ("layernorm", "rmsnorm", "batchnorm", "groupnorm")
REDUCTION_LIKE = ("reducesum", "reducemean", "mean", "sum", "norm")
DENSE_LIKE = ("dense", "matmul", "linear", "batchmatmul")

ENTRY_FP32_LISTS = "numerics-keep-fp32"
ENTRY_LOSS_SCALE = "amp-overflow"  # the existing entry: loss scale, NaN loss
ENTRY_LN_EPSILON = "numerics-layernorm-epsilon"
ENTRY_DENSE_T = "numerics-dense-transposed"


def _low_precision(pair: Any) -> bool:
    dtypes = " ".join(
        s.dtype.lower() for s in list(pair.a.outputs) + list(pair.b.outputs) if s is not None
    )
    return "float16" in dtypes


def suggest(pair: Any) -> List[str]:
    """Doctor entry ids for a first divergence, most likely first (may be empty)."""
    op = pair.op_type.lower()
    out: List[str] = []
    overflow = sum(
        pair.counts(s)["fp16_overflow"] + pair.counts(s)["inf"] + pair.counts(s)["nan"]
        for s in ("a", "b")
    )
    low = _low_precision(pair)
    if overflow and low:
        out.append(ENTRY_LOSS_SCALE)
    if low and any(w in op for w in SOFTMAX_LIKE + NORM_LIKE + REDUCTION_LIKE):
        out.append(ENTRY_FP32_LISTS)
    if not low and any(w in op for w in NORM_LIKE):
        out.append(ENTRY_LN_EPSILON)
    if any(w in op for w in DENSE_LIKE) and not low and pair.cosine < 0.99:
        out.append(ENTRY_DENSE_T)
    return out

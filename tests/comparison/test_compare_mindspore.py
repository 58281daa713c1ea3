"""ascend_lab.compare on real MindSpore (CPU): ConvBNReLU fp32 against auto_mixed_precision O2.

AMP O2 on CPU wraps the net (``_OutputTo32``) and each cast cell, and inserts Cast
round-trips: the comparison must pair every op of the fp32 net through the wrappers'
scopes, show the Casts as added, the ops that run in float16 as changed, and each side's
memory peak from the planner.
"""

import mindspore as ms
import numpy as np
import pytest
from mindspore.amp import auto_mixed_precision

import ascend_lab
from ascend_lab.course.nets import ConvBNReLU
from ascend_lab.memory import plan_graph
from ascend_lab.payload import validate_payload

pytestmark = pytest.mark.mindspore


@pytest.fixture(scope="module")
def fp32_vs_o2():
    ms.set_seed(0)
    x = ms.Tensor(np.ones((1, 3, 16, 16), np.float32))
    a = ascend_lab.trace(ConvBNReLU(), x, progress=False)
    b = ascend_lab.trace(auto_mixed_precision(ConvBNReLU(), "O2"), x, progress=False)
    return a, b, ascend_lab.compare(a, b, titles=("fp32", "O2"))


def test_every_fp32_kernel_pairs_and_only_casts_are_added(fp32_vs_o2):
    a, b, cmp = fp32_vs_o2
    assert cmp.removed == []
    assert cmp.added and {n.op for n in cmp.added} == {"Cast"}
    assert cmp.casts_added == cmp.b.casts == b.graph.kernels.__len__() - a.kernel_count
    assert cmp.a.casts == 0
    paired_a = {x for m in cmp.matched for x in m.a}
    assert {n.id for n in a.graph.kernels} <= paired_a
    # the conv pairs through AMP's wrapper scopes (Default/_backbone-ConvBNReLU/conv-Conv2d)
    (conv,) = [m for m in cmp.matched if a.graph.node(m.a[0]).op == "Conv2D"]
    assert b.graph.node(conv.b[0]).op == "Conv2D"
    assert "_backbone" in b.graph.node(conv.b[0]).name


def test_dtypes_changed_to_float16(fp32_vs_o2):
    a, b, cmp = fp32_vs_o2
    dtype = cmp.changes_of("dtype")
    assert dtype
    for m in dtype:
        assert m.changes["dtype"] == ("float32", "float16")
        assert [t.dtype for t in b.graph.node(m.b[0]).outputs] == ["Float16"]
    ops = {a.graph.node(m.a[0]).op for m in dtype}
    assert "ReLU" in ops  # the net's output activation runs in float16 under O2


def test_memory_peaks_are_the_planners(fp32_vs_o2):
    a, b, cmp = fp32_vs_o2
    assert cmp.peaks == (plan_graph(a.graph).peak, plan_graph(b.graph).peak)
    assert all(p > 0 for p in cmp.peaks)
    text = cmp.summary()
    assert "Cast kernels" in text and "memory peak" in text


def test_payload_and_page(fp32_vs_o2, tmp_path):
    _, _, cmp = fp32_vs_o2
    payload = cmp.to_payload()
    validate_payload(payload)
    summary = payload["compare"]["summary"]
    assert summary["casts_added"] == cmp.casts_added
    assert summary["peak"] == list(cmp.peaks)
    path = cmp.to_html(str(tmp_path / "cmp.html"))
    assert "fp32 vs O2" in open(path, encoding="utf-8").read()
    assert cmp.to_dict()["summary"]["changed"] == len(cmp.changed)


# -- the decoder (issue #27): a 2-layer Llama-style decoder, fp32 against AMP O2 ------------


@pytest.fixture(scope="module")
def decoder_fp32_vs_o2():
    from benchmarks.support.nets import Decoder, decoder_tokens

    ms.set_seed(0)
    tokens = decoder_tokens()
    fp32 = Decoder(layers=2)
    fp32.set_train(False)
    o2 = auto_mixed_precision(Decoder(layers=2), "O2")
    o2.set_train(False)
    a = ascend_lab.trace(fp32, tokens, run=False, progress=False)
    b = ascend_lab.trace(o2, tokens, run=False, progress=False)
    return a, b, ascend_lab.compare(a, b, titles=("fp32", "O2"))


def test_decoder_every_fp32_kernel_pairs_and_only_casts_are_added(decoder_fp32_vs_o2):
    # the Casts sit between ops MindSpore names alike in every block: pairing must step
    # over them (before, half the decoder's kernels came out removed + added)
    a, b, cmp = decoder_fp32_vs_o2
    assert cmp.removed == []
    assert {n.op for n in cmp.added} == {"Cast"}
    assert cmp.casts_added == cmp.b.casts == b.kernel_count - a.kernel_count > 0
    paired_a = {x for m in cmp.matched for x in m.a}
    assert {n.id for n in a.graph.kernels} <= paired_a
    assert all(len(m.a) == len(m.b) == 1 for m in cmp.matched)
    ops = [(a.graph.node(m.a[0]).op, b.graph.node(m.b[0]).op) for m in cmp.matched]
    assert all(x == y for x, y in ops)


def test_decoder_dtypes_changed_to_float16(decoder_fp32_vs_o2):
    a, b, cmp = decoder_fp32_vs_o2
    dtype = cmp.changes_of("dtype")
    assert {m.changes["dtype"] for m in dtype} == {("float32", "float16")}
    # every projection (q, k, v, o, gate, up, down per block, and the head) runs in float16
    matmuls = [n.id for n in a.graph.kernels if n.op == "MatMul"]
    assert len(matmuls) == 2 * 7 + 1
    changed = {m.a[0] for m in dtype}
    assert set(matmuls) <= changed
    for m in dtype:
        assert {t.dtype for t in b.graph.node(m.b[0]).outputs} == {"Float16"}


def test_decoder_memory_peak_of_each_side(decoder_fp32_vs_o2):
    a, b, cmp = decoder_fp32_vs_o2
    assert cmp.peaks == (plan_graph(a.graph).peak, plan_graph(b.graph).peak)
    assert all(p > 0 for p in cmp.peaks)
    summary = cmp.to_payload()["compare"]["summary"]
    assert summary["peak"] == list(cmp.peaks)
    assert summary["casts_added"] == cmp.casts_added and summary["removed"] == 0

"""compare_numerics on real MindSpore (CPU, PyNative hooks): each planted discrepancy is found
as the first divergence, at the planted Cell; a clean pair reports none."""

import re

import mindspore as ms
import numpy as np
import pytest

import ascend_lab
from ascend_lab.i18n import using
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


def test_same_net_twice_has_no_divergence():
    net = nets.Stack()
    r = ascend_lab.compare_numerics(net, net, nets.inputs())
    assert r.first_divergence is None
    assert len(r.pairs) == 3 * 6 + 2  # 3 x (block, norm, mlp, its 3 layers), out, the net
    assert not r.unmatched
    assert all(p.max_abs == 0.0 for p in r.pairs)
    assert "no divergence" in str(r)


def test_twin_with_copied_weights_is_clean():
    net = nets.Stack()
    other = nets.twin(net, nets.Stack)
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert r.first_divergence is None
    assert max(p.max_rel for p in r.pairs) < 1e-6


def test_softmax_over_large_logits_in_float16():
    net = nets.Head(offset=1000.0)
    other = nets.twin(net, lambda: nets.Head(offset=1000.0))
    other.softmax.to_float(ms.float16)
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    d = r.first_divergence
    assert d is not None
    assert d.path == "softmax" and d.op_type_a == "Softmax" and d.op_type_b == "Softmax"
    assert d.scope_a == "Default/softmax-Softmax"
    assert d.source_a.endswith("nets.py:{}".format(line_of(nets.Head.construct, "self.softmax(")))
    assert r.advice[0] == "numerics-keep-fp32" == doctor_says(r)
    before = [p for p in r.pairs if p.a.index < d.pair.a.index]
    assert before and all(p.max_rel < 1e-6 for p in before)


def doctor_says(result):
    """The doctor's first entry for the printed summary (what a CI log would carry), the
    same for the English summary and the Chinese one a zh notebook prints."""
    from ascend_lab.doctor.match import match_text

    found = []
    for lang in ("en", "zh"):
        with using(lang):
            ranked = match_text(str(result))
        found.append(ranked[0].entry.id if ranked else None)
    assert found[0] == found[1], found
    return found[0]


def line_of(func, text):
    import inspect

    lines, start = inspect.getsourcelines(func)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def test_layernorm_with_the_other_frameworks_epsilon():
    net = nets.Head(eps=1e-5)
    other = nets.twin(net, lambda: nets.Head(eps=1e-7))
    # small activations: the variance is near epsilon, where 1e-5 and 1e-7 part ways
    r = ascend_lab.compare_numerics(net, other, nets.inputs(scale=1e-3))
    d = r.first_divergence
    assert d is not None and d.path == "norm" and d.op_type_a == "LayerNorm"
    assert r.find("proj").max_rel == 0.0
    assert r.advice == ["numerics-layernorm-epsilon"] and doctor_says(r) == r.advice[0]


def test_one_transposed_weight():
    net = nets.Stack()
    other = nets.twin(net, nets.Stack)
    w = other.blocks[1].mlp[2].weight
    w.set_data(ms.Tensor(w.asnumpy().T.copy()))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    d = r.first_divergence
    assert d is not None
    assert d.path == "blocks.1.mlp.2" and d.op_type_a == "Dense"
    assert d.scope_a == "Default/blocks-CellList/1-Residual/mlp-SequentialCell/2-Dense"
    assert r.advice == ["numerics-dense-transposed"] and doctor_says(r) == r.advice[0]
    assert r.find("blocks.1.mlp.0").max_rel == 0.0
    # the call site is the user's construct, not SequentialCell's inside MindSpore
    assert d.source_a.endswith("nets.py:{}".format(line_of(nets.Residual.construct, "self.mlp(")))


def test_missing_residual():
    net = nets.Stack()
    other = nets.twin(net, lambda: nets.Stack(residual_at=2))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    d = r.first_divergence
    assert d is not None
    assert d.path == "blocks.2" and d.op_type_a == "Residual"
    # everything inside the block agrees: the Add in its construct is what differs
    assert r.find("blocks.2.mlp").max_rel == 0.0
    assert d.source_a.endswith("nets.py:{}".format(line_of(nets.Stack.construct, "x = block(x)")))
    assert r.advice == [] and doctor_says(r) is None  # no entry claims a missing residual


def test_gelu_exact_versus_tanh_approximation():
    net = nets.GeluTwin(approximate=False)
    other = nets.twin(net, lambda: nets.GeluTwin(approximate=True))
    r = ascend_lab.compare_numerics(net, other, nets.gelu_inputs())
    d = r.first_divergence
    assert d is not None and d.path == "act" and d.op_type_a == "GELU"
    assert r.find("fc1").max_rel == 0.0  # the same Dense on both sides: the GELU is the cause


def test_float16_overflow_is_counted_and_found():
    net = nets.Overflow()
    other = nets.twin(net, nets.Overflow)
    other.exp.to_float(ms.float16)
    r = ascend_lab.compare_numerics(net, other, nets.inputs(scale=20.0))
    d = r.first_divergence
    assert d is not None and d.path == "exp"
    p = d.pair
    assert p.counts("a")["fp16_overflow"] > 0  # float32 values past 65504
    assert p.counts("b")["inf"] == p.counts("a")["fp16_overflow"]
    assert r.advice[0] == "amp-overflow" == doctor_says(r)


def test_amp_o2_copy_aligns_through_the_wrappers():
    net = nets.Head()
    r = ascend_lab.compare_numerics(net, nets.inputs(), amp="O2")
    labels = [p.label for p in r.pairs]
    assert labels == ["proj", "norm", "logits", "softmax", "(net)"]
    assert not r.unmatched
    assert any("float16" in p.b.outputs[0].dtype.lower() for p in r.pairs)
    assert net.proj.weight.dtype == ms.float32  # the net itself is untouched


def test_amp_softmax_over_large_logits():
    net = nets.Head(offset=1000.0)
    r = ascend_lab.compare_numerics(net, nets.inputs(), amp="O3")
    d = r.first_divergence
    assert d is not None and d.path == "softmax"


def test_reference_dict_and_npz(tmp_path):
    net = nets.Head()
    x = nets.inputs()
    clean = ascend_lab.compare_numerics(net, net, x)
    ref = {
        p.label: p.a.outputs[0].sample.reshape(p.a.outputs[0].shape).astype(np.float32)
        for p in clean.pairs
    }
    r = ascend_lab.compare_numerics(net, ref, x)
    assert r.first_divergence is None and len(r.pairs) == 5
    ref["norm"] = ref["norm"] * 1.5
    path = tmp_path / "ref.npz"
    np.savez(path, **ref)
    r = ascend_lab.compare_numerics(net, str(path), x)
    assert r.first_divergence is not None and r.first_divergence.path == "norm"
    assert r.find("logits").input_basis == "producers"


def test_reference_keys_by_scope_and_partial():
    net = nets.Head()
    x = nets.inputs()
    clean = ascend_lab.compare_numerics(net, net, x)
    p = clean.find("proj")
    ref = {"Default/proj-Dense": p.a.outputs[0].sample.reshape(p.a.outputs[0].shape) + 1.0}
    r = ascend_lab.compare_numerics(net, ref, x)
    assert [q.label for q in r.pairs] == ["proj"]
    assert r.first_divergence.path == "proj"
    assert {u.record.label for u in r.unmatched} == {"norm", "logits", "softmax", "(net)"}


def test_html_is_escaped_and_text_names_the_op():
    net = nets.Head(offset=1000.0)
    other = nets.twin(net, lambda: nets.Head(offset=1000.0))
    other.softmax.to_float(ms.float16)
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    r.pairs[0].a.op_type = "<script>x</script>"
    html = r._repr_html_()
    assert "<script>x" not in html and "&lt;script&gt;x" in html
    text = str(r)
    assert "first divergence: softmax (Softmax)" in text
    assert "side a: Default/softmax-Softmax" in text
    assert "softmax" in r.table() and "FIRST" in r.table()
    assert r.to_dict()["first_divergence"] == "softmax"
    with using("zh"):  # a zh notebook's reader: the words in Chinese, names and numbers kept
        zh, table, page = str(r), r.table(), r._repr_html_()
    assert "首个偏离点：softmax（Softmax）相对误差 " in zh
    assert "a 侧：Default/softmax-Softmax" in zh and "诊断：numerics-keep-fp32" in zh
    assert re.findall(r"\d+(?:\.\d+)?", zh) == re.findall(r"\d+(?:\.\d+)?", text)
    assert table.splitlines()[0].split()[:4] == ["#", "cell", "算子", "最大绝对误差"]
    assert "<th>最大相对误差</th>" in page and "FIRST" in table


def test_tensors_on_request_make_errors_exact():
    net = nets.Stack()
    other = nets.twin(net, lambda: nets.Stack(residual_at=0))
    x = nets.inputs(shape=(300, 16))  # 4800 values: over the 4096-value sample
    sampled = ascend_lab.compare_numerics(net, other, x)
    full = ascend_lab.compare_numerics(net, other, x, tensors=True)
    assert not sampled.find("blocks.0").exact and full.find("blocks.0").exact
    assert full.find("blocks.0").max_abs >= sampled.find("blocks.0").max_abs


def test_a_cell_called_twice_is_compared_call_by_call():
    net = nets.Twice()
    other = nets.twin(net, lambda: nets.Twice(gain=1.01))  # scales what the second call gets
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert [p.label for p in r.pairs] == ["fc", "fc#1", "(net)"]
    assert r.find("fc").max_rel == 0.0 and len(r.find("(net)").errors) == 2
    # fc#1's inputs already differ by 1%: the error arose in Twice.construct (y * gain)
    assert r.find("fc#1").input_rel > 0.005
    d = r.first_divergence
    assert d is not None and d.label == "(net)" and d.pair.jump_before == "fc#1"
    assert "in its own construct, before fc#1" in str(r)

"""compare_numerics' default capture drills into the first divergent Cell op by op when that
Cell computes ops of its own, so the finding names the op (#36). Real MindSpore on CPU:
PyNative for the Cells, then MindSpore's own dump in graph mode for the ops."""

import pytest

import ascend_lab
from ascend_lab.capture import op_dump
from ascend_lab.errors.numerics import NumericsRunError
from ascend_lab.i18n import using
from ascend_lab.numerics import drill as drill_mod
from tests.numerics import nets
from tests.numerics.test_planted_mindspore import line_of

pytestmark = pytest.mark.mindspore


def test_a_softmax_in_a_cells_own_construct_is_named_op_by_op(private_tmp):
    net = nets.InlineSoftmax()
    other = nets.twin(net, lambda: nets.InlineSoftmax(half=True))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    # the Cell capture names the Cell whose construct holds the softmax ...
    assert r.first_divergence.label == "head" and r.first_divergence.op_type_a == "ScoreHead"
    # ... and the drill the op inside it, with its own source line and float16 on side b
    d = r.drill
    assert d is not None and d.cell == "head" and d.op is not None
    assert d.op.label == "head/Softmax" and d.op.a.op_type == "Softmax"
    assert d.op.b.source.endswith(
        "nets.py:{}".format(line_of(nets.ScoreHead.construct, "ops.softmax(z.astype"))
    )
    assert [s.dtype for s in d.op.b.outputs] == ["Float16"]
    assert d.ops_inside >= 3  # head.logits/MatMul, head.logits/BiasAdd, head/Add, ...
    text = str(r)
    assert "op by op inside head: the first divergent op is head/Softmax (Softmax)" in text
    assert r.advice[0] == "numerics-keep-fp32"
    assert r.to_dict()["drill"]["op"] == "head/Softmax"
    with using("zh"):
        assert "head/Softmax" in str(r) and "逐算子" in str(r)
    assert list(private_tmp.iterdir()) == []


@pytest.mark.parametrize("amp", ["O2", "O3"])
def test_amp_against_float32_names_the_op_inside_the_cell(private_tmp, amp):
    """The net against its AMP copy: Cell by Cell the first divergence is ScoreHead (its
    softmax is in its own construct); op by op, the Softmax, in float16 on the AMP side."""
    net = nets.InlineSoftmax()
    r = ascend_lab.compare_numerics(net, nets.inputs(scale=4.0), amp=amp)
    assert r.first_divergence.label == "head"
    d = r.drill
    assert d is not None and d.op is not None, str(r)
    assert d.op.label == "head/Softmax"
    assert [s.dtype for s in d.op.a.outputs] == ["Float32"]
    assert [s.dtype for s in d.op.b.outputs] == ["Float16"]
    assert "numerics-keep-fp32" in r.advice
    assert "the first divergent op is head/Softmax (Softmax)" in str(r)


def test_an_op_in_the_nets_own_construct_is_named_not_the_whole_net(private_tmp):
    net = nets.ScoreHead()  # as the net itself: the softmax is in the net's own construct
    other = nets.twin(net, lambda: nets.ScoreHead(half=True))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert r.first_divergence.path == ""  # Cell by Cell: the whole net
    d = r.drill
    assert d is not None and d.cell == "" and d.op is not None, str(r)
    assert d.op.a.op_type == "Softmax" and d.op.label == "Softmax"  # no Cell around it
    assert "op by op inside (net): the first divergent op is" in str(r)


def test_no_drill_into_a_library_leaf_or_when_asked_not_to(private_tmp):
    net = nets.Head()
    other = nets.twin(net, lambda: nets.Head(eps=1e-1))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert r.first_divergence.label == "norm"  # nn.LayerNorm: its name says the op
    assert r.drill is None and "op by op inside" not in str(r)
    r = ascend_lab.compare_numerics(
        nets.InlineSoftmax(), nets.InlineSoftmax(half=True), nets.inputs(), drill=False
    )
    assert r.first_divergence is not None and r.drill is None


def test_a_drill_that_cannot_run_says_why_and_the_cell_stays_the_finding(private_tmp, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise NumericsRunError("side a (InlineSoftmax) did not compile in graph mode")

    monkeypatch.setattr(op_dump, "capture_side_dump", refuse)
    net = nets.InlineSoftmax()
    other = nets.twin(net, lambda: nets.InlineSoftmax(half=True))
    r = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert r.first_divergence.label == "head" and r.drill.op is None
    assert "op by op inside head: the op-by-op capture could not run (side a" in str(r)
    assert r.to_dict()["drill"]["reason"].startswith("the op-by-op capture could not run")
    assert drill_mod.worth_drilling(net, "head") and not drill_mod.worth_drilling(net, "proj")
    assert not drill_mod.worth_drilling(net, "nope")

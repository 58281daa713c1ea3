"""compare_numerics(net, reference, x, capture="dump") on real MindSpore: reference arrays
keyed by op (``head/Softmax``, as the table labels ops) or by Cell path (compared at the
Cell's last op); a planted float16 softmax in the reference is the first divergence, and
keys that name nothing give a clear message listing keys the net has."""

import numpy as np
import pytest

import ascend_lab
from ascend_lab.errors.numerics import NumericsReferenceError
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


def _dense(cell, x):
    return x @ cell.weight.asnumpy().T + cell.bias.asnumpy()


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_reference_by_op_and_by_cell_finds_the_planted_softmax(private_tmp):
    net = nets.InlineSoftmax()
    x = nets.inputs()
    proj = _dense(net.proj, x)
    z = _dense(net.head.logits, proj) + np.float32(1000.0)
    soft16 = _softmax(z.astype(np.float16)).astype(np.float32)  # the planted bug
    ref = {
        "proj": proj,  # a Cell: compared at its last op, proj/BiasAdd
        "head/Add": z,  # an op, as the table labels it
        "head/Softmax": soft16,
        "out": _dense(net.out, soft16),
    }
    r = ascend_lab.compare_numerics(net, ref, x, capture="dump")
    assert [p.label for p in r.pairs] == [
        "proj/BiasAdd",
        "head/Add",
        "head/Softmax",
        "out/BiasAdd",
    ]
    d = r.first_divergence
    assert d is not None and d.label == "head/Softmax", str(r)
    assert d.pair.input_basis == "producers" and d.pair.input_rel < 1e-4
    assert r.find("proj/BiasAdd").max_rel < 1e-5
    assert all(u.side == "a" and u.reason == "no reference array" for u in r.unmatched)
    assert list(private_tmp.iterdir()) == []


def test_reference_keys_the_dump_does_not_know_are_listed_with_known_ones(private_tmp):
    net = nets.InlineSoftmax()
    with pytest.raises(NumericsReferenceError) as info:
        ascend_lab.compare_numerics(
            net, {"head/Sofmax": np.zeros((4, 16), np.float32)}, nets.inputs(), capture="dump"
        )
    msg = str(info.value)
    assert "1 reference key(s) name no op or Cell of the net: 'head/Sofmax'" in msg
    assert "head/Softmax" in msg and "its Cells: head, head.logits, out, proj" in msg
    assert list(private_tmp.iterdir()) == []

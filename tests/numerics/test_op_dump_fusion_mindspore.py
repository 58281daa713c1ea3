"""compare_numerics(..., capture="dump", fusion=...) on real MindSpore (CPU, AKG): with
graph-kernel fusion on one side, the CPU dump writes each fused kernel's outputs only
(``Default/GraphKernel_BiasAdd_ReLU_fusion-op0``); a fused kernel is compared with the last
original op it computes on the other side, the ops inside it are unmatched with the
reason, and a divergence inside a fused kernel is found at that kernel."""

import os

import psutil
import pytest

import ascend_lab
from ascend_lab.errors.numerics import NumericsInputError
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


def _children():
    return {p.pid for p in psutil.Process(os.getpid()).children(recursive=True)}


def test_fusion_on_one_side_pairs_each_fused_kernel_with_its_last_op(private_tmp):
    net = nets.Stack()
    before = _children()
    r = ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump", fusion="b")
    assert r.first_divergence is None, str(r)
    by_label = {p.label: p for p in r.pairs}
    # block k: BiasAdd+ReLU fused (compared at the ReLU), BiasAdd+residual Add fused
    # (compared at the Add); the final Dense's BiasAdd is a one-op fused kernel
    for k in range(3):
        relu = by_label[f"blocks.{k}.mlp.1/ReLU"]
        assert relu.b.op_type == "GraphKernel_BiasAdd_ReLU_fusion"
        assert relu.b.fused_ops == ["BiasAdd", "ReLU"] and relu.a.fused_ops is None
        add = by_label[f"blocks.{k}/Add"]
        assert add.b.op_type == "GraphKernel_BiasAdd_Add_fusion"
        assert sorted(add.b.fused_ops) == ["Add", "BiasAdd"]
        assert relu.max_abs == 0.0 and add.max_abs == 0.0
    assert by_label["out/BiasAdd"].b.op_type == "GraphKernel_BiasAdd"
    # the BiasAdds inside the fused kernels: unmatched, with the kernel named, never guessed
    assert sorted(u.record.label for u in r.unmatched) == sorted(
        f"blocks.{k}.mlp.{i}/BiasAdd" for k in range(3) for i in (0, 2)
    )
    assert all(u.side == "a" and "inside fused kernel" in u.reason for u in r.unmatched)
    assert "inside fused kernel blocks.0.mlp/GraphKernel_BiasAdd_ReLU_fusion on side b" in (
        r.unmatched[0].reason
    )
    assert "ReLU (fused on side b)" in r.table()
    assert len(r.pairs) == 3 * 5 + 2
    assert list(private_tmp.iterdir()) == []
    assert _children() <= before  # no AKG server or compile pool left behind


def test_a_divergence_inside_a_fused_kernel_is_found_at_the_kernel(private_tmp):
    net = nets.TwoShifts()
    other = nets.twin(net, lambda: nets.TwoShifts(shift=0.5))
    r = ascend_lab.compare_numerics(net, other, nets.inputs(), capture="dump", fusion="a")
    d = r.first_divergence
    assert d is not None, str(r)
    assert d.op_type_a == "GraphKernel_BiasAdd_ReLU_Add_fusion"
    assert d.pair.b.label == "second/Add" and d.label.startswith("second/")
    assert "a fused kernel of Add, BiasAdd, ReLU" in str(r)
    assert sorted(u.record.label for u in r.unmatched) == [
        "first.fc/BiasAdd",
        "first/ReLU",
        "second.fc/BiasAdd",
        "second/ReLU",
    ]


def test_fusion_on_both_sides_pairs_fused_kernels_by_name(private_tmp):
    net = nets.Stack()
    r = ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump", fusion=True)
    assert r.first_divergence is None and not r.unmatched
    assert sum(1 for p in r.pairs if p.a.fused_ops) == 7


def test_bad_fusion_arguments_are_input_errors():
    net = nets.Stack()
    with pytest.raises(NumericsInputError, match="fusion= needs capture='dump'"):
        ascend_lab.compare_numerics(net, net, nets.inputs(), fusion=True)
    with pytest.raises(NumericsInputError, match="fusion is True, False, 'a', 'b'"):
        ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump", fusion="both")
    with pytest.raises(NumericsInputError, match="side b is reference arrays"):
        ascend_lab.compare_numerics(net, {"out": 0}, nets.inputs(), capture="dump", fusion="b")

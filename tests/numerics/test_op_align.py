"""align_ops through fusion and reference_op_side, on op records (pure, no MindSpore)."""

import numpy as np
import pytest

from ascend_lab.analysis.numeric_compare import align, align_ops
from ascend_lab.errors.numerics import NumericsReferenceError
from ascend_lab.model.numeric_records import OpRecord, SideRecord, op_path
from ascend_lab.model.tensor_stats import TensorStats
from ascend_lab.numerics.reference import reference_op_side


def _side(name, ops):
    """``ops``: (full name, producer full names, fused ops or None), in run order."""
    records, keys, calls = [], {}, {}
    for full, fed, fused in ops:
        path, op = op_path(full)
        call = calls.get(path, 0)
        calls[path] = call + 1
        out = TensorStats(np.full((2, 3), float(len(records)), np.float32))
        rec = OpRecord(len(records), path, call, op, full, "", [], [out], [keys[p] for p in fed])
        rec.ms_key = rec.key
        rec.fused_ops = fused
        keys[full] = rec.key
        records.append(rec)
    return SideRecord(name, "op", records)


PLAIN = [
    ("Default/fc-Dense/MatMul-op0", [], None),
    ("Default/fc-Dense/BiasAdd-op0", ["Default/fc-Dense/MatMul-op0"], None),
    ("Default/act-ReLU/ReLU-op0", ["Default/fc-Dense/BiasAdd-op0"], None),
    ("Default/out-Dense/MatMul-op1", ["Default/act-ReLU/ReLU-op0"], None),
]


def test_a_fused_kernel_pairs_with_its_last_original_and_names_the_others():
    fused = _side(
        "b",
        [
            PLAIN[0],
            ("Default/GraphKernel_BiasAdd_ReLU_fusion-op0", [PLAIN[0][0]], ["BiasAdd", "ReLU"]),
            ("Default/out-Dense/MatMul-op1", ["Default/GraphKernel_BiasAdd_ReLU_fusion-op0"], None),
        ],
    )
    pairs, unmatched = align_ops(_side("a", PLAIN), fused)
    assert [(p.a.label, p.b.label) for p in pairs] == [
        ("fc/MatMul", "fc/MatMul"),
        ("out/MatMul", "out/MatMul"),
        ("act/ReLU", "GraphKernel_BiasAdd_ReLU_fusion"),
    ]
    assert [(u.side, u.record.label) for u in unmatched] == [("a", "fc/BiasAdd")]
    assert unmatched[0].reason.startswith(
        "inside fused kernel GraphKernel_BiasAdd_ReLU_fusion on side b"
    )


def test_the_op_budget_bounds_what_a_fused_kernel_takes():
    # the kernel says BiasAdd only: the ReLU after it is not taken, it stays unmatched
    fused = _side(
        "b",
        [
            PLAIN[0],
            ("Default/GraphKernel_BiasAdd-op0", [PLAIN[0][0]], ["BiasAdd"]),
            ("Default/act-ReLU/ReLU-op0", ["Default/GraphKernel_BiasAdd-op0"], None),
        ],
    )
    pairs, unmatched = align_ops(_side("a", PLAIN[:3]), fused)
    assert ("fc/BiasAdd", "GraphKernel_BiasAdd") in [(p.a.label, p.b.label) for p in pairs]
    assert ("act/ReLU", "act/ReLU") in [(p.a.label, p.b.label) for p in pairs]
    assert not unmatched


def test_a_fused_kernel_whose_ops_are_not_found_stays_unmatched_with_the_reason():
    fused = _side(
        "a",
        [PLAIN[0], ("Default/GraphKernel_Exp_Log_fusion-op0", [PLAIN[0][0]], ["Exp", "Log"])],
    )
    _, unmatched = align_ops(fused, _side("b", PLAIN[:3]))
    kernel = [u for u in unmatched if u.record.fused_ops]
    assert len(kernel) == 1 and "whose ops were not found on side b" in kernel[0].reason
    assert {u.record.label for u in unmatched if u.side == "b"} == {"fc/BiasAdd", "act/ReLU"}


def test_reference_keys_name_ops_by_label_and_cells_by_their_last_op():
    side = _side("a", PLAIN + [("Default/act-ReLU/ReLU-op1", [PLAIN[3][0]], None)])
    known = side.by_key()
    arr = np.zeros((2, 3), np.float32)
    ref = reference_op_side({"fc/BiasAdd": arr, "act/ReLU#1": arr, "out": arr}, known)
    assert [r.label for r in ref.records] == ["fc/BiasAdd", "out/MatMul", "act/ReLU#1"]
    # a Cell path: its last op in run order; the net itself: the last op of the run
    ref = reference_op_side({"fc": arr, "(net)": arr}, known)
    assert [r.label for r in ref.records] == ["fc/BiasAdd", "act/ReLU#1"]
    pairs, unmatched = align(side, ref)
    assert [p.label for p in pairs] == ["fc/BiasAdd", "act/ReLU#1"]
    assert all(u.reason == "no reference array" for u in unmatched)


def test_reference_keys_that_name_nothing_or_one_output_twice_are_refused():
    known = _side("a", PLAIN).by_key()
    arr = np.zeros((2, 3), np.float32)
    with pytest.raises(NumericsReferenceError) as info:
        reference_op_side({"fc/Softmax": arr, "act#1": arr}, known)
    msg = str(info.value)
    assert "2 reference key(s) name no op or Cell of the net: 'act#1', 'fc/Softmax'" in msg
    assert "ops are named like: fc/MatMul, fc/BiasAdd" in msg and "its Cells: act, fc" in msg
    with pytest.raises(NumericsReferenceError, match="same output twice: 'fc'.*'fc/BiasAdd'"):
        reference_op_side({"fc": arr, "fc/BiasAdd": arr}, known)
    with pytest.raises(NumericsReferenceError, match=r"'fc' \(fc/BiasAdd:0\) is \(3,\)"):
        reference_op_side({"fc": np.zeros(3)}, known)

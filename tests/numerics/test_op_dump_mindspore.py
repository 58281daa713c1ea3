"""compare_numerics(..., capture="dump") on real MindSpore (CPU, GRAPH_MODE, MindSpore's own
dump in a child process): a discrepancy planted inside a Cell's construct is named as the
op it is, where the per-Cell capture can only name the Cell; a clean pair reports none; a
side that does not compile is a clear NumericsError; nothing is left on disk."""

import os

import mindspore as ms
import numpy as np
import pytest

import ascend_lab
from ascend_lab.errors.numerics import (
    NumericsError,
    NumericsInputError,
    NumericsReferenceError,
    NumericsRunError,
)
from ascend_lab.i18n import using
from tests.numerics import nets
from tests.numerics.test_planted_mindspore import line_of

pytestmark = pytest.mark.mindspore


def test_softmax_inside_a_construct_is_the_first_divergence_op_by_op(private_tmp):
    net = nets.InlineSoftmax()
    other = nets.twin(net, lambda: nets.InlineSoftmax(half=True))
    cwd_before = sorted(os.listdir(os.getcwd()))
    r = ascend_lab.compare_numerics(net, other, nets.inputs(), capture="dump")
    d = r.first_divergence
    assert d is not None
    assert d.label == "head/Softmax" and d.op_type_a == "Softmax" == d.op_type_b
    assert d.scope_a == "Default/head-ScoreHead/Softmax-op0"
    assert d.source_a.endswith(
        "nets.py:{}".format(line_of(nets.ScoreHead.construct, "return ops.softmax(z, -1)"))
    )
    assert d.source_b.endswith(
        "nets.py:{}".format(line_of(nets.ScoreHead.construct, "ops.softmax(z.astype"))
    )
    assert d.pair.input_basis == "producers" and d.pair.input_rel == 0.0
    assert [s.dtype for s in d.pair.b.outputs] == ["Float16"]
    before = [p for p in r.pairs if p.a.index < d.pair.a.index]
    assert [p.label for p in before] == [
        "proj/MatMul",
        "proj/BiasAdd",
        "head.logits/MatMul",
        "head.logits/BiasAdd",
        "head/Add",
    ]
    assert all(p.max_rel == 0.0 for p in before)
    # side b's two explicit casts have no partner: unmatched, with the reason, not a divergence
    assert sorted((u.side, u.record.label) for u in r.unmatched) == [
        ("b", "head/Cast"),
        ("b", "head/Cast#1"),
    ]
    assert all("Cast on this side only" in u.reason for u in r.unmatched)
    assert r.advice and r.advice[0] == "numerics-keep-fp32"
    assert "op by op, graph mode" in str(r)
    with using("zh"):
        assert "逐算子" in str(r) and "首个偏离点" in str(r)
    # the per-Cell capture of the same pair can only name the Cell whose construct holds it
    cells = ascend_lab.compare_numerics(net, other, nets.inputs())
    assert cells.first_divergence is not None and cells.first_divergence.label == "head"
    assert cells.first_divergence.op_type_a == "ScoreHead"
    assert list(private_tmp.iterdir()) == []
    assert sorted(os.listdir(os.getcwd())) == cwd_before


def test_same_net_twice_op_by_op_has_no_divergence(private_tmp):
    net = nets.Stack()
    r = ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    assert r.first_divergence is None
    assert not r.unmatched
    # 3 x (LayerNorm, 2 x (MatMul, BiasAdd), ReLU, the residual Add) + the output Dense
    assert len(r.pairs) == 3 * 7 + 2
    assert all(p.max_abs == 0.0 for p in r.pairs)
    # MindSpore names the residual Add of every block under the first block's scope; the
    # capture's scope repair names each by the block its data flow is in, and keeps
    # MindSpore's own name
    adds = [p for p in r.pairs if p.op_type == "Add"]
    assert [p.label for p in adds] == ["blocks.0/Add", "blocks.1/Add", "blocks.2/Add"]
    assert [p.a.scoped_under for p in adds] == [None, "blocks.0", "blocks.0"]
    assert all("0-Residual" in p.a.scope for p in adds)
    assert "no divergence" in str(r)
    assert list(private_tmp.iterdir()) == []


def test_amp_copy_op_by_op_aligns_through_its_casts(private_tmp):
    net = nets.Stack()
    r = ascend_lab.compare_numerics(net, nets.inputs(), amp="O2", capture="dump")
    assert r.first_divergence is None, str(r)
    assert len(r.pairs) == 3 * 7 + 2
    assert r.unmatched and all(u.side == "b" and u.record.op_type == "Cast" for u in r.unmatched)
    # AMP's wrappers (_OutputTo16/_backbone) are not part of the names that are matched
    norm = r.find("blocks.0.norm/LayerNorm")
    assert norm is not None and "_OutputTo16" in norm.b.scope
    # MatMul ran in float32 on CPU although the graph types it float16: its dump says
    # float16 over float32 bytes, and is read as float32
    matmul = r.find("blocks.0.mlp.0/MatMul")
    assert matmul is not None and matmul.max_rel < 1e-2
    assert [s.dtype for s in matmul.b.outputs] == ["Float32"]
    assert list(private_tmp.iterdir()) == []


def test_a_side_that_does_not_compile_is_a_clear_error_and_leaves_nothing(private_tmp):
    net = nets.NoGraph()
    with pytest.raises(NumericsRunError) as info:
        ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    msg = str(info.value)
    assert msg.startswith("side a (NoGraph) could not compile or run in graph mode")
    assert "Yield" in msg and "nets.py:" in msg
    assert list(private_tmp.iterdir()) == []
    # the per-Cell capture runs it (PyNative)
    assert ascend_lab.compare_numerics(net, net, nets.inputs()).first_divergence is None


def test_a_child_past_its_time_is_stopped_with_all_it_started(private_tmp, monkeypatch):
    """The child never holds the notebook: past the limit it and its children are killed."""
    import psutil

    from ascend_lab.capture import op_dump

    monkeypatch.setattr(op_dump, "CHILD_TIMEOUT_S", 1.0)  # importing MindSpore takes longer
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with pytest.raises(NumericsRunError) as info:
        ascend_lab.compare_numerics(nets.Stack(), nets.Stack(), nets.inputs(), capture="dump")
    assert "ran past 1 s and was stopped" in str(info.value), str(info.value)
    left = [
        p for p in psutil.Process().children(recursive=True)
        if p.pid not in before and p.status() != psutil.STATUS_ZOMBIE
    ]  # fmt: skip
    assert left == []
    assert list(private_tmp.iterdir()) == []


def test_mismatched_inputs_are_an_input_error(private_tmp):
    with pytest.raises(NumericsInputError, match=r"on the inputs \[\(4, 8\)\]: For 'MatMul'"):
        ascend_lab.compare_numerics(nets.Head(), nets.Head(), nets.inputs((4, 8)), capture="dump")
    assert list(private_tmp.iterdir()) == []


class Local(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = ms.nn.Dense(16, 16)

    def construct(self, x):
        return self.fc(x)


def test_classes_the_child_cannot_import_travel_by_value_and_bad_arguments_are_refused(
    monkeypatch,
):
    # a class of __main__ (a notebook cell's): sent by value, no longer refused (the kernel
    # and script cases: test_op_dump_by_value_mindspore.py)
    monkeypatch.setattr(Local, "__module__", "__main__")
    net = Local()
    r = ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    assert [p.label for p in r.pairs] == ["fc/MatMul", "fc/BiasAdd"]
    assert r.first_divergence is None
    with pytest.raises(NumericsError, match="capture must be 'cells'"):
        ascend_lab.compare_numerics(nets.Head(), nets.Head(), nets.inputs(), capture="ops")
    # reference arrays go with capture="dump" too (test_op_dump_reference_mindspore.py)
    with pytest.raises(NumericsReferenceError, match="'proj.nope'.*its Cells: logits, norm"):
        ascend_lab.compare_numerics(nets.Head(), {"proj.nope": 0}, nets.inputs(), capture="dump")


MODULE = """
import mindspore as ms


class NextToTheNotebook(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = ms.nn.Dense(16, 16)

    def construct(self, x):
        return self.fc(x)
"""


def test_a_module_in_the_current_folder_is_found_by_the_child(tmp_path, monkeypatch):
    # sys.path's "" is the current folder: the child runs elsewhere, so it gets it absolute
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "next_to_the_notebook.py").write_text(MODULE)
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend("")
    import importlib

    module = importlib.import_module("next_to_the_notebook")
    net = module.NextToTheNotebook()
    r = ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    assert [p.label for p in r.pairs] == ["fc/MatMul", "fc/BiasAdd"]
    assert r.first_divergence is None


def test_tensors_true_keeps_whole_op_outputs(private_tmp):
    net = nets.Head(offset=1000.0)
    other = nets.twin(net, lambda: nets.Head(offset=1000.0))
    big = nets.inputs((300, 16))  # 4,800 values: more than the 4,096-value sample
    r = ascend_lab.compare_numerics(net, other, big, capture="dump", tensors=True)
    softmax = r.find("softmax/Softmax")
    assert softmax is not None and softmax.exact
    assert softmax.a.outputs[0].array is not None and softmax.a.outputs[0].array.shape == (300, 16)
    assert r.first_divergence is None
    sampled = ascend_lab.compare_numerics(net, other, big, capture="dump", sample_size=64)
    assert sampled.find("softmax/Softmax").a.outputs[0].array is None
    assert not sampled.find("softmax/Softmax").exact
    assert list(private_tmp.iterdir()) == []


class Cancel(ms.nn.Cell):
    """``(y + 1000) + -1000`` after a Dense: y again in float32; in bfloat16 (8 bits of
    mantissa: 1000 is spaced by 4) the second Add's cancellation leaves y rounded to a
    multiple of 4 (an Add: MindSpore 2.10's CPU Sub has no bfloat16 kernel)."""

    def __init__(self, d=16, bf16=False):
        super().__init__()
        self.fc = ms.nn.Dense(d, d)
        # a Parameter, cast at run time (a constant Tensor's cast to bfloat16 is folded
        # through NumPy, which MindSpore 2.10 refuses under NumPy 2)
        self.big = ms.Parameter(ms.Tensor(np.full((d,), 1000.0, np.float32)), name="big")
        self.neg = ms.Parameter(ms.Tensor(np.full((d,), -1000.0, np.float32)), name="neg")
        self.bf16 = bf16

    def construct(self, x):
        y = self.fc(x)
        big, neg = self.big, self.neg
        if self.bf16:
            y = y.astype(ms.bfloat16)
            big, neg = big.astype(ms.bfloat16), neg.astype(ms.bfloat16)
        z = (y + big) + neg
        return z.astype(ms.float32)


def test_a_cancellation_in_bfloat16_is_found_on_its_op(private_tmp):
    """MindSpore's CPU dump writes bfloat16 outputs with a header NumPy cannot read ('<E2'):
    they are read (as float32, exactly) and compared."""
    net = Cancel()
    other = nets.twin(net, lambda: Cancel(bf16=True))
    r = ascend_lab.compare_numerics(net, other, nets.inputs(), capture="dump")
    d = r.first_divergence
    assert d is not None and d.label == "Add#1" and d.op_type_a == "Add" == d.op_type_b, str(r)
    assert [s.dtype for s in d.pair.b.outputs] == ["BFloat16"]
    assert [s.dtype for s in d.pair.a.outputs] == ["Float32"]
    assert d.pair.max_rel > 0.1
    add = r.find("Add")
    assert add is not None and not add.diverged
    assert [s.dtype for s in add.b.outputs] == ["BFloat16"] and add.b.outputs[0].max > 990
    assert list(private_tmp.iterdir()) == []


def test_an_op_of_a_second_instance_is_named_by_its_own_cell(private_tmp):
    """Two instances of one Cell class: MindSpore scopes the second one's ReLU and shift
    Add under the first; the repaired names say second, MindSpore's name stays visible."""
    net = nets.TwoShifts()
    other = nets.twin(net, lambda: nets.TwoShifts(shift=0.5))
    r = ascend_lab.compare_numerics(net, other, nets.inputs(), capture="dump")
    assert not r.unmatched
    assert [p.label for p in r.pairs] == [
        "first.fc/MatMul",
        "first.fc/BiasAdd",
        "first/ReLU",
        "first/Add",
        "second.fc/MatMul",
        "second.fc/BiasAdd",
        "second/ReLU",
        "second/Add",
    ]
    d = r.first_divergence
    assert d is not None and d.label == "second/Add" and d.op_type_a == "Add"
    assert d.scope_a.startswith("Default/first-Shift/Add")
    assert d.pair.a.scoped_under == "first" == d.pair.b.scoped_under
    text = str(r)
    assert "second/Add (Add)" in text and "scoped by MindSpore under first" in text
    assert "Add (MindSpore: first)" in r.table()
    assert r.to_dict()["pairs"][-1]["scoped_under_a"] == "first"
    with using("zh"):
        assert "MindSpore" in str(r) and "first" in str(r)


def test_decoder_under_amp_names_the_mask_add_by_its_attention(private_tmp):
    """bench_numerics' scenario on a 2-layer decoder (benchmarks/support/nets.py): under AMP O2 the
    causal mask's -1e9 overflows to -inf in float16. MindSpore scopes that Add (and its
    source line) under attn_norm; the first divergence names the attention."""
    from benchmarks.support.nets import Decoder, decoder_tokens

    ms.set_seed(0)
    net = Decoder(layers=2)
    r = ascend_lab.compare_numerics(net, decoder_tokens(), amp="O2", capture="dump")
    d = r.first_divergence
    assert d is not None, str(r)
    assert d.label.startswith("blocks.0.attn/Add") and d.op_type_a == "Add"
    assert d.pair.a.scoped_under == "blocks.0.attn_norm"
    assert "attn_norm-RMSNorm/Add" in d.scope_a
    assert d.pair.counts("b")["inf"] > 0 and d.pair.counts("a")["inf"] == 0
    assert "scoped by MindSpore under blocks.0.attn_norm" in str(r)
    # the repair reads each side alone: what it placed differently (AMP's Cast before
    # o_proj moves the Reshape next to it) is paired by MindSpore's own names, so only
    # AMP's one-sided Casts stay unmatched
    assert r.unmatched and all(u.record.op_type == "Cast" for u in r.unmatched)
    # the second block's mask Add, scoped by MindSpore under block 0, is block 1's
    second = [p for p in r.pairs if p.a.scope == d.scope_a.replace("0-Block", "1-Block")]
    assert not second
    assert any(
        p.label.startswith("blocks.1.attn/Add") and p.a.scoped_under == "blocks.0.attn_norm"
        for p in r.pairs
    )

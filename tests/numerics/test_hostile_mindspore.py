"""Bad sides, inputs and references give a clear NumericsError (an AscendLabError)."""

import mindspore as ms
import numpy as np
import pytest
from mindspore import nn

import ascend_lab
from ascend_lab.errors import AscendLabError
from ascend_lab.errors.numerics import (
    NumericsError,
    NumericsInputError,
    NumericsReferenceError,
    NumericsRunError,
)
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


class Broken(nn.Cell):
    """Fails inside MindSpore: a MatMul of mismatched inner dimensions."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 16)
        self.w = ms.Parameter(ms.Tensor(np.ones((5, 3), np.float32)), name="w")

    def construct(self, x):
        return ms.ops.matmul(self.fc(x), self.w)


class Raises(nn.Cell):
    def construct(self, x):
        raise RuntimeError("this side does not build")


def test_a_side_that_fails_names_the_side_and_mindsporess_message():
    net = nets.Head()
    with pytest.raises(NumericsError) as info:
        ascend_lab.compare_numerics(net, Broken(), nets.inputs())
    msg = str(info.value)
    assert msg.startswith("side b (Broken) failed on the inputs [(4, 16)]")
    assert "MatMulExt" in msg and "but got 16 and 5" in msg  # MindSpore's own words
    assert isinstance(info.value, AscendLabError)


def test_a_side_that_raises_is_a_run_error():
    with pytest.raises(
        NumericsRunError, match="side b \\(Raises\\).*this side does not build"
    ) as info:
        ascend_lab.compare_numerics(nets.Head(), Raises(), nets.inputs())
    assert f"(at {__file__}:" in str(info.value)  # the line that raised


def test_mismatched_input_shapes():
    with pytest.raises(
        NumericsInputError, match=r"side a \(Head\) failed on the inputs \[\(4, 7\)\]"
    ):
        ascend_lab.compare_numerics(nets.Head(), nets.Head(), nets.inputs(shape=(4, 7)))


def test_hooks_are_removed_and_mode_restored_after_a_failure():
    net = nets.Head()
    mode = ms.get_context("mode")
    with pytest.raises(NumericsError):
        ascend_lab.compare_numerics(net, Raises(), nets.inputs())
    assert ms.get_context("mode") == mode
    assert not net.proj._forward_hook  # no hook left behind
    r = ascend_lab.compare_numerics(net, net, nets.inputs())
    assert len(r.pairs) == 5


def test_reference_with_unknown_keys():
    with pytest.raises(NumericsReferenceError) as info:
        ascend_lab.compare_numerics(
            nets.Head(),
            {"proj": np.zeros((4, 16), np.float32), "attn.q": np.zeros(3)},
            nets.inputs(),
        )
    msg = str(info.value)
    assert "1 reference key(s) name no Cell call of the net: 'attn.q'" in msg
    assert "logits" in msg  # the names it could have used


def test_reference_missing_every_key_and_empty():
    with pytest.raises(NumericsReferenceError, match="holds no arrays"):
        ascend_lab.compare_numerics(nets.Head(), {}, nets.inputs())


def test_reference_of_another_shape():
    with pytest.raises(
        NumericsReferenceError, match=r"proj:0 is \(4, 8\) but the net gives \(4, 16\)"
    ):
        ascend_lab.compare_numerics(
            nets.Head(), {"proj": np.zeros((4, 8), np.float32)}, nets.inputs()
        )


def test_reference_file_that_is_not_npz(tmp_path):
    bad = tmp_path / "ref.npz"
    bad.write_text("not a zip")
    with pytest.raises(NumericsReferenceError, match="is not a .npz of arrays"):
        ascend_lab.compare_numerics(nets.Head(), str(bad), nets.inputs())
    with pytest.raises(NumericsReferenceError, match="cannot read the reference"):
        ascend_lab.compare_numerics(nets.Head(), str(tmp_path / "missing.npz"), nets.inputs())


def test_no_second_side_or_no_inputs():
    with pytest.raises(NumericsInputError, match="name the second side"):
        ascend_lab.compare_numerics(nets.Head())
    with pytest.raises(NumericsInputError, match="needs the net's inputs"):
        ascend_lab.compare_numerics(nets.Head(), nets.Head())
    with pytest.raises(NumericsInputError, match="amp must be one of"):
        ascend_lab.compare_numerics(nets.Head(), nets.inputs(), amp="O9")
    with pytest.raises(NumericsInputError, match="not a mindspore.nn.Cell"):
        ascend_lab.compare_numerics(nets.Head(), 42, nets.inputs())


BF16_SIDE = """
import sys
sys.path.insert(0, {root!r})
import mindspore as ms
import ascend_lab
from ascend_lab.errors.numerics import NumericsRunError
from tests.numerics import nets
net = nets.Head()
other = nets.twin(net, nets.Head)
other.softmax.to_float(ms.bfloat16)
try:
    ascend_lab.compare_numerics(net, other, nets.inputs())
except NumericsRunError as exc:
    print("MESSAGE", exc)
"""


def test_an_op_cpu_cannot_run_in_bfloat16_is_a_run_error_with_the_users_line():
    # in a fresh process: MindSpore 2.10 leaves a failed to_float Cell's cast set for the
    # rest of its process (every later op runs in bfloat16), which would break other tests
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run(
        [sys.executable, "-c", BF16_SIDE.format(root=root)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    ).stdout
    msg = next(line for line in out.splitlines() if line.startswith("MESSAGE "))
    assert "side b (Head)" in msg and "Select CPU operator[Softmax] fail" in msg
    assert "nets.py:" in msg

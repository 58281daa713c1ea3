"""Pure checks of compare_numerics' messages (no MindSpore: runs on Python 3.8 too): inputs
with no values, and MindSpore's "no CPU kernel for this dtype" text explained."""

import numpy as np
import pytest

from ascend_lab.capture.cell_outputs import limit_hint
from ascend_lab.errors.numerics import NumericsInputError
from ascend_lab.numerics.api import compare_numerics

# MindSpore 2.10's own text for a net under to_float(ms.bfloat16) on CPU (PyNative; graph
# mode's first line is the same)
BF16_MATMUL = (
    "Select CPU operator[MatMul] fail! Unsupported data type!\n"
    "The supported data types are input[Float32 Float32 Bool Bool], output[Float32];"
    "input[Float64 Float64 Bool Bool], output[Float64];,\n"
    " but get input[[const vector]{BFloat16, BFloat16, Bool, Bool}], "
    "output[[const vector]{BFloat16}].\n\n"
    "----------------------------------------------------\n"
    "- C++ Call Stack: (For framework developers)\n"
)


def test_no_cpu_kernel_for_a_dtype_is_said_to_be_mindspores_limit():
    hint = limit_hint(BF16_MATMUL)
    assert "MindSpore's CPU backend has no MatMul kernel for BFloat16" in hint
    assert "not of the net" in hint and "Ascend" in hint
    graph_mode = "Select CPU operator[MatMul] fail! ..., but get input[BFloat16 BFloat16 Bool ]"
    assert "no MatMul kernel for BFloat16:" in limit_hint(graph_mode)
    assert "no Softmax kernel for these dtypes" in limit_hint(
        "Select CPU operator[Softmax] fail! Unsupported data type!"
    )
    assert limit_hint("For 'MatMul', the shapes differ") == ""


def test_a_bfloat16_constant_under_numpy_2_is_said_to_be_mindspores_limit():
    text = (
        "The Numpy bfloat16 data type is not supported now, please ensure that the current "
        "Numpy version is not less than the version when the mindspore is compiled, and the "
        "major versions are same."
    )
    hint = limit_hint(text)
    assert "cannot hold bfloat16 constants with NumPy " + np.__version__ in hint
    assert "make the constant a Parameter" in hint


def test_inputs_with_no_values_are_refused_before_anything_runs():
    with pytest.raises(NumericsInputError, match=r"inputs \(0, 16\) hold no values"):
        compare_numerics(object(), object(), np.zeros((0, 16), np.float32))
    with pytest.raises(NumericsInputError, match="hold no values"):
        compare_numerics(object(), np.zeros((0, 3)), np.zeros((2, 0)), capture="dump")


def test_one_empty_input_among_others_is_passed_on():
    """A net may take an empty tensor (a KV cache before the first token): not refused
    here (the sides are checked next: these are not Cells)."""
    with pytest.raises(Exception) as info:
        compare_numerics(object(), object(), np.ones((2, 16)), np.zeros((2, 0, 4)))
    assert "hold no values" not in str(info.value)

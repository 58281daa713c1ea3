"""What a trace says about inputs graph mode does not take as tensors (unit level; the real
compiles are in test_unusual_nets_mindspore.py)."""

import numpy as np

from ascend_lab.capture.input_notes import constant_input_notes, numpy_input_notes


class _Mutable(tuple):
    __ms_mutable__ = True  # what mindspore.mutable((a, b)) returns carries this mark


def test_numpy_arrays_are_named_by_position():
    notes = numpy_input_notes([object(), np.ones(2), 3, np.float32(1)])
    assert notes == [
        "input 1 is a numpy.ndarray: graph mode reads it as an opaque Python object; "
        "pass mindspore.Tensor(x) instead"
    ]


def test_containers_not_marked_mutable_are_constants():
    notes = constant_input_notes([(1, 2), [3], {"k": 4}, _Mutable((1, 2)), np.ones(2), 5])
    assert [n.split(":")[0] for n in notes] == [
        "input 0 is a tuple",
        "input 1 is a list",
        "input 2 is a dict",
    ]
    assert "unless it is wrapped in mindspore.mutable(...)" in notes[0]


def test_a_lambda_is_named_as_it_prints_and_called_by_a_plain_name():
    from ascend_lab.capture.compile import not_a_cell_message

    text = not_a_cell_message(lambda x: x)
    assert "got the function '<lambda>'" in text
    assert "return fn(x)" in text and "<lambda>(x)" not in text

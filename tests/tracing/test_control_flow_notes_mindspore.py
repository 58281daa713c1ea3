"""A net with control flow compiles to several kernel graphs; the views show the largest, and
the trace says so (summary and the page's notes) instead of showing a part as the whole."""

import numpy as np
import pytest

pytestmark = pytest.mark.mindspore


def _loop_net():
    import mindspore as ms
    from mindspore import nn, ops

    class Loop(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)

        def construct(self, x):
            i = ms.Tensor(0, ms.int32)
            while i < 3:  # a tensor condition: the body is a kernel graph of its own
                x = self.fc(x) * 2
                i += 1
            return ops.relu(x)

    return Loop(), ms.Tensor(np.ones((2, 4), np.float32))


def test_a_loop_over_a_tensor_names_every_kernel_graph_it_built():
    import ascend_lab
    from ascend_lab.payload import check_payload

    net, x = _loop_net()
    trace = ascend_lab.trace(net, x, run=False, progress=False)
    others = trace.other_kernel_graphs()
    assert others, [s.name for s in trace.passes if s.name.startswith("graph_build")]
    (note,) = trace.notes()
    assert f"built {len(others) + 1} kernel graphs" in note
    assert trace.final_pass.name in note and all(s.name in note for s in others[:8])
    assert note in trace.summary()
    payload = trace.to_payload(passes="none")
    check_payload(payload)
    assert payload["meta"]["notes"] == [note]


def test_a_net_without_control_flow_has_no_such_note():
    import mindspore as ms
    from mindspore import nn

    import ascend_lab

    net = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU()])
    trace = ascend_lab.trace(net, ms.Tensor(np.ones((2, 4), np.float32)), progress=False)
    assert trace.other_kernel_graphs() == [] and trace.notes() == []
    assert "notes" not in trace.to_payload(passes="none")["meta"]

"""The memory plan through ``ascend_lab.trace``: what the course does, end to end on CPU."""

from pathlib import Path

import pytest

from ascend_lab.analysis.actor_set import size_mismatches
from ascend_lab.memory import fusion_comparison, plan_graph, validate

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.mindspore


@pytest.fixture(scope="module")
def ms_nets():
    import mindspore as ms

    from ascend_lab.course import nets

    return ms, nets


def pipeline_actor_set(trace):
    (key,) = [k for k in trace.actor_sets if k.startswith("0_actor_set_pipeline")]
    return trace.actor_sets[key]


@pytest.fixture(scope="module")
def lenet_fused(ms_nets):
    import numpy as np

    import ascend_lab

    ms, nets = ms_nets
    ms.set_seed(0)
    x = ms.Tensor(np.zeros((1, 1, 32, 32), np.float32))
    return ascend_lab.trace(nets.LeNet5(), x, fusion=True, progress=False)


@pytest.mark.slow
def test_fusion_before_after_from_one_trace(lenet_fused):
    tr = lenet_fused
    table = fusion_comparison(tr)
    before, after = table.to_dict()
    assert after["tensors"] < before["tensors"]
    assert after["fused_internal_tensors"] >= 2 and before["fused_internal_tensors"] == 0
    assert after["no_reuse"] < before["no_reuse"]
    assert size_mismatches(tr.graph, pipeline_actor_set(tr)) == []
    # the payload's memory section is this plan
    memory = tr.to_payload()["memory"]
    plan = plan_graph(tr.graph)
    assert memory["peak"] == plan.peak and memory["lower_bound"] == plan.lower_bound
    assert [t["id"] for t in memory["tensors"]] == [t.id for t in plan.tensors]
    assert validate(plan) == []


def test_dynamic_batch_trace_is_flagged_not_planned(ms_nets):
    import numpy as np

    import ascend_lab

    ms, nets = ms_nets
    net = nets.ConvBNReLU()
    net.set_train(False)
    net.set_inputs(ms.Tensor(shape=[None, 3, 16, 16], dtype=ms.float32))
    tr = ascend_lab.trace(net, ms.Tensor(np.zeros((2, 3, 16, 16), np.float32)), progress=False)
    plan = plan_graph(tr.graph)
    dynamic = [e for e in plan.problem.excluded if e.reason.startswith("dynamic")]
    assert len(dynamic) == 4  # Conv2D, BiasAdd, BatchNorm output 0, ReLU
    assert any("SOMAS needs static shapes" in n for n in plan.notes)
    assert "excluded tensors" in plan.summary()
    with pytest.raises(ValueError, match="fusion=True"):
        fusion_comparison(tr)

"""Scope repair on graphs MindSpore compiles on CPU: ResNet-50, a MobileNet-style stack and a
three-layer Llama-style decoder. One trace per net (ResNet-50 takes ~30 s)."""

import re
from collections import Counter, defaultdict

import pytest

from ascend_lab.analysis.scopes import repair_scopes

pytestmark = pytest.mark.mindspore

INSTANCE = re.compile(
    r"^(?P<parent>.*)/(?P<index>\d+)-(?P<cls>Bottleneck|InvertedResidual|Block)(?P<rest>/.*)?$"
)


def traced_graph(net, *inputs):
    import ascend_lab

    net.set_train(False)
    return ascend_lab.trace(net, *inputs, run=False).graph


def holdings(graph, repaired):
    """instance index -> Counter of (path below the instance, op) of the kernels drawn in it."""
    per = defaultdict(Counter)
    for node in graph.kernels:
        m = INSTANCE.match(repaired.get(node.id, node.scope or ""))
        if m:
            per[int(m.group("index"))][(m.group("rest") or "", node.op)] += 1
    return per


def test_resnet50_each_block_holds_its_own_residual_add_and_no_other():
    import mindspore as ms
    import numpy as np

    from ascend_lab.course.nets import ResNet50

    graph = traced_graph(ResNet50(), ms.Tensor(np.zeros((1, 3, 224, 224), np.float32)))
    repaired = repair_scopes(graph)
    adds = [n for n in graph.kernels if n.op == "Add"]
    assert len(adds) == 16
    # what MindSpore printed: every Add under the first block
    assert {n.scope for n in adds} == {"Default/layers-SequentialCell/0-Bottleneck"}
    by_id = {n.id: n for n in graph.nodes}

    def block_of(scope):
        m = INSTANCE.match(scope or "")
        return int(m.group("index")) if m else None

    def producer(node_id):  # through TupleGetItem to the BatchNorm
        node = by_id[node_id]
        while node.bookkeeping:
            node = by_id[node.inputs[0]]
        return node

    per_block = Counter()
    for add in adds:
        drawn = block_of(repaired.get(add.id, add.scope))
        # the block whose bn3 feeds this Add is the block it belongs to
        bn3 = [producer(i) for i in add.inputs if "/bn3-" in (producer(i).scope or "")]
        assert len(bn3) == 1
        assert drawn == block_of(bn3[0].scope), (add.name, drawn)
        per_block[drawn] += 1
    assert per_block == Counter({b: 1 for b in range(16)})


def test_mobilenet_stack_adds_sit_in_the_blocks_that_have_a_residual():
    from benchmarks.support.nets import MobileNetStack, mobilenet_input

    graph = traced_graph(MobileNetStack(), mobilenet_input())
    repaired = repair_scopes(graph)
    per = holdings(graph, repaired)
    with_add = sorted(b for b, held in per.items() if held[("", "Add")])
    assert with_add == [0, 2, 3, 5]  # stride 1 and same width: the blocks with x + y
    assert all(per[b][("", "Add")] == 1 for b in with_add)


def test_decoder_layers_hold_the_same_ops_after_repair():
    from benchmarks.support.nets import Decoder, decoder_tokens

    graph = traced_graph(Decoder(layers=3), decoder_tokens())
    before = holdings(graph, {})
    repaired = repair_scopes(graph)
    after = holdings(graph, repaired)
    assert sorted(after) == [0, 1, 2]
    # MindSpore names most of every layer's ops under the first layer ...
    assert sum(before[0].values()) > 2 * sum(before[1].values())
    # ... after repair every layer holds the same ops in the same places
    assert after[0] == after[1] == after[2]
    assert after[0][("/attn-Attention", "Softmax")] == 1
    # the final norm's ops leave the first layer for the net's own norm
    final_norm = [n for n in graph.kernels if repaired.get(n.id, n.scope) == "Default/norm-RMSNorm"]
    assert {n.op for n in final_norm} >= {"ReduceMean", "Rsqrt", "Mul"}

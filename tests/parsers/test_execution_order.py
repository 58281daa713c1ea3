"""kernel_execution_order / apply_execution_order on a recorded kernel graph and actor-set
text in MindSpore's format (a training step's order is checked on a real compile in
test_trace_mindspore.py)."""

from ascend_lab.parsers.ir.execution_order import apply_execution_order, kernel_execution_order
from ascend_lab.parsers.ir.ir_text import parse_ir_file
from tests.support.ir_fixtures import fixture


def _actor_set(entries):
    """Final actor-set text: data and fusion actors, then kernel actors as (index, name)."""
    lines = [
        "%0 = kernel_graph_0_DataPrepareActor() op control(%kernel_graph_0_LoopCountActor)",
        "%1 = kernel_graph_0_HostDSActor(param_inputs0) op control(%0)",
        "\t# AID : kernel_graph_0_HostDSActor",
        "%9 = FusionActor(%3[0], %2[0]) op control(%0)",
        "\t# AID : 1_FusionActor",  # another counter: not a kernel's place
    ]
    for n, (index, name) in enumerate(entries, 2):
        op = name.rsplit("/", 1)[-1]
        lines += [
            f"%{n} = kernel_graph0:{op}(%1[0])",
            "\t# device context: CPU_0 ",
            "\t# shape : <(1, 8)> -> <(1, 8)> ",
            f"\t# AID : {index}_{name}",
        ]
    return "\n".join(lines) + "\n"


def _graph():
    return parse_ir_file(fixture("conv/graph_build_*.ir"))


def test_kernels_take_the_runtimes_order_and_other_nodes_keep_their_places():
    graph = _graph()
    names = [n.name for n in graph.kernels]
    others = [(i, n.id) for i, n in enumerate(graph.nodes) if not n.is_kernel]
    runtime = [names[1], names[0]] + names[2:]  # the runtime runs the second kernel first
    text = _actor_set([(40 + i, name) for i, name in enumerate(runtime)][::-1])
    assert kernel_execution_order([text]) == runtime
    assert apply_execution_order(graph, runtime)
    assert [n.name for n in graph.kernels] == runtime
    assert [n.step for n in graph.kernels] == list(range(len(runtime)))
    assert [(i, n.id) for i, n in enumerate(graph.nodes) if not n.is_kernel] == others


def test_an_order_that_does_not_name_every_kernel_once_changes_nothing():
    graph = _graph()
    names = [n.name for n in graph.kernels]
    before = [(n.id, n.step) for n in graph.nodes]
    for order in ([], names[:-1], names + [names[0]], ["Default/other/Op-op0"] + names[1:]):
        assert not apply_execution_order(graph, order)
        assert [(n.id, n.step) for n in graph.nodes] == before

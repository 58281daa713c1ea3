"""Scope repair (ascend_lab.analysis.scopes) on synthetic graphs shaped like MindSpore's
dumps and on the recorded IR fixtures (no MindSpore)."""

from typing import List, Optional, Sequence

from ascend_lab.analysis.scopes import data_neighbours, repair_scopes
from ascend_lab.model.graph import Graph, Node
from ascend_lab.parsers.ir.ir_text import parse_ir_file
from tests.support.ir_fixtures import FIXTURES as IR_DIR

SEQ = "Default/layers-SequentialCell"


def op(nid: str, name: str, inputs: Sequence[str] = (), kind: str = "op") -> Node:
    scope = name.rsplit("/", 1)[0]
    return Node(
        id=nid,
        op=name.rsplit("/", 1)[1].split("-op")[0],
        kind=kind,
        name=name,
        scope=scope,
        inputs=list(inputs),
    )


def residual_stack(blocks: int) -> Graph:
    """``blocks`` residual blocks as MindSpore names them: each block's conv and ReLU under
    its own instance, every block's Add under the first instance (``0-Block/Add-opN``)."""
    nodes: List[Node] = [Node(id="x", op="Parameter", kind="input", name="x")]
    prev = "x"
    for b in range(blocks):
        conv, relu, add = f"c{b}", f"r{b}", f"a{b}"
        nodes.append(op(conv, f"{SEQ}/{b}-Block/conv-Conv2d/Conv2D-op0", [prev]))
        nodes.append(op(add, f"{SEQ}/0-Block/Add-op{b}", [conv, prev]))
        nodes.append(op(relu, f"{SEQ}/{b}-Block/relu-ReLU/ReLU-op0", [add]))
        prev = relu
    return Graph(name="stack", nodes=nodes)


def drawn(graph: Graph, nid: str) -> Optional[str]:
    return repair_scopes(graph).get(nid, graph.node(nid).scope)


def test_every_residual_add_is_drawn_in_its_own_block():
    graph = residual_stack(5)
    repaired = repair_scopes(graph)
    for b in range(5):
        assert drawn(graph, f"a{b}") == f"{SEQ}/{b}-Block"
    # MindSpore's name is untouched: the node panel still shows it
    assert graph.node("a3").name == f"{SEQ}/0-Block/Add-op3"
    assert "a0" not in repaired  # block 0's own Add was right


def test_correct_scopes_are_left_alone():
    nodes = [Node(id="x", op="Parameter", kind="input")]
    for b in range(3):
        nodes.append(op(f"c{b}", f"{SEQ}/{b}-Block/conv-Conv2d/Conv2D-op0", [nodes[-1].id]))
        nodes.append(op(f"a{b}", f"{SEQ}/{b}-Block/Add-op0", [f"c{b}", nodes[-2].id]))
    assert repair_scopes(Graph(name="ok", nodes=nodes)) == {}


def test_optional_part_of_some_instances_is_not_moved():
    # a downsample only in blocks 0 and 2 is structure, not a naming accident
    graph = residual_stack(3)
    graph.nodes.append(op("d2", f"{SEQ}/2-Block/down-Conv2d/Conv2D-op0", ["r1"]))
    graph.nodes.append(op("d0", f"{SEQ}/0-Block/down-Conv2d/Conv2D-op0", ["x"]))
    repaired = repair_scopes(graph)
    assert "d2" not in repaired and "d0" not in repaired


def test_reused_cell_calls_are_drawn_beside_their_neighbours():
    # one ReLU cell called after each conv: its scope holds three unconnected calls
    nodes = [Node(id="x", op="Parameter", kind="input")]
    prev = "x"
    for i in range(3):
        nodes.append(op(f"c{i}", f"Default/conv{i}-Conv2d/Conv2D-op0", [prev]))
        nodes.append(op(f"r{i}", f"Default/relu-ReLU/ReLU-op{i}", [f"c{i}"]))
        prev = f"r{i}"
    repaired = repair_scopes(Graph(name="reuse", nodes=nodes))
    assert repaired == {"r0": "Default", "r1": "Default", "r2": "Default"}


def test_a_multi_op_cell_stays_a_group():
    nodes = [
        Node(id="x", op="Parameter", kind="input"),
        op("m", "Default/fc-Dense/MatMul-op0", ["x"]),
        op("b", "Default/fc-Dense/BiasAdd-op0", ["m"]),
        op("m2", "Default/fc-Dense/MatMul-op1", ["b"]),
        op("b2", "Default/fc-Dense/BiasAdd-op1", ["m2"]),
    ]
    assert repair_scopes(Graph(name="dense", nodes=nodes)) == {}


def test_fused_kernel_call_is_drawn_where_its_neighbours_are():
    block = f"{SEQ}/3-Block"
    nodes = [
        Node(id="x", op="Parameter", kind="input"),
        op("c1", f"{block}/conv1-Conv2d/Conv2D-op0", ["x"]),
        Node(
            id="f",
            op="Fused_ReLU",
            kind="call",
            name="Default/Fused_ReLU-op7",
            scope="Default",
            inputs=["c1"],
        ),
        op("c2", f"{block}/conv2-Conv2d/Conv2D-op0", ["f"]),
    ]
    assert repair_scopes(Graph(name="fused", nodes=nodes)) == {"f": block}


def test_expander_ops_are_placed_and_do_not_cut_the_data_flow():
    # Softmax's only neighbours are ops MindSpore's expander named "Expand/..."
    nodes = [Node(id="x", op="Parameter", kind="input")]
    for b in range(3):
        blk = f"{SEQ}/{b}-Block/attn-Attention"
        nodes += [
            op(f"q{b}", f"{blk}/q-Dense/MatMul-op0", [nodes[-1].id]),
            op(f"mm{b}", f"Expand/_MatMulExt/BatchMatMul-op{b}", [f"q{b}"]),
            op(f"s{b}", f"{SEQ}/0-Block/attn-Attention/Softmax-op{b}", [f"mm{b}"]),
            op(f"o{b}", f"{blk}/o-Dense/MatMul-op0", [f"s{b}"]),
        ]
    graph = Graph(name="attn", nodes=nodes)
    for b in range(3):
        assert drawn(graph, f"s{b}") == f"{SEQ}/{b}-Block/attn-Attention"
        assert drawn(graph, f"mm{b}") == f"{SEQ}/{b}-Block/attn-Attention"


def test_neighbours_are_bridged_through_bookkeeping():
    nodes = [
        Node(id="x", op="Parameter", kind="input"),
        op("bn", "Default/bn-BatchNorm2d/BatchNorm-op0", ["x"]),
        op("t", "Default/TupleGetItem-op0", ["bn", "x"]),
        op("r", "Default/relu-ReLU/ReLU-op0", ["t"]),
    ]
    preds, succs = data_neighbours(Graph(name="bn", nodes=nodes))
    assert preds["r"] == ["bn"] and succs["bn"] == ["r"] and "t" not in preds


def test_recorded_lenet_reused_relu_and_pool_calls_join_the_net():
    graph = parse_ir_file(IR_DIR / "lenet" / "graph_build_0_0094.ir")
    repaired = repair_scopes(graph)
    relus = [n for n in graph.kernels if n.op == "ReLU"]
    assert len(relus) == 4 and all(repaired[n.id] == "Default" for n in relus)
    convs = [n for n in graph.kernels if n.op == "Conv2D"]
    assert convs and not any(n.id in repaired for n in convs)


def test_recorded_control_flow_expander_op_joins_the_net():
    graph = parse_ir_file(IR_DIR / "control_flow" / "graph_build_0_0098.ir")
    repaired = repair_scopes(graph)
    expanded = [n for n in graph.kernels if (n.scope or "").startswith("Expand")]
    assert expanded and all(repaired[n.id].startswith("Default") for n in expanded)


class _OnePassTrace:
    """The part of a Trace a view's pass callback uses: to_payload, snapshot and diff."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def to_payload(self, passes: str = "changed", memory: bool = True):
        from ascend_lab.payload.build import add_graph
        from ascend_lab.payload.schema import SCHEMA_ID

        graphs: dict = {}
        add_graph(graphs, "final", self.graph)
        return {
            "schema": SCHEMA_ID,
            "meta": {"title": "stack"},
            "graphs": graphs,
            "views": {"main": "final", "before": None, "after": "final"},
            "passes": [],
            "fusion": None,
            "memory": None,
        }

    def snapshot(self, index: int) -> Graph:
        return self.graph

    def diff(self, index: int):
        return None


def test_pass_snapshots_asked_for_by_a_view_carry_the_repaired_scopes_too():
    """The main views and a pass opened later (the notebook widget's callback) draw a
    node in the same place."""
    from ascend_lab.payload.view_input import payload_for_view

    trace = _OnePassTrace(residual_stack(4))
    payload, snapshot = payload_for_view(trace)
    assert snapshot is not None
    in_view = {n["id"]: n.get("repaired_scope") for n in payload["graphs"]["final"]["nodes"]}
    in_pass = {n["id"]: n.get("repaired_scope") for n in snapshot(0)["nodes"]}
    assert in_pass == in_view
    assert in_pass["a3"] == f"{SEQ}/3-Block"


LIST = "Default/blocks-CellList"


def rotary_decoder(blocks: int, helper_scope: str = "Default") -> Graph:
    """Decoder blocks whose ``rotate_half`` helper ops (StridedSlice -> Neg -> Concat) come
    out scoped to ``helper_scope``, a parent of the blocks, as in issue #27."""
    nodes: List[Node] = [Node(id="x", op="Parameter", kind="input", name="x")]
    nodes.append(op("emb", "Default/embed-Embedding/Gather-op0", ["x"]))
    prev = "emb"
    for b in range(blocks):
        attn = f"{LIST}/{b}-Block/attn-Attention"
        nodes += [
            op(f"q{b}", f"{attn}/q_proj-Dense/MatMul-op0", [prev]),
            op(f"t{b}", f"{attn}/Transpose-op0", [f"q{b}"]),
            op(f"s{b}", f"{helper_scope}/StridedSlice-op{b}", [f"t{b}"]),
            op(f"n{b}", f"{helper_scope}/Neg-op{b}", [f"s{b}"]),
            op(f"k{b}", f"{helper_scope}/Concat-op{b}", [f"n{b}", f"s{b}"]),
            op(f"m{b}", f"{attn}/Mul-op0", [f"k{b}", f"t{b}"]),
            op(f"o{b}", f"{attn}/o_proj-Dense/MatMul-op0", [f"m{b}"]),
            op(f"a{b}", f"{LIST}/{b}-Block/Add-op0", [f"o{b}", prev]),
        ]
        prev = f"a{b}"
    nodes.append(op("head", "Default/lm_head-Dense/MatMul-op0", [prev]))
    return Graph(name="rotary", nodes=nodes)


def test_helper_function_ops_scoped_to_a_parent_join_the_block_they_flow_through():
    graph = rotary_decoder(6)
    repaired = repair_scopes(graph)
    for b in range(6):
        for nid in (f"s{b}", f"n{b}", f"k{b}"):
            assert repaired[nid] == f"{LIST}/{b}-Block/attn-Attention", nid
    # ops that were right stay; the net's own ops outside the blocks stay
    assert "q3" not in repaired and "emb" not in repaired and "head" not in repaired


def test_helper_ops_scoped_to_the_list_itself_join_their_block_too():
    graph = rotary_decoder(4, helper_scope=LIST)
    repaired = repair_scopes(graph)
    assert [repaired[f"k{b}"] for b in range(4)] == [
        f"{LIST}/{b}-Block/attn-Attention" for b in range(4)
    ]


def test_an_op_between_blocks_joins_the_block_it_reads_from():
    # written in the parent's loop: reads block k, feeds block k + 1
    graph = residual_stack(3)
    graph.nodes.insert(4, op("between", "Default/Mul-op0", ["r0"]))
    block1 = graph.node("c1")
    block1.inputs = ["between"]
    repaired = repair_scopes(graph)
    assert repaired["between"] == f"{SEQ}/0-Block"


def test_a_parent_op_reading_two_blocks_or_the_net_input_stays_in_the_parent():
    graph = rotary_decoder(3)
    graph.nodes.append(op("mix", "Default/Add-op99", ["o0", "o2"]))
    graph.nodes.append(op("pre", "Default/Mul-op98", ["emb"]))
    graph.nodes.append(op("skip", "Default/Mul-op97", ["o0"]))
    graph.node("a2").inputs.append("skip")  # block 0 -> block 2 is not k or k + 1
    repaired = repair_scopes(graph)
    assert "mix" not in repaired and "pre" not in repaired and "skip" not in repaired

"""Lifetimes over hand-built kernel graphs: sizes, steps, sharing, exclusions."""

from ascend_lab.analysis.lifetimes import align_up, lifetimes, op_name, problem_from_intervals
from ascend_lab.memory import plan_graph, validate
from ascend_lab.model.graph import Graph, Node, TensorType
from tests.memory.graphs import chain, op, param, ret, t


def by_id(problem):
    return {x.id: x for x in problem.tensors}


def test_align_up():
    assert align_up(1, 512) == 512
    assert align_up(512, 512) == 512
    assert align_up(513, 512) == 1024
    assert align_up(7, 1) == 7
    assert op_name("PrimFunc_BiasAdd") == "BiasAdd"


def test_chain_lifetimes_sizes_and_persistent_output():
    # x(1x8x16x16 f32 = 8192 B) -> ReLU -> ReLU -> ReLU (returned)
    g = chain([(1, 8, 16, 16), (1, 8, 16, 16), (1, 8, 16, 16)])
    p = lifetimes(g, alignment=512)
    ts = by_id(p)
    assert sorted(ts) == ["%0:0", "%1:0"]  # %2 is the graph output: persistent
    assert (ts["%0:0"].start, ts["%0:0"].end) == (0, 1)
    assert (ts["%1:0"].start, ts["%1:0"].end) == (1, 2)
    assert ts["%0:0"].size == 8192 and ts["%0:0"].nbytes == 8192
    assert ts["%0:0"].label == "ReLU (Default)"
    kinds = {q.id: q.kind for q in p.persistent}
    assert kinds == {"%x:0": "input", "%2:0": "output"}
    assert p.persistent_bytes == 2 * 8192
    assert p.steps == 3
    assert p.live_bytes() == [8192, 16384, 8192]
    assert p.lower_bound == 16384


def test_alignment_rounds_every_tensor_up():
    g = chain([(3,), (5,), (7,)])  # 12, 20, 28 bytes
    p = lifetimes(g, alignment=512)
    assert [x.size for x in p.tensors] == [512, 512]
    assert [x.nbytes for x in p.tensors] == [12, 20]
    p1 = lifetimes(g, alignment=1)
    assert [x.size for x in p1.tensors] == [12, 20]


def test_unconsumed_tensor_lives_only_at_its_step():
    nodes = [
        param("%x", 4, 4, kind="input"),
        op("%0", "ReLU", ["%x"], [t(4, 4)]),
        op("%1", "Sigmoid", ["%x"], [t(4, 4)]),  # nobody reads it
        op("%2", "Neg", ["%0"], [t(4, 4)]),
    ] + ret("%mt", ["%2"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    ts = by_id(p)
    assert (ts["%1:0"].start, ts["%1:0"].end) == (1, 1)
    assert (ts["%0:0"].start, ts["%0:0"].end) == (0, 2)


def test_views_share_memory_and_extend_the_source_lifetime():
    nodes = [
        param("%x", 2, 8, kind="input"),
        op("%0", "ReLU", ["%x"], [t(2, 8)]),
        op("%1", "Reshape", ["%0", "%shape"], [t(16)]),
        op("%2", "PrimFunc_Flatten", ["%1"], [t(16)]),
        op("%3", "Neg", ["%x"], [t(2, 8)]),
        op("%4", "Mul", ["%2", "%3"], [t(16)]),
    ] + ret("%mt", ["%4"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    ts = by_id(p)
    assert sorted(ts) == ["%0:0", "%3:0"]  # no block for Reshape/Flatten outputs
    assert (ts["%0:0"].start, ts["%0:0"].end) == (0, 4)  # read through the views at step 4
    assert p.shared == 2
    assert any("share their source" in n for n in p.notes)


def test_view_of_a_graph_output_is_persistent_not_planned():
    nodes = [
        param("%x", 2, 8, kind="input"),
        op("%0", "ReLU", ["%x"], [t(2, 8)]),
        op("%1", "ExpandDims", ["%0", "%axis"], [t(1, 2, 8)]),
    ] + ret("%mt", ["%1"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    assert p.tensors == []
    assert [q.id for q in p.persistent if q.kind == "output"] == ["%0:0"]


def test_tuple_get_item_selects_one_output_of_a_multi_output_kernel():
    # BatchNorm -> 5 outputs; only output 0 is read (through TupleGetItem) by ReLU at step 1.
    nodes = [
        param("%x", 1, 8, 4, 4, kind="input"),
        param("%gamma", 8),
        param("%beta", 8),
        param("%mean", 8),
        param("%var", 8),
        op("%l3", "Load", ["%mean", "U"], [t(8)]),
        op("%l4", "Load", ["%var", "U"], [t(8)]),
        op(
            "%0",
            "PrimFunc_BatchNorm",
            ["%x", "%gamma", "%beta", "%l3", "%l4", "Bool(1)"],
            [t(1, 8, 4, 4), t(8), t(8), t(8), t(8)],
        ),
        op("%1", "TupleGetItem", ["%0", "I64(0)"], [t(1, 8, 4, 4)]),
        op("%2", "ReLU", ["%1"], [t(1, 8, 4, 4)]),
        op("%3", "Neg", ["%2"], [t(1, 8, 4, 4)]),
    ] + ret("%mt", ["%3"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    ts = by_id(p)
    # outputs 1/2 (moving statistics) are written back into the parameters: shared
    assert "%0:1" not in ts and "%0:2" not in ts
    assert (ts["%0:0"].start, ts["%0:0"].end) == (0, 1)
    assert (ts["%0:3"].start, ts["%0:3"].end) == (0, 0)  # reserve space: nobody reads it
    assert ts["%0:0"].size == 512
    assert p.steps == 3  # Load/TupleGetItem/MakeTuple/Return are not kernels


def test_tuple_get_item_index_from_a_constant_node_and_unreadable_index():
    nodes = [
        param("%x", 4, kind="input"),
        op("%0", "Split", ["%x"], [t(2), t(2)]),
        Node(id="%c", op="Constant", kind="constant", name="I64(1)"),
        op("%1", "TupleGetItem", ["%0", "%c"], [t(2)]),
        op("%2", "Neg", ["%1"], [t(2)]),
        op("%3", "TupleGetItem", ["%0"], [t(2)]),  # no index: conservative
        op("%4", "Neg", ["%2"], [t(2)]),
        op("%5", "Add", ["%3", "%4"], [t(2)]),
    ] + ret("%mt", ["%5"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    ts = by_id(p)
    assert ts["%0:1"].end == 3  # read by Add through the index-less TupleGetItem
    assert ts["%0:0"].end == 3
    assert any("unreadable index" in n for n in p.notes)


def test_assign_output_shares_the_parameter_and_depend_passes_through():
    nodes = [
        param("%x", 4, kind="input"),
        param("%w", 4),
        op("%0", "Mul", ["%x", "%w"], [t(4)]),
        op("%1", "Assign", ["%w", "%0", "U"], [t(4)]),
        op("%2", "Depend", ["%0", "%1"], [t(4)]),
        op("%3", "Neg", ["%2"], [t(4)]),
    ] + ret("%mt", ["%3"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    ts = by_id(p)
    assert sorted(ts) == ["%0:0"]  # Assign writes into %w; Depend is bookkeeping
    assert (ts["%0:0"].start, ts["%0:0"].end) == (0, 2)
    assert p.steps == 3


def test_fused_subgraph_internals_are_not_allocated():
    sub = Graph(
        name="_anonymous_1",
        attrs={"info_name": "Fused_BiasAdd_ReLU_fusion_9780523479327703872"},
        nodes=[
            param("%p0", 1, 84),
            param("%p1", 84),
            op("%0", "PrimFunc_Add", ["%p0", "%p1"], [t(1, 84)]),
            op("%1", "PrimFunc_Maximum", ["%0", "0"], [t(1, 84)]),
            op("%r", "Return", ["%1"], []),
        ],
    )
    nodes = [
        param("%x", 1, 120, kind="input"),
        param("%w", 84, 120),
        param("%b", 84),
        op("%0", "MatMul", ["%x", "%w"], [t(1, 84)]),
        op("%1", "call", ["%0", "%b"], [t(1, 84)], kind="call", subgraph="_anonymous_1"),
        op("%2", "Neg", ["%1"], [t(1, 84)]),
    ] + ret("%mt", ["%2"])
    g = Graph("fused", nodes=nodes, subgraphs={"_anonymous_1": sub})
    p = lifetimes(g, alignment=512)
    ts = by_id(p)
    assert sorted(ts) == ["%0:0", "%1:0"]
    assert ts["%1:0"].op == "Fused_BiasAdd_ReLU_fusion"
    assert p.fused_internal_tensors == 1  # the Add inside; Maximum's output is returned
    assert p.fused_internal_bytes == 512
    assert any("inside fused kernels" in n for n in p.notes)


def test_dynamic_unknown_and_zero_size_are_excluded_with_notes():
    nodes = [
        param("%x", -1, 3, kind="input"),
        op("%0", "ReLU", ["%x"], [t(-1, 3)]),
        op("%1", "Shape", ["%0"], [TensorType(dtype="Tuple", shape=(2,))]),
        op("%2", "Zeros", [], [t(0, 3)]),
        op("%3", "Neg", ["%2"], [t(4, 3)]),
        op("%4", "Add", ["%0", "%3"], [t(-1, 3)]),
    ] + ret("%mt", ["%4"])
    p = lifetimes(Graph("dyn", nodes), alignment=512)
    assert [x.id for x in p.tensors] == ["%3:0"]
    reasons = {e.id: e.reason for e in p.excluded}
    assert reasons["%0:0"].startswith("dynamic shape [-1, 3]")
    assert reasons["%1:0"].startswith("unknown dtype")
    assert reasons["%2:0"].startswith("size 0")
    assert reasons["%4:0"].startswith("dynamic")
    text = " ".join(p.notes)
    assert "SOMAS needs static shapes" in text
    assert "cannot be computed" in text and "need no memory" in text
    assert "Input x: size unknown" in text
    pl = plan_graph(Graph("dyn", nodes))
    assert pl.peak == 512 and validate(pl) == []


def test_graph_without_kernels_gives_an_empty_plan_with_a_note():
    g = Graph("empty", nodes=[param("%x", 4, kind="input")] + ret("%mt", ["%x"]))
    pl = plan_graph(g)
    assert pl.problem.tensors == [] and pl.peak == 0 and pl.lower_bound == 0
    assert pl.ratio is None and pl.strategy == "none"
    assert any("no kernels" in n for n in pl.notes)
    assert "no kernels" in pl.summary()
    assert plan_graph(Graph("nothing")).peak == 0


def test_problem_from_intervals_rejects_bad_input():
    import pytest

    with pytest.raises(ValueError, match="bad interval #1"):
        problem_from_intervals([(4, 0, 1), (4, 3, 2)])
    with pytest.raises(ValueError, match="alignment"):
        lifetimes(Graph("g"), alignment=0)


def test_optimizer_updates_share_the_parameter_and_inference_batchnorm_does_not():
    nodes = [
        param("%x", 1, 8, 4, 4, kind="input"),
        param("%w", 8),
        param("%m", 8),
        param("%mean", 8),
        param("%var", 8),
        op("%0", "Square", ["%w"], [t(8)]),
        op("%1", "ApplyMomentum", ["%w", "%m", "%lr", "%0", "%mom"], [t(8)]),
        # what the parser makes of ``Bool(0)``: a constant node with its text in attrs
        Node(id="%2#5", op="Constant", kind="constant", attrs={"value": "Bool(0)"}),
        op(
            "%2",
            "BatchNorm",
            ["%x", "%w", "%w", "%mean", "%var", "%2#5"],
            [t(1, 8, 4, 4), t(8), t(8), t(8), t(8)],
        ),
        op("%3", "TupleGetItem", ["%2", "%3#1"], [t(1, 8, 4, 4)]),
        Node(id="%3#1", op="Constant", kind="constant", attrs={"value": "I64(0)"}),
        op("%4", "ReLU", ["%3"], [t(1, 8, 4, 4)]),
    ] + ret("%mt", ["%4"])
    p = lifetimes(Graph("g", nodes), alignment=1)
    ts = by_id(p)
    assert "%1:0" not in ts  # ApplyMomentum updates %w in place
    assert sorted(i for i in ts if i.startswith("%2:")) == ["%2:0", "%2:1", "%2:2", "%2:3", "%2:4"]
    assert (ts["%2:0"].start, ts["%2:0"].end) == (2, 3)
    assert p.shared == 1


def test_long_pass_through_chains_do_not_recurse():
    n = 5000
    nodes = [param("%x", 4, kind="input"), op("%0", "ReLU", ["%x"], [t(4)])]
    prev = "%0"
    for i in range(n):
        kind = "Depend" if i % 2 else "Reshape"
        nodes.append(op(f"%d{i}", kind, [prev, "%x"], [t(4)]))
        prev = f"%d{i}"
    nodes.append(op("%last", "Neg", [prev], [t(4)]))
    nodes += ret("%mt", ["%last"])
    p = lifetimes(Graph("chain", nodes), alignment=1)
    ts = by_id(p)
    # Reshapes are kernels (steps) that share %0's memory; Neg reads %0 through them all.
    assert ts["%0:0"].start == 0 and ts["%0:0"].end == n // 2 + 1
    assert p.shared == n // 2


def test_lifetimes_rejects_what_is_not_a_graph():
    import pytest

    with pytest.raises(TypeError, match="expects an ascend_lab.model.graph.Graph"):
        lifetimes({"nodes": []})  # type: ignore[arg-type]

"""Alignment of two recorded kernel graphs (tests/fixtures/ir, tests/fixtures/ir-2.7).

The same nets dumped by MindSpore 2.10 and 2.7 must align node for node; LeNet without and
with graph-kernel fusion must pair each fused kernel with the ops it replaced.
"""

import os

from ascend_lab.analysis.align import align_graphs, name_key, normalise_name
from ascend_lab.analysis.fusion import build_fusion_map
from ascend_lab.comparison import compare
from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.payload import validate_payload

HERE = os.path.dirname(__file__)
IR = os.path.join(HERE, "..", "fixtures", "ir")
IR27 = os.path.join(HERE, "..", "fixtures", "ir-2.7")


def _graph(*parts: str) -> Graph:
    return parse_ir_file(os.path.join(*parts))


def _lenet_fusion():
    before = _graph(IR, "lenet_fusion", "hwopt_comm_after_kernel_select_kernel_graph0_0111.ir")
    after = _graph(IR, "lenet_fusion", "graph_build_0_0164.ir")
    fmap = build_fusion_map(before, after)
    fused = {k.kernel: [before.node(o) for o in k.originals] for k in fmap.kernels}
    return after, fused


def test_normalise_strips_op_numbering_in_every_segment():
    assert normalise_name("Default/conv1-Conv2d/Conv2D-op12") == "Default/conv1-Conv2d/Conv2D"
    assert normalise_name("Default/a-op3/B-op4") == "Default/a/B"
    assert normalise_name("Default/top-operator") == "Default/top-operator"


def test_lenet_210_against_27_aligns_every_node():
    a = _graph(IR27, "lenet", "graph_build_0_0090.ir")
    b = _graph(IR, "lenet", "graph_build_0_0094.ir")
    al = align_graphs(a, b)
    assert al.added == [] and al.removed == []
    assert al.changed == []
    # every non-constant node is paired with the node of the same full name (op numbers aside)
    for m in al.matches:
        (x,), (y,) = m.a, m.b
        assert name_key(a.node(x)) == name_key(b.node(y))
    # the four ReLUs share one name and one source line: structure tells them apart
    relus = [m for m in al.matches if a.node(m.a[0]).op == "ReLU"]
    assert len(relus) == 4
    assert {m.how for m in relus} == {"structure"}
    assert [(m.a[0], m.b[0]) for m in relus] == [
        ("%2", "%2"),
        ("%6", "%6"),
        ("%13", "%13"),
        ("%18", "%18"),
    ]


def test_conv_210_against_27():
    a = _graph(IR27, "conv", "graph_build_0_0090.ir")
    b = _graph(IR, "conv", "graph_build_0_0094.ir")
    al = align_graphs(a, b)
    kernels_a = {n.id for n in a.kernels}
    paired = {x for m in al.matches for x in m.a}
    assert kernels_a <= paired
    assert not [x for x in al.removed if a.node(x).is_kernel]
    assert not [y for y in al.added if b.node(y).is_kernel]


def test_lenet_against_lenet_fusion_pairs_kernels_with_their_originals():
    a = _graph(IR, "lenet", "graph_build_0_0094.ir")
    b, fused = _lenet_fusion()
    al = align_graphs(a, b, fused_b=fused)
    groups = {m.b: m.a for m in al.matches if m.how == "fusion"}
    ops = {k: [a.node(x).op for x in v] for k, v in groups.items()}
    assert ops == {
        ("%2",): ["ReLU"],
        ("%6",): ["ReLU"],
        ("%12",): ["BiasAdd", "ReLU"],
        ("%16",): ["BiasAdd", "ReLU"],
        ("%20",): ["BiasAdd"],
    }
    # the right ones: fc1's BiasAdd and the ReLU after it go into the first BiasAdd_ReLU
    assert groups[("%12",)] == ("%12", "%13")
    assert a.node("%12").name == "Default/fc1-Dense/BiasAdd-op0"
    assert al.added == []
    kernels_removed = [x for x in al.removed if a.node(x).is_kernel]
    assert kernels_removed == []
    for m in al.matches:
        if m.how == "fusion":
            assert m.changes["fusion"][1].startswith("Fused_")


def test_lenet_fusion_without_its_fusion_map_leaves_kernels_unpaired():
    a = _graph(IR, "lenet", "graph_build_0_0094.ir")
    b, _ = _lenet_fusion()
    al = align_graphs(a, b)
    assert not [m for m in al.matches if m.how == "fusion"]
    assert sorted(b.node(y).op for y in al.added) == sorted(
        [
            "Fused_ReLU",
            "Fused_ReLU",
            "Fused_BiasAdd_ReLU_fusion",
            "Fused_BiasAdd_ReLU_fusion",
            "Fused_BiasAdd",
        ]
    )
    assert [a.node(x).op for x in al.removed if a.node(x).is_kernel] == [
        "ReLU",
        "ReLU",
        "BiasAdd",
        "ReLU",
        "BiasAdd",
        "ReLU",
        "BiasAdd",
    ]


def test_fusion_on_both_sides_pairs_kernel_with_kernel():
    b, fused = _lenet_fusion()
    b2 = _graph(IR27, "lenet_fusion", "graph_build_0_0160.ir")
    al = align_graphs(b2, b, fused_b=fused)
    assert [y for y in al.added if b.node(y).is_kernel] == []
    assert {m.how for m in al.matches} <= {"source", "name", "structure"}


def _node(nid, op, name, inputs=(), dtype="Float32", shape=(1, 4)):
    return Node(nid, op, name=name, inputs=list(inputs), outputs=[TensorType(dtype, shape)])


def test_added_cast_and_changed_dtype():
    a = Graph(
        "a",
        [
            _node("%x", "Parameter", "x"),
            _node("%1", "ReLU", "Default/relu-ReLU/ReLU-op0", ["%x"]),
        ],
    )
    a.nodes[0].kind = "input"
    b = Graph(
        "b",
        [
            _node("%x", "Parameter", "x"),
            _node("%1", "Cast", "Default/Cast-op3", ["%x"], dtype="Float16"),
            _node("%2", "ReLU", "Default/relu-ReLU/ReLU-op7", ["%1"], dtype="Float16"),
        ],
    )
    b.nodes[0].kind = "input"
    al = align_graphs(a, b)
    assert al.added == ["%1"] and al.removed == []
    (relu,) = [m for m in al.matches if m.a == ("%1",)]
    assert relu.b == ("%2",)
    assert relu.changes == {"dtype": ("float32", "float16")}


def test_ambiguous_nodes_are_never_guessed():
    # two Adds with one name and no paired neighbour that tells them apart
    def graph(name):
        return Graph(
            name,
            [
                _node("%1", "Add", "Default/Add-op0"),
                _node("%2", "Add", "Default/Add-op1"),
            ],
        )

    al = align_graphs(graph("a"), graph("b"))
    assert al.matches == []
    assert al.added == ["%1", "%2"] and al.removed == ["%1", "%2"]


def test_comparison_payload_of_fixtures_is_valid_and_escaped_strings_stay_text():
    a = _graph(IR, "lenet", "graph_build_0_0094.ir")
    b, _ = _lenet_fusion()
    cmp = compare(a, b, titles=("<b>fp32</b>", "fused & on"))
    payload = cmp.to_payload()
    validate_payload(payload)
    assert payload["compare"]["titles"] == ["<b>fp32</b>", "fused & on"]
    page = cmp._repr_html_()
    assert "<b>fp32</b>" not in page and "&lt;b&gt;fp32&lt;/b&gt;" in page
    assert payload["compare"]["summary"]["kernels"] == [15, 13]


def _profile(folder):
    import json

    from ascend_lab.profiling.api import load_profile

    where = os.path.join(HERE, "..", "fixtures", "profile", folder)
    with open(os.path.join(where, "steps.json")) as f:
        windows = [tuple(w) for w in json.load(f)["windows_us"]]
    return load_profile(where, "ConvBNReLU", windows=windows)


def test_time_per_step_of_each_side_from_recorded_profiles():
    a = _graph(IR27, "conv", "graph_build_0_0090.ir")
    b = _graph(IR, "conv", "graph_build_0_0094.ir")
    pa, pb = _profile("cpu-2.7-convbnrelu"), _profile("cpu-2.10-convbnrelu")
    cmp = compare(a, b, titles=("2.7", "2.10"), profiles=(pa, pb))
    assert pa.mean_step_us and pb.mean_step_us and pa.mean_step_us != pb.mean_step_us
    assert (cmp.a.time_us, cmp.b.time_us) == (pa.mean_step_us, pb.mean_step_us)
    assert cmp.summary_dict()["time_us"] == [pa.mean_step_us, pb.mean_step_us]
    assert f"{pa.mean_step_us:.1f} us" in cmp.summary()
    validate_payload(cmp.to_payload())


def test_added_casts_between_ops_of_one_name_are_stepped_over():
    # AMP O2 puts a Cast before each cast cell: ops of one name (a decoder's repeated
    # blocks) then have no paired neighbour of their own, only the Casts in between
    def relus(ids, inputs, dtype):
        return [
            _node(i, "ReLU", "Default/relu-ReLU/ReLU-op0", [x], dtype=dtype)
            for i, x in zip(ids, inputs)
        ]

    a = Graph(
        "a",
        [_node("%x", "Parameter", "x")] + relus(["%1", "%2", "%3"], ["%x", "%1", "%2"], "Float32"),
    )
    b = Graph(
        "b",
        [
            _node("%x", "Parameter", "x"),
            _node("%c1", "Cast", "Default/Cast-op1", ["%x"], dtype="Float16"),
            *relus(["%1"], ["%c1"], "Float16"),
            _node("%c2", "Cast", "Default/Cast-op2", ["%1"], dtype="Float32"),
            _node("%c3", "Cast", "Default/Cast-op3", ["%c2"], dtype="Float16"),
            *relus(["%2", "%3"], ["%c3", "%2"], "Float16"),
        ],
    )
    for g in (a, b):
        g.nodes[0].kind = "input"
    al = align_graphs(a, b)
    assert al.removed == []
    assert al.added == ["%c1", "%c2", "%c3"]
    pairs = sorted((m.a, m.b) for m in al.matches if m.a != ("%x",))
    assert pairs == [(("%1",), ("%1",)), (("%2",), ("%2",)), (("%3",), ("%3",))]
    assert {m.changes.get("dtype") for m in al.matches if m.a != ("%x",)} == {
        ("float32", "float16")
    }


def test_stepping_over_casts_still_never_guesses():
    # two ReLUs of one name on the net's input, each behind its own Cast on B: nothing
    # tells them apart, so neither pairs (and the Casts stay added)
    def relu(nid, x, dtype):
        return _node(nid, "ReLU", "Default/relu-ReLU/ReLU-op0", [x], dtype=dtype)

    a = Graph(
        "a",
        [_node("%x", "Parameter", "x"), relu("%1", "%x", "Float32"), relu("%2", "%x", "Float32")],
    )
    b = Graph(
        "b",
        [
            _node("%x", "Parameter", "x"),
            _node("%c1", "Cast", "Default/Cast-op1", ["%x"], dtype="Float16"),
            _node("%c2", "Cast", "Default/Cast-op2", ["%x"], dtype="Float16"),
            relu("%1", "%c1", "Float16"),
            relu("%2", "%c2", "Float16"),
        ],
    )
    for g in (a, b):
        g.nodes[0].kind = "input"
    al = align_graphs(a, b)
    assert [m.a for m in al.matches] == [("%x",)]
    assert al.removed == ["%1", "%2"] and al.added == ["%c1", "%c2", "%1", "%2"]


def test_comparison_builds_its_payload_once_and_says_where_its_time_went(tmp_path):
    a = _graph(IR, "lenet", "graph_build_0_0094.ir")
    b, _ = _lenet_fusion()
    cmp = compare(a, b)
    assert set(cmp.seconds) == {"sides", "align"}
    assert all(s >= 0 for s in cmp.seconds.values())
    payload = cmp.to_payload()
    assert cmp.to_payload() is payload  # to_html and show after it reuse it
    assert "payload" in cmp.seconds
    page = cmp.to_html(str(tmp_path / "cmp.html"))
    assert '"compare"' in open(page, encoding="utf-8").read()
    assert cmp.show().payload is payload


def test_the_payload_built_once_is_kept_by_the_payload_floor_not_the_result():
    import gc
    import weakref

    from ascend_lab.payload import dispatch

    a = _graph(IR, "lenet", "graph_build_0_0094.ir")
    b, _ = _lenet_fusion()
    cmp = compare(a, b)
    payload = cmp.to_payload()
    assert payload not in vars(cmp).values()  # the result carries no payload
    assert dispatch._COMPARISON_PAYLOADS[cmp] is payload
    gone = weakref.ref(cmp)
    del cmp
    gc.collect()
    assert gone() is None  # the cache does not keep a comparison alive
    assert payload not in dispatch._COMPARISON_PAYLOADS.values()


def test_a_change_is_named_by_op_scope_and_source_line_not_by_ids():
    def graph(name, relu_id, dtype, cast):
        x = _node("%x", "Parameter", "x")
        x.kind = "input"
        nodes = [x]
        if cast:
            nodes.append(_node("%1", "Cast", "Default/Cast-op3", ["%x"], dtype=dtype))
        relu = _node(relu_id, "ReLU", "Default/relu-ReLU/ReLU-op0", [nodes[-1].id], dtype=dtype)
        relu.scope = "Default/relu-ReLU"
        relu.source = [
            "/usr/lib/python3/site-packages/mindspore/nn/layer/activation.py:730",
            "/home/me/course_nets.py:57",
        ]
        return Graph(name, nodes + [relu])

    cmp = compare(graph("a", "%4", "Float32", False), graph("b", "%7", "Float16", True))
    (change,) = cmp.changed
    assert (change.a, change.b) == (("%4",), ("%7",))  # the ids stay in the data
    label = "ReLU [Default/relu-ReLU] course_nets.py:57"
    assert change.labels == (label, label)
    assert repr(change) == f"<{change.how}: {label} -> {label}: dtype float32 -> float16>"
    assert "%4" not in cmp._repr_html_() and "course_nets.py:57" in cmp._repr_html_()


def test_a_net_wrapped_by_mindspores_amp_is_named_by_the_users_net():
    from ascend_lab.tracing.api import net_title

    class ConvBNReLU:  # stands for the user's Cell
        pass

    class _OutputTo32:  # the class amp.auto_mixed_precision returns (MindSpore 2.x)
        def __init__(self, backbone):
            self._backbone = backbone

    assert net_title(ConvBNReLU()) == "ConvBNReLU"
    assert net_title(_OutputTo32(ConvBNReLU())) == "ConvBNReLU (mixed precision)"


def test_a_dynamic_side_says_its_peak_leaves_out_tensors_of_unknown_size():
    static = Graph("s", [_node("%x", "Parameter", "x"), _node("%1", "ReLU", "r", ["%x"])])
    dynamic = Graph(
        "d", [_node("%x", "Parameter", "x"), _node("%1", "ReLU", "r", ["%x"], shape=(-1, 4))]
    )
    for g in (static, dynamic):
        g.nodes[0].kind = "input"
    cmp = compare(static, dynamic)
    assert (cmp.a.unknown_sizes, cmp.b.unknown_sizes) == (0, 1)
    assert cmp.summary().splitlines()[-1] == (
        "  memory peak counts only tensors of known size; not counted: B 1 (dynamic shapes)"
    )
    assert compare(static, static).peak_note() == ""

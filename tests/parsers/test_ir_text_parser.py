"""parse_ir_text / read_ir_header on real MindSpore dumps (tests/fixtures/ir) and synthetic text."""

import re

import pytest

from ascend_lab.model.graph import TensorType
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.ir.ir_text import NOTES_ATTR, parse_ir_file, parse_ir_text, read_ir_header
from ascend_lab.parsers.ir.ir_values import parse_type, split_top
from tests.support.ir_fixtures import all_ir_fixtures, fixture, source_line


@pytest.fixture(scope="module")
def conv_build():
    return parse_ir_file(fixture("conv/graph_build_*.ir"))


@pytest.fixture(scope="module")
def fused_build():
    return parse_ir_file(fixture("lenet_fusion/graph_build_*.ir"))


def by_op(graph, op):
    return [n for n in graph.nodes if n.op == op]


# ---------------------------------------------------------------- the course's Conv2d net


def test_conv_node_types_scope_and_source(conv_build):
    (conv,) = by_op(conv_build, "Conv2D")
    assert conv.kind == "op"
    assert conv.name == "Default/conv-Conv2d/Conv2D-op0"
    assert conv.scope == "Default/conv-Conv2d"
    assert conv.outputs == [TensorType("Float32", (1, 8, 16, 16), "Float32", "DefaultFormat")]
    assert [t.shape for t in conv.input_types] == [(1, 3, 16, 16), (8, 3, 3, 3)]
    assert conv.inputs[0] == "%para7_x"
    assert conv.attrs["instance_name"] == "conv2d"
    assert conv.attrs["pad_mode"] == '"same"'
    assert conv.attrs["kernel_size"] == "(3, 3)"
    assert conv.attrs["cnode:checkpoint"] == "Bool(1)"
    assert conv.attrs["object_types"] == "(Tensor, Tensor) -> (Tensor)"
    # User file first, as printed: the construct definition, then the call line.
    assert conv.source[0].startswith("<FIXTURES>/nets.py:")
    assert source_line(conv.source[0]).strip() == "def construct(self, x):"
    assert "self.conv(x)" in source_line(conv.source[1])
    assert conv.source[2].startswith("<SITE_PACKAGES>/mindspore/nn/layer/conv.py:")
    assert len(conv.source) == 4


def test_conv_parameters_weights_vs_inputs(conv_build):
    params = {n.name: n for n in conv_build.parameters}
    assert set(params) == {
        "bn.gamma",
        "bn.beta",
        "bn.moving_mean",
        "bn.moving_variance",
        "conv.weight",
        "conv.bias",
        "x",
    }
    weight = params["conv.weight"]
    assert (weight.id, weight.kind, weight.op) == ("%para5_conv.weight", "parameter", "Parameter")
    assert weight.outputs[0].shape == (8, 3, 3, 3) and weight.outputs[0].dtype == "Float32"
    assert weight.attrs["is_weight"] == "true"
    x = params["x"]
    assert x.kind == "input"
    assert x.outputs[0] == TensorType("Float32", (1, 3, 16, 16), "Float32", "DefaultFormat")
    # Parameters open the graph, in the order printed.
    assert [n.kind for n in conv_build.nodes[:7]] == ["parameter"] * 6 + ["input"]


def test_conv_ops_constants_and_tuple_outputs(conv_build):
    (bias_add,) = by_op(conv_build, "BiasAdd")  # printed as PrimFunc_BiasAdd
    assert bias_add.inputs[:2] == ["%1", "%2"]
    const = conv_build.node(bias_add.inputs[2])
    assert const.kind == "constant" and const.op == "Constant"
    assert const.attrs["value"] == "I64(0)"
    assert const.outputs == [TensorType("Int64", (), "Int64", "DefaultFormat")]
    assert len(bias_add.inputs) == len(bias_add.input_types) == 3

    (bn,) = by_op(conv_build, "BatchNorm")
    assert [t.shape for t in bn.outputs] == [(1, 8, 16, 16), (8,), (8,), (8,), (8,)]
    assert {t.format for t in bn.outputs} == {"DefaultFormat"}
    values = [conv_build.node(i).attrs.get("value") for i in bn.inputs[5:]]
    assert values == ["Bool(0)", "F32(1e-05)", "F32(0.1)", "I64(0)"]
    assert bn.attrs["object_types"].endswith("-> (TupleUnfold)")

    (update,) = by_op(conv_build, "UpdateState")
    assert conv_build.node(update.inputs[0]).attrs["value"] == "UMonad[U]"
    assert update.outputs == [TensorType("UMonad", ())]


def test_conv_bookkeeping_kernels_and_steps(conv_build):
    book = {n.op for n in conv_build.nodes if n.bookkeeping}
    assert book == {"Load", "TupleGetItem", "MakeTuple", "UpdateState", "Depend", "Return"}
    kernels = conv_build.kernels
    assert [k.op for k in kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    assert [k.step for k in kernels] == [0, 1, 2, 3]
    assert all(n.step is None for n in conv_build.nodes if not n.is_kernel)
    ret = conv_build.nodes[-1]
    assert (ret.id, ret.op, ret.inputs) == ("return", "Return", ["%14"])
    assert ret.outputs == [TensorType("Float32", (1, 8, 16, 16))]


def test_conv_edges_and_counts_match_the_dump(conv_build):
    text = fixture("conv/graph_build_*.ir").read_text()
    header = read_ir_header(text)
    assert header["cnodes"] == 16 == len([n for n in conv_build.nodes if n.kind == "op"])
    edges = conv_build.edges()
    assert len(edges) == sum(len(n.inputs) for n in conv_build.nodes)
    # Every %N / %paraN reference in the node lines is an edge.
    refs = re.findall(r"(?<=[(, ])%(?:para\d+_[\w.]+|\d+)(?=[,)])", text.split("subgraph @")[-1])
    assert len([e for e in edges if "#" not in e[0]]) == len(refs)
    assert ("%1", "%3", 0) in edges and ("%para5_conv.weight", "%0", 0) in edges
    assert conv_build.name == "kernel_graph0" and conv_build.subgraphs == {}
    assert conv_build.attrs["total_params"] == "7"


def test_kernel_select_formats_present_after_kernel_select():
    g = parse_ir_file(fixture("conv/hwopt_comm_after_kernel_select_*.ir"))
    formats = {t.format for n in g.kernels for t in n.outputs}
    assert formats == {"DefaultFormat"}
    before = parse_ir_file(fixture("conv/opt_pass_*opt_a*.ir"))
    assert all(t.format is None for n in before.nodes for t in n.outputs)
    assert all(n.step is None for n in before.nodes)  # not a kernel graph


# ---------------------------------------------------------------- fusion (graph kernel)


def test_fused_graph_has_fused_subgraphs_and_calls(fused_build):
    infos = {name: g.attrs.get("info_name", "") for name, g in fused_build.subgraphs.items()}
    fused = [name for name, info in infos.items() if info.startswith("Fused_BiasAdd_ReLU_fusion")]
    assert len(fused) == 2
    calls = [n for n in fused_build.nodes if n.kind == "call"]
    assert {n.subgraph for n in calls} == set(fused_build.subgraphs)
    relu_calls = [n for n in calls if n.op == "Fused_BiasAdd_ReLU_fusion"]
    assert {n.subgraph for n in relu_calls} == set(fused)
    call = relu_calls[0]
    assert call.attrs["info_name"] == infos[call.subgraph]
    assert call.is_kernel and call.step is not None
    sub = fused_build.subgraphs[call.subgraph]
    assert sub.attrs["graph_kernel"] == "BiasAdd_ReLU_fusion"
    assert [n.op for n in sub.nodes if n.kind == "op"] == ["Add", "Maximum", "Return"]
    assert [n.kind for n in sub.nodes[:2]] == ["input", "input"]
    assert sub.nodes[0].outputs[0].dtype == "Float32"
    # The fused kernel replaced BiasAdd + ReLU: fewer kernels than the unfused LeNet.
    plain = parse_ir_file(fixture("lenet/graph_build_*.ir"))
    assert len(fused_build.kernels) < len(plain.kernels)
    assert not any(n.op == "BiasAdd" for n in fused_build.kernels)
    assert sum(n.op == "BiasAdd" for n in plain.kernels) == 3


def test_graph_kernel_verbose_stages_parse():
    files = sorted((fixture("lenet_fusion/graph_build_*.ir").parent).rglob("graph_kernel/*.ir"))
    assert len(files) == 3
    for f in files:
        g = parse_ir_file(f)
        assert g.name.startswith("kernel_graph")
        assert g.nodes


# ---------------------------------------------------------------- frontend graphs


def test_bootstrap_call_through_a_node_value():
    g = parse_ir_file(fixture("conv/00_bootstrap_*.ir"))
    assert [n.op for n in g.nodes if n.kind != "constant"][1:] == ["resolve", "call", "Return"]
    call = g.node("%1")
    assert call.kind == "call" and call.subgraph is None
    assert call.inputs == ["%0", "%para1_x"]  # %para1_Parameter_3 resolved by number
    assert g.node("%para1_x").outputs == [TensorType()]  # printed as <null>


def test_type_inference_closures_become_subgraphs():
    path = fixture("conv/01_type_inference_*.ir")
    g = parse_ir_file(path)
    header = read_ir_header(path)
    assert header["subgraphs_total"] == len(g.subgraphs) + 1
    assert header["subgraphs"][-1] == g.name or g.name in header["subgraphs"]
    calls = [n for sub in [g, *g.subgraphs.values()] for n in sub.nodes if n.subgraph]
    assert calls and all(n.subgraph in g.subgraphs for n in calls)
    convs = [n for sub in g.subgraphs.values() for n in sub.nodes if n.op == "Conv2D"]
    assert convs and convs[0].outputs[0].shape == (1, 8, 16, 16)
    # Closures read values of enclosing graphs: free-variable inputs, not constants.
    free = [n for sub in g.subgraphs.values() for n in sub.nodes if n.op == "FreeVariable"]
    gamma = [n for n in free if n.attrs["value"].endswith(":para4_bn.gamma)")]
    assert gamma and gamma[0].kind == "input"
    assert gamma[0].attrs["graph"] == g.name
    assert gamma[0].outputs == [TensorType("Float32", (8,))]
    assert gamma[0].scope == "Default/bn-BatchNorm2d"


@pytest.mark.parametrize("path", all_ir_fixtures(), ids=lambda p: p.parent.name + "/" + p.name)
def test_every_fixture_parses_and_matches_its_header(path):
    g = parse_ir_file(path)
    header = read_ir_header(path)
    graphs = [g, *g.subgraphs.values()]
    assert header["entry"] == g.name
    assert sorted(header["subgraphs"]) == sorted(x.name for x in graphs)
    assert header["subgraphs_total"] == len(graphs)
    cnodes = sum(1 for x in graphs for n in x.nodes if n.kind in ("op", "call"))
    assert cnodes == header["cnodes"]
    for x in graphs:
        ids = {n.id for n in x.nodes}
        assert len(ids) == len(x.nodes)
        assert all(i in ids for n in x.nodes for i in n.inputs), x.name
    kernel_file = "graph_build" in path.name or "kernel_graph" in path.name
    assert header["kernel_graph"] == (kernel_file or path.parent.name == "graph_kernel")
    assert header["info_names"] == {
        name: sub.attrs["info_name"]
        for name, sub in g.subgraphs.items()
        if "info_name" in sub.attrs
    }


def test_header_is_cheap_and_accepts_text_or_path():
    path = fixture("lenet_fusion/graph_build_*.ir")
    from_path = read_ir_header(path)
    from_text = read_ir_header(path.read_text())
    assert from_path["file"] == str(path) and from_text["file"] is None
    del from_path["file"], from_text["file"]
    assert from_path == from_text
    assert from_path["entry"] == "kernel_graph0"
    assert (from_path["nodes"], from_path["cnodes"], from_path["params"]) == (104, 38, 9)
    assert sorted(from_path["info_names"].values())[0].startswith("Fused_BiasAdd_")


# ---------------------------------------------------------------- synthetic text

SYNTHETIC = """# IR entry: @g
# Total subgraphs: 1
# Params:
%para1_x: <Tensor[Float16], (-1, 3)> : [-1, 3]  :  IsWeight: false

subgraph @g() {
  %0(a) = PrimFunc_MyOp(%para1_x, (1, 2), "s, t") {instance name: my} primitive_attrs: {k: [a, (b, c)], s: "x, {y}", n: I64(2)} mystery: {z: 1} cnode_attrs: {q: Bool(1)}
      : (<Tensor[Float16], (-1, 3)>, <Tuple[Int64*2], TupleShape(NoShape, NoShape)>, <String, NoShape>) -> (<Tuple[Tensor[Float16], Tensor[Int32]], TupleShape((-1, 3), (-1))>)
      : (<Float16xNC1HWC0[const vector]{-1, 3}>, <Int64xDefaultFormat{}>, <Unknown>) -> (<Float16xNC1HWC0{-1, 3}>, <Int32xDefaultFormat{-1}>)
      # Scope: (Default/blk)
      # Something new: kept
  %1(b) = call @h(%0)
      : (<Weird[Thing], ???>) -> (<Q8, (2)>)
  Return(%1)
      : (<Q8, (2)>)
}
"""  # noqa: E501 (node lines are long in real dumps too)


def test_synthetic_unknowns_are_kept_as_text():
    g = parse_ir_text(SYNTHETIC, "mem.ir")
    op = g.node("%0")
    assert op.op == "MyOp" and op.scope == "Default/blk" and op.name is None
    assert op.attrs["k"] == "[a, (b, c)]"
    assert op.attrs["s"] == '"x, {y}"'
    assert op.attrs["n"] == "I64(2)"
    assert op.attrs["mystery:z"] == "1"
    assert op.attrs["cnode:q"] == "Bool(1)"
    assert op.attrs["extra"] == "# Something new: kept"
    assert [g.node(i).attrs["value"] for i in op.inputs[1:]] == ["(1, 2)", '"s, t"']
    assert op.outputs == [
        TensorType("Float16", (-1, 3), "Float16", "NC1HWC0"),
        TensorType("Int32", (-1,), "Int32", "DefaultFormat"),
    ]
    assert op.outputs[0].is_dynamic and op.outputs[0].nbytes is None
    assert op.input_types[1].dtype == "Tuple[Int64*2]"
    assert g.node("%para1_x").kind == "input"
    call = g.node("%1")
    assert call.kind == "call" and call.subgraph == "h" and call.op == "call"
    assert call.input_types == [TensorType(dtype="Weird[Thing], ???")]
    assert call.outputs == [TensorType(dtype="Q8, (2)")]
    assert g.file == "mem.ir" and all(n.step is None for n in g.nodes)


def test_split_and_types_helpers():
    assert split_top('a, (b, c), "d, e", [f, {g, h}]') == ["a", "(b, c)", '"d, e"', "[f, {g, h}]"]
    assert split_top("") == []
    assert parse_type("Tuple[Tensor[Float32]*2], TupleShape((1), (2, 3))") == [
        TensorType("Float32", (1,)),
        TensorType("Float32", (2, 3)),
    ]
    assert parse_type("Ref[Tensor[BFloat16]], (4), ref_key=w") == [TensorType("BFloat16", (4,))]
    assert parse_type("Tensor[Float32], (), value=...") == [TensorType("Float32", ())]
    assert parse_type("null") == [TensorType()]


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("", 1, "no '# IR entry"),
        ("hello\nworld\n", 1, "no '# IR entry"),
        ("# IR entry: @g\n\nsubgraph @g() {\n  %0(a) = Add(%1\n", 4, "unbalanced"),
        ("# IR entry: @g\n\nsubgraph @h() {\n}\n", 4, "entry graph @g not found"),
        ("# IR entry: @g\nsubgraph @g() {\n      : (<Tensor[Float32], (1)>)\n}\n", 3, "outside"),
        ("# IR entry: @g\nsubgraph @g( {\n}\n", 2, "subgraph header"),
        # nothing readable: refused, saying why (issue #36: one odd line is only flagged)
        ("# IR entry: @g\nsubgraph @g() {\n  %0(a) = Add(((\n}\n", 3, "no node could be read"),
        ("funcgraph fg_1(\n    ) {\n    %1 = Odd((\n}\n", 3, "read: unbalanced parentheses"),
        ("funcgraph fg_1(\n    ) {\n}\n", 3, "no 'funcgraph' block has one"),
    ],
)
def test_bad_input_names_file_and_line(text, line, words):
    with pytest.raises(GraphParseError) as info:
        parse_ir_text(text, "bad.ir")
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.path, err.line) == ("bad.ir", line)
    assert words in str(err) and f"bad.ir:{line}" in str(err)


def test_truncated_real_dump_is_drawn_with_a_note():
    path = fixture("lenet_fusion/graph_build_*.ir")
    lines = path.read_text().splitlines(keepends=True)
    whole = parse_ir_text("".join(lines), str(path))
    cut = parse_ir_text("".join(lines[:120]), str(path))
    # the entry graph comes last: the cut file draws the last graph it printed, and says so
    notes = cut.attrs[NOTES_ATTR]
    assert "it looks truncated" in notes and "is not in the file" in notes
    assert 0 < len(cut.nodes) and cut.name != whole.name
    assert cut.name in whole.subgraphs


def test_a_file_ending_inside_its_entry_graph_draws_what_was_printed():
    g = parse_ir_text("# IR entry: @g\n\nsubgraph @g() {\n  %0(a) = Add(%1)\n", "cut.ir")
    assert [n.op for n in g.nodes] == ["Add"]
    assert g.attrs[NOTES_ATTR].startswith("the file ends inside @g (opened at line 3)")


def test_parse_ir_text_rejects_bytes():
    with pytest.raises(TypeError):
        parse_ir_text(b"# IR entry: @g")  # type: ignore[arg-type]


def test_control_flow_call_of_a_func_union():
    g = parse_ir_file(fixture("control_flow/opt_pass_*opt_a*.ir"))
    (call,) = [n for n in g.nodes if n.kind == "call"]
    assert call.attrs["callees"].startswith("@FuncUnion(@")
    assert call.subgraph in g.subgraphs and "✓" in call.subgraph
    assert call.inputs[0] == "%2" and g.node("%2").op == "Switch"
    branches = {
        ("then" if "✓" in name else "else"): [n.op for n in sub.kernels]
        for name, sub in g.subgraphs.items()
    }
    assert branches == {"then": ["MatMul", "BiasAdd"], "else": ["Muls"]}


def test_windows_line_endings():
    path = fixture("conv/graph_build_*.ir")
    text = path.read_text()
    crlf = parse_ir_text(text.replace("\n", "\r\n"))
    plain = parse_ir_text(text)
    assert [n.to_dict() for n in crlf.nodes] == [n.to_dict() for n in plain.nodes]


def test_entry_header_parameters_merge_with_the_params_section():
    text = (
        "# IR entry: @g\n# Params:\n"
        "%para1_x: <Tensor[Float32], (2)> : [2]  :  IsWeight: false\n"
        "%para2_w: <Ref[Tensor[Float32]], (2), ref_key=w, is_parameter>  :  has_default\n\n"
        "# Parameters: 1, (<Tensor[Float32], (2)>)\n"
        "subgraph @g(%para1_x) {\n"
        "  %0(y) = Mul(%para1_x, %para2_w)\n"
        "      : (<Tensor[Float32], (2)>, <Tensor[Float32], (2)>) -> (<Tensor[Float32], (2)>)\n"
        "  Return(%0)\n      : (<Tensor[Float32], (2)>)\n}\n"
    )
    g = parse_ir_text(text)
    assert [(n.id, n.kind) for n in g.parameters] == [
        ("%para1_x", "input"),
        ("%para2_w", "parameter"),
    ]
    assert g.node("%para1_x").attrs["runtime_shape"] == "[2]"
    assert g.edges() == [("%para1_x", "%0", 0), ("%para2_w", "%0", 1), ("%0", "return", 0)]


def test_unknown_lines_in_a_graph_body_are_kept_with_line_numbers():
    text = (
        "# IR entry: @g\nsubgraph @g() {\n  what is this\n"
        "  %0(a) = Neg(%0)\n@@ odd @@\n  Return(%0)\n}\n"
    )
    g = parse_ir_text(text, "new.ir")
    assert g.attrs["unparsed"] == "3: what is this\n5: @@ odd @@"
    assert [n.op for n in g.nodes] == ["Neg", "Return"]


def test_partial_and_direct_graph_calls():
    text = (
        "# IR entry: @main\n"
        "subgraph @body(%para2_y) {\n  Return(%para2_y)\n      : (<Int64, NoShape>)\n}\n"
        "subgraph @main(%para1_x) {\n"
        "  %0(p) = Partial(@body, %para1_x)\n"
        "      : (<Func, NoShape>, <Int64, NoShape>) -> (<Func, NoShape>)\n"
        "  %1(c) = @body(%para1_x)\n"
        "  %2(d) = %0()\n"
        "  Return(%2)\n}\n"
    )
    g = parse_ir_text(text)
    partial, direct, dynamic = g.node("%0"), g.node("%1"), g.node("%2")
    assert (partial.op, partial.kind, partial.subgraph) == ("Partial", "call", "body")
    assert g.node(partial.inputs[0]).attrs["value"] == "@body"
    assert partial.inputs[1] == "%para1_x"
    assert (direct.op, direct.kind, direct.subgraph, direct.inputs) == (
        "call",
        "call",
        "body",
        ["%para1_x"],
    )
    assert (dynamic.kind, dynamic.subgraph, dynamic.inputs) == ("call", None, ["%0"])
    assert list(g.subgraphs) == ["body"]
    assert g.subgraphs["body"].nodes[0].kind == "input"


def test_call_through_a_graph_parameter_printed_by_its_name():
    """A training step's type-inference dump (MindSpore 2.10, TrainOneStepCell) calls the
    gradient graph it was handed as a parameter, printed without its ``%paraN_`` prefix."""
    text = (
        "# IR entry: @125_UnpackCall_433\n"
        "subgraph @127_grad(%para3_a, %para4_b) {\n  Return(%para3_a)\n}\n"
        "subgraph @125_UnpackCall_433(%para199_Parameter_335, %para200_Parameter_332) {\n"
        "  %0(CNode_331) = TupleGetItem(%para200_Parameter_332, I64(0))\n"
        "  %1(CNode_333) = TupleGetItem(%para200_Parameter_332, I64(1))\n"
        "  %2(CNode_334) = Parameter_335[@@127_grad](%0, %1)\n"
        "      : (<Tensor[Float32], (2, 1, 32, 32)>, <Tensor[Int32], (2)>) -> (<Tuple[Tensor"
        "[Float32]*2], TupleShape((6, 1, 5, 5), (16, 6, 5, 5))>)\n"
        "      # Fullname with scope: (23)\n"
        "  Return(%2)\n}\n"
    )
    g = parse_ir_text(text)
    call = g.node("%2")
    assert (call.kind, call.op, call.subgraph) == ("call", "call", "127_grad")
    assert call.attrs["callees"] == "@@127_grad"
    # the parameter is resolved to the graph's input node
    assert call.inputs == ["%para199_Parameter_335", "%0", "%1"]
    assert [t.shape for t in call.input_types] == [(2, 1, 32, 32), (2,)]


@pytest.mark.parametrize("text", ["", "# not an IR file\n"])
def test_header_of_non_ir_text(text):
    with pytest.raises(GraphParseError) as info:
        read_ir_header(text)
    assert info.value.line == 1 and "IR entry" in str(info.value)

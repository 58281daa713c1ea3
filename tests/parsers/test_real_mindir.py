"""MindIR files written by MindSpore 1.1 to 2.5, from public repositories, verbatim
(tests/fixtures/real/mindir/, provenance in tests/fixtures/real/README.md).

Each file must yield the graph MindSpore's own ``mind_ir_pb2`` reads in it: the expected
ops, inputs and outputs below were read from the files with ``mind_ir_pb2``, and
``test_counts_equal_mind_ir_pb2`` checks every file against it where MindSpore is installed.
"""

from pathlib import Path

import pytest

from ascend_lab.cli import main
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.mindir.mindir import parse_mindir, parse_mindir_file
from ascend_lab.payload import validate_payload
from ascend_lab.viewfile import ViewFileError, payload_for_path

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "mindir"
ENCRYPTED = REAL / "ms1.1_add_encrypted.mindir"
READABLE = sorted(p for p in REAL.glob("*.mindir") if p != ENCRYPTED)
# this project's own recordings with MindSpore 2.7.0 and 2.10.0 (tests/fixtures/ir*/)
RECORDED = sorted(REAL.parents[1].glob("ir*/*/*.mindir"))

# file -> (model_version, main graph's ops in order, its inputs, what its output returns,
#          number of subgraphs (ModelProto.functions))
EXPECTED = {
    "ms1.1_add.mindir": ("1.1.0", ["Add"], ["x_", "y_"], "Add", 0),
    "ms1.1_relu_bprop.mindir": (
        "1.1.0",
        ["S-Prim-ReluGrad", "S-Prim-MakeTuple"],
        ["x", "out", "dout"],
        "S-Prim-MakeTuple",
        0,
    ),
    "ms1.4_argmax_bprop.mindir": (
        "1.4.1",
        ["S-Prim-hyper_map[zeros_like_leaf]", "S-Prim-MakeTuple"],
        ["x", "out", "dout"],
        "S-Prim-MakeTuple",
        0,
    ),
    "ms1.5_relu.mindir": ("1.5.0rc1", ["ReLU"], ["x"], "ReLU", 0),
    "ms1.6_old_version.mindir": (
        "1.6.1",
        ["Transpose", "StridedSlice", "ExpandDims", "StridedSlice", "ExpandDims", "Load"]
        + ["Reshape", "Load", "Reshape", "Load", "Load", "Add", "Reshape", "MakeTuple"]
        + ["Concat", "LSTM", "TupleGetItem", "Transpose", "StridedSlice", "Load", "MatMul"]
        + ["Load", "BiasAdd", "Tanh", "MakeTuple", "UpdateState", "Depend"],
        ["inputs", "h", "c"],
        "Depend",
        0,
    ),
    "ms1.6_switch_bprop.mindir": (
        "1.6.0",
        ["S-Prim-hyper_map[zeros_like_leaf]"] * 2
        + ["S-Prim-Switch", "S-Prim-hyper_map[zeros_like_leaf]", "S-Prim-Switch"]
        + ["S-Prim-MakeTuple"],
        ["cond", "tb", "fb", "out", "dout"],
        "S-Prim-MakeTuple",
        0,
    ),
    "ms1.7_scatter_min_bprop.mindir": (
        "1.7.0",
        ["S-Prim-hyper_map[zeros_like_leaf]", "S-Prim-Gather", "S-Prim-MakeTuple"],
        ["x", "indices", "update", "out", "dout"],
        "S-Prim-MakeTuple",
        0,
    ),
    "ms1.8_scatter_update_bprop.mindir": (
        "1.8.0",
        ["S-Prim-hyper_map[zeros_like_leaf]", "S-Prim-Gather", "S-Prim-MakeTuple"],
        ["x", "indices", "update", "out", "dout"],
        "S-Prim-MakeTuple",
        0,
    ),
    "ms2.0_cast_bprop.mindir": ("2.0.0", ["call"], ["self", "x", "t", "out", "dout"], "call", 1),
    "ms2.0_ori_net.mindir": (
        "2.0.0",
        ["Load", "Conv2D", "ReLU", "MaxPool", "Load", "Conv2D", "ReLU", "MaxPool", "Flatten"]
        + ["MatMul", "ReLU", "MatMul", "ReLU", "MatMul", "MakeTuple", "UpdateState", "Depend"],
        ["x"],
        "Depend",
        0,
    ),
    "ms2.0_split_bprop.mindir": (
        "2.0.0",
        ["call", "getattr"],
        ["self", "x", "out", "dout"],
        "call",
        1,
    ),
    "ms2.5_celu_cast_v2.mindir": (
        "2.5.0",
        ["NonZero", "Shape", "TupleGetItem", "ScalarMul", "CeLU"],
        ["x", "y"],
        "CeLU",
        0,
    ),
    "ms2.5_upsample_tuple.mindir": ("2.5.0", ["UpsampleNearest3D"], ["x"], "UpsampleNearest3D", 0),
}


def _graphs(g):
    return [g, *g.subgraphs.values()]


def test_every_readable_fixture_has_an_expectation():
    assert sorted(EXPECTED) == [p.name for p in READABLE]
    assert len(RECORDED) == 5  # 2.7: conv, control_flow; 2.10: conv, control_flow, lenet


@pytest.mark.parametrize("path", READABLE, ids=lambda p: p.name)
def test_real_mindir_yields_its_graph(path):
    version, ops, inputs, returns, subgraphs = EXPECTED[path.name]
    g = parse_mindir_file(path)
    assert g.attrs["producer"] == f"MindSpore {version}"
    assert [n.op for n in g.nodes if n.kind in ("op", "call")] == ops
    assert [n.name for n in g.nodes if n.kind == "input" and n.op == "Parameter"] == inputs
    (out,) = [n for n in g.nodes if n.kind == "output"]
    assert g.node(out.inputs[0]).op == returns
    assert len(g.subgraphs) == subgraphs


@pytest.mark.parametrize("path", READABLE + RECORDED, ids=lambda p: p.parent.name + "/" + p.name)
def test_node_ids_are_unique_and_every_input_is_a_node(path):
    for g in _graphs(parse_mindir_file(path)):
        ids = [n.id for n in g.nodes]
        assert len(ids) == len(set(ids)), g.name
        assert all(i in set(ids) for n in g.nodes for i in n.inputs), g.name


@pytest.mark.parametrize("path", READABLE, ids=lambda p: p.name)
def test_the_view_payload_is_valid(path):
    validate_payload(payload_for_path(str(path)))


def test_a_graph_input_and_a_constant_of_one_short_name_are_two_nodes():
    """MindSpore 2.5: input ``30_17_fn_28:y`` and the Constant ``y`` (was: one id, and
    ``ascend-lab view`` ended in PayloadError "id 'y' is not unique")."""
    g = parse_mindir_file(REAL / "ms2.5_celu_cast_v2.mindir")
    (y_input,) = [n for n in g.nodes if n.kind == "input" and n.name == "y"]
    (mul,) = [n for n in g.nodes if n.op == "ScalarMul"]
    y_const = g.node(mul.inputs[1])
    assert (y_input.id, y_const.id, y_const.kind) == ("y", "y~2", "constant")
    (nonzero,) = [n for n in g.nodes if n.op == "NonZero"]
    assert nonzero.inputs == ["y"]


def test_mindspore_1_1_output_is_found_by_its_output_name():
    """1.1 names the graph's output ``<graph>:6:2``, the Add node's ``NodeProto.output``
    (the node itself is ``<graph>:5:1``)."""
    g = parse_mindir_file(REAL / "ms1.1_add.mindir")
    (add,) = [n for n in g.nodes if n.op == "Add"]
    assert add.inputs == ["x_", "y_"]
    (out,) = [n for n in g.nodes if n.kind == "output"]
    assert out.inputs == [add.id]


def test_meta_func_graph_and_class_type_references_are_ops():
    g = parse_mindir_file(REAL / "ms2.0_cast_bprop.mindir")
    (bprop,) = g.subgraphs.values()
    (cast,) = [n for n in bprop.nodes if n.op == "dout_cast"]
    assert cast.attrs["meta_func_graph"] == "dout_cast"
    # its inputs are the outer graph's dout and x (a closure)
    assert [bprop.node(i).attrs["value"] for i in cast.inputs] == [
        "get_bprop_cast.6:dout",
        "get_bprop_cast.6:x",
    ]
    split = parse_mindir_file(REAL / "ms2.0_split_bprop.mindir")
    (concat,) = [n for s in split.subgraphs.values() for n in s.nodes if n.op == "Concat"]
    assert concat.attrs["class_type"] == "mindspore.ops.operations.array_ops.Concat"


def test_an_encrypted_export_is_named_with_what_to_do():
    with pytest.raises(GraphParseError) as info:
        parse_mindir_file(ENCRYPTED)
    reason = info.value.reason
    assert reason.startswith("encrypted MindIR (AES-GCM")
    assert "dec_key=" in reason and "dec_mode='AES-GCM'" in reason and "enc_key" in reason
    with pytest.raises(ViewFileError, match="encrypted MindIR"):
        payload_for_path(str(ENCRYPTED))


def _prefixes(data, step):
    return [data[:n] for n in range(1, len(data), step)]


@pytest.mark.parametrize(
    "name", ["ms1.1_add.mindir", "ms2.0_cast_bprop.mindir", "ms2.5_celu_cast_v2.mindir"]
)
def test_every_cut_of_a_real_file_is_called_truncated(name):
    """Each cut is an error that says "truncated", except a cut that loses only the
    trailing ``mind_ir_version`` field: that one still draws the whole graph."""
    data = (REAL / name).read_bytes()
    whole = parse_mindir(data, name).to_dict()
    drawn = []
    for cut in _prefixes(data, 1):
        try:
            graph = parse_mindir(cut, name)
        except GraphParseError as exc:
            assert "truncated" in exc.reason, (len(cut), exc.reason)
            continue
        assert graph.to_dict() == whole and "mind_ir_version" not in graph.attrs
        drawn.append(len(data) - len(cut))
    assert drawn in ([], [2])


def test_a_file_cut_inside_its_graph_says_it_ends_early():
    data = (REAL / "ms2.0_ori_net.mindir").read_bytes()
    with pytest.raises(GraphParseError) as info:
        parse_mindir(data[: len(data) // 2], "ori_net.mindir")
    assert info.value.reason.startswith("truncated MindIR: the file ends early")


def test_a_bad_length_inside_the_graph_is_corrupt_not_truncated():
    # field 7 (graph) of 3 bytes whose node field claims 5: the file does not end early
    with pytest.raises(GraphParseError) as info:
        parse_mindir(b"\x3a\x03\x0a\x05abc\x12\x00", "x.mindir")
    assert info.value.reason.startswith("corrupt or truncated MindIR: field 1 claims 5 bytes")


@pytest.mark.parametrize("path", sorted(REAL.glob("*.mindir")), ids=lambda p: p.name)
def test_view_writes_a_page_and_never_a_traceback(path, tmp_path, capsys):
    out = tmp_path / "page.html"
    code = main(["view", str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    page = out.read_text(encoding="utf-8")
    if path == ENCRYPTED:
        assert code == 2 and "encrypted MindIR" in err and "encrypted MindIR" in page
    else:
        assert code == 0 and err == ""


@pytest.mark.mindspore
@pytest.mark.parametrize("path", READABLE + RECORDED, ids=lambda p: p.parent.name + "/" + p.name)
def test_counts_equal_mind_ir_pb2(path):
    """Per graph: nodes (Constant nodes apart), inputs, weights and outputs are what
    MindSpore's own generated mind_ir_pb2 reads; so is every primitive's op."""
    from ascend_lab.parsers.mindir.mindir import load_mind_ir_pb2

    model = load_mind_ir_pb2().ModelProto()
    model.ParseFromString(path.read_bytes())
    g = parse_mindir_file(path)
    ours = {x.name: x for x in _graphs(g)}
    assert sorted(ours) == sorted(gp.name for gp in [model.graph, *model.functions])
    prims = {p.name: p.op_type for p in model.primitives}
    for gp in [model.graph, *model.functions]:
        x = ours[gp.name]
        calls = [n for n in gp.node if n.op_type != "Constant"]
        assert len([n for n in x.nodes if n.kind in ("op", "call")]) == len(calls)
        assert len([n for n in x.nodes if n.kind == "parameter"]) == len(gp.parameter)
        real_inputs = [n for n in x.nodes if n.kind == "input" and n.op == "Parameter"]
        assert len(real_inputs) == len(gp.input)
        assert len([n for n in x.nodes if n.kind == "output"]) == len(gp.output)
        expected_prims = [
            prims.get(n.op_type[5:], n.op_type)
            for n in calls
            if not n.op_type.startswith("REF::") or n.op_type[5:] in prims
        ]
        ops = [n.op for n in x.nodes if n.kind in ("op", "call")]
        assert all(op in ops for op in expected_prims), (expected_prims, ops)


@pytest.mark.mindspore
@pytest.mark.parametrize("path", READABLE, ids=lambda p: p.name)
def test_builtin_decoder_equals_mind_ir_pb2_on_real_files(path):
    from tests.support.ir_fixtures import parsed_as_data

    builtin = parsed_as_data(parse_mindir_file(path, decoder="builtin"))
    assert builtin == parsed_as_data(parse_mindir_file(path, decoder="protobuf"))


def test_every_dtype_of_the_vendored_proto_has_a_mindspore_name():
    """Each TensorProto.DataType value (MindSpore 2.10's mind_ir.proto, QINT4X2 included)
    shows as the dtype name MindSpore prints, never as a bare ``dtype#<n>``."""
    from ascend_lab.parsers.mindir.mind_ir_fields import ENUMS
    from ascend_lab.parsers.mindir.mindir import _dtype

    codes = ENUMS["TensorProto.DataType"]
    names = {code: _dtype(code) for code in codes}
    assert names[0] is None  # UNDEFINED
    shown = [name for code, name in names.items() if code]
    assert all(name and name[0].isupper() and not name.isupper() for name in shown), names
    assert names[max(codes)] == "QInt4x2" and _dtype(max(codes) + 1) == f"dtype#{max(codes) + 1}"


@pytest.mark.mindspore
def test_the_builtin_decoder_is_the_default_where_mindspore_is_installed():
    """One decoder on every machine: parse_mindir never loads mind_ir_pb2 unless asked."""
    from tests.support.python import run_python

    code = (
        "import sys, importlib.util\n"
        "assert importlib.util.find_spec('mindspore') is not None\n"
        "from ascend_lab.parsers.mindir.mindir import parse_mindir_file\n"
        f"g = parse_mindir_file({str(REAL / 'ms2.0_ori_net.mindir')!r})\n"
        "print(len(g.nodes), '_ascend_lab_mind_ir_pb2' in sys.modules)\n"
    )
    assert run_python(code).stdout.split() == ["25", "False"]


@pytest.mark.parametrize("path", READABLE + RECORDED, ids=lambda p: p.parent.name + "/" + p.name)
def test_a_whole_file_is_not_called_truncated(path):
    from ascend_lab.parsers.mindir.mindir import check_not_truncated

    with open(path, "rb") as f:
        check_not_truncated(f, path.stat().st_size, str(path))


def test_view_calls_every_cut_of_a_real_file_truncated(tmp_path):
    """Through the viewer's path (the weight-skipping skeleton reader first)."""
    data = (REAL / "ms2.0_cast_bprop.mindir").read_bytes()
    cut_file = tmp_path / "cut.mindir"
    for n in range(1, len(data) - 2):  # the last 2 bytes are mind_ir_version (see above)
        cut_file.write_bytes(data[:n])
        with pytest.raises(ViewFileError) as info:
            payload_for_path(str(cut_file))
        assert "truncated" in str(info.value), (n, str(info.value))
    big = (REAL / "ms2.0_ori_net.mindir").read_bytes()
    cut_file.write_bytes(big[:120000])
    with pytest.raises(ViewFileError, match="the file is truncated: it ends at byte 120,000"):
        payload_for_path(str(cut_file))

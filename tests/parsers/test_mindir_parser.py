"""parse_mindir on files exported by ms.export (tests/fixtures/ir/*/*.mindir)."""

import pytest

from ascend_lab.model.graph import TensorType
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.parsers.mindir.mindir import parse_mindir, parse_mindir_file
from tests.support.ir_fixtures import FIXTURES, fixture
from tests.support.python import run_python

# The protobuf decoder needs MindSpore's generated mind_ir_pb2.py (not MindSpore itself).
DECODERS = [pytest.param("protobuf", marks=pytest.mark.mindspore), "builtin"]


@pytest.fixture(scope="module", params=DECODERS)
def conv(request):
    return parse_mindir_file(fixture("conv/conv.mindir"), decoder=request.param)


def test_conv_mindir_ops_params_and_outputs(conv):
    ops = [n.op for n in conv.nodes if n.kind == "op" and not n.bookkeeping]
    assert ops == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    params = {n.name: n for n in conv.nodes if n.kind == "parameter"}
    assert params["conv.weight"].outputs == [TensorType("Float32", (8, 3, 3, 3))]
    assert params["conv.weight"].attrs["bytes"] == str(8 * 3 * 3 * 3 * 4)
    assert set(params) == {
        "conv.weight",
        "conv.bias",
        "bn.gamma",
        "bn.beta",
        "bn.moving_mean",
        "bn.moving_variance",
    }
    (x,) = [n for n in conv.nodes if n.kind == "input"]
    assert (x.id, x.outputs) == ("x", [TensorType("Float32", (1, 3, 16, 16))])
    (out,) = [n for n in conv.nodes if n.kind == "output"]
    assert out.outputs == [TensorType("Float32", (1, 8, 16, 16))]
    assert conv.node(out.inputs[0]).op == "Depend"
    assert conv.attrs["producer"] == "MindSpore 2.10.0"


def test_conv_mindir_node_details(conv):
    (c,) = [n for n in conv.nodes if n.op == "Conv2D"]
    assert c.name == "Default/conv-Conv2d/Conv2D-op0" and c.scope == "Default/conv-Conv2d"
    assert c.outputs == [TensorType("Float32", (1, 8, 16, 16))]
    assert c.inputs[0] == "x" and conv.node(c.inputs[1]).op == "Load"
    assert c.input_types == [
        TensorType("Float32", (1, 3, 16, 16)),
        TensorType("Float32", (8, 3, 3, 3)),
    ]
    assert c.attrs["kernel_size"] == "(3, 3)"
    assert c.attrs["pad_mode"] == "same"
    assert c.attrs["input_names"] == "[x, w]"
    assert c.attrs["instance_name"] == "conv2d"
    (bn,) = [n for n in conv.nodes if n.op == "BatchNorm"]
    assert [t.shape for t in bn.outputs] == [(1, 8, 16, 16), (8,), (8,), (8,), (8,)]
    consts = {conv.node(i).attrs["value"] for i in bn.inputs[5:]}
    assert consts == {"false", "0", "9.999999747378752e-06", "0.10000000149011612"}
    monad = conv.node(conv.node(c.inputs[1]).inputs[1])
    assert monad.kind == "constant" and monad.outputs == [TensorType("UMonad", ())]
    ids = {n.id for n in conv.nodes}
    assert all(i in ids for n in conv.nodes for i in n.inputs)


def test_mindir_and_kernel_graph_agree():
    """The exported file and the compiled kernel graph hold the same kernels and shapes."""
    for net in ("conv", "lenet"):
        mindir = parse_mindir_file(fixture(f"{net}/{net}.mindir"))
        built = parse_ir_file(fixture(f"{net}/graph_build_*.ir"))
        assert [(n.op, n.outputs[0].shape) for n in mindir.kernels] == [
            (n.op, n.outputs[0].shape) for n in built.kernels
        ]
        m_params = {n.name: n.outputs[0].shape for n in mindir.parameters}
        b_params = {n.name: n.outputs[0].shape for n in built.parameters}
        assert m_params == b_params


def test_parsing_mindir_does_not_import_mindspore():
    code = (
        "import sys; from ascend_lab.parsers.mindir.mindir import parse_mindir_file; "
        f"g = parse_mindir_file({str(fixture('lenet/lenet.mindir'))!r}); "
        "assert len(g.kernels) == 15, len(g.kernels); "
        "print(sorted(m for m in sys.modules if m == 'mindspore' or m.startswith('mindspore.')))"
    )
    out = run_python(code)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "data, words",
    [
        (b"", "empty file"),
        (b"\x0a\xff\xff\xff\xff\x0f", "claims"),
        (b"\x0f", "unknown wire type"),
        (b"\x08\x01", "no graph"),
        (b"# IR entry: @kernel_graph0\n", "corrupt or truncated"),
    ],
)
def test_bad_mindir_bytes(data, words):
    with pytest.raises(GraphParseError) as info:
        parse_mindir(data, "x.mindir")
    assert words in str(info.value) and info.value.offset is not None
    assert str(info.value).startswith("x.mindir")


def test_mindir_renamed_reference_is_reported():
    data = fixture("conv/conv.mindir").read_bytes()
    broken = data.replace(b"REF::Conv2D:4", b"REF::Conv2X:4")
    assert broken != data
    with pytest.raises(GraphParseError, match="REF::Conv2X:4"):
        parse_mindir(broken, "conv.mindir")


def test_control_flow_mindir_functions_partial_and_shared_constants():
    g = parse_mindir_file(fixture("control_flow/control_flow.mindir"))
    assert len(g.subgraphs) == 2
    partials = [n for n in g.nodes if n.op == "Partial"]
    assert len(partials) == 2 and all(n.kind == "call" for n in partials)
    assert {n.subgraph for n in partials} == set(g.subgraphs)
    assert g.node(partials[0].inputs[0]).attrs["value"] == "@" + partials[0].subgraph
    # The branch result is called through the Switch's value.
    (switch,) = [n for n in g.nodes if n.op == "Switch"]
    (dynamic_call,) = [n for n in g.nodes if n.kind == "call" and n.op == "call"]
    assert dynamic_call.inputs == [switch.id]
    then = next(s for name, s in g.subgraphs.items() if "✓" in name)
    assert [n.op for n in then.kernels] == ["MatMul", "BiasAdd"]
    # A constant defined in the main graph and used in a branch is copied into the branch.
    (matmul,) = [n for n in then.nodes if n.op == "MatMul"]
    assert all(i in {n.id for n in then.nodes} for i in matmul.inputs)
    assert {then.node(i).kind for i in matmul.inputs[2:]} == {"constant"}
    assert [n.outputs for n in then.nodes if n.kind == "output"] == [
        [TensorType("Float32", (2, 4))]
    ]


def _everything(g):
    return [g.to_dict(), g.attrs] + [(k, s.to_dict(), s.attrs) for k, s in g.subgraphs.items()]


@pytest.mark.mindspore
@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.mindir")), ids=lambda p: p.name)
def test_builtin_decoder_matches_protobuf(path):
    assert _everything(parse_mindir_file(path, decoder="builtin")) == _everything(
        parse_mindir_file(path, decoder="protobuf")
    )


def test_without_mindspore_or_protobuf_the_builtin_decoder_is_used():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('mindspore', 'google'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from ascend_lab.parsers.mindir.mindir import MindIRUnavailable, parse_mindir_file\n"
        f"path = {str(fixture('lenet/lenet.mindir'))!r}\n"
        "print(len(parse_mindir_file(path).kernels))\n"
        "try:\n"
        "    parse_mindir_file(path, decoder='protobuf')\n"
        "except MindIRUnavailable as exc:\n"
        "    print(exc)\n"
    )
    out = run_python(code)
    kernels, message = out.stdout.strip().splitlines()
    assert kernels == "15"
    assert "MindSpore was not found" in message and "decoder='builtin'" in message


def test_unknown_decoder_name():
    with pytest.raises(ValueError, match="decoder"):
        parse_mindir(b"", decoder="fast")


@pytest.mark.mindspore
def test_builtin_schema_matches_mind_ir_proto():
    """The field table generated from the vendored mind_ir.proto has every message, field
    and enum value of the mind_ir_pb2 that the installed MindSpore ships."""
    from google.protobuf.descriptor import FieldDescriptor

    from ascend_lab.parsers.mindir.mind_ir_fields import ENUMS, MESSAGES
    from ascend_lab.parsers.mindir.mindir import load_mind_ir_pb2

    kinds = {"string": "str", "bytes": "bytes", "int64": "int", "int32": "int"}
    kinds.update({"uint64": "uint", "float": "float", "double": "double", "bool": "bool"})
    kinds.update({"enum": "enum", "message": "msg"})
    type_names = {}
    for key, value in vars(FieldDescriptor).items():
        if key.startswith("TYPE_"):
            type_names[value] = key[5:].lower()
    seen = set()
    enums_seen = set()
    todo = [load_mind_ir_pb2().ModelProto.DESCRIPTOR]
    while todo:
        d = todo.pop()
        if d.name in seen:
            continue
        seen.add(d.name)
        mine = MESSAGES[d.name]
        assert set(mine) == {f.number for f in d.fields}, d.name
        for f in d.fields:
            name, kind, repeated, sub = mine[f.number]
            assert (name, repeated) == (f.name, f.is_repeated), (d.name, f.name)
            assert kind == kinds[type_names[f.type]], (d.name, f.name, kind)
            if f.message_type is not None:
                assert sub == f.message_type.name
                todo.append(f.message_type)
            if f.enum_type is not None:
                assert sub.rsplit(".", 1)[-1] == f.enum_type.name, (d.name, f.name)
                assert ENUMS[sub] == {v.number: v.name for v in f.enum_type.values}, sub
                enums_seen.add(sub)
    assert seen == set(MESSAGES)
    # Every enum, also those no field uses (TensorProto.DataType is an int32 field's values).
    pb2 = load_mind_ir_pb2()
    for qualified, values in ENUMS.items():
        owner, _, name = qualified.rpartition(".")
        scope = getattr(pb2, owner).DESCRIPTOR if owner else pb2.DESCRIPTOR
        enum = scope.enum_types_by_name[name]
        assert values == {v.number: v.name for v in enum.values}, qualified
    assert enums_seen <= set(ENUMS)


def test_field_table_is_generated_from_the_vendored_proto():
    """mind_ir_fields.py is what scripts/generate_mind_ir_fields.py makes of mind_ir.proto."""
    out = run_python(
        "import runpy, sys; sys.argv = ['gen', '--check']; "
        "runpy.run_path('scripts/generate_mind_ir_fields.py', run_name='__main__')",
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "up to date" in out.stdout


def test_the_generator_reads_fields_maps_and_nested_types():
    import runpy

    from tests.support.ir_fixtures import FIXTURES

    gen = runpy.run_path(str(FIXTURES.parents[2] / "scripts" / "generate_mind_ir_fields.py"))
    messages, enums = gen["read_proto"](
        'syntax = "proto2";\n'
        "message A {  // a comment\n"
        "  enum Kind { X = 1; Y = 2; }\n"
        "  message B { optional int32 n = 3; }\n"
        "  repeated B bs = 1;\n"
        "  optional Kind kind = 2;\n"
        "  map<string,string> user_info = 7;\n"
        "  repeated uint64 u = 9;\n"
        "}\n"
    )
    assert messages == {
        "A": {
            1: ("bs", "msg", True, "B"),
            2: ("kind", "enum", False, "A.Kind"),
            7: ("user_info", "msg", True, "UserInfoEntry"),
            9: ("u", "uint", True, None),
        },
        "B": {3: ("n", "int", False, None)},
        "UserInfoEntry": {1: ("key", "str", False, None), 2: ("value", "str", False, None)},
    }
    assert enums == {"A.Kind": {1: "X", 2: "Y"}}
    with pytest.raises(gen["ProtoError"], match="unknown type"):
        gen["read_proto"]("message A { optional Missing m = 1; }")

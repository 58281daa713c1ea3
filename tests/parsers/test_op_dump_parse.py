"""The pure parts of capture="dump": dump file names, the join of files to the execution
order, producers from a kernel graph, op paths, op alignment and the first divergence over
op records. Names and text recorded from MindSpore 2.10.0 on CPU (tests/numerics/nets.py's
InlineSoftmax(half=True)); no MindSpore here."""

import os

import numpy as np
import pytest

from ascend_lab.analysis.numeric_compare import align_ops, find_divergence
from ascend_lab.capture.op_dump import load_dumped
from ascend_lab.model.graph import Graph, Node
from ascend_lab.model.numeric_records import OpRecord, SideRecord, op_path
from ascend_lab.model.tensor_stats import TensorStats
from ascend_lab.parsers import op_dump as parse

CSV = """NodeExecutionOrder-FullNameWithScope
Default/proj-Dense/MatMul-op0
Default/head-ScoreHead/Add-op0
Default/head-ScoreHead/Cast-op2
Default/head-ScoreHead/Softmax-op0
Default/head-ScoreHead/Cast-op3
"""
# what MindSpore wrote for that graph: its Casts numbered op0/op1, not the CSV's op2/op3
FILES = [
    "Add.Default_head-ScoreHead_Add-op0.0.0.1796226432201801.output.0.DefaultFormat.Float32.npy",
    "Cast.Default_head-ScoreHead_Cast-op1.0.0.1796226432202852.output.0.DefaultFormat.Float32.npy",
    "Cast.Default_head-ScoreHead_Cast-op0.0.0.1796226432202129.output.0.DefaultFormat.Float16.npy",
    "MatMul.Default_proj-Dense_MatMul-op0.0.0.1796226432195855.output.0.DefaultFormat.Float32.npy",
    "Parameter.proj_weight.0.0.1796226432204859.output.0.DefaultFormat.Float32.npy",
    "Softmax.Default_head-ScoreHead_Softmax-op0.0.0.1796226432202477.output.0.DefaultFormat.Float16.npy",
]


def test_file_names_split_into_their_fields():
    f = parse.parse_file_name(FILES[3])
    assert f is not None
    assert (f.op_type, f.flat_name, f.io, f.slot, f.format, f.dtype) == (
        "MatMul",
        "Default_proj-Dense_MatMul-op0",
        "output",
        0,
        "DefaultFormat",
        "Float32",
    )
    assert f.stamp == 1796226432195855
    for bad in ("x.npy", "cfg.json", "A.b.0.0.x.output.0.F.D.npy", "A.b.0.0.1.inout.0.F.D.npy", ""):
        assert parse.parse_file_name(bad) is None


def test_files_join_the_execution_order_by_scope_and_run_order_not_by_op_number():
    names = parse.read_execution_order(CSV)
    assert names[0] == "Default/proj-Dense/MatMul-op0" and len(names) == 5
    files = [f for f in map(parse.parse_file_name, FILES) if f is not None]
    joined = parse.join_files(names, [f for f in files if f.op_type != "Parameter"])
    assert [f.dtype for f in joined["Default/head-ScoreHead/Cast-op2"]] == ["Float16"]
    assert [f.dtype for f in joined["Default/head-ScoreHead/Cast-op3"]] == ["Float32"]
    assert joined["Default/head-ScoreHead/Softmax-op0"][0].op_type == "Softmax"
    # a count that differs is not guessed: no Cast is joined
    lone = parse.join_files(names, [f for f in files if "Cast-op1" not in f.flat_name])
    assert not any("Cast" in k for k in lone) and "Default/head-ScoreHead/Add-op0" in lone


def test_mapping_and_graph_ids():
    assert parse.read_mapping("1.npy,Very.long.name.npy\nbad\n") == {"1.npy": "Very.long.name.npy"}
    assert parse.graph_id("ms_execution_order_graph_12.csv", parse.CSV_PREFIX) == 12
    assert parse.graph_id("ms_global_execution_order_graph_0.csv", parse.CSV_PREFIX) is None


def test_producers_look_through_bookkeeping_and_stop_at_parameters():
    g = Graph(name="kernel_graph0")
    g.nodes = [
        Node("%para1_w", "Parameter", kind="parameter", name="w"),
        Node("%0", "Load", name="Default/Load-op0", inputs=["%para1_w", "%u"]),
        Node("%1", "MatMul", name="Default/fc-Dense/MatMul-op0", inputs=["%para2_x", "%0"]),
        Node("%2", "TupleGetItem", name="Default/TupleGetItem-op0", inputs=["%1", "%c"]),
        Node("%3", "Add", name="Default/Add-op0", inputs=["%2", "%1[0]"]),
    ]
    dumped = {"Default/fc-Dense/MatMul-op0", "Default/Add-op0"}
    assert parse.kernel_producers(g, dumped) == {
        "Default/fc-Dense/MatMul-op0": [],
        "Default/Add-op0": ["Default/fc-Dense/MatMul-op0"],
    }
    assert parse.user_source(["/u/a.py:3", "/x/site-packages/m.py:9"], ("site-packages",)) == (
        "/u/a.py:3"
    )
    assert parse.user_source([], ("site-packages",)) == ""


def test_op_paths():
    assert op_path("Default/fc1-Dense/MatMul-op0") == ("fc1/MatMul", "MatMul")
    assert op_path("Default/Softmax-op2") == ("Softmax", "Softmax")
    assert op_path("Expand/_Muls/Mul-op0") == ("Expand/_Muls/Mul", "Mul")
    amp = "Default/_backbone-Stack/blocks-CellList/0-Residual/norm-_OutputTo16/_backbone-LayerNorm"
    assert op_path(amp + "/LayerNorm-op0") == ("blocks.0.norm/LayerNorm", "LayerNorm")


def _side(name, ops):
    """ops: (path, op type, values, producers as indices)."""
    records = []
    calls = {}
    for i, (path, op, values, fed) in enumerate(ops):
        call = calls.get(path, 0)
        calls[path] = call + 1
        dtype = "Float16" if op == "Cast" else "Float32"
        stats = TensorStats(np.asarray(values, np.float32), dtype=dtype)
        rec = OpRecord(i, path, call, op, "Default/" + path, "", [], [stats], [])
        rec.producers = [records[j].key for j in fed]
        records.append(rec)
    return SideRecord(name, "op", records)


def test_one_sided_casts_are_unmatched_and_the_jump_is_the_op_itself():
    x = [1.0, 2.0, 3.0]
    a = _side("a", [("fc/MatMul", "MatMul", x, []), ("Softmax", "Softmax", x, [0])])
    b = _side(
        "b",
        [
            ("fc/MatMul", "MatMul", x, []),
            ("Cast", "Cast", x, [0]),
            ("Softmax", "Softmax", [1.0, 2.0, 4.0], [1]),
        ],
    )
    pairs, unmatched = align_ops(a, b)
    assert [p.label for p in pairs] == ["fc/MatMul", "Softmax"]
    assert [(u.side, u.record.label) for u in unmatched] == [("b", "Cast")]
    assert "Cast on this side only" in unmatched[0].reason
    first = find_divergence(pairs, side_a=a, side_b=b)
    assert first is not None and first.label == "Softmax"
    assert first.input_basis == "producers" and first.input_rel == 0.0
    # judged at the float16 floor: side b's Softmax reads a float16 Cast
    assert first.threshold == 1e-2


def test_ops_counted_differently_are_not_paired_by_position():
    x = [1.0, 2.0]
    a = _side("a", [("blk/Add", "Add", x, []), ("out/MatMul", "MatMul", x, [0])])
    b = _side(
        "b",
        [("blk/Add", "Add", x, []), ("blk/Add", "Add", x, [0]), ("out/MatMul", "MatMul", x, [1])],
    )
    pairs, unmatched = align_ops(a, b)
    assert [p.label for p in pairs] == ["out/MatMul"]
    assert sorted((u.side, u.record.label) for u in unmatched) == [
        ("a", "blk/Add"),
        ("b", "blk/Add"),
        ("b", "blk/Add#1"),
    ]
    assert all("a different number" in u.reason for u in unmatched)
    # a renamed Cell pairs through mapping
    c = _side("c", [("block/Add", "Add", x, []), ("out/MatMul", "MatMul", x, [0])])
    pairs, unmatched = align_ops(c, a, {"block": "blk"})
    assert len(pairs) == 2 and not unmatched


def test_an_error_inherited_from_producers_is_not_a_new_divergence():
    a = _side("a", [("p/MatMul", "MatMul", [1.0, 2.0], []), ("q/ReLU", "ReLU", [1.0, 2.0], [0])])
    b = _side("b", [("p/MatMul", "MatMul", [1.0, 2.5], []), ("q/ReLU", "ReLU", [1.0, 2.5], [0])])
    pairs, _ = align_ops(a, b)
    first = find_divergence(pairs, side_a=a, side_b=b)
    assert first is not None and first.label == "p/MatMul"
    relu = [p for p in pairs if p.label == "q/ReLU"][0]
    assert relu.input_rel == first.max_rel and not relu.diverged


def test_a_float16_header_over_float32_bytes_is_read_as_float32(tmp_path):
    good = tmp_path / "good.npy"
    np.save(good, np.arange(6, dtype=np.float16).reshape(2, 3))
    array, real = load_dumped(str(good))
    assert real == "" and array.dtype == np.float16 and array.shape == (2, 3)
    # what MindSpore's CPU dump writes for AMP's float32 MatMul: a float16 header, float32 data
    values = np.arange(6, dtype=np.float32).reshape(2, 3) * 1.5
    header = np.lib.format.header_data_from_array_1_0(values.astype(np.float16))
    lying = tmp_path / "lying.npy"
    with open(lying, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        fh.write(values.tobytes())
    array, real = load_dumped(str(lying))
    assert real == "Float32" and array.dtype == np.float32
    assert np.array_equal(array, values)
    short = tmp_path / "short.npy"
    with open(short, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        fh.write(b"\0" * 5)
    assert load_dumped(str(short)) is None


def test_without_a_kernel_graph_the_input_error_is_the_largest_before():
    a = _side("a", [("p/MatMul", "MatMul", [1.0, 2.0], []), ("q/ReLU", "ReLU", [1.0, 2.0], [])])
    b = _side("b", [("p/MatMul", "MatMul", [1.0, 2.5], []), ("q/ReLU", "ReLU", [1.0, 2.5], [])])
    for rec in a.records + b.records:
        rec.producers = None  # what read_dump records when the dump has no kernel graph
    pairs, _ = align_ops(a, b)
    first = find_divergence(pairs, side_a=a, side_b=b)
    assert first is not None and first.label == "p/MatMul"
    relu = [p for p in pairs if p.label == "q/ReLU"][0]
    assert relu.input_basis == "earlier" and relu.input_rel == first.max_rel
    assert not relu.diverged


BF16_DUMP = os.path.join(os.path.dirname(__file__), "..", "fixtures", "numerics", "bf16-dump")


def _bf16_round(values):
    """float32 values rounded to the nearest bfloat16 (ties to even), as float32."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def test_a_bfloat16_dump_is_read_as_float32_exactly():
    """MindSpore 2.10's CPU dump of ``fc(x).astype(bfloat16)``, then ``y * y`` in bfloat16."""
    files = {name.split(".")[0]: os.path.join(BF16_DUMP, name) for name in os.listdir(BF16_DUMP)}
    cast = files["Cast"]
    info = parse.parse_file_name(os.path.basename(cast))
    assert info is not None and info.dtype == "BFloat16"
    with pytest.raises(ValueError, match="E2"):
        np.load(cast)  # NumPy has no bfloat16
    with open(cast, "rb") as fh:
        assert parse.npy_header(fh.read()) == ((2, 4), False, "<E2", 128)
    bf, real = load_dumped(cast)
    assert real == "BFloat16" and bf.dtype == np.float32 and bf.shape == (2, 4)
    f32, real32 = load_dumped(files["BiasAdd"])
    assert real32 == "" and f32.dtype == np.float32
    # the Cast rounded its float32 input to the nearest bfloat16: bits read back exactly
    assert not np.array_equal(bf, f32) and np.array_equal(bf, _bf16_round(f32))
    mul, _ = load_dumped(files["Mul"])
    assert np.array_equal(mul, _bf16_round(bf * bf))
    stats = TensorStats(bf, dtype=real)
    assert stats.dtype == "BFloat16" and stats.max == float(bf.max())


def _npy(text, version=b"\x01\x00"):
    return b"\x93NUMPY" + version + len(text).to_bytes(2, "little") + text.encode()


def test_npy_headers_that_are_not_read():
    ok = "{'descr': '>E2', 'fortran_order': True, 'shape': (2, 3), }"
    assert parse.npy_header(_npy(ok)) == ((2, 3), True, ">E2", 10 + len(ok))
    assert parse.npy_header(_npy(ok)[:-1]) is None  # cut short
    for bad in (
        b"",
        b"\x93NUMPX" + _npy(ok)[6:],
        _npy(ok, b"\x09\x00"),
        _npy("__import__('os')"),
        _npy("[1, 2]"),
        _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"),
        _npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }"),
        _npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }"),
    ):
        assert parse.npy_header(bad) is None, bad

"""Truncated and corrupted real dumps either parse or raise GraphParseError, nothing else."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ascend_lab.model.graph import Graph
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.ir.ir_text import BlockMemo, parse_ir_text, read_ir_counts, read_ir_header
from ascend_lab.parsers.mindir.mindir import parse_mindir
from tests.support.ir_fixtures import fixture, parsed_as_data

IR_TEXTS = {
    "conv": fixture("conv/graph_build_*.ir").read_bytes(),
    "fused": fixture("lenet_fusion/graph_build_*.ir").read_bytes(),
    "frontend": fixture("conv/opt_pass_*opt_a*.ir").read_bytes(),
}
MINDIR = fixture("conv/conv.mindir").read_bytes()
# The protobuf decoder needs MindSpore's generated mind_ir_pb2.py (not MindSpore itself).
DECODERS = [pytest.param("protobuf", marks=pytest.mark.mindspore), "builtin"]
# database=None: the fuzz tests write nothing (no .hypothesis folder in the repo).
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


def _parse_text(data: bytes, name: str) -> None:
    text = str(data, "utf-8", "replace")
    try:
        g = parse_ir_text(text, name)
    except GraphParseError as exc:
        assert exc.path == name and exc.line is not None and exc.line >= 1
        assert f"{name}:{exc.line}" in str(exc)
        return
    assert isinstance(g, Graph) and g.nodes
    ids = {n.id for n in g.nodes}
    assert len(ids) == len(g.nodes)


@FUZZ
@given(which=st.sampled_from(sorted(IR_TEXTS)), frac=st.floats(0.0, 1.0))
def test_truncated_ir_parses_or_raises(which, frac):
    data = IR_TEXTS[which]
    _parse_text(data[: int(len(data) * frac)], which + ".ir")


@FUZZ
@given(
    which=st.sampled_from(sorted(IR_TEXTS)),
    flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)), min_size=1, max_size=8),
)
# Found by this test in one run (12-06): a node id printed twice ("%4" flipped to "%0") gave
# a graph with two nodes of one id; the parser now says so.
@example(which="conv", flips=[(0.4044737763580005, 48)])
def test_byte_flipped_ir_parses_or_raises(which, flips):
    data = bytearray(IR_TEXTS[which])
    for frac, value in flips:
        data[min(int(len(data) * frac), len(data) - 1)] = value
    _parse_text(bytes(data), which + ".ir")


@FUZZ
@given(
    which=st.sampled_from(sorted(IR_TEXTS)),
    frac=st.floats(0.0, 1.0),
    junk=st.text(min_size=1, max_size=40),
)
def test_inserted_junk_parses_or_raises(which, frac, junk):
    text = str(IR_TEXTS[which], "utf-8")
    at = int(len(text) * frac)
    _parse_text((text[:at] + junk + text[at:]).encode(), which + ".ir")


@FUZZ
@given(frac=st.floats(0.0, 1.0))
def test_header_of_truncated_ir_is_a_dict_or_parse_error(frac):
    text = str(IR_TEXTS["fused"], "utf-8")[: int(len(IR_TEXTS["fused"]) * frac)]
    try:
        info = read_ir_header(text if "\n" in text else "#" + text)
    except GraphParseError as exc:
        assert exc.line == 1
        return
    assert info["entry"] == "kernel_graph0"


# The file ends with field 13 (mind_ir_version = 3), an optional field older files lack:
# cutting exactly before it leaves a valid model. Every shorter prefix loses part of the
# graph or of a primitive the graph uses.
assert MINDIR.endswith(b"\x68\x03")
LAST_FIELD = len(MINDIR) - 2


@pytest.mark.parametrize("decoder", DECODERS)
@FUZZ
@given(cut=st.integers(0, LAST_FIELD - 1))
def test_truncated_mindir_raises_with_offset(decoder, cut):
    with pytest.raises(GraphParseError) as info:
        parse_mindir(MINDIR[:cut], "conv.mindir", decoder=decoder)
    err = info.value
    assert err.path == "conv.mindir" and err.offset is not None and 0 <= err.offset <= cut
    assert "conv.mindir" in str(err) and f"offset {err.offset}" in str(err)


@pytest.mark.parametrize("decoder", DECODERS)
@FUZZ
@given(flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)), min_size=1, max_size=6))
def test_byte_flipped_mindir_parses_or_raises(decoder, flips):
    data = bytearray(MINDIR)
    for frac, value in flips:
        data[min(int(len(data) * frac), len(data) - 1)] = value
    try:
        g = parse_mindir(bytes(data), "conv.mindir", decoder=decoder)
    except GraphParseError as exc:
        assert exc.path == "conv.mindir" and exc.offset is not None
        return
    assert isinstance(g, Graph)


@pytest.mark.parametrize("decoder", DECODERS)
def test_mindir_without_its_trailing_version_field_still_parses(decoder):
    g = parse_mindir(MINDIR[:LAST_FIELD], "conv.mindir", decoder=decoder)
    assert [n.op for n in g.kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    assert "mind_ir_version" not in g.attrs


@pytest.mark.mindspore
@FUZZ
@given(flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)), min_size=1, max_size=6))
def test_both_mindir_decoders_agree_on_corrupt_input(flips):
    data = bytearray(MINDIR)
    for frac, value in flips:
        data[min(int(len(data) * frac), len(data) - 1)] = value
    results = []
    for decoder in ("protobuf", "builtin"):
        try:
            g = parse_mindir(bytes(data), "conv.mindir", decoder=decoder)
            results.append([n.to_dict() for n in g.nodes])
        except GraphParseError:
            results.append("error")
    assert results[0] == results[1]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_byte_counts_never_fail_other_than_with_a_parse_error(data):
    try:
        counts = read_ir_counts(b"# IR entry: @g\n" + data)
    except GraphParseError:  # pragma: no cover - the prefix always gives an entry
        raise
    assert counts["entry"] is not None
    try:
        read_ir_counts(data)
    except GraphParseError as exc:
        assert exc.line == 1


# Dumps with many blocks: a frontend dump's closures, a kernel graph's fused kernels.
MEMO_TEXTS = {
    "closures": fixture("control_flow/01_type_inference_*.ir").read_text("utf-8"),
    "fused": IR_TEXTS["fused"].decode("utf-8"),
}


def _outcome(text, memo):
    """A parse's graphs as plain data, or its error text."""
    try:
        g = parse_ir_text(text, "b.ir", memo)
    except GraphParseError as exc:
        return ("error", str(exc))
    return parsed_as_data(g)


@FUZZ
@given(
    which=st.sampled_from(sorted(MEMO_TEXTS)),
    flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)), min_size=1, max_size=8),
)
def test_a_corrupted_next_dump_parses_the_same_with_blocks_reused(which, flips):
    """Parsed after the intact dump (whose blocks the memo holds), a corrupted copy gives
    exactly what it gives alone: the same graphs, or the same error."""
    original = MEMO_TEXTS[which]
    data = bytearray(original.encode("utf-8"))
    for frac, value in flips:
        data[min(int(len(data) * frac), len(data) - 1)] = value
    text = str(bytes(data), "utf-8", "replace")
    memo = BlockMemo()
    parse_ir_text(original, "a.ir", memo)
    assert _outcome(text, memo) == _outcome(text, None)

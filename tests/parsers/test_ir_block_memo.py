"""BlockMemo: blocks of earlier dumps reused by parse_ir_text, with results identical to a
parse without it (recorded dumps and synthetic text); and gc_paused."""

import gc

import pytest

from ascend_lab.parsers.gc_pause import gc_paused
from ascend_lab.parsers.ir.ir_text import BlockMemo, parse_ir_text
from tests.support.ir_fixtures import all_ir_fixtures, fixture, parsed_as_data


@pytest.mark.parametrize("path", all_ir_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_second_parse_of_the_same_dump_reuses_its_blocks_and_equals_a_plain_parse(path):
    text = path.read_text(encoding="utf-8")
    memo = BlockMemo()
    first = parse_ir_text(text, str(path), memo)
    assert parsed_as_data(first) == parsed_as_data(parse_ir_text(text, str(path)))
    misses = memo.misses
    second = parse_ir_text(text, "elsewhere.ir", memo)
    # every block but the entry graph (never reused) was found
    assert memo.hits == len(first.subgraphs)
    assert memo.misses - misses == misses - len(first.subgraphs) <= 1
    plain = parse_ir_text(text, "elsewhere.ir")
    assert parsed_as_data(second) == parsed_as_data(plain)
    # a reused block is a new Graph of this file that shares the earlier one's nodes
    for name, sub in second.subgraphs.items():
        assert sub.file == "elsewhere.ir"
        assert sub is not first.subgraphs[name]


def test_frontend_dump_with_closures_reuses_all_but_the_changed_block():
    path = fixture("control_flow/01_type_inference_*.ir")
    text = path.read_text(encoding="utf-8")
    memo = BlockMemo()
    first = parse_ir_text(text, str(path), memo)
    blocks = len(first.subgraphs)
    assert blocks >= 40 and memo.misses == blocks + 1  # one per closure, and the entry
    # one block's body changes: that block alone is parsed again
    marker = "subgraph attr:\n"
    at = text.index(marker, text.index(marker) + 1)  # the second block
    node_line = text.index("\n  %", at) + 1  # the first node line of a later block
    end = text.index("\n", node_line)
    assert "(%" in text[node_line:end]
    changed = text[:node_line] + text[node_line:end].replace("(%", "( %", 1) + text[end:]
    before = memo.hits
    graph = parse_ir_text(changed, str(path), memo)
    assert memo.misses - (blocks + 1) == 2  # the changed block and the entry
    assert memo.hits - before == blocks - 1
    assert parsed_as_data(graph) == parsed_as_data(parse_ir_text(changed, str(path)))


# A block whose call resolves through another block's `info_name` (a graph kernel): the
# outer block's text is the same in both dumps, the kernel it calls is not.
_TWO_DUMPS = """# IR entry: @main
# Total subgraphs: 3

subgraph attr:
info_name: {info}
subgraph instance: kernel : 0x1
# Parameters: 1, (<Tensor[Float32], (4)>)
subgraph @kernel(%para3_a) {{
  %0(CNode_1) = PrimFunc_Abs(%para3_a)
      : (<Tensor[Float32], (4)>) -> (<Tensor[Float32], (4)>)
      # Fullname with scope: (Default/Abs-op0)
  Return(%0)
      : (<Tensor[Float32], (4)>)
}}


subgraph attr:
subgraph instance: outer : 0x2
# Parameters: 1, (<Tensor[Float32], (4)>)
subgraph @outer(%para2_x) {{
  %0(CNode_2) = call @kernel(%para2_x)
      : (<Tensor[Float32], (4)>) -> (<Tensor[Float32], (4)>)
      # Fullname with scope: (Default/outer/kernel-op0)
  Return(%0)
      : (<Tensor[Float32], (4)>)
}}


subgraph attr:
subgraph instance: main : 0x3
subgraph @main(%para1_x) {{
  %0(CNode_3) = call @outer(%para1_x)
      : (<Tensor[Float32], (4)>) -> (<Tensor[Float32], (4)>)
      # Fullname with scope: (Default/outer-op0)
  Return(%0)
      : (<Tensor[Float32], (4)>)
}}
"""


def test_a_reused_block_whose_callee_changed_is_parsed_again_and_the_old_graph_kept():
    memo = BlockMemo()
    old = parse_ir_text(_TWO_DUMPS.format(info="Fused_Abs_3628424839231539743"), "a.ir", memo)
    new = parse_ir_text(_TWO_DUMPS.format(info="Fused_Neg_9128424839231539001"), "b.ir", memo)
    assert memo.hits == 1  # `outer` was found (and `kernel` changed)
    call_old = old.subgraphs["outer"].node("%0")
    call_new = new.subgraphs["outer"].node("%0")
    assert (call_old.op, call_new.op) == ("Fused_Abs", "Fused_Neg")
    assert call_new.attrs["info_name"] == "Fused_Neg_9128424839231539001"
    assert call_old is not call_new  # the earlier pass's node was not changed in place
    plain = parse_ir_text(_TWO_DUMPS.format(info="Fused_Neg_9128424839231539001"), "b.ir")
    assert parsed_as_data(new) == parsed_as_data(plain)


def test_generations_bound_what_the_memo_keeps():
    memo = BlockMemo()
    path = fixture("control_flow/01_type_inference_*.ir")
    text = path.read_text(encoding="utf-8")
    parse_ir_text(text, "1.ir", memo)
    other = fixture("lenet/opt_pass_2_opt_a_*.ir").read_text(encoding="utf-8")
    for _ in range(BlockMemo.GENERATIONS):
        parse_ir_text(other, "x.ir", memo)
    misses = memo.misses
    parse_ir_text(text, "again.ir", memo)  # its blocks were dropped: parsed again
    assert memo.misses - misses >= 40


def test_gc_paused_restores_the_collector_and_nests():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the inner block leaves it to the outer one
            raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


def test_a_block_that_becomes_the_entry_graph_is_parsed_afresh():
    """The same block text, a closure in one dump and the entry of the next (its graph
    is then finished with the file's parameters): the earlier graph is left as it was."""
    memo = BlockMemo()
    info = "Fused_Abs_3628424839231539743"
    first = parse_ir_text(_TWO_DUMPS.format(info=info), "a.ir", memo)
    before = parsed_as_data(first)
    outer_entry = _TWO_DUMPS.format(info=info).replace("# IR entry: @main", "# IR entry: @outer")
    second = parse_ir_text(outer_entry, "b.ir", memo)
    assert second.name == "outer"
    assert parsed_as_data(second) == parsed_as_data(parse_ir_text(outer_entry, "b.ir"))
    assert parsed_as_data(first) == before
    assert second.nodes[-1] is not first.subgraphs["outer"].nodes[-1]

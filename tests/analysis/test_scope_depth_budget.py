"""Scopes deeper than MAX_SCOPE_DEPTH are cut before scope repair and drawn at the cut,
kernels and bookkeeping nodes alike (issue #37: every rule looked at every prefix of every
scope, and a 297 KB .ir of 1,200-deep scopes took 494 MB)."""

from ascend_lab.analysis.scopes import MAX_SCOPE_DEPTH, repair_scopes
from ascend_lab.parsers.ir.ir_text import parse_ir_text


def _ir(depth: int) -> str:
    scope = "Default/" + "/".join(f"{k}-A" for k in range(depth))
    lines = ["# IR entry: @g", "", "%para1_x: <Tensor[Float32], (1, 8)>", "", "subgraph @g() {"]
    lines.append("  %0(a) = ReLU(%para1_x)")
    lines.append(f"      # Fullname with scope: ({scope}/ReLU-op0)")
    lines.append("  %1(b) = Load(%para1_x, U)")
    lines.append(f"      # Fullname with scope: ({scope}/Load-op0)")
    lines.append("  %2(c) = ReLU(%0)")
    lines.append(f"      # Fullname with scope: ({scope}/ReLU-op1)")
    lines += ["  Return(%2)", "}", ""]
    return "\n".join(lines)


def test_deep_scopes_are_drawn_at_the_cut_and_shallow_ones_untouched():
    graph = parse_ir_text(_ir(MAX_SCOPE_DEPTH + 500))
    repaired = repair_scopes(graph)
    assert set(repaired) == {n.id for n in graph.nodes if n.scope}  # Load too
    assert all(len(s.split("/")) == MAX_SCOPE_DEPTH for s in repaired.values())
    assert repair_scopes(parse_ir_text(_ir(MAX_SCOPE_DEPTH - 2))) == {}

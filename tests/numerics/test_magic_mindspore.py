"""``%ascend_compare --numerics`` in a real IPython shell (the graph comparison stays as it was)."""

import pytest

from ascend_lab.numerics.magic import parse_line
from tests.numerics import nets

pytestmark = pytest.mark.mindspore


def test_parse_line_needs_sides_and_inputs():
    assert parse_line("--numerics a b x y").names == ["a", "b", "x", "y"]
    assert parse_line("--numerics net x --amp O2").amp == "O2"
    assert parse_line("--numerics a b x").capture == "cells"
    assert parse_line("--numerics a b x --capture dump").capture == "dump"
    assert parse_line("--numerics a b x --capture dump --fusion b").fusion == "b"
    assert parse_line("--numerics a b x").fusion is None
    with pytest.raises(ValueError, match="two sides and the inputs"):
        parse_line("--numerics a b")
    with pytest.raises(ValueError, match="a net and its inputs"):
        parse_line("--numerics a --amp O3")


def test_magic_in_a_real_ipython_shell(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "ascend_lab")
    net = nets.Stack()
    shell.user_ns.update(
        {"net": net, "port": nets.twin(net, lambda: nets.Stack(residual_at=1)), "x": nets.inputs()}
    )
    shell.run_line_magic("ascend_compare", "--numerics net port x -o num")
    assert shell.user_ns["num"].first_divergence.path == "blocks.1"
    shell.run_line_magic("ascend_compare", "--numerics net x --amp O2")
    assert shell.user_ns["_numerics"].name_b == "Stack amp=O2"
    shell.user_ns["ref"] = {"nope": shell.user_ns["x"]}
    shell.run_line_magic("ascend_compare", "--numerics net ref x")
    assert "name no Cell call of the net: 'nope'" in capsys.readouterr().out
    shell.run_line_magic("ascend_compare", "--numerics net missing x")
    assert "'missing' is not defined" in capsys.readouterr().out

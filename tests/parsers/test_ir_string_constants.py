"""String constants that MindSpore prints raw: a `"`, a bracket or a line break inside them.

``ops.Print()("value (x:", x, "\\nnext line) ...")`` and a dict with keys such as ``"a("`` or
``'b)"'`` put those strings into the kernel graph's node lines as they are, unescaped; the
line break continues the node line on the next line. The parser refused both dumps
("unbalanced parentheses in node arguments"), so ``ascend_lab.trace`` failed on any net that
prints a message with a bracket in it. The recorded dumps are
tests/fixtures/ir/string_constants (its README has the nets).
"""

import os

from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.parsers.ir.ir_values import split_top

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ir", "string_constants")


def _constants(graph, node):
    by_id = {n.id: n for n in graph.nodes}
    return [by_id[i].attrs.get("value", i) for i in node.inputs]


def test_a_print_of_strings_with_brackets_quotes_and_a_line_break_parses():
    graph = parse_ir_file(os.path.join(FIXTURES, "print_graph_build_0_0094.ir"))
    (printed,) = [n for n in graph.nodes if n.op == "Print"]
    # the line break is read as a space: the node line continues on the line after it
    assert _constants(graph, printed) == [
        '"value (x:"',
        "%para1_x",
        '" next line) with "quotes" and {braces"',
        "%1",
        "IOMonad[IO]",
    ]
    assert [n.op for n in graph.kernels] == ["Mul", "ReduceSum", "Print"]
    assert printed.attrs["side_effect_io"] == "Bool(1)"
    assert printed.source == ["<TMP>/strings.py:9", "<TMP>/strings.py:10"]


def test_dict_keys_with_brackets_and_a_quote_are_one_argument_each():
    graph = parse_ir_file(os.path.join(FIXTURES, "dict_graph_build_0_0094.ir"))
    (keys,) = [n for n in graph.nodes if n.op == "PyExecute"]
    assert _constants(graph, keys) == [
        '"__internal_tuple_keys__"',
        '"__internal_tuple_keys__"',
        '"a("',
        '"b)""',
        '"c, d"',
    ]
    assert keys.attrs["primitive_target"] == '"CPU"'


def test_a_quote_ends_a_string_only_where_a_string_can_end():
    assert split_top('"a(", "b)"", "c, d"') == ['"a("', '"b)""', '"c, d"']
    assert split_top('"say "hi" (now", x') == ['"say "hi" (now"', "x"]
    # an ordinary attribute list reads as before
    assert split_top('format: "NCHW", pad: (0, 0)') == ['format: "NCHW"', "pad: (0, 0)"]

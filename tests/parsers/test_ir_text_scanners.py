"""The linear-time scanners of ir_text give what the regular expressions they replaced gave.

The old expressions are kept here as oracles (on short inputs their backtracking does not
matter) and compared with the new code on generated lines built from the syntax they read.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_lab.parsers.ir import ir_text, ir_values

OLD_SUBGRAPH = re.compile(r"subgraph @(\S+?)(?: parent: \[subgraph @[^\]]*\])?\((.*)\) \{\s*$")
OLD_ENTRY = re.compile(r"# IR entry: @(.+?)\s*$")
OLD_TUPLE = re.compile(r"Tuple\[(.*)\], TupleShape\((.*)\)$")
OLD_DEVICE = re.compile(r"([A-Za-z0-9_]+?)x([A-Z][A-Za-z0-9_]*)(?:\[[^\]]*\])?\{([^}]*)\}$")
OLD_DEVICE_LINE = re.compile(r"<[A-Z][A-Za-z0-9]*x[A-Z][A-Za-z0-9_]*[\[{]")
OLD_FIELD_SEP = re.compile(r"^\s*:\s+|\s+:\s+")
OLD_GRAPH_REF = re.compile(r"@+([^\s,()@\]]+)")
OLD_KERNEL_FILE = re.compile(r"(?:^|/)(?:graph_build_|hwopt_.*kernel_graph)[^/]*\.ir$")

SETTINGS = settings(max_examples=200, deadline=None, database=None)


def line_of(*tokens: str) -> st.SearchStrategy:
    return st.lists(st.sampled_from(tokens), max_size=14).map("".join)


SUBGRAPH_LINES = line_of(
    "subgraph @", "main", "g", "(", ")", " {", " ", "\t", "%para1_x", ", ", "parent: ",
    " parent: [subgraph @", "]", "[", "@", "{", "x",
)  # fmt: skip
TYPE_TEXTS = line_of(
    "Tuple[", "]", ", TupleShape(", "], TupleShape(", "(", ")", "Float32", "*2", ", ", "2",
    "NoShape", "Tensor[", "Int64",
)  # fmt: skip
DEVICE_TEXTS = line_of(
    "Float32", "x", "X", "DefaultFormat", "NCHW", "_", "[", "]", "{", "}", "1, 84", "0", "<", ">",
    " -> ", "(", ")", "xA", "A",
)  # fmt: skip
FIELD_TEXTS = line_of(" ", "\t", ":", "x", "has_default", "  :  ", "<a>", "IsWeight: true")
GRAPH_REFS = line_of("@", "@@", "g", "FuncUnion", "(", ")", ",", " ", "]", "x")
PATHS = line_of("dir/", "graph_build_", "hwopt_", "kernel_graph", "0", "_", ".ir", "x", "/")


@SETTINGS
@given(SUBGRAPH_LINES)
def test_subgraph_header(line):
    line = "subgraph @" + line
    old = OLD_SUBGRAPH.match(line)
    assert ir_text._subgraph_header(line) == (old.groups() if old else None)


@SETTINGS
@given(line_of("main", " ", "\t", "x", "@", "  y"))
def test_entry_name(rest):
    line = "# IR entry: @" + rest
    old = OLD_ENTRY.match(line)
    new = ir_text._entry_name(line)
    if old is None:
        assert new is None
    else:  # the old one kept one space of an all-space name; the new one drops it
        assert new == (old.group(1) if old.group(1).strip() else None)


@SETTINGS
@given(TYPE_TEXTS)
def test_tuple_parts(text):
    old = OLD_TUPLE.match(text)
    assert ir_values._tuple_parts(text) == (old.groups() if old else None)


@SETTINGS
@given(DEVICE_TEXTS)
def test_device_type(text):
    old = OLD_DEVICE.match(text)
    new = ir_values._device_uncached(text)
    if old is None:
        assert new is None
    else:
        assert new == (old.group(1), old.group(2), ir_values._shape(old.group(3)))
    assert ir_values._has_device_type(text) == bool(OLD_DEVICE_LINE.search(text))


@SETTINGS
@given(FIELD_TEXTS)
def test_field_separators(text):
    assert ir_text._FIELD_SEP_RE.split(text) == OLD_FIELD_SEP.split(text)


@SETTINGS
@given(GRAPH_REFS)
def test_graph_references(text):
    assert ir_text._GRAPH_REF_RE.findall(text) == OLD_GRAPH_REF.findall(text)


@SETTINGS
@given(PATHS)
def test_kernel_graph_file_names(path):
    # The old pattern also matched `hwopt_<dir>/<...>kernel_graph<...>.ir` across folders;
    # only file names decide now.
    name = path.rpartition("/")[2]
    assert ir_text.is_kernel_graph_file(path) == bool(OLD_KERNEL_FILE.search(name))


def test_kernel_graph_files_from_real_dumps():
    assert ir_text.is_kernel_graph_file("d/graph_build_0_0094.ir")
    assert ir_text.is_kernel_graph_file("d/hwopt_comm_after_kernel_select_kernel_graph0_0090.ir")
    assert not ir_text.is_kernel_graph_file("d/opt_pass_2_opt_a_0016.ir")
    assert not ir_text.is_kernel_graph_file("d/hwopt_x/opt_a_kernel_graph.txt")

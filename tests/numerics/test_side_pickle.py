"""The source text capture="dump" sends with a notebook cell's classes (no MindSpore here):
what :mod:`linecache` holds for a cell travels, capped, and makes ``inspect.getsource``
work again where the cell's file does not exist (MindSpore's parser reads ``construct``
that way)."""

import inspect
import linecache

import pytest

from ascend_lab.capture import side_pickle

CELL = "/tmp/ipykernel_0/0ddba11.py"  # how ipykernel names a cell; no such file
CODE = "def shifted(z, offset):\n    return z + offset\n"


def test_a_cells_lines_travel_through_linecache():
    ns = {}
    exec(compile(CODE, CELL, "exec"), ns)  # noqa: S102 - what IPython does with a cell
    linecache.cache[CELL] = (len(CODE), None, CODE.splitlines(True), CELL)
    try:
        sources = side_pickle.source_entries([CELL, "/nonexistent/module.py"])
        assert sources == {CELL: CODE.splitlines(True)}
        assert side_pickle.source_entries([CELL], cap=len(CODE) - 1) == {}  # over the cap
        del linecache.cache[CELL]  # the child process: no cell, no file
        with pytest.raises(OSError):
            inspect.getsource(ns["shifted"])
        side_pickle.install_sources(sources)
        linecache.checkcache()  # kept: no mtime, as IPython's own entries
        assert inspect.getsource(ns["shifted"]) == CODE
    finally:
        linecache.cache.pop(CELL, None)

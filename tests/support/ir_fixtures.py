"""Paths of the recorded IR fixtures (see tests/fixtures/ir/README.md)."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ir"
NETS = FIXTURES / "nets.py"


def fixture(rel: str) -> Path:
    """The one fixture file matching ``rel`` (a glob, e.g. ``conv/graph_build_*.ir``)."""
    found = sorted(FIXTURES.glob(rel))
    assert len(found) == 1, f"expected one fixture for {rel}, found {found}"
    return found[0]


def all_ir_fixtures():
    return sorted(FIXTURES.rglob("*.ir"))


def source_line(location: str) -> str:
    """The text of ``<FIXTURES>/nets.py:N`` in the repo copy of nets.py."""
    path, _, line = location.rpartition(":")
    assert path == "<FIXTURES>/nets.py", location
    return NETS.read_text().splitlines()[int(line) - 1]


def parsed_as_data(graph):
    """Everything a parse produced, as plain data: the graph and its subgraphs, in order,
    with their attributes (to compare two parses of one text)."""
    return [graph.to_dict(), graph.attrs] + [
        (name, sub.to_dict(), sub.attrs) for name, sub in graph.subgraphs.items()
    ]

"""Every parsed fixture graph (and subgraph) is valid against the payload schema's graph."""

import json
from pathlib import Path

import jsonschema
import pytest

import ascend_lab
from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.parsers.mindir.mindir import parse_mindir_file
from tests.support.ir_fixtures import FIXTURES, all_ir_fixtures

SCHEMA = json.loads(
    (Path(ascend_lab.__file__).parent / "payload" / "graph.schema.json").read_text()
)
GRAPH_SCHEMA = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/graph"}
VALIDATOR = jsonschema.Draft202012Validator(GRAPH_SCHEMA)


def _graphs(path):
    g = parse_mindir_file(path) if path.suffix == ".mindir" else parse_ir_file(path)
    return [g, *g.subgraphs.values()]


@pytest.mark.parametrize(
    "path",
    all_ir_fixtures() + sorted(FIXTURES.rglob("*.mindir")),
    ids=lambda p: p.parent.name + "/" + p.name,
)
def test_parsed_graphs_match_the_payload_schema(path):
    for g in _graphs(path):
        data = json.loads(json.dumps(g.to_dict()))
        errors = sorted(VALIDATOR.iter_errors(data), key=str)
        assert not errors, errors[0]
        assert all(isinstance(v, str) for n in data["nodes"] for v in n["attrs"].values())

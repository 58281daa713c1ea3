"""Hooks that Jupyter looks up are defined once; the server package re-exports the root's."""

import ast
from pathlib import Path
from typing import List

import ascend_lab
import ascend_lab.server

PACKAGE = Path(ascend_lab.__file__).parent


def definitions(name: str) -> List[str]:
    """Files of the package that define a function ``name`` (at any depth)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            str(path.relative_to(PACKAGE))
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
        ]
    return found


def test_server_extension_points_are_defined_once():
    assert definitions("_jupyter_server_extension_points") == ["__init__.py"]
    hook = ascend_lab.server._jupyter_server_extension_points
    assert hook is ascend_lab._jupyter_server_extension_points
    assert hook() == [{"module": "ascend_lab.server"}]


def test_dead_split_attrs_stays_gone():
    assert definitions("split_attrs") == []

"""Nothing outside tests/ imports ``tests`` (#38): what the benchmarks and the tests share
lives in ``benchmarks/support/``, the .po reader in ``scripts/locale_files.py``."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_no_module_outside_tests_imports_tests():
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for folder in ("ascend_lab", "benchmarks", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "static" not in path.relative_to(ROOT).parts
        for name in imported_modules(path)
        if name == "tests" or name.startswith("tests.")
    ]
    assert offenders == []


def test_the_check_sees_an_import_of_tests(tmp_path):
    sample = tmp_path / "bench.py"
    sample.write_text("def f():\n    from tests.support.python import run_python\n")
    assert list(imported_modules(sample)) == ["tests.support.python"]

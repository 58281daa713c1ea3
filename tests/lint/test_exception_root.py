"""Every exception class defined in ascend_lab derives from AscendLabError (issue #25).

Read statically with ``ast`` (no module is imported, so modules that need MindSpore or
JupyterHub are checked too): a class is an exception if a base is a builtin exception, an
exception class of the package, or a third-party name ending in Error/Exception/Warning.
"""

import ast
import builtins
from pathlib import Path
from typing import Dict, List, Tuple

import ascend_lab
from ascend_lab.errors import AscendLabError

PACKAGE = Path(ascend_lab.__file__).parent
BUILTIN_EXCEPTIONS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def package_classes(root: Path) -> Dict[str, List[Tuple[str, List[str]]]]:
    """Class name -> [(where, base names)] for every class statement under ``root``."""
    found: Dict[str, List[Tuple[str, List[str]]]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                where = f"{path.relative_to(root.parent)}:{node.lineno}"
                bases = [_base_name(b) for b in node.bases]
                found.setdefault(node.name, []).append((where, bases))
    return found


def exception_classes(found: Dict[str, List[Tuple[str, List[str]]]]) -> Dict[str, bool]:
    """``where`` of each exception class -> whether it derives from AscendLabError."""
    is_exc: Dict[str, bool] = {}
    rooted: Dict[str, bool] = {}

    def visit(name: str, depth: int = 0) -> Tuple[bool, bool]:
        if name == "AscendLabError":
            return True, True
        if name in BUILTIN_EXCEPTIONS:
            return True, False
        if name not in found:  # third-party: by its name
            return name.endswith(("Error", "Exception", "Warning")), False
        if name in is_exc:
            return is_exc[name], rooted[name]
        exc = root = False
        if depth < 50:
            for _, bases in found[name]:
                for base in bases:
                    e, r = visit(base, depth + 1)
                    exc, root = exc or e, root or r
        is_exc[name], rooted[name] = exc, root
        return exc, root

    result: Dict[str, bool] = {}
    for name, defs in found.items():
        if name == "AscendLabError":
            continue  # the root itself
        for where, bases in defs:
            flags = [visit(b) for b in bases]
            if any(e for e, _ in flags):
                result[f"{where} {name}"] = any(r for _, r in flags)
    return result


def test_every_exception_class_derives_from_ascend_lab_error():
    classes = exception_classes(package_classes(PACKAGE))
    names = {key.split()[-1] for key in classes}
    # the walk sees the classes it must (a walk that finds nothing would pass vacuously)
    assert {"GraphParseError", "TraceError", "PayloadError", "KernelSpecError"} <= names
    assert len(classes) >= 20
    unrooted = sorted(key for key, ok in classes.items() if not ok)
    assert unrooted == []


def test_builtin_bases_are_kept():
    from ascend_lab.errors.trace import TraceError
    from ascend_lab.parsers.errors import GraphParseError
    from ascend_lab.payload.validate import PayloadError
    from ascend_lab.render.assets import ViewerNotBuiltError

    assert issubclass(GraphParseError, AscendLabError) and issubclass(GraphParseError, ValueError)
    assert issubclass(PayloadError, ValueError)
    assert issubclass(TraceError, RuntimeError)
    assert issubclass(ViewerNotBuiltError, FileNotFoundError)


def test_the_walk_flags_a_class_outside_the_root(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(
        "class Good(AscendLabError, ValueError):\n    pass\n\n"
        "class Bad(KeyError):\n    pass\n\n"
        "class Child(Good):\n    pass\n\n"
        "class NotAnException:\n    pass\n"
    )
    classes = exception_classes(package_classes(pkg))
    assert {key.split()[-1]: ok for key, ok in classes.items()} == {
        "Good": True,
        "Bad": False,
        "Child": True,
    }

"""Print the package-level import graph of ascend_lab and the cycles in it.

Every import counts: module-level, lazy (function-level) and type-only ones (under ``if
TYPE_CHECKING:``), since a type-only import is still a dependency a reader must follow
(``--runtime-only`` leaves those out). Modules are read with ``ast``, never imported. A
node is a top-level package of ``ascend_lab`` (``graph``, ``memory``, ...) or a top-level
module (``scopes``, ``nets``); the package's own ``__init__`` is ``(root)``.
Cycles are the strongly connected components with more than one node.

    python scripts/import_graph.py            # edges and cycles
    python scripts/import_graph.py --json     # {"edges": {...}, "cycles": [[...], ...]}
    python scripts/import_graph.py --why graph tracing   # the imports behind one edge
    python scripts/import_graph.py --runtime-only         # only the imports that run
"""

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

PACKAGE = "ascend_lab"
ROOT_NODE = "(root)"
DEFAULT_DIR = Path(__file__).resolve().parent.parent / PACKAGE

# An import site: (importing file relative to the package, line, imported module).
Site = Tuple[str, int, str]


def module_name(path: Path, pkg_dir: Path) -> str:
    parts = list(path.relative_to(pkg_dir).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE] + parts)


def node_of(module: str) -> Optional[str]:
    """``ascend_lab.parsers.ir.ir_text`` -> ``graph``; ``ascend_lab`` -> ``(root)``; else None."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    return parts[1] if len(parts) > 1 else ROOT_NODE


def _resolve(module: str, is_package: bool, level: int, target: Optional[str]) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(path: Path, pkg_dir: Path, type_only: bool = True) -> Iterator[Tuple[int, str]]:
    """(line, absolute module) for every import in ``path``, nested ones included.

    ``from ascend_lab import graph`` (or ``from .. import graph``) names the module
    ``ascend_lab.model`` when ``graph`` is a module or package of ``pkg_dir``, else (a
    function of the root package) ``ascend_lab``.
    """
    module = module_name(path, pkg_dir)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in _all_nodes(tree) if type_only else _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                target = _resolve(module, is_package, node.level, node.module)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                rel = sub.split(".")[1:]
                if sub.startswith(PACKAGE + ".") and _exists(pkg_dir, rel):
                    yield node.lineno, sub
                else:
                    yield node.lineno, target


def _is_type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:`` (never run)."""
    stack: List[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _all_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    return ast.walk(tree)


def _exists(pkg_dir: Path, parts: List[str]) -> bool:
    where = pkg_dir.joinpath(*parts)
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def package_graph(
    pkg_dir: Path = DEFAULT_DIR, type_only: bool = True
) -> Dict[Tuple[str, str], List[Site]]:
    """(importer node, imported node) -> the import sites behind that edge."""
    edges: Dict[Tuple[str, str], List[Site]] = {}
    for path in sorted(pkg_dir.rglob("*.py")):
        source = node_of(module_name(path, pkg_dir))
        if source is None:
            continue
        rel = str(path.relative_to(pkg_dir.parent))
        for line, target in imports_of(path, pkg_dir, type_only):
            dest = node_of(target)
            if dest is None or dest == source:
                continue
            sites = edges.setdefault((source, dest), [])
            if (rel, line, target) not in sites:
                sites.append((rel, line, target))
    return edges


def strongly_connected(nodes: Set[str], succ: Dict[str, Set[str]]) -> List[List[str]]:
    """Tarjan's algorithm, iterative; components with more than one node, sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    out: List[List[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def cycles(edges: Dict[Tuple[str, str], List[Site]]) -> List[List[str]]:
    succ: Dict[str, Set[str]] = {}
    nodes: Set[str] = set()
    for source, dest in edges:
        succ.setdefault(source, set()).add(dest)
        nodes |= {source, dest}
    return strongly_connected(nodes, succ)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--why", nargs=2, metavar=("FROM", "TO"), help="sites of one edge")
    parser.add_argument("--package-dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument(
        "--runtime-only", action="store_true", help="leave out `if TYPE_CHECKING:` imports"
    )
    args = parser.parse_args(argv)
    edges = package_graph(args.package_dir, type_only=not args.runtime_only)
    found = cycles(edges)
    if args.why:
        for rel, line, target in edges.get((args.why[0], args.why[1]), []):
            print(f"{rel}:{line}: {target}")
        return 0
    if args.json:
        data = {
            "edges": {f"{s} -> {d}": len(sites) for (s, d), sites in sorted(edges.items())},
            "cycles": found,
        }
        json.dump(data, sys.stdout, indent=1)
        print()
        return 0
    by_source: Dict[str, List[str]] = {}
    for source, dest in sorted(edges):
        by_source.setdefault(source, []).append(dest)
    print(f"{len(edges)} edges between {len({n for e in edges for n in e})} packages/modules")
    for source, dests in sorted(by_source.items()):
        print(f"  {source} -> {', '.join(dests)}")
    print(f"{len(found)} cycle(s) (strongly connected components):")
    for comp in found:
        print(f"  {' <-> '.join(comp)}")
        inside = set(comp)
        for (source, dest), sites in sorted(edges.items()):
            if source in inside and dest in inside:
                first = sites[0]
                more = f" (+{len(sites) - 1})" if len(sites) > 1 else ""
                print(f"      {source} -> {dest}: {first[0]}:{first[1]} {first[2]}{more}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Collect the English messages ascend-lab's Python side can show, and update the catalogue.

    python scripts/i18n_extract.py          # update ascend_lab_py.po, then run msgfmt.py

Three kinds of message are collected from the source (AST, nothing is imported):

- calls ``_("...")``, ``N_("...")`` and ``msg("...", ...)`` (``ascend_lab.i18n``) in status,
  doctor, tracing, memory and profiling, the course's ``notebooks/course_nets.py`` and the
  command line's modules;
- the ``help=`` / ``description=`` of the ``ascend-lab`` command's parsers (the modules
  named in ``ascend_lab/cli.py``'s ``SUBCOMMANDS``, and the helpers they share), which
  :mod:`ascend_lab.i18n.cli_help` shows translated;
- in the device package, the plain English strings that become status texts: the message
  and fix of every ``StatusWarning(...)``, ``Compatibility(...)`` messages, ``reason=...``,
  and values given to ``reason``/``message``/``msg``/``fix`` names and to ``problems``
  tuples, and what functions named ``*_fix`` / ``*_reason`` return (looked up whole when
  shown; a text with values is a ``msg(...)``, and ``tests/lint/test_status_messages.py``
  fails on an f-string or ``"...".format(...)`` there).

Existing translations are kept; new messages get an empty msgstr; messages no longer in
the source are dropped (and listed).
"""

import ast
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "ascend_lab" / "locale" / "zh_CN" / "LC_MESSAGES" / "ascend_lab_py.po"
MARKED_DIRS = (
    "ascend_lab/doctor",
    "ascend_lab/device",
    "ascend_lab/i18n",
    "ascend_lab/tracing",
    "ascend_lab/magics.py",
    "ascend_lab/magic_support.py",
    "ascend_lab/memory",
    "ascend_lab/profiling",
    # the stages' modules that status, doctor, trace and profile messages come from
    *(f"ascend_lab/{stage}" for stage in ("probes", "capture", "errors")),
    # the results: a trace's summary, a comparison's, compare_numerics' summary and table (the
    # doctor reads both), the memory plans' tables
    "ascend_lab/results",
    "ascend_lab/numerics/drill.py",  # the op-by-op look inside the first divergent Cell
    "ascend_lab/model/device_status.py",
    "ascend_lab/server/cache.py",  # the status the server serves: the hub's, or a fallback
    "ascend_lab/server/kernel_env.py",  # a kernel's status, or why it has none
    "ascend_lab/model/profile.py",
    "ascend_lab/analysis/compat.py",
    "ascend_lab/analysis/fusion.py",
    "ascend_lab/analysis/lifetimes.py",
    "ascend_lab/analysis/planner.py",
    "ascend_lab/analysis/actor_set.py",
    "ascend_lab/analysis/profile_build.py",
    "ascend_lab/analysis/profile_join.py",
    "ascend_lab/parsers/npu_smi.py",
    "ascend_lab/parsers/versions.py",
    "ascend_lab/parsers/ir/timeline.py",
    "ascend_lab/parsers/ir/execution_order.py",
    "ascend_lab/parsers/profiler/csv_rows.py",
    "ascend_lab/parsers/profiler/trace_view.py",
    "ascend_lab/parsers/profiler/profiler_ascend_files.py",
    "ascend_lab/parsers/profiler/profiler_cpu_files.py",
    "ascend_lab/parsers/profiler/profiler_db.py",
    "ascend_lab/parsers/profiler/profiler_db_steps.py",
    "ascend_lab/parsers/profiler/profiler_files.py",
    "ascend_lab/payload/profile_section.py",
    "ascend_lab/render/device_html.py",
    "ascend_lab/render/device_text.py",
    "ascend_lab/render/memory_plot.py",
    "ascend_lab/render/cards.py",
    "ascend_lab/render/profile_plot.py",
    "ascend_lab/report/view.py",  # `ascend-lab view BUNDLE` (wired in cli.py, issue #25)
    "ascend_lab/report/course.py",  # `report --course` progress, the notebooks' bundle cells
    "ascend_lab/render/error_page.py",
    "ascend_lab/viewfile/sources.py",
    "ascend_lab/viewfile/weight_page.py",
    "notebooks/course_nets.py",
    "ascend_lab/course/launch.py",  # notebook 08's msrun runner
)
CLI = "ascend_lab/cli.py"
CLI_HELPERS = ("ascend_lab/kernel/cli_common.py",)  # options shared by subcommands
PARSER_CALLS = (
    "ArgumentParser",
    "LocalizedArgumentParser",
    "add_argument",
    "add_argument_group",
    "add_mutually_exclusive_group",
    "add_parser",
)
HELP_KEYWORDS = ("help", "description")
# {file: dict names}: module-level tables whose values are messages (shown through ``_``)
TABLES = {"ascend_lab/parsers/ir/timeline.py": ("EXPLAIN", "GENERIC_EXPLAIN")}
# the device family's plain English f-strings (reason=, fix=, ...), matched as templates
PLAIN_DIRS = (
    "ascend_lab/device",
    "ascend_lab/probes",
    "ascend_lab/model/device_status.py",
    "ascend_lab/server/cache.py",
    "ascend_lab/server/kernel_env.py",
    "ascend_lab/analysis/compat.py",
    "ascend_lab/parsers/npu_smi.py",
    "ascend_lab/parsers/versions.py",
    "ascend_lab/render/device_html.py",
    "ascend_lab/render/device_text.py",
)
MARKERS = ("_", "N_", "msg")
MESSAGE_NAMES = ("reason", "smi_reason", "message", "msg", "fix")
_FIELD = re.compile(r"\{[^{}]{0,20}\}")

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def template(node: ast.AST) -> Optional[str]:
    """The message template an expression builds, ``{}`` for each value (None: no text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value).replace("{", "{{").replace("}", "}}"))
            else:
                parts.append("{}")
        return "".join(parts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return _FIELD.sub("{}", node.func.value.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template(node.left), template(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "{}") + (right if right is not None else "{}")
    if isinstance(node, ast.IfExp):
        return None  # both branches are visited on their own
    return None


def _useful(text: Optional[str]) -> bool:
    if not text or text.startswith("<"):  # HTML built around a message, not a message
        return False
    return bool(text.replace("{}", "").strip(" :;,.()-"))


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _branches(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, ast.IfExp):
        yield from _branches(node.body)
        yield from _branches(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            yield from _branches(v)
    else:
        yield node


def plain_messages(tree: ast.AST) -> Iterator[ast.AST]:
    """Expressions in the device package that become a shown message."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = _name(node.func)
            if callee == "StatusWarning":
                yield from node.args[:2]
                yield from (k.value for k in node.keywords if k.arg in ("message", "fix"))
            elif callee == "Compatibility":
                yield from node.args[1:2]
                yield from (k.value for k in node.keywords if k.arg == "message")
            yield from (k.value for k in node.keywords if k.arg == "reason")
            if callee == "append" and _name(getattr(node.func, "value", None)) == "problems":
                for arg in node.args:
                    if isinstance(arg, ast.Tuple):
                        yield from arg.elts[1:]
        elif isinstance(node, ast.FunctionDef) and node.name.endswith(("_fix", "_reason")):
            for inner in ast.walk(node):  # a helper that builds a fix or reason
                if isinstance(inner, ast.Return) and inner.value is not None:
                    yield inner.value
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names = [_name(e) for e in t.elts] if isinstance(t, ast.Tuple) else [_name(t)]
                if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for n, v in zip(names, node.value.elts):
                        if n in MESSAGE_NAMES:
                            yield v
                elif names[0] in MESSAGE_NAMES:
                    if isinstance(node, ast.AugAssign):  # msg += " more": its own sentence
                        yield node.value
                    else:
                        yield node.value


def table_messages(tree: ast.AST, names: Iterable[str]) -> Iterator[str]:
    """The string values of the module-level dicts ``names``."""
    for node in getattr(tree, "body", []):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if _name(target) in names and isinstance(node.value, ast.Dict):
            for value in node.value.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield value.value


def marked_messages(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in MARKERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def help_messages(tree: ast.AST) -> Iterator[ast.AST]:
    """The help and description texts given to argparse in a module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in PARSER_CALLS:
            for k in node.keywords:
                if k.arg in HELP_KEYWORDS:
                    yield from _branches(k.value)


def _help_text(node: ast.AST) -> Optional[str]:
    # a plain string is looked up whole (braces and all); a built one as a template
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return template(node)


def cli_files(root: Path = ROOT) -> List[Path]:
    """``ascend_lab/cli.py``, the module of every subcommand it names, and shared helpers
    (those of them that exist: a test extracts from a partial copy of the tree)."""
    if not (root / CLI).is_file():
        return []
    tree = ast.parse((root / CLI).read_text(encoding="utf-8"), CLI)
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and node.elts:
            first = node.elts[0]
            if isinstance(first, ast.Constant) and str(first.value).startswith("ascend_lab."):
                modules.append(str(first.value).replace(".", "/") + ".py")
    paths = [root / p for p in [CLI] + sorted(set(modules)) + list(CLI_HELPERS)]
    return [p for p in paths if p.is_file()]


def _sources(root: Path) -> List[Path]:
    paths: List[Path] = []
    for name in MARKED_DIRS:
        where = root / name
        if where.is_file():
            paths.append(where)
        elif where.is_dir():
            paths += sorted(where.rglob("*.py"))
    return paths + [p for p in cli_files(root) if p not in paths]


CODE_TABLE = "ascend_lab/doctor/error_codes.json"


def code_table_texts(root: Path = ROOT) -> Iterator[Tuple[str, str]]:
    """(English, Chinese) of the DCMI codes' meanings and next steps in the doctor's code
    tables: the status shows them (ascend_lab/probes/smi_failure.py) as plain strings."""
    import json

    table = json.loads((root / CODE_TABLE).read_text(encoding="utf-8"))
    for item in table.get("dcmi", {}).values():
        yield item["meaning"], item["zh"]
        yield from zip(item["next"], item["next_zh"])


def extract(root: Path = ROOT) -> Dict[str, List[str]]:
    """``{msgid: ["path:line", ...]}`` of every message ascend-lab's Python side can show."""
    found: Dict[str, List[str]] = {}
    for path in cli_files(root):
        rel = str(path.relative_to(root))
        for expr in help_messages(ast.parse(path.read_text(encoding="utf-8"), rel)):
            text = _help_text(expr)
            if _useful(text) and text is not None:
                found.setdefault(text, []).append(f"{rel}:{getattr(expr, 'lineno', 0)}")
    for english, _zh in code_table_texts(root):
        found.setdefault(english, []).append(CODE_TABLE)
    for path in _sources(root):
        rel = str(path.relative_to(root))
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        for text in marked_messages(tree):
            found.setdefault(text, []).append(rel)
        for text in table_messages(tree, TABLES.get(rel, ())):
            found.setdefault(text, []).append(rel)
        if rel.startswith(PLAIN_DIRS):
            for expr in plain_messages(tree):
                for branch in _branches(expr):
                    text = template(branch)
                    if _useful(text) and text is not None:
                        where = f"{rel}:{getattr(branch, 'lineno', 0)}"
                        found.setdefault(text, []).append(where)
    return found


def _quote(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    return '"' + out.replace("\n", "\\n") + '"'


HEADER = """# Chinese (Simplified) messages of ascend-lab's Python side: status, doctor, what the
# course prints (trace, memory, profile), the command line's --help.
# Source of ascend_lab_py.mo: python scripts/msgfmt.py <this file>
# Update the list of messages: python scripts/i18n_extract.py
msgid ""
msgstr ""
"Project-Id-Version: ascend-lab\\n"
"Language: zh_CN\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=1; plural=0;\\n"
"""


def write_po(messages: Dict[str, List[str]], translations: Dict[str, str]) -> str:
    parts = [HEADER]
    for msgid in sorted(messages):
        where = sorted(set(w.split(":")[0] for w in messages[msgid]))
        parts.append("#: " + " ".join(where))
        parts.append("msgid " + _quote(msgid))
        parts.append("msgstr " + _quote(translations.get(msgid, "")) + "\n")
    return "\n".join(parts)


def main() -> int:
    from scripts.locale_files import parse_po

    old = dict(parse_po(PO.read_text(encoding="utf-8"))[1]) if PO.exists() else {}
    messages = extract()
    for english, chinese in code_table_texts():  # the table carries its own Chinese
        if not old.get(english):
            old[english] = chinese
    for gone in sorted(set(old) - set(messages)):
        print("dropped:", gone)
    PO.write_text(write_po(messages, old), encoding="utf-8")
    todo = [m for m in messages if not old.get(m)]
    print(f"{PO}: {len(messages)} messages, {len(todo)} untranslated")
    return 0


if __name__ == "__main__":
    sys.exit(main())

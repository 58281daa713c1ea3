"""Collect the English messages status and doctor can show, and update the catalogue.

    python scripts/i18n_extract.py          # update ascend_lab_py.po, then run msgfmt.py

Two kinds of message are collected from the source (AST, nothing is imported):

- calls ``_("...")``, ``N_("...")`` and ``msg("...", ...)`` (``ascend_lab.i18n``);
- in the device package, whose messages are plain English strings: the message and fix
  of every ``StatusWarning(...)``, ``Compatibility(...)`` messages, ``reason=...``, and
  values given to ``reason``/``message``/``msg``/``fix`` names and to ``problems`` tuples,
  and what functions named ``*_fix`` / ``*_reason`` return.
  An f-string or ``"...".format(...)`` becomes a template with ``{}`` for each value
  (what :mod:`ascend_lab.i18n.templates` matches shown text against).

Existing translations are kept; new messages get an empty msgstr; messages no longer in
the source are dropped (and listed).
"""

import ast
import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "ascend_lab" / "locale" / "zh_CN" / "LC_MESSAGES" / "ascend_lab_py.po"
MARKED_DIRS = ("ascend_lab/doctor", "ascend_lab/device", "ascend_lab/i18n")
PLAIN_DIR = "ascend_lab/device"
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


def marked_messages(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in MARKERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def extract(root: Path = ROOT) -> Dict[str, List[str]]:
    """``{msgid: ["path:line", ...]}`` of every message status and doctor can show."""
    found: Dict[str, List[str]] = {}
    for folder in MARKED_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = str(path.relative_to(root))
            tree = ast.parse(path.read_text(encoding="utf-8"), rel)
            for text in marked_messages(tree):
                found.setdefault(text, []).append(rel)
            if rel.startswith(PLAIN_DIR):
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


HEADER = """# Chinese (Simplified) messages of ascend-lab's Python side: status and doctor.
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
    from tests.server.locale_files import parse_po

    old = dict(parse_po(PO.read_text(encoding="utf-8"))[1]) if PO.exists() else {}
    messages = extract()
    for gone in sorted(set(old) - set(messages)):
        print("dropped:", gone)
    PO.write_text(write_po(messages, old), encoding="utf-8")
    todo = [m for m in messages if not old.get(m)]
    print(f"{PO}: {len(messages)} messages, {len(todo)} untranslated")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""No probe makes a status text the views cannot translate.

A status warning, fix, reason or compatibility message is shown in the reader's language
from its template and arguments (``ascend_lab.i18n.msg``, carried in the status JSON's
``i18n`` entries). An English f-string, ``"...".format(...)`` or a string joined with
``+`` / ``%`` has lost its template: the views could only show it in English. This lint
walks the expressions the catalogue extractor treats as status texts
(``scripts.i18n_extract.plain_messages``) in the modules that make them.
"""

import ast
from pathlib import Path
from typing import List

from scripts.i18n_extract import _branches, plain_messages

ROOT = Path(__file__).resolve().parents[2]
# the modules that make the status's texts (probes, the compatibility verdict, the model,
# and the server's statuses from the hub, a kernel or a failed probe)
STATUS_MAKERS = sorted(
    [*(ROOT / "ascend_lab" / "probes").glob("*.py")]
    + [ROOT / "ascend_lab" / "analysis" / "compat.py"]
    + [ROOT / "ascend_lab" / "model" / "device_status.py"]
    + [ROOT / "ascend_lab" / "server" / name for name in ("cache.py", "kernel_env.py")]
)


def _has_text(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(node))


def untranslatable(node: ast.AST) -> bool:
    """An expression that formats English text itself, losing the template."""
    if isinstance(node, ast.JoinedStr):
        return any(not isinstance(v, ast.Constant) for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "format" and _has_text(node.func.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _has_text(node)
    return False


def offenders(source: str, name: str) -> List[str]:
    tree = ast.parse(source, name)
    found = []
    for expr in plain_messages(tree):
        for branch in _branches(expr):
            if untranslatable(branch):
                text = ast.get_source_segment(source, branch) or ""
                found.append(f"{name}:{branch.lineno}: {text[:80]}")
    return sorted(found, key=lambda f: int(f.split(":")[1]))


def test_the_lint_finds_each_kind_of_formatted_text():
    code = (
        "w = StatusWarning(f'NPU {n} is down', 'fix ' + cmd)\n"
        "c = Compatibility('unknown', 'MindSpore {} is new'.format(v))\n"
        "r = RunResult(False, reason='%s timed out' % label)\n"
        "def smi_reason():\n    return f'{code} failed'\n"
        "ok = StatusWarning(msg('NPU {} is down', n), 'Run npu-smi info')\n"
    )
    assert [line.split(":")[1] for line in offenders(code, "x.py")] == ["1", "1", "2", "3", "5"]


def test_no_status_maker_formats_english_text():
    found = []
    for path in STATUS_MAKERS:
        found += offenders(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "use ascend_lab.i18n.msg(template, *args):\n" + "\n".join(found)

"""Write the configuration tables of README.md and README_zh.md from ascend_lab.settings.

Each README holds its table between ``<!-- settings-table:begin -->`` and
``<!-- settings-table:end -->``; this script replaces what is between them with the table
of :data:`ascend_lab.settings.SETTINGS` (English in README.md, Chinese in README_zh.md).

    python scripts/settings_table.py           # rewrite the tables
    python scripts/settings_table.py --check   # exit 1 if a README's table is stale
"""

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parent.parent
BEGIN = "<!-- settings-table:begin -->"
END = "<!-- settings-table:end -->"
READMES = {"en": REPO / "README.md", "zh": REPO / "README_zh.md"}

HEADERS = {
    "en": ("variable", "read by", "what it changes", "default"),
    "zh": ("变量", "读取方", "作用", "默认值"),
}
PARTS_ZH = {
    "status": "设备状态",
    "trace": "跟踪",
    "viewer server": "查看器服务器",
    "doctor": "诊断",
    "profile": "性能分析",
    "report": "支持包",
    "hub": "Hub",
    "course": "课程",
    "tests-only": "仅测试",
    "all": "全部",
}
_SEP = {"en": ", ", "zh": "、"}


def _load_settings():  # type: ignore[no-untyped-def]
    """ascend_lab/settings.py by its path: it imports nothing else of the package, so the
    script runs without installing ascend-lab (or importing its ``__init__``)."""
    path = REPO / "ascend_lab" / "settings.py"
    spec = importlib.util.spec_from_file_location("_ascend_lab_settings", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building
    spec.loader.exec_module(module)
    return module


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(lang: str, registry: Optional[Dict[str, object]] = None) -> str:
    """The Markdown table of every setting, in ``lang`` (``en`` / ``zh``)."""
    items = registry if registry is not None else _load_settings().SETTINGS
    rows: List[str] = [
        "| " + " | ".join(HEADERS[lang]) + " |",
        "|" + "---|" * len(HEADERS[lang]),
    ]
    for name, item in items.items():
        parts = [PARTS_ZH[p] if lang == "zh" else p for p in item.parts]  # type: ignore[attr-defined]
        cells = (
            f"`{name}`",
            _SEP[lang].join(parts),
            item.doc(lang),  # type: ignore[attr-defined]
            item.default_text(lang),  # type: ignore[attr-defined]
        )
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows) + "\n"


def render(text: str, lang: str, name: str = "README") -> str:
    """``text`` with the part between the markers replaced by :func:`table`."""
    start = text.find(BEGIN)
    stop = text.find(END)
    if start < 0 or stop < start:
        raise SystemExit(f"{name}: no {BEGIN} ... {END} markers")
    head = text[: start + len(BEGIN)]
    return head + "\n" + table(lang) + text[stop:]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a table is stale")
    args = parser.parse_args(argv)
    stale = []
    for lang, path in READMES.items():
        text = path.read_text(encoding="utf-8")
        new = render(text, lang, path.name)
        if new == text:
            continue
        if args.check:
            stale.append(path.name)
        else:
            path.write_text(new, encoding="utf-8")
            print(f"wrote the configuration table of {path.name}")
    if stale:
        print(
            f"stale configuration table in {', '.join(stale)}: "
            "run python scripts/settings_table.py",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Read a gettext ``.po`` file and write the Jed-style JSON JupyterLab's translator loads.

JupyterLab (``jupyterlab_server.translation_utils``) serves, for the chosen UI language,
``<package>/locale/<lang>/LC_MESSAGES/<domain>.json`` of every package registered under the
``jupyterlab.locale`` entry point; the front end's ``translator.load('ascend_lab')`` then
finds the messages. The ``.po`` file is the source translators edit; regenerate the JSON
with ``python -m scripts.locale_files ascend_lab/locale/zh_CN/LC_MESSAGES/ascend_lab.po``.
"""

import ast
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

_LINE = re.compile(r'^(msgctxt|msgid|msgstr|msgid_plural|msgstr\[\d+\])\s+(".*")\s*$')


def _unquote(text: str) -> str:
    value = ast.literal_eval(text)
    assert isinstance(value, str)
    return value


def parse_po(text: str) -> Tuple[Dict[str, str], List[Tuple[str, str]]]:
    """``(headers, [(msgid, msgstr), ...])`` of a simple ``.po`` file (no plurals/contexts)."""
    entries: List[Dict[str, str]] = []
    current: Dict[str, str] = {}
    key = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            if current:
                entries.append(current)
                current = {}
            continue
        m = _LINE.match(line)
        if m:
            key = m.group(1)
            if key == "msgid" and "msgid" in current:
                entries.append(current)
                current = {}
            current[key] = _unquote(m.group(2))
        elif line.startswith('"') and key:
            current[key] += _unquote(line)
        else:
            raise ValueError(f"cannot read .po line: {raw!r}")
    if current:
        entries.append(current)
    headers: Dict[str, str] = {}
    messages: List[Tuple[str, str]] = []
    for e in entries:
        if e.get("msgid") == "":
            for h in e.get("msgstr", "").split("\n"):
                if ":" in h:
                    k, v = h.split(":", 1)
                    headers[k.strip()] = v.strip()
        else:
            messages.append((e["msgid"], e.get("msgstr", "")))
    return headers, messages


def po_to_jed(text: str, domain: str) -> Dict[str, Any]:
    headers, messages = parse_po(text)
    data: Dict[str, Any] = {
        "": {
            "domain": domain,
            # the front end's gettext keys messages by BCP 47 tag ("zh-CN"), as the
            # JupyterLab language packs write it; .po files say "zh_CN"
            "language": headers.get("Language", "").replace("_", "-"),
            "plural_forms": headers.get("Plural-Forms", "nplurals=1; plural=0;"),
            "version": headers.get("Project-Id-Version", ""),
        }
    }
    for msgid, msgstr in messages:
        if msgstr:
            data[msgid] = [msgstr]
    return data


def main(argv: List[str]) -> int:
    for name in argv:
        po = Path(name)
        data = po_to_jed(po.read_text(encoding="utf-8"), po.stem)
        out = po.with_suffix(".json")
        out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{out}: {len(data) - 1} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Every CANN error code, with or without a knowledge-base rule: its family, meaning and docs.

CANN prints error codes as ``E`` + a module letter or digit + 4 digits (``EE1001``,
``EZ9999``, ``E39999``; 0000-8999 are user errors, 9000-9999 internal ones), sometimes as
``Name(CODE)`` (``Invalid_Argument(EE1001)``). The runtime and ACL return numbers
(``error code is 507033``, ``ret[207001]``). The family table is data
(``error_codes.json``): module, meaning, next steps and the documentation page, each with
where it came from. Pure: text in, :class:`CodeNote` objects out; linear-time regexes.
"""

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.errors import AscendLabError

CODES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "error_codes.json")
CODES_FORMAT = "ascend-lab.doctor-codes/1"
MAX_CODES = 8  # distinct codes reported per text

# E + module (digit 1-9 or letter) + 4 digits, not inside a longer word or hex number.
_ERROR_CODE = re.compile(r"(?<![0-9A-Za-z_])E[1-9A-Z]\d{4}(?![0-9A-Za-z])")
_NAMED = re.compile(r"\b([A-Z][A-Za-z_]{2,60})\((E[1-9A-Z]\d{4})\)")
# A return code only next to the words that introduce one (6-digit numbers are everywhere).
_RETURN_CODE = re.compile(
    r"(?i)(?:error ?code|errcode|ret(?:code)?|runtime result|return code|failed)"
    r"(?: is)?[ \t]{0,3}[=:\[]?[ \t]{0,3}((?:[125]07|100|500)\d{3})(?!\d)"
)


class CodeTableError(AscendLabError, ValueError):
    """``error_codes.json`` is malformed."""


@dataclass(frozen=True)
class CodeNote:
    """One error code found in the text, explained by its family."""

    code: str  # "EE1001" or "507033"
    kind: str  # "cann" | "return"
    module: str
    meaning: str
    next_steps: Tuple[str, ...]
    docs: Tuple[Tuple[str, str], ...]  # (title, url) in the reader's language
    line: int  # 1-based line of the first occurrence
    name: str = ""  # "Invalid_Argument" when the text prints Name(CODE)
    internal: bool = False  # 9000-9999: an internal error of that module
    detail: str = ""  # a documented meaning of this exact number (return codes)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "code": self.code,
            "kind": self.kind,
            "module": self.module,
            "meaning": self.meaning,
            "name": self.name,
            "internal": self.internal,
            "detail": self.detail,
            "next_steps": list(self.next_steps),
            "docs": [{"title": t, "url": u} for t, u in self.docs],
            "line": self.line,
        }


_table: Optional[Dict[str, Any]] = None


def load_table(path: Optional[str] = None) -> Dict[str, Any]:
    """The family table, checked (the packaged file by default; cached)."""
    global _table
    if path is None and _table is not None:
        return _table
    with open(path or CODES_PATH, encoding="utf-8") as f:
        doc = json.load(f)
    check_table(doc)
    if path is None:
        _table = doc
    return doc


def check_table(doc: Any) -> None:
    """Raise :class:`CodeTableError` unless ``doc`` is a usable family table."""
    if not isinstance(doc, dict) or doc.get("format") != CODES_FORMAT:
        raise CodeTableError("error code table must be an object with format " + CODES_FORMAT)
    refs = doc.get("references")
    if not isinstance(refs, dict) or not refs:
        raise CodeTableError("error code table has no references")
    for key, ref in refs.items():
        for field in ("title", "title_zh", "en", "zh", "source"):
            if not isinstance(ref.get(field), str) or not ref[field].strip():
                raise CodeTableError(f"reference {key!r} lacks {field}")
        for lang in ("en", "zh"):
            if not ref[lang].startswith("https://"):
                raise CodeTableError(f"reference {key!r}: {lang} must be an https URL")
    seen = set()
    for group, name_key in (("families", "module"), ("return_codes", "owner")):
        items = doc.get(group)
        if not isinstance(items, list) or not items:
            raise CodeTableError(f"error code table has no {group}")
        for item in items:
            prefix = item.get("prefix")
            if not isinstance(prefix, str) or prefix in seen:
                raise CodeTableError(f"{group}: missing or repeated prefix {prefix!r}")
            seen.add(prefix)
            for field in (name_key, "meaning", "source"):
                if not isinstance(item.get(field), str) or not item[field].strip():
                    raise CodeTableError(f"{group} {prefix}: {field} must be a non-empty string")
            if not item.get("docs") or any(d not in refs for d in item["docs"]):
                raise CodeTableError(f"{group} {prefix}: docs must name references")
            _check_zh(item, name_key, f"{group} {prefix}")
    internal = doc.get("internal")
    if not isinstance(internal, dict):
        raise CodeTableError("error code table lacks 'internal'")
    _check_zh(internal, None, "internal")


def _check_zh(item: Dict[str, Any], name_key: Optional[str], where: str) -> None:
    zh = item.get("zh")
    steps = item.get("next")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        raise CodeTableError(where + ": next must be a non-empty list of strings")
    if not isinstance(zh, dict):
        raise CodeTableError(where + ": needs zh")
    for field in ("meaning",) + ((name_key,) if name_key else ()):
        if not isinstance(zh.get(field), str) or not zh[field].strip():
            raise CodeTableError(f"{where}: zh needs {field}")
    if not isinstance(zh.get("next"), list) or len(zh["next"]) != len(steps):
        raise CodeTableError(where + ": zh.next needs one step per English step")
    if set(zh.get("known", {})) != set(item.get("known", {})):
        raise CodeTableError(where + ": zh.known needs the same codes as known")


def _texts(item: Dict[str, Any], lang: str) -> Dict[str, Any]:
    return item["zh"] if lang == "zh_CN" else item


def _docs(table: Dict[str, Any], keys: List[str], lang: str) -> Tuple[Tuple[str, str], ...]:
    zh = lang == "zh_CN"
    refs = table["references"]
    return tuple(
        (refs[k]["title_zh" if zh else "title"], refs[k]["zh" if zh else "en"]) for k in keys
    )


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def find_codes(
    text: str, lang: str = "en", table: Optional[Dict[str, Any]] = None
) -> List[CodeNote]:
    """The distinct error codes of ``text`` in order of first appearance (at most MAX_CODES)."""
    table = table or load_table()
    families = {f["prefix"] for f in table["families"]}
    returns = {r["prefix"] for r in table["return_codes"]}
    names = {m.group(2): m.group(1) for m in _NAMED.finditer(text)}
    found: List[Tuple[int, str, str]] = []
    seen = set()
    for m in _ERROR_CODE.finditer(text):
        code = m.group(0)
        if code not in seen and code[:2] in families:
            seen.add(code)
            found.append((m.start(), code, "cann"))
    for m in _RETURN_CODE.finditer(text):
        code = m.group(1)
        if code not in seen and code[:3] in returns:
            seen.add(code)
            found.append((m.start(1), code, "return"))
    found.sort()
    return [
        explain(code, kind, _line_of(text, pos), names.get(code, ""), lang, table)
        for pos, code, kind in found[:MAX_CODES]
    ]


def explain(
    code: str,
    kind: str,
    line: int = 0,
    name: str = "",
    lang: str = "en",
    table: Optional[Dict[str, Any]] = None,
) -> CodeNote:
    """The note for one code (``kind`` "cann" or "return") in ``lang`` ("en" or "zh_CN")."""
    table = table or load_table()
    if kind == "cann":
        fam = next(f for f in table["families"] if f["prefix"] == code[:2])
        texts = _texts(fam, lang)
        internal = _texts(table["internal"], lang)
        is_internal = int(code[2:]) >= 9000
        steps = list(texts["next"]) + (list(internal["next"]) if is_internal else [])
        meaning = texts["meaning"]
        if is_internal:
            meaning = internal["meaning"] + " — " + meaning
        return CodeNote(
            code=code,
            kind=kind,
            module=texts["module"],
            meaning=meaning,
            next_steps=tuple(steps),
            docs=_docs(table, fam["docs"], lang),
            line=line,
            name=name,
            internal=is_internal,
        )
    ret = next(r for r in table["return_codes"] if r["prefix"] == code[:3])
    texts = _texts(ret, lang)
    return CodeNote(
        code=code,
        kind=kind,
        module=texts["owner"],
        meaning=texts["meaning"],
        next_steps=tuple(texts["next"]),
        docs=_docs(table, ret["docs"], lang),
        line=line,
        internal=code[0] == "5",
        detail=texts.get("known", {}).get(code, ""),
    )

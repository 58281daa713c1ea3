"""Every CANN error code, with or without a knowledge-base rule: what it means, its docs.

CANN prints error codes as ``E`` + a module letter or digit + 4 digits (``EE1001``,
``EZ9999``, ``E39999``; 0000-8999 are user errors, 9000-9999 internal ones), sometimes as
``Name(CODE)`` (``Invalid_Argument(EE1001)``). The runtime, ACL, GE and aclnn return numbers
(``error code is 507033``, ``ret[207001]``, ``ACL_ERROR_RT_DEVICE_OOM``), HCCL its results
(``HCCL_E_TIMEOUT``, ``errNo[0x0000000005000009]``) and DCMI / npu-smi negative codes
(``ret is -8020``); GE's internal status numbers (``ErrorNo: 1343242270(Prepare Graph
infershape failed)``, ``ret = 1343225860``, ``GRAPH_FAILED`` 4294967295), only where the text
introduces them as a status, return or error code. The tables are data
(``error_codes.json``, built by scripts/build_error_tables.py from the CANN sources it
records): each known code has its meaning, likely causes, next step, documentation and
topics (topics.json); a code the tables do not list is still explained by its family (module
letter or number range).

A note's ``rank`` says how much is known: "code" (this exact code is in the tables) or
"family" (only its module or range). Pure: text in, :class:`CodeNote` objects out;
linear-time regexes.
"""

import functools
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.errors import AscendLabError

CODES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "error_codes.json")
CODES_FORMAT = "ascend-lab.doctor-codes/2"
MAX_CODES = 8  # distinct codes reported per text

# E + module (digit 1-9 or letter) + 4 digits, not inside a longer word or hex number.
_ERROR_CODE = re.compile(r"(?<![0-9A-Za-z_])E[1-9A-Z]\d{4}(?![0-9A-Za-z])")
# The scans below start with a literal and check the character before in Python
# (_word_start): a lookbehind first keeps re from jumping between literals (slow on 20 MB).
_ERROR_CODE_SCAN = re.compile(r"E[1-9A-Z]\d{4}(?![0-9A-Za-z])")
# 'Invalid_Argument(EE1001)': the code in parentheses first, then the name right before it.
_NAMED_CODE = re.compile(r"\((E[1-9A-Z]\d{4})\)")
_NAME_BEFORE = re.compile(r"\b[A-Z][A-Za-z_]{2,60}\Z")
# Between the words that introduce a number and the number: " is = ", ": ", "[", "(", and
# a line break where a terminal, a forum or a log viewer wrapped the line ("error code is" at
# the end of one line, "507899" at the start of the next).
_SEP = r"(?:\s?is)?\s{0,3}[=:\[(]?\s{0,3}"
# A return code only next to the words that introduce one (6-digit numbers are everywhere):
# "error code is 507033", "ret = 507008", and the key=value forms of other tools' logs
# ("api=aclrtMallocHost, code=107002", "PeekLastErr: level=0 err=507899", "errno:561000"),
# and GE's plog ("ErrorNo: 145003(Model id invalid.)").
# Read number first, words after: each 6-digit number whose first 3 digits are a return range
# is checked against the few characters before it (the words and _SEP span at most
# _RETURN_WINDOW), instead of trying the words at every position of a 20 MB log.
_RETURN_NUMBER = re.compile(r"(?<!\d)[1-5]\d{5}(?!\d)")
_RETURN_WORDS = re.compile(
    r"(?i)(?:error[\s_]?(?:code|no)|errcode|ret(?:code|val)?|runtime\s?result|return\s?code"
    r"|failed|status"
    r"|(?<![A-Za-z])(?:code|err(?:no)?|error|result))" + _SEP + r"\Z"
)
_RETURN_WINDOW = 40
# The names of the headers: ACL_ERROR_RT_DEVICE_OOM, ACLNN_ERR_PARAM_INVALID, HCCL_E_TIMEOUT...
_CODE_NAME = re.compile(
    r"(ACL_ERROR_[A-Z0-9_]{2,60}|ACLNN_[A-Z0-9_]{2,60}|HCCL_E_[A-Z_]{2,30}"
    r"|DCMI_ERR_CODE_[A-Z_]{2,50})(?![A-Za-z0-9_])"
)
# HCCL's errNo: (5 << 24) + (sub-module << 16) + HcclResult, printed as 16 hex digits.
_HCCL_ERRNO = re.compile(r"errNo\[0x([0-9a-fA-F]{16})\]")
_HCCL_RESULT = re.compile(
    r"(?i)hccl[^\n]{0,200}?(?:error ?code|return code|ret|hcclresult|result)"
    + _SEP
    + r"(\d{1,2})(?![\d.])"
)
# DCMI / npu-smi: "ret is -8020", "error code: -8005".
_DCMI_NUMBER = re.compile(r"-8\d{3}(?!\d)")
_DCMI_WORDS = re.compile(
    r"(?i)(?:ret(?:urn)?(?: code)?|error ?code|errcode|err(?:no)?)" + _SEP + r"\Z"
)
# GE's internal Status (8-10 digits, or 0x + 8 hex digits), only after the words that
# introduce a code: GE's plog "ErrorNo: 1343242270(Prepare Graph infershape failed)", "ret =
# 1343225860", "ge result[1343225857]", "GE error 1343266818", "status: 50331649". A number
# elsewhere (a shape, a timestamp, a pid, a size) is not read; nor one the tables lack. The
# number is found first (by the first four digits of the table's numbers, or 0x: a cheap scan
# of 20 MB logs, :func:`_ge_numbers`), then the table and the 40 characters before it are
# checked.
_GE_INTRO = re.compile(
    r"(?i)(?<![a-z_])(?:error\s?no|error\s?code|errcode|ret(?:code|urn\s?code)?|result|status"
    r"|ge\s?error|failed)" + _SEP + r"\Z"
)
# GE's older plogs print its FAILED as a signed int: "ErrorNo: -1(failed)".
_GE_FAILED_SIGNED = re.compile(r"ErrorNo: ?-1\(failed\)")
# torch_npu: "ERR02200 DIST call hccl api failed" (ERR + submodule + code, then the submodule).
_TORCH_NPU_CODE = re.compile(r"(ERR\d{5}) (?:PTA|OPS|DIST|GRAPH|PROF)\b")
# MindIE: "MIE04E13030A" (MIE + component 00-08 + level letter + 6 hex digits). MindX SDK /
# Vision SDK: APP_ERR_* by name only (their numbers are small integers). Both start with a
# literal, so the scan jumps from one "MIE" / "APP_ERR_" to the next (a lookbehind before it
# makes the scan 20x slower on a 20 MB log); the character before is checked in _word_start.
_MINDIE_CODE = re.compile(r"MIE0[0-8][A-Z][0-9A-F]{6}(?![0-9A-Za-z_])")
_MINDX_NAME = re.compile(r"APP_ERR_[A-Z0-9_]{2,70}(?![A-Za-z0-9_])")
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _word_start(text: str, pos: int) -> bool:
    """Whether ``pos`` starts a word (no ASCII letter, digit or underscore right before it)."""
    return pos == 0 or text[pos - 1] not in _WORD_CHARS


RANKS = ("signature", "code", "family")  # how sure a finding is, most sure first


class CodeTableError(AscendLabError, ValueError):
    """``error_codes.json`` is malformed."""


@dataclass(frozen=True)
class CodeNote:
    """One error code found in the text, explained by the tables (or only by its family)."""

    code: str  # "EE1001", "507033", "HCCL_E_TIMEOUT", "-8020", "ERR02200", "MIE05E010019"
    kind: str  # "cann" | "return" | "hccl" | "dcmi" | "torch_npu" | "ge_status" | "mindie"
    #            | "mindx_sdk"
    module: str
    meaning: str
    next_steps: Tuple[str, ...]
    docs: Tuple[Tuple[str, str], ...]  # (title, url) in the reader's language
    line: int  # 1-based line of the first occurrence
    name: str = ""  # "Invalid_Argument" when the text prints Name(CODE); the header's name
    internal: bool = False  # 9000-9999 / 5xxxxx: an internal error of that module
    detail: str = ""  # what this exact code is (its name, or the message CANN prints)
    causes: Tuple[str, ...] = ()
    topics: Tuple[str, ...] = ()  # topics.json ids, then "code:<CODE>", "family:<X>"
    rank: str = "family"  # "code": this code is in the tables; "family": only its family

    def to_dict(self) -> Dict[str, Any]:
        return {
            "code": self.code,
            "kind": self.kind,
            "module": self.module,
            "meaning": self.meaning,
            "name": self.name,
            "internal": self.internal,
            "detail": self.detail,
            "causes": list(self.causes),
            "next_steps": list(self.next_steps),
            "docs": [{"title": t, "url": u} for t, u in self.docs],
            "line": self.line,
            "rank": self.rank,
            "topics": list(self.topics),
        }


_table: Optional[Dict[str, Any]] = None


def load_table(path: Optional[str] = None) -> Dict[str, Any]:
    """The code tables, checked (the packaged file by default; cached)."""
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
    """Raise :class:`CodeTableError` unless ``doc`` is a usable code table."""
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
    _check_codes(doc)


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


def _check_codes(doc: Dict[str, Any]) -> None:
    """Every listed code: a kind that exists, topics, English and Chinese words."""
    from ascend_lab.doctor.knowledge import known_topics

    topics = known_topics()

    def check_topics(where: str, values: Any) -> None:
        if not isinstance(values, list):
            raise CodeTableError(where + ": topics must be a list")
        for t in values:
            if not isinstance(t, str) or not (t in topics or t.startswith(("code:", "family:"))):
                raise CodeTableError(f"{where}: unknown topic {t!r} (see topics.json)")

    kinds = doc.get("kinds")
    if not isinstance(kinds, dict) or not kinds:
        raise CodeTableError("error code table has no kinds")
    for key, kind in kinds.items():
        where = f"kind {key!r}"
        for field in ("meaning", "causes", "next"):
            if not kind.get(field) or not kind.get("zh", {}).get(field):
                raise CodeTableError(f"{where}: needs {field} in English and Chinese")
        if len(kind["next"]) != len(kind["zh"]["next"]):
            raise CodeTableError(where + ": zh.next needs one step per English step")
        check_topics(where, kind.get("topics", []))
    families = {f["prefix"] for f in doc["families"]}
    for code, item in doc.get("codes", {}).items():
        if not _ERROR_CODE.fullmatch(code) or code[:2] not in families:
            raise CodeTableError(f"code {code!r} is not an E-code of a known family")
        if item.get("kind") not in kinds:
            raise CodeTableError(f"code {code}: unknown kind {item.get('kind')!r}")
        check_topics(f"code {code}", item.get("topics"))
        if "versions" in item:
            _check_versions(doc, code, item["versions"])
    prefixes = {g["prefix"] for g in doc["return_codes"]}
    for number, item in doc.get("returns", {}).items():
        if not re.fullmatch(r"[1-5]\d{5}", number) or number[:3] not in prefixes:
            raise CodeTableError(f"return code {number!r} has no range in return_codes")
        if not isinstance(item.get("name"), str) or ("meaning" in item) != ("zh" in item):
            raise CodeTableError(f"return code {number}: needs a name, and zh with a meaning")
        check_topics(f"return code {number}", item.get("topics"))
    _check_ge_status(doc, check_topics)
    for group in ("hccl", "dcmi", "torch_npu"):
        for number, item in doc.get(group, {}).items():
            if not all(isinstance(item.get(k), str) and item[k] for k in ("name", "meaning", "zh")):
                raise CodeTableError(f"{group} {number}: needs name, meaning and zh")
            check_topics(f"{group} {number}", item.get("topics"))
            if group == "dcmi" and len(item.get("next", [])) != len(item.get("next_zh", [])):
                raise CodeTableError(f"dcmi {number}: next_zh needs one step per English step")
    _check_downstream(doc, check_topics)


def _check_downstream(doc: Dict[str, Any], check_topics: Any) -> None:
    """MindIE's and MindX SDK's codes: English and Chinese words, steps and topics."""
    mindie = doc.get("mindie")
    if mindie is not None:
        items = list(mindie.get("codes", {}).items())
        items += [("server " + k, v) for k, v in mindie["server"]["categories"].items()]
        for code, item in items:
            if not all(isinstance(item.get(k), str) and item[k] for k in ("meaning", "zh")):
                raise CodeTableError(f"mindie {code}: needs meaning and zh")
            if not item.get("next") or len(item["next"]) != len(item.get("next_zh", [])):
                raise CodeTableError(f"mindie {code}: next_zh needs one step per English step")
            if "topics" in item:
                check_topics(f"mindie {code}", item["topics"])
        for comp, item in mindie["components"].items():
            if not (item.get("module") and item.get("zh")):
                raise CodeTableError(f"mindie component {comp}: needs module and zh")
    sdk = doc.get("mindx_sdk")
    if sdk is not None:
        for name, item in sdk["codes"].items():
            cls = sdk["classes"].get(item.get("class"))
            if not cls or not all(cls.get(k) for k in ("en", "zh", "next", "next_zh")):
                raise CodeTableError(f"mindx_sdk {name}: its class needs en, zh and next steps")
            check_topics(f"mindx_sdk {name}", item.get("topics"))


def _check_ge_status(doc: Dict[str, Any], check_topics: Any) -> None:
    """GE's status numbers: each with a family and a kind that have English and Chinese words."""
    families = doc.get("ge_status_families", {})
    kinds = doc.get("ge_status_kinds", {})
    common = doc.get("ge_status_common", {})
    for field in ("module", "module_zh"):
        if doc.get("ge_status") and not common.get(field):
            raise CodeTableError("ge_status_common needs " + field)
    for key, kind in kinds.items():
        texts = [kind.get(f) for f in ("en", "zh")] + list(kind.get("next", []))
        if not all(isinstance(t, str) and t for t in texts) or len(kind.get("next", [])) != len(
            kind.get("next_zh", [])
        ):
            raise CodeTableError(f"ge_status kind {key!r}: needs en, zh and one zh step per step")
        check_topics(f"ge_status kind {key!r}", kind.get("topics", []))
    for number, item in doc.get("ge_status", {}).items():
        where = f"ge_status {number}"
        if not re.fullmatch(r"[1-9]\d{7,9}", number) or not all(
            isinstance(item.get(k), str) and item[k] for k in ("name", "meaning", "zh")
        ):
            raise CodeTableError(where + ": needs an 8-10 digit number, a name, meaning and zh")
        family = families.get(item.get("family"))
        if not (isinstance(family, list) and len(family) == 2 and all(family)):
            raise CodeTableError(f"{where}: family {item.get('family')!r} needs en and zh words")
        if item.get("kind") not in kinds:
            raise CodeTableError(f"{where}: unknown kind {item.get('kind')!r}")
        check_topics(where, item.get("topics"))


def _check_versions(doc: Dict[str, Any], code: str, versions: Any) -> None:
    """A code seen only in other CANN versions' docs: its versions, and the words that say so."""
    if (
        not isinstance(versions, list)
        or not versions
        or not all(isinstance(v, str) and v for v in versions)
    ):
        raise CodeTableError(f"code {code}: versions must be a non-empty list of strings")
    words = doc.get("other_versions")
    for texts in (words, (words or {}).get("zh")):
        if not isinstance(texts, dict) or "{versions}" not in str(texts.get("meaning", "")):
            raise CodeTableError("other_versions needs meaning ({versions}) in English and Chinese")
        if "{first}" not in str(texts.get("range", "")):
            raise CodeTableError(
                "other_versions needs range ({first}, {last}) in English and Chinese"
            )


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


def _names(table: Dict[str, Any]) -> Dict[str, Tuple[str, str]]:
    """Header name -> (code, kind), built once per table."""
    cached = table.get("_names")
    if cached is None:
        cached = {}
        for number, item in table.get("returns", {}).items():
            cached.setdefault(item["name"], (number, "return"))
        for item in table.get("hccl", {}).values():
            cached[item["name"]] = (item["name"], "hccl")
        for number, item in table.get("dcmi", {}).items():
            cached[item["name"]] = (number, "dcmi")
        table["_names"] = cached
    return cached


def _hccl_by_number(table: Dict[str, Any], number: int) -> Optional[str]:
    item = table.get("hccl", {}).get(str(number))
    return item["name"] if item else None


def find_codes(
    text: str, lang: str = "en", table: Optional[Dict[str, Any]] = None
) -> List[CodeNote]:
    """The distinct error codes of ``text`` in order of first appearance (at most MAX_CODES)."""
    table = table or load_table()
    families = {f["prefix"] for f in table["families"]}
    returns = {r["prefix"] for r in table["return_codes"]}
    names = {}
    for m in _NAMED_CODE.finditer(text):
        before = _NAME_BEFORE.search(text, max(0, m.start() - 61), m.start())
        if before and m.group(1) not in names:
            names[m.group(1)] = before.group(0)
    found: List[Tuple[int, str, str]] = []
    seen = set()

    def add(pos: int, code: str, kind: str) -> None:
        if code not in seen:
            seen.add(code)
            found.append((pos, code, kind))

    for m in _ERROR_CODE_SCAN.finditer(text):
        if m.group(0)[:2] in families and _word_start(text, m.start()):
            add(m.start(), m.group(0), "cann")
    for m in _RETURN_NUMBER.finditer(text):
        start = m.start()
        if m.group(0)[:3] in returns and _RETURN_WORDS.search(
            text, max(0, start - _RETURN_WINDOW), start
        ):
            add(start, m.group(0), "return")
    by_name = _names(table)
    for m in _CODE_NAME.finditer(text):
        hit = by_name.get(m.group(1))
        if hit is not None and _word_start(text, m.start()):
            add(m.start(), hit[0], hit[1])
    for m in _HCCL_ERRNO.finditer(text):
        value = int(m.group(1), 16)
        if (value >> 24) & 0xFF == 5 or value < 0x100:
            name = _hccl_by_number(table, value & 0xFFFF)
            if name:
                add(m.start(), name, "hccl")
    for m in _HCCL_RESULT.finditer(text):
        name = _hccl_by_number(table, int(m.group(1)))
        if name:
            add(m.start(1), name, "hccl")
    for m in _DCMI_NUMBER.finditer(text):
        start = m.start()
        if m.group(0) in table.get("dcmi", {}) and _DCMI_WORDS.search(
            text, max(0, start - _RETURN_WINDOW), start
        ):
            add(start, m.group(0), "dcmi")
    for m in _TORCH_NPU_CODE.finditer(text):
        if m.group(1) in table.get("torch_npu", {}) and _word_start(text, m.start()):
            add(m.start(1), m.group(1), "torch_npu")
    ge_status = table.get("ge_status", {})
    for m in _ge_numbers(table).finditer(text):
        number = _ge_number(text, m.start(), m.group(0))
        if number in ge_status and _GE_INTRO.search(text, max(0, m.start() - 40), m.start()):
            add(m.start(), number, "ge_status")
    failed = _GE_FAILED_SIGNED.search(text)
    if failed and "4294967295" in ge_status:
        add(failed.start(), "4294967295", "ge_status")
    mindie = table.get("mindie")
    if mindie is not None:
        for m in _MINDIE_CODE.finditer(text):
            if _word_start(text, m.start()):
                add(m.start(), m.group(0), "mindie")
    sdk = table.get("mindx_sdk", {}).get("codes", {})
    for m in _MINDX_NAME.finditer(text):
        if m.group(0) in sdk and _word_start(text, m.start()):
            add(m.start(), m.group(0), "mindx_sdk")
    found.sort()
    # GE's status numbers relay a failure GE's plog reports with more words: they fill the
    # places the other codes leave, so a plog full of them keeps its CANN codes
    kept = [f for f in found if f[2] != "ge_status"][:MAX_CODES]
    kept += [f for f in found if f[2] == "ge_status"][: MAX_CODES - len(kept)]
    kept.sort()
    return [
        explain(code, kind, _line_of(text, pos), names.get(code, ""), lang, table)
        for pos, code, kind in kept
    ]


def _ge_numbers(table: Dict[str, Any]) -> "re.Pattern[str]":
    """The scan for GE status candidates: the table's numbers' first four digits, or 0x."""
    return _ge_scan(tuple(sorted({number[:4] for number in table.get("ge_status", {})})))


@functools.lru_cache(maxsize=4)
def _ge_scan(heads: Tuple[str, ...]) -> "re.Pattern[str]":
    return re.compile(r"(?:" + "|".join(heads + ("0[xX]",)) + r")[0-9a-fA-F]{4,8}(?!\w|\.\d)")


def _ge_number(text: str, start: int, token: str) -> str:
    """The decimal number of a candidate GE status at ``start``, or "" when it is none: part of
    a longer word or number, hex of another length, or digits and letters mixed."""
    if start and (text[start - 1].isalnum() or text[start - 1] in "_."):
        return ""
    if token[1] in "xX":
        return str(int(token[2:], 16)) if token[0] == "0" and len(token) == 10 else ""
    return token if token.isdigit() else ""


def explain(
    code: str,
    kind: str,
    line: int = 0,
    name: str = "",
    lang: str = "en",
    table: Optional[Dict[str, Any]] = None,
) -> CodeNote:
    """The note for one code (``kind`` "cann", "return", "hccl", "dcmi", "torch_npu",
    "ge_status", "mindie" or "mindx_sdk") in ``lang``."""
    table = table or load_table()
    zh = lang == "zh_CN"
    if kind == "cann":
        return _explain_cann(code, line, name, lang, table)
    if kind == "ge_status":
        return _explain_ge_status(code, line, lang, table)
    if kind == "mindie":
        return _explain_mindie(code, line, lang, table)
    if kind == "mindx_sdk":
        return _explain_mindx(code, line, lang, table)
    if kind in ("hccl", "dcmi", "torch_npu"):  # each code has its words; the module's shared
        common = table[kind + "_common"]
        if kind == "hccl":
            item = next(i for i in table["hccl"].values() if i["name"] == code)
        else:
            item = table[kind][code]
        steps = item if kind == "dcmi" else common
        return CodeNote(
            code=code,
            kind=kind,
            module=common["module_zh" if zh else "module"],
            meaning=item["zh" if zh else "meaning"],
            next_steps=tuple(steps["next_zh" if zh else "next"]),
            docs=_docs(table, common["docs"], lang),
            line=line,
            name=item["name"],
            detail=item["name"],
            topics=tuple(item["topics"]),
            rank="code",
        )
    group = next(r for r in table["return_codes"] if r["prefix"] == code[:3])
    texts = _texts(group, lang)
    item = table.get("returns", {}).get(code)
    cls = table.get("return_classes", {}).get(code[0], {})
    if item is None:
        return CodeNote(
            code=code,
            kind=kind,
            module=texts["owner"],
            meaning=texts["meaning"],
            next_steps=tuple(texts["next"]),
            docs=_docs(table, group["docs"], lang),
            line=line,
            internal=code[0] == "5",
            topics=("code:" + code,),
        )
    own = item.get("zh" if zh else "meaning", "")
    label = own or item.get("label", "")
    meaning = own or cls.get("zh" if zh else "en", texts["meaning"])
    steps = item.get("next_zh" if zh else "next") or texts["next"]
    return CodeNote(
        code=code,
        kind=kind,
        module=texts["owner"],
        meaning=meaning,
        next_steps=tuple(steps),
        docs=_docs(table, group["docs"], lang),
        line=line,
        name=item["name"],
        internal=code[0] == "5",
        detail=item["name"] + (("：" if zh else ": ") + label if label and not own else ""),
        topics=tuple(item["topics"]),
        rank="code",
    )


def _explain_ge_status(code: str, line: int, lang: str, table: Dict[str, Any]) -> CodeNote:
    """A GE status number: what its kind of failure is, in which module, and what GE prints."""
    zh = lang == "zh_CN"
    item = table["ge_status"][code]
    common = table["ge_status_common"]
    kind = table["ge_status_kinds"][item["kind"]]
    steps = list(kind["next_zh" if zh else "next"]) + list(common["next_zh" if zh else "next"])
    printed = item.get("printed", "")
    return CodeNote(
        code=code,
        kind="ge_status",
        module=common["module_zh" if zh else "module"],
        meaning=item["zh" if zh else "meaning"],
        next_steps=tuple(dict.fromkeys(steps)),
        docs=_docs(table, common["docs"], lang),
        line=line,
        name=item["name"],
        internal=item["kind"] in ("internal", "signal"),
        detail=item["name"] + ((("：" if zh else ": ") + printed) if printed else ""),
        topics=tuple(item["topics"]),
        rank="code",
    )


def _other_versions(item: Dict[str, Any], lang: str, table: Dict[str, Any]) -> str:
    """For a code only other CANN versions document: which versions, in the reader's language."""
    versions = item.get("versions")
    if not versions:
        return ""
    words = _texts(table["other_versions"], lang)
    seen = versions[0]
    if len(versions) > 1:
        seen = words["range"].format(first=versions[0], last=versions[-1], count=len(versions))
    return str(words["meaning"].format(versions=seen))


def _explain_cann(code: str, line: int, name: str, lang: str, table: Dict[str, Any]) -> CodeNote:
    fam = next(f for f in table["families"] if f["prefix"] == code[:2])
    texts = _texts(fam, lang)
    internal = _texts(table["internal"], lang)
    docs = _docs(table, fam["docs"], lang)
    item = table.get("codes", {}).get(code)
    # 9000-9999 is a module's internal range, unless the code's documented meaning names a
    # failure of the vocabulary (E19010 / EZ9010: no parser for the operator): then it is that.
    is_internal = int(code[2:]) >= 9000 and not (
        item is not None
        and not item["topics"][0].startswith("code:")
        and "inner_error" not in item["title"].lower()
    )
    if item is None:
        steps = list(texts["next"]) + (list(internal["next"]) if is_internal else [])
        meaning = texts["meaning"]
        if is_internal:
            meaning = internal["meaning"] + " — " + meaning
        return CodeNote(
            code=code,
            kind="cann",
            module=texts["module"],
            meaning=meaning,
            next_steps=tuple(steps),
            docs=docs,
            line=line,
            name=name,
            internal=is_internal,
            topics=("code:" + code, "family:" + code[:2]),
        )
    words = _texts(table["kinds"][item["kind"]], lang)
    if item.get("doc"):
        page = item["doc_zh" if lang == "zh_CN" else "doc"]
        docs = ((f"{code} {item['title']}", page),) + docs
    steps = list(words["next"]) + list(texts["next"][:1])
    return CodeNote(
        code=code,
        kind="cann",
        module=texts["module"],
        meaning=words["meaning"],
        next_steps=tuple(dict.fromkeys(steps)),
        docs=docs,
        line=line,
        name=name,
        internal=is_internal,
        detail=item["title"]
        + (": " + item["message"] if item.get("message") else "")
        + _other_versions(item, lang, table),
        causes=tuple(words["causes"]),
        topics=tuple(item["topics"]),
        rank="code",
    )


def _explain_mindie(code: str, line: int, lang: str, table: Dict[str, Any]) -> CodeNote:
    """A MIE code: its page group's words when a page lists it, else what its fields say
    (MindIE MS's sub-component and type, MindIE Server's lists), else its component."""
    zh = lang == "zh_CN"
    mindie = table["mindie"]
    common = table["mindie_common"]
    comp = mindie["components"][code[3:5]]
    module = comp["zh" if zh else "module"]
    docs = _docs(table, common["docs"], lang)
    item = mindie["codes"].get(code)
    rank, detail, internal = "code", "", False
    if item is None and code[3:5] == "04":
        item, detail = _mindie_server(code, mindie, zh)
    if item is not None:
        internal = bool(item["internal"])
        if item.get("doc"):
            docs = ((code, item["doc"]),) + docs
        if item.get("versions") and not detail:
            documented = mindie["documented"]["zh" if zh else "en"]
            detail = documented.format(versions=", ".join(item["versions"]))
        topics = tuple(item.get("topics") or ("code:" + code,))
        meaning = item["zh" if zh else "meaning"]
        steps = list(item["next_zh" if zh else "next"])
    else:
        rank, topics = "family", ("code:" + code, "family:" + code[:5])
        texts = mindie["unlisted"]
        meaning = texts["zh" if zh else "en"].format(component=comp["name"])
        ms_type = mindie["ms"]["types"].get(code[-2:]) if code[3:5] == "03" else None
        sub = mindie["ms"]["subcomponents"].get(code[6:8])
        if ms_type is not None and sub is not None:
            meaning = mindie["ms_decoded"]["zh" if zh else "en"].format(
                sub=sub, type=ms_type["zh" if zh else "meaning"]
            )
            detail = ms_type["name"]
            internal = bool(ms_type["internal"])
        steps = []
    steps += list(common["next_zh" if zh else "next"])
    return CodeNote(
        code=code,
        kind="mindie",
        module=module,
        meaning=meaning,
        next_steps=tuple(dict.fromkeys(steps)),
        docs=docs,
        line=line,
        name=code,
        internal=internal,
        detail=detail,
        topics=topics,
        rank=rank,
    )


def _mindie_server(code: str, mindie: Dict[str, Any], zh: bool) -> Tuple[Any, str]:
    """A MindIE Server code on its pages' lists (sub-component x 01-09 x category, by level),
    with what it is: the sub-component, the category, and what 3.x's numbering says."""
    server = mindie["server"]
    sub, seq, cat = code[6:8], code[8:10], code[10:12]
    category = server["categories"].get(cat)
    listed = code in server["also_listed"] or (
        sub in server["subcomponents"]
        and seq in server["sequences"]
        and category is not None
        and category["level"] == code[5]
    )
    if code in server["also_listed"]:
        category = server["categories"]["01"]
    if not listed or category is None:
        return None, ""
    name = server["subcomponents"][sub]
    later = server["types_310"]
    detail = f"{name}, {category['title_zh' if zh else 'title']}"
    if cat in later["types"]:
        detail += "; " + later["zh" if zh else "en"].format(later["types"][cat][int(zh)])
    return dict(category, topics=["code:" + code]), detail


def _explain_mindx(code: str, line: int, lang: str, table: Dict[str, Any]) -> CodeNote:
    """An APP_ERR_* name: its range's words, its number and documented return information."""
    zh = lang == "zh_CN"
    sdk = table["mindx_sdk"]
    common = table["mindx_sdk_common"]
    item = sdk["codes"][code]
    cls = sdk["classes"][item["class"]]
    return CodeNote(
        code=code,
        kind="mindx_sdk",
        module=common["module_zh" if zh else "module"],
        meaning=cls["zh" if zh else "en"],
        next_steps=(cls["next_zh" if zh else "next"],),
        docs=_docs(table, common["docs"], lang),
        line=line,
        name=code,
        internal=bool(item["internal"]),
        detail=f'{code} = {item["value"]}: "{item["info"]}"',
        topics=tuple(item["topics"]),
        rank="code",
    )

"""GE's internal status numbers, for scripts/build_error_tables.py (issue #36).

Graph Engine (GE) and the libraries around it (metadef's graph and register code, the
parsers, LLM DataDist) return a ``Status`` (uint32) and print it as a number: a plog line
``ErrorNo: 1343242270(Prepare Graph infershape failed)``, ``ret = 1343225860``, ``ge
result[1343225857]``. The numbers are not listed anywhere: macros pack them from fields.

- ``GE_ERRORNO(runtime, type, level, sysid, modid, name, value, desc)`` (metadef's
  ``api_error_codes.h``; graphengine's ``ge_api_error_codes.h``): runtime 2 bits << 30, type
  2 bits << 28, level 3 bits << 25, sysid 8 bits << 17, modid 5 bits << 12, value 12 bits,
  each field masked as the macro masks it (:func:`ge_errorno`). ``GE_ERRORNO_COMMON``,
  ``_CLIENT``, ``_INIT``, ``_SESSION``, ``_GRAPH``, ``_ENGINE``, ``_OPS``, ``_PLUGIN``,
  ``_RUNTIME``, ``_EXECUTOR``, ``_GENERATOR`` and ``LLM_ERRORNO_COMMON`` fill in the first five
  fields (``error_codes_define.h``); ``GE_ERRORNO_DEFINE`` takes them as numbers.
- ``DECLARE_ERRORNO(sysid, modid, name, value)`` (the register / domi framework codes,
  ``register_error_codes.h`` and ``fmk_error_codes.h``): sysid << 24, modid << 16, value 16
  bits (:func:`domi_errorno`).
- ``graphStatus`` constants (``graph/error_codes.h``, ``common_error_codes.h``): the number
  as written (``GRAPH_PARAM_INVALID = 50331649``, ``GRAPH_FAILED = 0xFFFFFFFF``).

:func:`extract` reads the headers (and the ``.cc`` files that register each code's
description) at the snapshots of :data:`SNAPSHOTS`, resolves the macros' fields from the
enums and ``#define`` s of the same files, packs every code and returns the facts: per number,
each name defined with it (several stacks reuse a number: 50331649 is domi's PARAM_INVALID
and GRAPH_PARAM_INVALID), its family (the sub-module), the description the source registers
and the snapshots that define it. :func:`kind_of` sorts a name into a kind of failure by the
words of the name (:data:`KIND_RULES`); words.json gives each kind and family its English and
Chinese words, and the topic a kind names, if any.
"""

import re
import subprocess
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

# (key, repository, ref or None for the mirror's HEAD, paths, what): newest first, so a
# number's description is the newest one's; an older snapshot adds the codes dropped since.
SNAPSHOTS: Tuple[Tuple[str, str, Optional[str], Tuple[str, ...], str], ...] = (
    ("ge-status-metadef", "hicann/metadef", None,
     ("inc/external/ge_common/api_error_codes.h", "pkg_inc/common/ge_common/error_codes_define.h",
      "inc/external/graph/error_codes.h", "inc/external/register/register_error_codes.h"),
     "GE_ERRORNO (the packing), the sub-module macros and their enums, PARAM_INVALID / "
     "RT_FAILED / INTERNAL_ERROR, GE's FAILED, END_OF_SEQUENCE, graphStatus GRAPH_*, "
     "domi's DECLARE_ERRORNO"),
    ("ge-status-ge", "hicann/ge", None,
     ("inc/graph_metadef/common/ge_common/ge_inner_error_codes.h",
      "inc/graph_metadef/common/ge_common/fmk_error_codes.h", "base/common/fmk_error_codes.cc",
      "inc/graph_metadef/graph/common_error_codes.h",
      "dflow/llm_datadist/v1/llm_error_codes_v1.h", "dflow/llm_datadist/v1/llm_error_codes.cc"),
     "GE's codes per sub-module (GE_ERRORNO_COMMON ... GE_ERRORNO_GENERATOR), the domi "
     "framework codes (OMG / OME) with their DEF_ERRORNO descriptions, LLM DataDist's codes"),
    ("ge-status-graphengine", "mindspore-ai/graphengine", "v1.8.0",
     ("inc/external/ge/ge_api_error_codes.h", "inc/framework/common/ge_inner_error_codes.h"),
     "GE of MindSpore 1.x's releases (graphengine v1.8.0): the same macros, and the codes "
     "removed since (MEMALLOC_FAILED ... PATH_INVALID of the common module)"),
)  # fmt: skip

# GE's SubModuleId / domi's MODID_* -> the family of the table (words.json ge_status.families)
GE_MODULES = {
    "COMMON_MODULE": "common", "CLIENT_MODULE": "client", "INIT_MODULE": "init",
    "SESSION_MODULE": "session", "GRAPH_MODULE": "graph", "ENGINE_MODULE": "engine",
    "OPS_MODULE": "ops", "PLUGIN_MODULE": "plugin", "RUNTIME_MODULE": "runtime",
    "EXECUTOR_MODULE": "executor", "GENERATOR_MODULE": "generator", "LLM_ENGINE_MODULE": "llm",
}  # fmt: skip
DOMI_MODULES = {0: "fwk-common", 1: "omg", 2: "ome", 3: "calibration"}


def ge_errorno(runtime: int, type_: int, level: int, sysid: int, modid: int, value: int) -> int:
    """The Status GE_ERRORNO packs (api_error_codes.h): each field masked as the macro does."""
    return (
        ((0xFF & runtime) << 30)
        | ((0xFF & type_) << 28)
        | ((0xFF & level) << 25)
        | ((0xFF & sysid) << 17)
        | ((0xFF & modid) << 12)
        | (0x0FFF & value)
    ) & 0xFFFFFFFF


def domi_errorno(sysid: int, modid: int, value: int) -> int:
    """The Status DECLARE_ERRORNO packs (register_error_codes.h)."""
    return (((0xFF & sysid) << 24) | ((0xFF & modid) << 16) | (0xFFFF & value)) & 0xFFFFFFFF


def unpack(number: int) -> Dict[str, int]:
    """GE_ERRORNO's fields of ``number`` (for the tests and the reader)."""
    return {
        "runtime": number >> 30, "type": (number >> 28) & 3, "level": (number >> 25) & 7,
        "sysid": (number >> 17) & 0xFF, "modid": (number >> 12) & 0x1F, "value": number & 0xFFF,
    }  # fmt: skip


_INT = r"(0[bB][01]+|0[xX][0-9a-fA-F]+|\d+)[uU]?"


def _int(text: str) -> int:
    text = text.rstrip("uU")
    if text[:2] in ("0b", "0B"):
        return int(text[2:], 2)
    return int(text, 0) if text[:2] in ("0x", "0X") else int(text)


def _constants(text: str) -> Dict[str, int]:
    """Every NAME = number of the enums, and every ``#define NAME number``."""
    out: Dict[str, int] = {}
    for body in re.findall(r"\benum\b[^{;]{0,80}\{([^}]{0,4000})\}", text):
        for name, value in re.findall(r"(\w+)\s*=\s*" + _INT, body):
            out[name] = _int(value)
    for name, value in re.findall(r"#define\s+(\w+)\s+" + _INT + r"\s", text):
        out[name] = _int(value)
    for name, value in re.findall(r"constexpr\s+int32_t\s+(\w+)\s*=\s*" + _INT + ";", text):
        out[name] = _int(value)
    return out


def _field(arg: str, consts: Dict[str, int]) -> int:
    arg = arg.strip().strip("()").split("::")[-1].strip()
    if re.fullmatch(_INT, arg):
        return _int(arg)
    return consts[arg]


def _module_macros(text: str, consts: Dict[str, int]) -> Dict[str, Tuple[List[int], str]]:
    """GE_ERRORNO_<MODULE> / LLM_ERRORNO_COMMON -> (the 5 fields, the module's enum name)."""
    out = {}
    pattern = (
        r"#define\s+((?:GE|LLM)_ERRORNO_[A-Z_]+)\(name, value, desc\)\s*\\\s*"
        r"(?:AF_)?GE_ERRORNO\(([^;]{0,400}?),\s*name,"
    )
    for macro, args in re.findall(pattern, text):
        parts = [a for a in re.sub(r"\\\s*", " ", args).split(",")]
        fields = [_field(p, consts) for p in parts]
        module = parts[4].strip().split("::")[-1]
        out[macro] = (fields, module)
    return out


def _descriptions(text: str, macro: str = "GE_ERRORNO_EXTERNAL") -> Dict[str, str]:
    """NAME -> description registered by GE_ERRORNO_EXTERNAL (GE's) or DEF_ERRORNO (domi's)."""
    found = re.findall(macro + r'\((\w+),\s*"((?:[^"\\]|\\.)*)"\)', text)
    return {name: desc for name, desc in found}


def parse(
    text: str, context: str = "", domi_descs: Optional[Dict[str, str]] = None
) -> List[Dict[str, Any]]:
    """Every status code the headers in ``text`` define: name, number, family, description.
    ``context``: headers read before whose enums and macros ``text`` uses (hicann/ge builds
    against metadef's), without their codes."""
    consts = _constants(context + "\n" + text)
    macros = _module_macros(context + "\n" + text, consts)
    descs = _descriptions(text)
    domi = dict(domi_descs or {})  # DEF_ERRORNO's, registered in a .cc of another snapshot
    codes: List[Dict[str, Any]] = []

    def add(name: str, number: int, family: str, desc: str) -> None:
        if number:  # SUCCESS (0) is not an error
            codes.append({"name": name, "number": number, "family": family, "printed": desc})

    call = r"\(\s*(\w+),\s*" + _INT + r",\s*\"((?:[^\"\\]|\\.)*)\"\s*\)"

    def pack(fields: List[int], value: int) -> int:
        return ge_errorno(fields[0], fields[1], fields[2], fields[3], fields[4], value)

    for macro, (fields, module) in macros.items():
        for name, value, desc in re.findall(re.escape(macro) + call, text):
            add(name, pack(fields, _int(value)), GE_MODULES[module], desc)
    general = r"GE_ERRORNO\(" + r",\s*".join([_INT] * 5) + r",\s*(\w+),\s*" + _INT
    for m in re.finditer(general + r",\s*\"([^\"]*)\"\)", text):
        numbers = [_int(f) for f in m.groups()[:5]]
        add(m.group(6), pack(numbers, _int(m.group(7))), "general", m.group(8))
    for m in re.finditer(r"GE_ERRORNO_DEFINE\(" + r",\s*".join([_INT] * 5)
                         + r",\s*(\w+),\s*" + _INT + r"\)", text):  # fmt: skip
        numbers = [_int(f) for f in m.groups()[:5]]
        mod_id = numbers[4]
        family = "llm" if mod_id == 11 else "common" if mod_id == 0 else f"module-{mod_id}"
        add(m.group(6), pack(numbers, _int(m.group(7))), family, descs.get(m.group(6), ""))
    # domi: DECLARE_ERRORNO(sysid, modid, name, value) and its per-module wrappers
    wrappers = dict(
        re.findall(r"#define\s+(DECLARE_ERRORNO_\w+)\(name, value\)\s+DECLARE_ERRORNO\("
                   r"(\w+, \w+), name, value\)", context + "\n" + text)
    )  # fmt: skip
    for m in re.finditer(r"(?<!define )DECLARE_ERRORNO(_\w+)?\(([^()]{1,200})\);", text):
        args = [a.strip() for a in m.group(2).split(",")]
        if m.group(1):
            if "DECLARE_ERRORNO" + m.group(1) not in wrappers:
                continue
            sysid, modid = (a.strip() for a in wrappers["DECLARE_ERRORNO" + m.group(1)].split(","))
            name, value = args
        else:
            sysid, modid, name, value = args
        sys_n, mod_n = _field(sysid, consts), _field(modid, consts)
        family = "general" if sys_n == 0xFF else DOMI_MODULES.get(mod_n, f"domi-{mod_n}")
        add(name, domi_errorno(sys_n, mod_n, _field(value, consts)), family, domi.get(name, ""))
    for m in re.finditer(r"(?:const|constexpr) graphStatus (\w+) = " + _INT + ";", text):
        add(m.group(1), _int(m.group(2)), "graph-status", "")
    return codes


def _git(repo_dir: str, *args: str) -> str:
    out = subprocess.run(["git", "-C", repo_dir, *args], capture_output=True, check=True)
    return out.stdout.decode("utf-8")


def extract(repo_dir, sources: Dict[str, Any]) -> Dict[str, List[Dict[str, Any]]]:
    """Read :data:`SNAPSHOTS` (``repo_dir(owner/name)`` gives a mirror's git directory) and
    record each snapshot in ``sources``; return number -> its definitions."""
    by_number: Dict[int, List[Dict[str, Any]]] = {}
    texts = []
    for key, repo, ref, paths, what in SNAPSHOTS:
        git_dir = repo_dir(repo)
        line = _git(git_dir, "log", "-1", "--format=%H %cI", ref or "HEAD").split()
        sources[key] = OrderedDict(
            [("repo", repo), ("path", ", ".join(paths)), ("what", what), ("commit", line[0]),
             ("date", line[1]), ("url", f"https://github.com/{repo}")]
            + ([("ref", ref)] if ref else [])
        )  # fmt: skip
        texts.append("\n".join(_git(git_dir, "show", f"{line[0]}:{p}") for p in paths))
    # domi's descriptions (DEF_ERRORNO in hicann/ge) name codes metadef's headers define
    domi = _descriptions("\n".join(texts), "DEF_ERRORNO")
    context = ""
    for (key, *_rest), text in zip(SNAPSHOTS, texts):
        for code in parse(text, context, domi):
            defs = by_number.setdefault(code["number"], [])
            same = next((d for d in defs if d["name"] == code["name"]), None)
            if same is None:
                defs.append(OrderedDict([("name", code["name"]), ("family", code["family"]),
                                         ("printed", code["printed"]),
                                         ("seen", [key])]))  # fmt: skip
            elif key not in same["seen"]:
                same["seen"].append(key)
                same["printed"] = same["printed"] or code["printed"]
        context += "\n" + text
    return OrderedDict((str(n), by_number[n]) for n in sorted(by_number))


# ---------------------------------------------------------------------------------------
# The kind of failure a name states (by its words), and the topic a kind names
# ---------------------------------------------------------------------------------------

# First rule that matches the name wins. Kinds and their topics: words.json ge_status.kinds.
KIND_RULES: Tuple[Tuple[str, str], ...] = (
    # not failures: a pass changed nothing, a node to repass, the end of a data sequence
    (r"NOT_CHANGED|NEED_REPASS|NO_DEPENDENCE_FUNC|TO_BE_DELETED|^SUSPEND$|END_OF_SEQUENCE"
     r"|NO_OVERLAP_DIM|NOT_SUPPORT_SLICE|WITHOUT_CONST_INPUT", "signal"),
    (r"MEM_ALLOC_DEVICE|FEATURE_MAP_MEM|WEIGHT_MEM|VAR_MEM|P2P_MEM|DEVICE_OUT_OF_MEMORY",
     "device-memory"),
    (r"ALLOC_HOST", "host-memory"),
    (r"NO_FREE_BLOCK|BLOCKS_OUT_OF_MEMORY", "kv-cache"),
    (r"MEMALLOC|MALLOC_FAILED|OUT_OF_MEMORY|MEMORY_ALLOC", "memory"),
    (r"MODEL_PATH|MODEL_KEY_PATH|MODEL_DATA_SIZE|PARTITION_NUM|NOT_SUPPORT_ENCRYPTION"
     r"|READ_MODEL_FILE|LOAD_\w+_PARTITION|PARSE_MODEL|PARSE_WEIGHTS", "model-file"),
    (r"DEVICE_ID_INVALID", "device-id"),
    (r"DEVICE_NOT_READY", "device"),
    (r"_PROF_", "profiling"),
    (r"TIMEOUT|TIME_OUT", "timeout"),
    (r"^LLM_LINK_FAILED$", "link"),
    (r"ASSIGN_ENGINE_FAILED", "engine-unsupported"),
    (r"CALL_HCCL", "hccl-call"),
    (r"^RT_FAILED$|^CCE_FAILED$|CSEC_ERROR|TEE_ERROR|_RTI_CALL_|MEM_OPERATE|MEMCPY|MEMSET",
     "runtime-call"),
    (r"PLGMGR|NO_VALID_SO|NOT_REGISTERED|KERNEL_INFO_NOT_EXIST|KERNEL_STORE_NOT_EXIST"
     r"|LOAD_GE_OPTIMIZER|GET_OPTIMIZE_BY", "plugin"),
    (r"(?i:OVERFLOW)|MATH_CAL", "overflow"),
    (r"INFERSHAPE|INFER_RULE|INVALID_IR_DEF", "infershape"),
    (r"INVALID|NULL|_EMPTY|EMPTY_|OUT_OF_RANGE|UNSUPPORTED|NOT_SUPPORT|MISMATCH|MEMTYPE",
     "invalid"),
    (r"NOT_INIT|NOT_INITIALIZED|ALREADY|MULTI_|REPEAT|NOT_EXIST|IS_RUNNING|NOT_BUILT"
     r"|FINALIZED|_EXIST$|NOT_YET|NOT_READY|PROCESSING|BUSY|ISFULL|INCOMPATIBLE|NOT_ENABLED"
     r"|EXCEED|OVER_LIMIT|COMPLETED|NOT_LOADED", "state"),
    (r"^FAILED$|^GRAPH_FAILED$|INTERNAL_ERROR", "internal"),
)  # fmt: skip


def kind_of(name: str) -> str:
    """The kind of failure ``name`` states, by :data:`KIND_RULES` ("step-failed" else)."""
    for pattern, kind in KIND_RULES:
        if re.search(pattern, name):
            return kind
    return "step-failed"


def build(facts: Dict[str, Any], words: Dict[str, Any]) -> Dict[str, Any]:
    """The table's ``ge_status``: per number, its names, family, kind, printed text, topics."""
    own = words["ge_status"]
    out: Dict[str, Any] = OrderedDict()
    for number, defs in facts["ge_status"].items():
        # a number several stacks define: the kind of its first definition that is a failure
        # (50331648 is graphStatus's signal GRAPH_NODE_WITHOUT_CONST_INPUT and domi's
        # MEMALLOC_FAILED), and a topic only when every definition names the same one
        defs = sorted(defs, key=lambda d: kind_of(d["name"]) == "signal")
        first = defs[0]
        kinds = [kind_of(d["name"]) for d in defs]
        topics = list(own["kinds"][kinds[0]].get("topics", []))
        for k in kinds[1:]:
            if own["kinds"][k].get("topics", []) != topics:
                topics = []
        kind = own["kinds"][kinds[0]]
        family_en, family_zh = own["families"][first["family"]]
        printed = OrderedDict.fromkeys(d["printed"] for d in defs if d["printed"])
        out[number] = OrderedDict(
            [("name", " / ".join(d["name"] for d in defs)), ("family", first["family"]),
             ("kind", kinds[0]), ("meaning", f"{kind['en']}, in {family_en}"),
             ("zh", f"{family_zh}：{kind['zh']}"),
             ("printed", " / ".join(printed)),
             ("topics", topics + ["code:" + number]),
             ("source", ", ".join(OrderedDict.fromkeys(s for d in defs for s in d["seen"])))]
        )  # fmt: skip
    return out


def coverage(facts: Dict[str, Any], table: Dict[str, Any]) -> List[str]:
    names = sum(len(d) for d in facts["ge_status"].values())
    fams: Dict[str, int] = {}
    for item in table["ge_status"].values():
        fams[item["family"]] = fams.get(item["family"], 0) + 1
    named = sum(1 for i in table["ge_status"].values() if not i["topics"][0].startswith("code:"))
    return [
        f"  GE status numbers: {len(table['ge_status'])} / {len(facts['ge_status'])} "
        f"({names} names; {named} name a topic)",
        "    by family: " + ", ".join(f"{k} {v}" for k, v in sorted(fams.items())),
    ]

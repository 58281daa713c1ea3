"""torch_npu's, vllm-ascend's and vLLM's own error messages, read from their source, and which
doctor rule reads them. The sibling of scripts/mindspore_message_table.py (whose filling and
first-answer machinery it reuses), for the stacks besides MindSpore that learners on Ascend meet
most (vllm-ascend's logs carry upstream vLLM's own messages as often as its own).

    python scripts/torch_npu_message_table.py --extract STACK GIT_DIR:REF[=VERSION] [...]
    python scripts/torch_npu_message_table.py            # check the mapped templates
    python scripts/torch_npu_message_table.py --list AREA  # one area's templates, as read

STACK is ``torch_npu`` (Ascend/pytorch, and Ascend/op-plugin, whose aclnn loader and operator
checks torch_npu builds in), ``vllm_ascend`` (vllm-project/vllm-ascend) or ``vllm``
(vllm-project/vllm, the engine vllm-ascend plugs into; its commits are the ones vllm-ascend
releases name as their vLLM); or ``mindspore_profiler`` (MindSpore's profiler package,
mindspore/python/mindspore/profiler, newer than the snapshots scripts/mindspore_message_table.py
reads). In torch_npu's and MindSpore's profiler packages the profilers' own printed and logged
lines are read too (print_error_msg / print_warn_msg, logger.error/warning, ProfilerLogger), each
kept with the line form it is printed in.

Stage 1 (``--extract``) reads git snapshots (git directories without work tree, as the ``fetch``
tool brings them) and records the message templates: C++ ``TORCH_CHECK(cond, ...)`` and its
``_WITH/_VALUE/_TYPE/_INDEX/_NOT_IMPLEMENTED`` forms, ``AT_ERROR``, ``TORCH_NPU_WARN(_ONCE)``,
``TORCH_WARN``, ``ASCEND_LOGE`` (printf formats), ``throw std::*_error(...)``; Python ``raise
XError(...)``, and for vLLM also ``logger.error/exception/critical(...)`` (printf formats).
Literals are kept; what the code puts between them becomes ``{}``. The code suffix torch_npu
appends (``PTA_ERROR(ErrCode::PARAM)`` in C++, ``pta_error(ErrCode.PARAM)`` in Python,
printed as ``ERR00001 PTA invalid parameter``) is not part of the template: it is kept as the row's
``code``. The tables (``scripts/error_tables/{torch_npu,vllm_ascend,vllm}_messages.json``) keep
only facts: area, kind, template, code, file, the snapshots it was read at. vllm-project/vllm is
larger than a snapshot may be: its commits are read from a fork whose main carries upstream's
history (recorded as the snapshot's ``read_from``); the commits are the ones vllm-ascend names.

Stage 2 (default) is the review: ``scripts/error_tables/torch_npu_message_map.json`` (written by
hand, after reading the templates) says which templates have one meaning a doctor topic names.
Each mapped template is filled with illustrative values and raised as the stack prints it (its
exception kind, the template, torch_npu's ``[ERROR] ... ERRxxxxx`` line when the row has a code),
and run through the doctor; the run prints, per area, how many templates were extracted, mapped
and read with the mapped topic. A mapped template read with another topic is an error (exit 1).
"""

import argparse
import json
import os
import re
import sys
from collections import OrderedDict
from typing import Dict, Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TABLES = {
    "torch_npu": os.path.join(HERE, "error_tables", "torch_npu_messages.json"),
    "vllm_ascend": os.path.join(HERE, "error_tables", "vllm_ascend_messages.json"),
    "vllm": os.path.join(HERE, "error_tables", "vllm_messages.json"),
    # MindSpore's profiler package (mindspore/python/mindspore/profiler), newer than the
    # snapshots scripts/mindspore_message_table.py reads; its raises and its logged lines
    "mindspore_profiler": os.path.join(HERE, "error_tables", "mindspore_profiler_messages.json"),
}
MAP_FILE = os.path.join(HERE, "error_tables", "torch_npu_message_map.json")
# The repository a stack's commits belong to, when a snapshot is read from a fork that carries
# them (vllm-project/vllm is larger than a snapshot may be; its forks carry its main history).
UPSTREAM = {"vllm": "vllm-project/vllm"}


sys.path.insert(0, HERE)
import mindspore_message_table as MS  # noqa: E402 - fill(), _first_topic(), _git(), _statement()

# Areas, by path (first match wins), per stack; names are qualified by the stack.
AREAS = {
    "torch_npu": [
        ("memory", r"Allocator|allocator|memory|Memory|NPUStorage|storage|_snapshot"),
        ("distributed", r"distributed|ProcessGroup|HCCL|hccl|Hccl|/rpc/|afd/"),
        ("op-api", r"op_api|OpInterface|opapi|op_plugin/utils|aclnn|atb/|custom_functions"),
        ("operator", r"op_plugin/ops|aten/|framework/|custom_dtype|/contrib/|_op_plugin"),
        ("profiler", r"profiler|prof|mstx"),
        ("graph", r"inductor|dynamo|_graph|graph|compile|npugraph|aclgraph|jit"),
        (
            "device-runtime",
            r"core/npu|csrc/npu|InitNpuBindings|npu/__init__|npu/utils|_device|npu_init|"
            r"NpuSysCtrl|/npu/|torch_npu/__init__|utils/",
        ),
        ("other", r"."),
    ],
    "vllm_ascend": [
        ("distributed", r"distributed|eplb|parallel|kv_transfer|kv_connector"),
        ("operator", r"/ops/|attention|quantization|csrc/|_310p/ops|sample|lora"),
        ("worker", r"worker|device_allocator|model_runner|cpu_binding|xlite|device/"),
        ("model", r"models|model_loader|model_executor|spec_decode"),
        ("compilation", r"compilation|torchair|graph"),
        ("platform", r"platform|envs|utils|ascend_config|patch|core/|config"),
        ("other", r"."),
    ],
    "vllm": [
        ("distributed", r"distributed|parallel_state|kv_transfer|/ray|ray_|multiproc_executor"),
        ("memory", r"kv_cache|block_manager|core/block|device_allocator|cache_engine|/mem"),
        ("worker", r"worker|model_runner|v1/core/|(?<!model_)executor/"),
        ("engine", r"engine|entrypoints|/v1/|sequence|outputs|sampling_params|inputs/"),
        ("config", r"config|envs\.py|arg_utils"),
        ("operator", r"layers/|attention|quantization|_custom_ops|kernels|triton|/ops/|lora"),
        ("model", r"models|model_loader|transformers_utils|tokeni|multimodal|reasoning|tool_pars"),
        ("compilation", r"compilation|cuda_graph|graph"),
        ("platform", r"platforms|plugins|utils|usage|device"),
        ("other", r"."),
    ],
    "mindspore_profiler": [("profiler", r".")],
}
PATHS = {
    "torch_npu": ["torch_npu", "op_plugin/utils", "op_plugin/ops", "op_plugin/python"],
    "vllm_ascend": ["vllm_ascend", "csrc"],
    "vllm": ["vllm"],
    "mindspore_profiler": ["mindspore/python/mindspore/profiler"],
}
SKIP_PATH = re.compile(
    r"/(?:test|tests|testing|benchmarks?|examples?|docs?|third_party|tools)/|_test\.|/test_"
)

# The C++ statements that raise or log, and the exception kind each raises.
CXX_START = re.compile(
    r"\b(TORCH_CHECK(?:_WITH|_VALUE|_TYPE|_INDEX|_NOT_IMPLEMENTED)?|AT_ERROR|TORCH_NPU_WARN(?:_ONCE)?|"
    r"TORCH_WARN(?:_ONCE)?|ASCEND_LOGE|throw std::(\w+_error|exception)|"
    # a message built for an exception: exceptionMsg = c10::str("[Rank ", rank_, "] Watchdog ...")
    r"(?<=[Mm]sg = )c10::str|(?<=[Ee]rror = )c10::str|(?<=[Ee]xceptionMsg = )c10::str)\s?\("
)
CXX_KIND = {
    "TORCH_CHECK": "RuntimeError",
    "AT_ERROR": "RuntimeError",
    "TORCH_CHECK_VALUE": "ValueError",
    "TORCH_CHECK_TYPE": "TypeError",
    "TORCH_CHECK_INDEX": "IndexError",
    "TORCH_CHECK_NOT_IMPLEMENTED": "NotImplementedError",
    "TORCH_NPU_WARN": "UserWarning",
    "TORCH_NPU_WARN_ONCE": "UserWarning",
    "TORCH_WARN": "UserWarning",
    "TORCH_WARN_ONCE": "UserWarning",
    "ASCEND_LOGE": "ERROR log",
}
# Arguments that are not the message: the condition(s) before it.
CXX_SKIP = {"TORCH_CHECK": 1, "TORCH_CHECK_VALUE": 1, "TORCH_CHECK_TYPE": 1}
CXX_SKIP.update({"TORCH_CHECK_INDEX": 1, "TORCH_CHECK_NOT_IMPLEMENTED": 1, "TORCH_CHECK_WITH": 2})
PY_START = re.compile(r"raise (\w+(?:Error|Exception|Warning))\(")
GREP = {
    "torch_npu": r"TORCH_CHECK|AT_ERROR\(|TORCH_NPU_WARN|TORCH_WARN|ASCEND_LOGE\(|throw std::|"
    r"c10::str\(|raise [A-Za-z]+(Error|Exception)\(|print_(error|warn)_msg\(|"
    r"logger\.(error|exception|critical|warning|warn)\(",
    "vllm_ascend": r"TORCH_CHECK|AT_ERROR\(|raise [A-Za-z]+(Error|Exception)\(",
    "vllm": r"raise [A-Za-z]+(Error|Exception)\(|logger\.(error|exception|critical)\(",
    "mindspore_profiler": r"raise [A-Za-z]+(Error|Exception)\(|"
    r"logger\.(error|exception|critical|warning)\(",
}
# vLLM's logged errors (its messages take printf formats: logger.error("... %s", x)).
PY_LOG = re.compile(r"\blogger\.(?:error|exception|critical)\(")
# torch_npu's profiler prints its own lines (torch_npu/profiler/analysis/prof_common_func/
# _constant.py: print_error_msg / print_warn_msg, '[<date>] [ERROR] [<pid>] profiler.py: <msg>')
# and logs to its ProfilerLogger file ('[<date>] [ERROR] [AscendProfiler:<line>] <msg>');
# read in torch_npu/profiler/** only.
PROF_LOG = re.compile(
    r"\b(print_error_msg|print_warn_msg|_?logger\.(?:error|exception|critical|warning|warn))\("
)
PROF_KIND = {"print_error_msg": "ERROR print", "print_warn_msg": "WARNING print"}
PROF_DIRS = ("torch_npu/profiler/", "mindspore/python/mindspore/profiler/")
STRING = re.compile(
    r'(?:\b[urfbRFUB]{1,2})?("(?:[^"\\\n]|\\.){0,2000}"|\'(?:[^\'\\\n]|\\.){0,2000}\')'
)
# torch_npu's error code suffix: C++ PTA_ERROR(ErrCode::PARAM), Python pta_error(ErrCode.PARAM).
CODE_CALL = re.compile(r"\b(PTA|OPS|DIST|GRAPH|PROF)_ERROR\(\s?ErrCode::(\w+)\s?\)", re.I)
PRINTF = re.compile(r"%[-+ #0-9.]{0,6}(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]")
FORMAT_FIELD = re.compile(r"\{[^{}\n]{0,200}\}")

SUBMODULES = {"PTA": 0, "OPS": 1, "DIST": 2, "GRAPH": 3, "PROF": 4}
ERRCODES = OrderedDict(
    [
        ("SUC", (0, "success")),
        ("SUCCESS", (0, "success")),
        ("PARAM", (1, "invalid parameter")),
        ("TYPE", (2, "invalid type")),
        ("VALUE", (3, "invalid value")),
        ("PTR", (4, "invalid pointer")),
        ("INTERNAL", (5, "internal error")),
        ("MEMORY", (6, "memory error")),
        ("NOT_SUPPORT", (7, "feature not supported")),
        ("NOT_FOUND", (8, "resource not found")),
        ("UNAVAIL", (9, "resource unavailable")),
        ("SYSCALL", (10, "system call failed")),
        ("TIMEOUT", (11, "timeout error")),
        ("PERMISSION", (12, "permission error")),
        ("ACL", (100, "call acl api failed")),
        ("HCCL", (200, "call hccl api failed")),
        ("GE", (300, "call ge api failed")),
        ("EXCEPT", (999, "applicaiton exception")),
    ]
)


def err_code(submodule: str, name: str) -> Optional[str]:
    """'PTA', 'PARAM' -> 'ERR00001 PTA invalid parameter' (NPUException.cpp's formatErrorCode)."""
    sub = submodule.upper()
    if sub not in SUBMODULES or name not in ERRCODES:
        return None
    num, meaning = ERRCODES[name]
    return f"ERR{SUBMODULES[sub]:02d}{num:03d} {sub} {meaning}"


def area_of(stack: str, path: str) -> str:
    for name, pat in AREAS[stack]:
        if re.search(pat, path):
            return f"{stack}/{name}"
    return f"{stack}/other"


def _cxx_statement(lines: List[str], i: int, start: int) -> str:
    """The macro call that starts at column ``start`` of line i, up to its closing parenthesis."""
    text = ""
    for j in range(i, min(i + 30, len(lines))):
        line = lines[j].rstrip()
        if line.endswith("\\"):
            line = line[:-1]
        text += (line[start:] if j == i else line.strip()) + " "
        if _balanced(text):
            break
    return text


def _balanced(text: str) -> bool:
    """True once the first '(' of text has been closed (strings and chars skipped)."""
    depth = 0
    seen = False
    for tok in re.finditer(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[()]', text):
        t = tok.group(0)
        if t == "(":
            depth += 1
            seen = True
        elif t == ")":
            depth -= 1
            if seen and depth == 0:
                return True
    return False


def _args(call: str) -> List[str]:
    """The top-level arguments of the call ``NAME(a, b, ...)`` (strings and brackets kept whole)."""
    open_at = call.find("(")
    out: List[str] = []
    depth = 0
    cur = ""
    for tok in re.finditer(
        r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[()\[\]{},]|[^"\'()\[\]{},]+', call[open_at + 1 :]
    ):
        t = tok.group(0)
        if t in "([{":
            depth += 1
        elif t in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif t == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += t
    if cur.strip():
        out.append(cur.strip())
    return out


def _unquote(lit: str) -> str:
    body = lit[1:-1]
    return body.replace('\\"', '"').replace("\\'", "'").replace("\\n", " ").replace("\\t", " ")


def _concat(expr: str, printf: bool = False) -> str:
    """One argument as text: its string literals, {} for whatever else is put between them."""
    parts: List[str] = []
    last = 0
    for s in STRING.finditer(expr):
        gap = expr[last : s.start()]
        if re.search(r"[A-Za-z0-9_\]\)#]", gap) and not re.fullmatch(r"[\s+,<]*", gap):
            if not (parts and parts[-1] == "{}"):
                parts.append("{}")
        lit = _unquote(s.group(1))
        prefix = s.group(0)[: len(s.group(0)) - len(s.group(1))].lower()
        after = expr[s.end() : s.end() + 9]
        if "f" in prefix or after.startswith(".format("):
            lit = FORMAT_FIELD.sub("{}", lit)
        if printf or re.match(r"\s?%", after):
            lit = PRINTF.sub("{}", lit)
        parts.append(lit)
        last = s.end()
    tail = expr[last:]
    if re.search(r"[A-Za-z_(]", re.sub(r"\.format\(.{0,400}\)|%\s?\(?", "", tail)) and (
        not parts or parts[-1] != "{}"
    ):
        parts.append("{}")
    return "".join(parts)


def _clean(text: str) -> str:
    text = re.sub(r"\s{2,}", " ", text).strip()
    return re.sub(r"(?:\{\}\s?){2,}", "{} ", text).strip()


def cxx_template(call: str, macro: str) -> Tuple[str, str, Optional[str]]:
    """(kind, template, code) of one C++ raising/logging call."""
    args = _args(call)
    kind = CXX_KIND.get(macro, "RuntimeError")
    if macro == "TORCH_CHECK_WITH" and args:
        name = args[0].split("::")[-1]
        kind = "torch.OutOfMemoryError" if name == "OutOfMemoryError" else name
    args = args[CXX_SKIP.get(macro, 0) :]
    code = None
    parts: List[str] = []
    for n, a in enumerate(args):
        m = CODE_CALL.search(a)
        if m:
            code = err_code(m.group(1), m.group(2)) or code
            a = CODE_CALL.sub("", a).strip(" +")
            if not a:
                continue
        parts.append(_concat(a, printf=(macro == "ASCEND_LOGE" and n == 0)))
    if macro == "ASCEND_LOGE" and len(parts) > 1:
        parts = parts[:1]  # the values of the format's %s
    return kind, _clean("".join(parts)), code


def _py_statement(lines: List[str], i: int, start: int) -> str:
    """The Python call that starts at column ``start`` of line i, up to its closing parenthesis."""
    text = ""
    for j in range(i, min(i + 20, len(lines))):
        text += (lines[j][start:] if j == i else lines[j].strip()) + " "
        if _balanced(text):
            break
    return text


def py_template(stmt: str) -> Tuple[str, str, Optional[str]]:
    """(kind, template, code) of one Python raise statement or logged error."""
    log = PY_LOG.search(stmt)
    if log:
        args = _args(stmt[log.end() - 1 :])
        return "ERROR log", _clean(_concat(args[0], printf=True)) if args else "", None
    m = PY_START.search(stmt)
    kind = m.group(1) if m else "Error"
    body, code = _py_code(stmt[m.end() - 1 :] if m else stmt)
    args = _args(body)
    text = _concat(args[0]) if args else ""
    return kind, _clean(text), code


def _py_code(body: str) -> Tuple[str, Optional[str]]:
    """The call's text without torch_npu's Python code suffix (pta_error(ErrCode.PARAM)), and
    the code it prints (or None)."""
    cm = re.search(r"\b(pta|ops|dist|graph|prof)_error\(\s?ErrCode\.(\w+)\s?\)", body)
    if not cm:
        return body, None
    return body.replace(cm.group(0), ""), err_code(cm.group(1), cm.group(2))


def prof_template(stmt: str) -> Tuple[str, str, Optional[str]]:
    """(kind, template, code) of one message torch_npu's or MindSpore's profiler prints or logs."""
    m = PROF_LOG.search(stmt)
    if not m:
        return "", "", None
    name = m.group(1)
    level = "WARNING" if name.endswith(("warning", "warn")) else "ERROR"
    kind = PROF_KIND.get(name, level + " log")
    if name.startswith("_logger"):
        kind = level + " file log"  # MindSpore's ProfilerLogger (self._logger): its own file
    body, code = _py_code(stmt[m.end() - 1 :])
    args = _args(body)
    text = _concat(args[0], printf=kind.endswith(" log")) if args else ""
    return kind, _clean(text).rstrip(" +"), code


def extract(stack: str, git_dir: str, ref: str) -> Iterator[Dict[str, str]]:
    commit = MS._git(git_dir, "rev-parse", ref + "^{commit}").strip()
    paths = [p for p in PATHS[stack]]
    hits = MS._git(git_dir, "grep", "-l", "-E", GREP[stack], commit, "--", *paths).splitlines()
    for hit in hits:
        path = hit.split(":", 1)[1]
        if SKIP_PATH.search("/" + path) or not re.search(r"\.(?:cpp|cc|h|hpp|py)$", path):
            continue
        python = path.endswith(".py")
        lines = MS._git(git_dir, "show", commit + ":" + path).splitlines()
        for i, line in enumerate(lines):
            own = False  # a line torch_npu's profiler prints or logs itself
            if python:
                log = PY_LOG.search(line) if stack == "vllm" else None
                prof = PROF_LOG.search(line) if path.startswith(PROF_DIRS) else None
                if prof and not line.lstrip().startswith("def "):
                    kind, text, code = prof_template(_py_statement(lines, i, prof.start()))
                    own = True
                elif PY_START.search(line):
                    kind, text, code = py_template(MS._statement(lines, i, True))
                elif log:
                    kind, text, code = py_template(_py_statement(lines, i, log.start()))
                else:
                    continue
            else:
                m = CXX_START.search(line)
                if not m or line.lstrip().startswith(("#define", "//")):
                    continue
                macro = m.group(1) if not m.group(2) else "throw"
                macro = "AT_ERROR" if macro == "c10::str" else macro
                call = _cxx_statement(lines, i, m.start())
                kind, text, code = cxx_template(call, macro)
                if m.group(2):
                    kind = "RuntimeError" if m.group(2) == "runtime_error" else m.group(2)
            if len(re.findall(r"[A-Za-z]{3,}", text)) < 3:
                continue
            yield {
                "template": text,
                "kind": kind,
                "code": code or "",
                "file": path,
                # the profiler's own printed and logged lines belong to it, whatever they parse
                "area": f"{stack}/profiler" if own else area_of(stack, path),
            }


def do_extract(stack: str, specs: List[str]) -> int:
    table: Dict[str, Dict] = OrderedDict()
    snapshots = []
    for spec in specs:
        git_dir, _, ref = spec.rpartition(":")
        ref, _, label = ref.partition("=")
        repo = os.path.basename(os.path.dirname(git_dir.rstrip("/"))).replace("+", "/")
        read_from = ""
        if stack in UPSTREAM and repo != UPSTREAM[stack]:
            # a fork whose history carries the upstream commits: the commit is upstream's
            read_from, repo = repo, UPSTREAM[stack]
        date = MS._git(git_dir, "log", "-1", "--format=%cs", ref).strip()
        version = next(
            (
                v.strip()
                for v in MS._git(git_dir, "show", ref + ":version.txt").splitlines()
                if re.fullmatch(r"\s*\d+\.\d+[\w.+-]*\s*", v)
            ),
            ref,
        )
        snap = OrderedDict(
            [
                ("repo", repo),
                ("ref", ref),
                ("date", date),
                ("version", label or version),
                ("commit", MS._git(git_dir, "rev-parse", ref + "^{commit}").strip()),
            ]
        )
        if read_from:
            snap["read_from"] = read_from
        snapshots.append(snap)
        n = 0
        for row in extract(stack, git_dir, ref):
            key = row["area"] + "\t" + row["template"]
            if row["kind"].endswith((" print", " log")) and row["file"].startswith(PROF_DIRS):
                key += "\t" + row["kind"]  # the profiler's printed line beside a raise of it
            entry = table.setdefault(key, dict(row, seen=[]))
            if not entry["code"] and row["code"]:
                entry["code"] = row["code"]
            if len(snapshots) - 1 not in entry["seen"]:
                entry["seen"].append(len(snapshots) - 1)
            n += 1
        print(f"{repo} {ref} ({version}, {date}): {n} messages")
    rows = sorted(table.values(), key=lambda r: (r["area"], r["file"], r["template"]))
    head = OrderedDict(
        [
            ("format", "ascend-lab.stack-messages/1"),
            (
                "description",
                f"Message templates {stack} raises, read from its source by "
                "scripts/torch_npu_message_table.py --extract. Facts only: the literal text of "
                "each message ({} where the code puts a value), its exception kind, torch_npu's "
                "error code suffix when the source appends one, one file that raises it, and the "
                "snapshots (indices into 'snapshots') it was seen in.",
            ),
            ("stack", stack),
            ("snapshots", snapshots),
            ("columns", ["area", "kind", "template", "code", "file", "seen"]),
        ]
    )
    out = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "messages": [\n'
    out += ",\n".join(
        "  "
        + json.dumps(
            [r["area"], r["kind"], r["template"], r["code"], r["file"], r["seen"]],
            ensure_ascii=False,
        )
        for r in rows
    )
    return MS.write_table(TABLES[stack], out, rows)


# ---------------------------------------------------------------------------------------
# Stage 2: the reviewed mapping.
# ---------------------------------------------------------------------------------------


def read_map(path: str = MAP_FILE) -> List[Tuple[str, str, str, str]]:
    """The reviewed mapping: (area regex, regex on the template, topic, regex on the row's error
    code or ''), first match wins."""
    with open(path, encoding="utf-8") as fh:
        return [
            (m["area"], m["pattern"], m["topic"], m.get("code", "")) for m in json.load(fh)["map"]
        ]


def read_map_kinds(path: str = MAP_FILE) -> List[str]:
    """Per mapping (in read_map's order), a regex the row's kind must match in full, or ''
    (torch_npu's profiler prints a message as an ERROR or a WARNING line: 'ERROR print')."""
    with open(path, encoding="utf-8") as fh:
        return [m.get("kind", "") for m in json.load(fh)["map"]]


MAPPED = read_map()
MAPPED_KINDS = read_map_kinds()


def read_table(stack: str) -> List[Dict]:
    with open(TABLES[stack], encoding="utf-8") as fh:
        data = json.load(fh)
    return [dict(zip(data["columns"], row)) for row in data["messages"]]


def read_tables() -> List[Dict]:
    return [row for stack in TABLES for row in read_table(stack)]


def fill(template: str) -> str:
    """The template with illustrative values (MindSpore's filler; torch_npu's own names first)."""
    text = re.sub(r"\{\}(?= or \{\}GetWorkspaceSize)", "aclnnMatmul", template)
    text = re.sub(r"(?<=or )\{\}(?=GetWorkspaceSize)", "aclnnMatmul", text)
    text = re.sub(r"\{\}(?=GetWorkspaceSize| not in libopapi)", "aclnnMatmul", text)
    text = re.sub(
        r"(?<=GetWorkspaceSize not in )\{\}|(?<=, or )\{\}(?= ?not found)", "libopapi.so", text
    )
    # device indexes are numbers in torch_npu ('Ascend' is MindSpore's device); sizes carry units
    text = re.sub(r"(?<=non-negative device index, but got )\{\}", "-1", text)
    text = re.sub(
        r"((?:device[ _]index|device argument|on NPU(?: device)?|valid range is \[0,|"
        r"device_count\(\) is)[=: ]{0,3})\{\}",
        r"\g<1>8",
        text,
    )
    text = re.sub(r"(?<=allocation of )\{\}", "2.00 GiB", text)
    text = re.sub(r"(?<=soc version: )\{\}|(?<=soc_version: )\{\}", "Ascend310B4", text)
    text = re.sub(r"(?<=at the same time in PyTorch: npu and )\{\}", "cuda", text)
    text = re.sub(r"\{\}(?= ?(?:seconds|milliseconds|ms)\b)", "480", text)
    # vLLM's memory checks: token counts, GiB amounts, the memory fraction
    text = re.sub(r"(?<=max seq len \()\{\}", "32768", text)
    text = re.sub(r"(?<=stored in KV cache \()\{\}", "7344", text)
    text = re.sub(r"(?<=utilization \()\{\}", "0.9", text)
    text = re.sub(r"\{\}(?=/\{\} ?GiB)", "11.52", text)
    text = re.sub(r"\{\}(?= ?Gi?B\b)", "58.03", text)
    text = re.sub(r"(?<=on node )\{\}|(?<=on device )\{\}(?= \()", "0", text)
    text = re.sub(r"\{\}(?= attempts)", "5", text)
    text = re.sub(r"\{\}(?= (?:GPU|NPU)s\b)", "8", text)
    # ProcessGroupHCCL streams the work (*this) as WorkHCCL(SeqNum=..., OpType=..., Timeout(ms)=...)
    work = "WorkHCCL(SeqNum=12, OpType=ALLREDUCE, Timeout(ms)=1800000)"
    text = re.sub(r"(?<=operation timeout: )\{\}", work, text)
    return MS.fill(text)


def message(row: Dict) -> str:
    """A template as the stack prints it: the exception kind, the filled template, and torch_npu's
    error-code line when the source appends one (formatErrorCode's layout)."""
    kind = row.get("kind") or ""
    if kind.endswith(" print"):
        # torch_npu's profiler: print_error_msg / print_warn_msg (_constant.py)
        level = kind.split()[0]
        return f"[2026-01-07 02:38:42] [{level}] [12345] profiler.py: " + fill(row["template"])
    if row.get("file", "").startswith("mindspore/python/mindspore/profiler/"):
        level = kind.split()[0]
        if kind.endswith(" file log"):
            # MindSpore's ProfilerLogger (profiler/common/log.py's LOG_FORMAT)
            name = row["file"].rsplit("/", 1)[-1]
            return f"[2026-01-07-02:38:42] [{level}] [{name}:123] " + fill(row["template"])
        if kind.endswith(" log"):
            # mindspore.log: level, ME(pid:tid,process), date, [file:line] as the wheel has it
            where = row["file"].replace("mindspore/python/", "", 1)
            head = f"[{level}] ME(12345:281473024,MainProcess):2026-01-07-02:38:42.269.390 "
            return head + f"[{where}:123] " + fill(row["template"])
    if kind.endswith(" log") and row.get("file", "").startswith("torch_npu/profiler/"):
        # its ProfilerLogger file (_log.py's LOG_FORMAT)
        level = kind.split()[0]
        head = f"[2026-01-07-02:38:42.269] [{level}] [AscendProfiler:140] "
        return head + fill(row["template"])
    if kind == "ERROR log" and row.get("area", "").startswith("vllm"):
        # vLLM's logger: level, date, time, [file:line], then the message
        return "ERROR 01-07 02:38:42 [core.py:123] " + fill(row["template"])
    if kind == "ERROR log":
        head = (
            "[ERROR] PTA(12345,python):2026-01-07-02:38:42.269.390 [NPUQueue.cpp:123]12345 [PTA]:"
        )
        return head + fill(row["template"])
    if not re.fullmatch(r"(?:\w+\.)?\w+(?:Error|Exception|Warning)", kind):
        kind = "RuntimeError"
    text = kind + ": " + fill(row["template"])
    if row.get("code"):
        text += "\n[ERROR] 2026-01-07-02:38:42 (PID:12345, Device:0, RankID:0) " + row["code"]
    return text


def mapped_topic(row: Dict) -> Optional[str]:
    for (area, pat, topic, code), kind in zip(MAPPED, MAPPED_KINDS):
        if (
            re.fullmatch(area, row["area"])
            and re.search(pat, row["template"])
            and (not code or re.search(code, row.get("code") or ""))
            and (not kind or re.fullmatch(kind, row.get("kind") or ""))
        ):
            return topic
    return None


def do_check(list_area: Optional[str]) -> int:
    rows = read_tables()
    if list_area:
        return MS.list_rows(rows, list_area, message)
    return MS.check_rows(rows, mapped_topic, message, width=26)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extract", nargs="+", metavar="STACK GIT_DIR:REF")
    ap.add_argument("--list", metavar="AREA")
    args = ap.parse_args(argv)
    if args.extract:
        stack, specs = args.extract[0], args.extract[1:]
        if stack not in TABLES or not specs:
            ap.error(
                "--extract needs a stack (torch_npu, vllm_ascend, vllm or mindspore_profiler) "
                "and GIT_DIR:REF ..."
            )
        return do_extract(stack, specs)
    return do_check(args.list)


if __name__ == "__main__":
    sys.exit(main())

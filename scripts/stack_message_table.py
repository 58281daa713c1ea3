"""The error messages of the stacks around CANN, read from their source, and which doctor rule
reads them.

    python scripts/stack_message_table.py --extract MIRRORS_DIR   # read the snapshots
    python scripts/stack_message_table.py                          # check the mapped templates
    python scripts/stack_message_table.py --list STACK             # one stack's templates, as read

The stacks: llama.cpp's CANN backend (ggml-cann, read in ggml-org/ggml, which llama.cpp vendors),
PaddlePaddle's custom-device plugin for the NPU (PaddleCustomDevice backends/npu), dlinfer and
LMDeploy's dlinfer/Ascend backend, xLLM's NPU layers (ATB), triton-ascend's Ascend backend, and
ONNX Runtime's CANN execution provider (whose snapshot is over the fetch limit: its templates
were read file by file in the search index and are kept, with their commits, in
``error_tables/stack_messages_by_hand.json``, as are Ray's NPU manager and SGLang's NPU
start-up). The tools around them that users run: the Kubernetes and container side of the NPU
in Go (MindCluster's device plugin, Docker runtime with its C hook, DCMI wrapper and Volcano
plugin; HAMi's Ascend code and device plugin; Volcano's vNPU), DeepSpeed's NPU accelerator and
LLaMA-Factory's NPU kernels.

Stage 1 (``--extract``) reads git snapshots (as the ``fetch`` tool brings them, under
``MIRRORS_DIR/<owner>+<name>/repo``) and records the message templates each stack prints on
failure, with the macro that prints it: ``GGML_ABORT`` / ``GGML_LOG_ERROR``, ``PADDLE_ENFORCE*`` /
``PADDLE_THROW`` with ``phi::errors::Kind``, glog's ``LOG(ERROR|FATAL)`` and ``CHECK*(...) <<``,
``TORCH_CHECK``, Python ``raise XError(...)``, and CMake's ``message(FATAL_ERROR ...)`` at
configure time. A template keeps its literal text; what the code
formats or streams into it becomes ``{}``. The checking wrappers that print the call they check
(ggml-cann's ``ACL_CHECK(stmt)``: 'CANN error: ...' then the statement; PaddleCustomDevice's
``ACL_CHECK`` / ``HCCL_CHECK`` / ``ATB_CHECK``: 'Call <stmt> failed : <code>') give one template
per call site, since the call says what failed. The table
(``error_tables/stack_messages.json``) keeps facts only: stack, macro, template, file, snapshot.

Stage 2 (default) is the review: ``error_tables/stack_message_map.json`` (by hand, after reading
the templates) says which templates have one meaning that a doctor topic names. Each mapped
template is filled with illustrative values, printed the way its stack prints it (a Paddle enforce
with its '(Kind)' and 'at file:line', a GGML abort with its file and line, a Python exception with
its class) and run through the doctor. A mapped template read with another topic is an error
(exit 1); an unmapped template the doctor reads with a topic is listed, for review.
"""

import json
import os
import re
import sys
from collections import Counter, OrderedDict
from typing import Dict, Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TABLE = os.path.join(HERE, "error_tables", "stack_messages.json")
BY_HAND = os.path.join(HERE, "error_tables", "stack_messages_by_hand.json")
MAP_FILE = os.path.join(HERE, "error_tables", "stack_message_map.json")
# The stacks whose templates were read by hand (stack_messages_by_hand.json).
BY_HAND_STACKS = ("onnxruntime-cann", "ray-npu", "sglang-npu")

# Go sources skip their tests, vendored modules and generated code.
GO_SKIP = r"/tests?/|_test\.go$|/vendor/|/testdata/|/mocks?/|zz_generated"
# What is read of each snapshot: (stack, owner+name, paths, paths skipped).
STACKS = [
    ("ggml-cann", "ggml-org+ggml", ["src/ggml-cann"], r"^$"),
    (
        "paddle-npu",
        "PaddlePaddle+PaddleCustomDevice",
        [
            "backends/npu/runtime",
            "backends/npu/kernels",
            "backends/npu/custom_op",
            "backends/npu/CMakeLists.txt",
            "backends/npu/cmake",
        ],
        r"/tests?/|_test\.",
    ),
    (
        "dlinfer",
        "DeepLink-org+dlinfer",
        ["dlinfer", "cmake", "CMakeLists.txt"],
        r"/tests?/|third_party/|_test\.",
    ),
    (
        "lmdeploy",
        "InternLM+lmdeploy",
        ["lmdeploy/pytorch/backends/dlinfer", "lmdeploy/pytorch/devices"],
        r"/tests?/",
    ),
    (
        "xllm",
        "jd-opensource+xllm",
        [
            "xllm/core/platform/npu",
            "xllm/core/kernels/npu",
            "xllm/core/layers/npu",
            "xllm/core/framework/parallel_state",
            "CMakeLists.txt",
        ],
        r"/tests?/|_test\.|/(?:cuda|mlu|ilu|musa)/|cuda_|mlu_",
    ),
    ("triton-ascend", "triton-lang+triton-ascend", ["third_party/ascend/backend"], r"/tests?/"),
    (
        "atb",
        "hicann+ascend-transformer-boost",
        [
            "src/atb/utils",
            "src/atb/operation",
            "src/atb/runner",
            "src/atb/context",
            "src/atb/kernel_cache",
            "src/ops/ops_infer",
        ],
        r"/tests?/|_test\.",
    ),
    # The Kubernetes and container side of the NPU (Go, and the Docker hook's C command line):
    # MindCluster's components (Ascend/mind-cluster) and, for older wordings, the archived
    # stand-alone repositories they came from; a template keeps the first snapshot it is read in.
    (
        "ascend-device-plugin",
        "Ascend+mind-cluster",
        ["component/ascend-device-plugin"],
        GO_SKIP,
    ),
    ("ascend-device-plugin", "Ascend+ascend-device-plugin", ["."], GO_SKIP),
    (
        "ascend-docker-runtime",
        "Ascend+mind-cluster",
        ["component/ascend-docker-runtime"],
        GO_SKIP,
    ),
    ("ascend-docker-runtime", "Ascend+ascend-docker-runtime", ["."], GO_SKIP),
    ("ascend-devmanager", "Ascend+mind-cluster", ["component/ascend-common/devmanager"], GO_SKIP),
    ("ascend-for-volcano", "Ascend+mind-cluster", ["component/ascend-for-volcano"], GO_SKIP),
    ("hami-ascend", "Project-HAMi+HAMi", ["pkg/device/ascend"], GO_SKIP),
    ("hami-ascend", "Project-HAMi+ascend-device-plugin", ["cmd", "internal"], GO_SKIP),
    (
        "volcano-vnpu",
        "volcano-sh+volcano",
        [
            "pkg/scheduler/api/devices/ascend",
            "pkg/scheduler/plugins/deviceshare/devices/ascend",
            "pkg/scheduler/api/devices/config/vnpu.go",
        ],
        GO_SKIP,
    ),
    # DeepSpeed's NPU accelerator and its NPU op builders (Python).
    (
        "deepspeed-npu",
        "deepspeedai+DeepSpeed",
        ["accelerator/npu_accelerator.py", "accelerator/real_accelerator.py", "op_builder/npu"],
        r"/tests?/",
    ),
    # LLaMA-Factory's device layer and its NPU kernels (v1), and its model patcher (Python).
    (
        "llamafactory-npu",
        "hiyouga+LLaMA-Factory",
        [
            "src/llamafactory/v1/accelerator",
            "src/llamafactory/v1/plugins/model_plugins/kernels",
            "src/llamafactory/model/patcher.py",
        ],
        r"/tests?/",
    ),
]
SOURCE = re.compile(r"\.(?:cc|cpp|h|hpp|py|cmake|go|c)$|CMakeLists\.txt$")
# The stacks written in Go, and those whose Python logs errors and asserts (the older stacks'
# tables were read without these forms, and keep their reading).
GO_STACKS = {
    "ascend-device-plugin",
    "ascend-docker-runtime",
    "ascend-devmanager",
    "ascend-for-volcano",
    "hami-ascend",
    "volcano-vnpu",
}
PY_LOG_STACKS = {"deepspeed-npu", "llamafactory-npu"}
# Go: the errors a function returns and the error lines its logger prints (MindCluster's hwlog,
# klog in HAMi and Volcano); printf verbs, Go's included, become {}.
GO_START = re.compile(
    r"\b(?P<macro>fmt\.Errorf|errors\.New|hwlog\.RunLog\.(?:Errorf|Error|ErrorfWithLimit|Criticalf?)"
    r"|klog\.(?:Errorf|Error|ErrorS|Fatalf|Fatal|Exitf)|log\.Fatalf?)\s*\("
)
GO_PRINTF = re.compile(r"%[-+ #0]{0,3}\d{0,3}(?:\.\d{1,2})?[vwqTsdxXfgeEtbcoUp]")
# The Docker hook's C command line (ascend-docker-cli): Logger(msg, LEVEL_ERROR, ...), the
# messages it formats for an error line (FormatLogMessage, then Logger(str, LEVEL_ERROR, ...))
# and the exception text it shows.
C_START = re.compile(r"\b(?P<macro>Logger|FormatLogMessage|ShowExceptionInfo)\s*\(")
C_DEFINITION = re.compile(r"^(?:static\s+)?(?:void|int|char|bool)\s+\*?\w+\(")
# Python stacks that log: logger.error / .critical / .exception, and assert's message.
PY_LOG_START = re.compile(r"\b(?:logger|logging)\.(?P<macro>error|critical|exception)\(")
PY_ASSERT = re.compile(r"^\s*assert\b")
# CMake's own failures at configure time: message(FATAL_ERROR|SEND_ERROR "..." ...).
CMAKE_START = re.compile(r"\bmessage\(\s*(?P<macro>FATAL_ERROR|SEND_ERROR)\b")

# The start of a statement that prints a message, in C/C++ and in Python.
CXX_START = re.compile(
    r"\b(?P<macro>GGML_ABORT|GGML_LOG_ERROR|PADDLE_ENFORCE\w*|PADDLE_THROW|LOG\((?:ERROR|FATAL)\)|"
    r"CHECK(?:_EQ|_NE|_GT|_GE|_LT|_LE)?|TORCH_CHECK|ORT_THROW|ORT_ENFORCE|throw std::\w+)\s*\("
    r"|\b(?P<log>(?:ATB_|MKI_)?LOG\((?:ERROR|FATAL)\))"
)
PY_START = re.compile(r"\braise (?P<macro>\w+(?:Error|Exception))\(")
# Wrappers that print the call they check, and the text they print around it.
CALL_WRAPPERS = {
    "ggml-cann": (
        re.compile(r"\bACL_CHECK\("),
        "CANN error: {}\n  current device: {}, in function {} at {}:{}\n  ",
        "",
    ),
    "paddle-npu": (
        re.compile(r"\b(?:ACL_CHECK|HCCL_CHECK|ATB_CHECK)\("),
        "Call ",
        " failed : {} at file {} line {}",
    ),
}
GREP = (
    r"message\(|ATB_LOG|MKI_LOG|GGML_ABORT|GGML_LOG_ERROR|PADDLE_ENFORCE|PADDLE_THROW|LOG\(|"
    r"CHECK|raise |throw std::|Errorf|errors\.New|RunLog\.|klog\.|Logger\(|FormatLogMessage|"
    r"ShowExceptionInfo|logger\.|assert "
)
STRING = re.compile(
    r'(f|r|fr|rf|R|F|L|u8)?("(?:[^"\\\n]|\\.){0,2000}"|\'(?:[^\'\\\n]|\\.){0,2000}\')'
)
PRINTF = re.compile(r"%[-+ #0]{0,3}\d{0,3}(?:\.\d{1,2})?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]")
FIELD = re.compile(r"\{[^{}\n]{0,200}\}")
ERROR_KIND = re.compile(r"(?:phi|common|platform)::errors::(\w+)\(")


sys.path.insert(0, HERE)
import mindspore_message_table as _MS  # noqa: E402 - the same machinery
from message_table_io import cli_main  # noqa: E402

fill = _MS.fill  # the same illustrative values as MindSpore's own messages
first_topic = _MS._first_topic  # the answer a reader sees first, as measure_corpus takes it
_git = _MS._git  # git -C DIR ..., its stdout


def _statement(lines: List[str], i: int, python: bool) -> str:
    """The statement starting at line i: to its ';' (C/C++) or its closing parenthesis."""
    text = ""
    for j in range(i, min(i + 14, len(lines))):
        text += lines[j].strip() + " "
        if python and text.count("(") <= text.count(")"):
            break
        if not python and lines[j].rstrip().endswith((";", "{")):
            break
    return text


def _args(body: str) -> str:
    """The text of the call's arguments: up to the parenthesis that closes the one opened."""
    depth = 1
    for k, ch in enumerate(body):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return body[:k]
    return body


def template_of(body: str, python: bool) -> str:
    """The literal text of a message, {} where the code puts a value."""
    parts: List[str] = []
    last = 0
    for s in STRING.finditer(body):
        gap = body[last : s.start()]
        if parts and re.search(r"[A-Za-z0-9_\]\)]", gap.replace("std::endl", "")):
            parts.append("{}")
        lit = s.group(2)[1:-1]
        lit = lit.replace('\\"', '"').replace("\\'", "'").replace("\\n", " ").replace("\\t", " ")
        prefix = (s.group(1) or "").lower()
        if python and "f" in prefix:
            lit = FIELD.sub("{}", lit)
        elif python and (".format(" in body[s.end() : s.end() + 9]):
            lit = FIELD.sub("{}", lit)
        lit = PRINTF.sub("{}", lit)
        if not python:
            lit = FIELD.sub("{}", lit)  # fmt / spdlog / c10 style
        parts.append(lit)
        last = s.end()
    if parts and re.search(r"(?:<<|\+)\s*[A-Za-z_(]", body[last:]):
        parts.append("{}")  # a value streamed or added after the last literal
    return re.sub(r"\s{2,}", " ", "".join(parts)).strip()


def _message_body(stmt: str, start: "re.Match[str]", python: bool) -> Tuple[str, str]:
    """(kind, the part of the statement that holds the message)."""
    macro = start.group("macro") or start.group("log") or ""
    rest = stmt[start.end() :]
    if python:
        return macro, _args(rest)
    if "LOG(" in macro:
        return macro, rest
    args = _args(rest)
    kind = ERROR_KIND.search(args)
    if kind:  # PADDLE_ENFORCE(cond, phi::errors::Kind("...")): the message is the kind's
        return macro + ":" + kind.group(1), args[kind.end() :]
    if macro.startswith(("CHECK", "PADDLE_ENFORCE")) and "TORCH" not in macro:
        after = rest[len(args) + 1 :]  # CHECK(cond) << "message"
        if "<<" in after:
            return macro, after
    if macro in ("TORCH_CHECK", "ORT_ENFORCE") or macro.startswith("PADDLE_ENFORCE"):
        return macro, args.split(",", 1)[1] if "," in args else ""
    return macro, args


def _cmake_messages(lines: List[str]) -> Iterator[Dict[str, str]]:
    """CMake's FATAL_ERROR / SEND_ERROR messages: the quoted strings up to the closing ')'."""
    for i, line in enumerate(lines):
        start = CMAKE_START.search(line)
        if not start or line.lstrip().startswith("#"):
            continue
        body = " ".join(x.strip() for x in lines[i : i + 8])
        body = _args(body[body.find("message(") + 8 :])
        text = "".join(re.findall(r'"((?:[^"\\]|\\.){0,500})"', body))
        text = re.sub(r"\$(?:ENV)?\{[^{}]{1,80}\}", "{}", text).replace('\\"', '"')
        text = text.replace("\\n", " ")
        if len(re.findall(r"[A-Za-z]{3,}", text)) >= 2:
            yield {"macro": "CMake " + start.group("macro"), "template": text.strip()}


def _go_messages(lines: List[str], path: str) -> Iterator[Dict[str, str]]:
    """Go's returned errors and logged error lines, and the Docker hook's C log calls."""
    start_re = C_START if path.endswith(".c") else GO_START
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("//", "/*", "*")):
            continue
        start = start_re.search(line)
        if not start or "#define" in line or C_DEFINITION.search(line):
            continue
        stmt = _statement(lines, i, True)
        start = start_re.search(stmt)
        if not start:
            continue
        macro = start.group("macro")
        body = _args(stmt[start.end() :])
        if macro == "Logger" and "LEVEL_ERROR" not in body:
            continue
        if macro == "FormatLogMessage" and "LEVEL_ERROR" not in " ".join(lines[i : i + 4]):
            continue  # a message formatted for an info line (Logger(str, LEVEL_INFO, ...))
        if macro == "klog.ErrorS":  # ErrorS(err, "message", key, value ...): the message
            first = STRING.search(body)
            body = first.group(0) if first else ""
        tmpl = GO_PRINTF.sub("{}", template_of(body, False))
        if len(re.findall(r"[A-Za-z]{3,}", tmpl)) >= 2:
            yield {"macro": macro, "template": tmpl}


def _py_logged(lines: List[str]) -> Iterator[Dict[str, str]]:
    """Python's logger.error / critical / exception lines and assert's messages."""
    for i, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            continue
        start = PY_LOG_START.search(line)
        if not start and not PY_ASSERT.search(line):
            continue
        stmt = _statement(lines, i, True)
        if start:
            macro, body = "logger." + start.group("macro"), _args(stmt[start.end() :])
        else:  # assert cond, "message": the message after the condition's top-level comma
            depth, cut = 0, -1
            for k, ch in enumerate(stmt):
                depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
                if ch == "," and depth == 0:
                    cut = k
                    break
            if cut < 0:
                continue
            macro, body = "AssertionError", stmt[cut + 1 :]
        tmpl = template_of(body, True)
        if len(re.findall(r"[A-Za-z]{3,}", tmpl)) >= 2:
            yield {"macro": macro, "template": tmpl}


def extract_file(stack: str, path: str, text: str) -> Iterator[Dict[str, str]]:
    lines = text.splitlines()
    if stack in GO_STACKS:
        if path.endswith((".go", ".c")):
            yield from _go_messages(lines, path)
        return
    if stack in PY_LOG_STACKS and path.endswith(".py"):
        yield from _py_logged(lines)
    if not re.search(r"\.(?:cc|cpp|h|hpp|py)$", path):
        yield from _cmake_messages(lines)
        return
    python = path.endswith(".py")
    wrapper = CALL_WRAPPERS.get(stack)
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("//", "#", "*")) and not python:
            continue
        if python and line.lstrip().startswith("#"):
            continue
        start = (PY_START if python else CXX_START).search(line)
        call = wrapper[0].search(line) if wrapper and not python else None
        if call and wrapper and "define" not in line:
            stmt = _statement(lines, i, python)
            expr = re.sub(r"\s+", " ", _args(stmt[stmt.find(call.group(0)) + len(call.group(0)) :]))
            yield {"macro": call.group(0)[:-1], "template": wrapper[1] + expr.strip() + wrapper[2]}
            continue
        if not start or "#define" in line:
            continue
        stmt = _statement(lines, i, python)
        start = (PY_START if python else CXX_START).search(stmt)
        if not start:
            continue
        kind, body = _message_body(stmt, start, python)
        tmpl = template_of(body, python)
        if len(re.findall(r"[A-Za-z]{3,}", tmpl)) < 2:
            continue
        yield {"macro": kind, "template": tmpl}


def extract(mirrors: str) -> Tuple[List[Dict], List[Dict]]:
    snapshots: List[Dict] = []
    rows: Dict[Tuple[str, str], Dict] = {}
    for stack, name, paths, skip in STACKS:
        git_dir = os.path.join(mirrors, name, "repo")
        if not os.path.isdir(git_dir):
            print(f"{stack}: no snapshot at {git_dir}, skipped")
            continue
        commit = _git(git_dir, "rev-parse", "HEAD").strip()
        date = _git(git_dir, "log", "-1", "--format=%cs", "HEAD").strip()
        snapshots.append(
            {"stack": stack, "repo": name.replace("+", "/"), "commit": commit, "date": date}
        )
        files = _git(git_dir, "grep", "-l", "-E", GREP, commit, "--", *paths).splitlines()
        n = 0
        for hit in files:
            path = hit.split(":", 1)[1]
            if not SOURCE.search(path) or re.search(skip, "/" + path):
                continue
            if path.endswith((".go", ".c")) != (stack in GO_STACKS):
                continue
            for row in extract_file(stack, path, _git(git_dir, "show", commit + ":" + path)):
                key = (stack, row["template"])
                if key not in rows:
                    rows[key] = dict(row, stack=stack, file=path, snapshot=len(snapshots) - 1)
                    n += 1
        print(f"{stack} {name} @ {commit[:10]} ({date}): {n} templates")
    return snapshots, list(rows.values())


def do_extract(mirrors: str) -> int:
    snapshots, rows = extract(mirrors)
    head = OrderedDict(
        [
            ("format", "ascend-lab.stack-messages/1"),
            (
                "description",
                "Message templates the stacks around CANN print on failure, read from their "
                "source by scripts/stack_message_table.py --extract. Facts only: the literal "
                "text ({} where the code puts a value), the macro that prints it, one file that "
                "has it, and the snapshot (index into 'snapshots') it was read in.",
            ),
            ("snapshots", snapshots),
            ("columns", ["stack", "macro", "template", "file", "snapshot"]),
        ]
    )
    rows.sort(key=lambda r: (r["stack"], r["file"], r["template"]))
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "messages": [\n'
    text += ",\n".join(
        "  "
        + json.dumps(
            [r["stack"], r["macro"], r["template"], r["file"], r["snapshot"]], ensure_ascii=False
        )
        for r in rows
    )
    with open(TABLE, "w", encoding="utf-8") as fh:
        fh.write(text + "\n ]\n}\n")
    print(f"{len(rows)} templates -> {os.path.relpath(TABLE, REPO)}")
    return 0


# ---------------------------------------------------------------------------------------
# Stage 2: the reviewed mapping, and each template printed as its stack prints it.
# ---------------------------------------------------------------------------------------


def read_table(path: str = TABLE, by_hand: str = BY_HAND) -> List[Dict]:
    """The messages of both tables as dicts (stack, macro, template, file, repo, commit)."""
    out: List[Dict] = []
    for p in (path, by_hand):
        with open(p, encoding="utf-8") as fh:
            data = json.load(fh)
        for row in data["messages"]:
            r = dict(zip(data["columns"], row))
            snap = data["snapshots"][r.pop("snapshot")]
            r["repo"], r["commit"] = snap["repo"], snap["commit"]
            out.append(r)
    return out


def read_map(path: str = MAP_FILE) -> List[Dict[str, str]]:
    """The reviewed mapping, first match wins: stack, a regex on the template, optional regexes
    on the macro (with Paddle's error kind: 'PADDLE_THROW:Unimplemented') and on the file, and
    the topic."""
    with open(path, encoding="utf-8") as fh:
        return [dict({"macro": "", "file": ""}, **m) for m in json.load(fh)["map"]]


MAPPED = read_map()

# Paddle's error kinds and the Python exception each becomes (paddle/common/enforce.cc).
PADDLE_PY = {
    "InvalidArgument": "ValueError",
    "NotFound": "RuntimeError",
    "OutOfRange": "IndexError",
    "AlreadyExists": "RuntimeError",
    "ResourceExhausted": "MemoryError",
    "PreconditionNotMet": "RuntimeError",
    "PermissionDenied": "RuntimeError",
    "ExecutionTimeout": "RuntimeError",
    "Unimplemented": "NotImplementedError",
    "Unavailable": "RuntimeError",
    "Fatal": "SystemError",
    "External": "OSError",
}


# What a wrapper or a printf-style message puts in its fields, before the general fill: the
# runtime's message when none was recorded ("(null)"), the device, the function, the code.
PRE_FILL = [
    (r"CANN error: \{\}", "CANN error: (null)"),
    (
        r"current device: \{\}, in function \{\} at \{\}:\{\}",
        "current device: 0, in function ggml_cann_pool_alloc at "
        "/home/user/llama.cpp/ggml/src/ggml-cann/ggml-cann.cpp:412",
    ),
    (r"##OP_NAME##", "Mul"),
    (r"__VA_ARGS__", "acl_src, acl_dst"),
    (r"invalid device \{\}", "invalid device 8"),
    (r"(device ID: )\{\}(, must be between 0 \(inclusive\) and )\{\}", r"\g<1>8\g<2>8"),
    (r"\b(rank\w{0,6}) \[\{\}\]", r"\1 [16]"),
    (r"\b(error|rank|rankSize|rankRoot|commMode|ret|code)(: ?)\{\}", r"\g<1>\g<2>7"),
    (
        r"^\{\}: failed to initialize CANN: \{\}",
        "ggml_cann_init: failed to initialize CANN: (null)",
    ),
    (
        r"^\{\}: op not supported \{\} \(\{\}\)",
        "evaluate_and_capture_cann_graph: op not supported ffn_moe_gate-0 (MUL_MAT_ID)",
    ),
    (r"device \{\}", "device 0"),
    (r"\{\} MiB", "16384.00 MiB"),
    (r"^\{\}: ", "ggml_backend_cann_init: "),
    (r"(aclrtMalloc\([^\n]{0,300}) failed : \{\}", r"\1 failed : 207001"),
    (r" failed : \{\}", " failed : 7"),
    (
        r"^CANN failure \{\}: \{\}(?=[^\n]{0,40}expr=aclrtMalloc\()",
        "CANN failure 207001: ACL_ERROR_RT_MEMORY_ALLOCATION",
    ),
    (r"^CANN failure \{\}: \{\}", "CANN failure 500002: ACL_ERROR_GE_FAILURE"),
    (r"^CANNGRAPH failure \{\}: \{\}", "CANNGRAPH failure -1: GRAPH_FAILED"),
    (r"NPU=\{\} ; hostname=\{\}", "NPU=0 ; hostname=node1"),
    (
        r"at file \{\} line \{\}",
        "at file /workspace/PaddleCustomDevice/backends/npu/runtime/runtime.cc line 596",
    ),
]


def message(row: Dict) -> str:
    """A template filled with illustrative values and printed the way its stack prints it."""
    text = row["template"]
    for pat, value in PRE_FILL:
        text = re.sub(pat, value, text)
    text = fill(text)
    macro, stack, path = row["macro"], row["stack"], row["file"]
    where = "/workspace/{}/{}:{}".format(row["repo"].split("/")[-1], path, 123)
    if stack == "ggml-cann" and macro == "ACL_CHECK":  # ggml_cann_error aborts after its lines
        return text + "\n/home/user/llama.cpp/ggml/src/ggml-cann/ggml-cann.cpp:70: CANN error"
    if stack == "ggml-cann" and macro == "GGML_ABORT":
        return f"{where}: {text}"
    if macro.startswith(("PADDLE_ENFORCE", "PADDLE_THROW")):
        kind = macro.split(":", 1)[1] if ":" in macro else "InvalidArgument"
        return "{}: ({}) {}\n  [Hint: Expected ...] (at {})".format(
            PADDLE_PY.get(kind, "RuntimeError"), kind, text, where
        )
    if macro.startswith(("ATB_LOG(", "MKI_LOG(")):  # ATB's logger: time, level, pid, file:line
        name = os.path.basename(path)
        return f"[2025-12-08 11:52:44.735471] [error] [69197] [{name}:156] {text}"
    if macro.startswith(("LOG(", "CHECK")):
        line = f"F20251208 11:52:44.736321 69197 {os.path.basename(path)}:96] {text}"
        return line if macro.startswith("LOG") else line.replace("] ", "] Check failed: x ", 1)
    if macro == "TORCH_CHECK":
        return "RuntimeError: " + text
    if macro.startswith("throw std::"):
        return "RuntimeError: " + text
    if macro.startswith("CMake "):
        tail = "\n\n\n-- Configuring incomplete, errors occurred!"
        return f"CMake Error at {path}:12 (message):\n  {text}{tail}"
    if stack == "onnxruntime-cann" and macro == "LOGS(ERROR)":
        return (
            "2024-05-09 07:05:28.107324198 [E:onnxruntime:Default, cann_call.cc:139 CannCall] "
            + text
        )
    if macro.startswith("ORT_"):
        return (
            "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : "
            + text
        )
    if path.endswith(".c"):  # the Docker hook's stderr, in the daemon's answer to `docker run`
        return (
            "docker: Error response from daemon: failed to create task for container: failed to "
            "create shim task: OCI runtime create failed: runc create failed: unable to start "
            "container process: error during container init: error running prestart hook #0: "
            f"exit status 255, stdout: , stderr: {text}: unknown."
        )
    if stack in GO_STACKS and macro.startswith("klog."):  # klog: E<date> <time> <pid> file:line]
        name = os.path.basename(path)
        if macro == "klog.ErrorS":
            text = f'"{text}" pod="default/npu-job-0"'
        return f"E1208 11:52:44.735471   69197 {name}:317] {text}"
    if stack in GO_STACKS:  # MindCluster's hwlog: level, time, goroutine, dir/file:line
        where = "/".join(path.split("/")[-2:])
        return f"[ERROR]    2025/12/08 11:52:44.735471 69197   {where}:156    {text}"
    if stack == "ray-npu" and macro.startswith("logger."):  # Ray's: time, level, file:line --
        name = os.path.basename(path)
        return f"2025-12-08 11:52:44,735\tERROR {name}:80 -- {text}"
    if macro.startswith("logger."):  # DeepSpeed's logger
        name = os.path.basename(path)
        level = "ERROR" if macro == "logger.exception" else macro[7:].upper()
        return f"[2025-12-08 11:52:44,735] [{level}] [{name}:287:get_accelerator] {text}"
    if re.fullmatch(r"\w+(?:Error|Exception)", macro):
        return macro + ": " + text
    return text


def mapped_topic(row: Dict, mapping: Optional[List[Dict[str, str]]] = None) -> Optional[str]:
    """The topic the review gives this template, or None (left unclaimed on purpose)."""
    for m in MAPPED if mapping is None else mapping:
        if (
            m["stack"] == row["stack"]
            and re.search(m["pattern"], row["template"])
            and re.search(m["macro"], row["macro"])
            and re.search(m["file"], row["file"])
        ):
            return m["topic"] or None  # "": reviewed and left unclaimed on purpose
    return None


def do_check(list_stack: Optional[str]) -> int:
    rows = read_table()
    sys.path.insert(0, REPO)
    from ascend_lab.doctor import diagnose  # noqa: E402 - the doctor of this checkout

    if list_stack:
        for r in rows:
            if r["stack"] == list_stack:
                shown = first_topic(diagnose(message(r))) or ""
                mark = mapped_topic(r) or ""
                print(f"{r['file'][-34:]:34} {mark:14} {shown:16} {r['template'][:160]}")
        return 0
    per: Dict[str, Counter] = {}
    problems = []
    for r in rows:
        topic, first = mapped_topic(r), first_topic(diagnose(message(r)))
        outcome: Tuple[str, ...] = (
            ("mapped", "read right")
            if topic and first == topic
            else ("mapped", "WRONG" if first else "unread")
            if topic
            else ("unmapped, read",)
            if first
            else ()
        )
        per.setdefault(r["stack"], Counter()).update(("extracted",) + outcome)
        if topic and first != topic:
            problems.append(
                f"{outcome[-1]} {r['stack']}: {r['template'][:140]} -> {first} ({topic})"
            )
    print("\n".join(problems))
    for stack, c in sorted(per.items()):
        print(
            f"{stack:16} extracted {c['extracted']:4}  mapped {c['mapped']:3}  "
            f"read right {c['read right']:3}  (unmapped but read: {c['unmapped, read']})"
        )
    errors = sum(c["WRONG"] for c in per.values())
    return 1 if errors else 0


def main(argv: Optional[List[str]] = None) -> int:
    return cli_main(__doc__, do_extract, do_check, "STACK", argv)


if __name__ == "__main__":
    sys.exit(main())

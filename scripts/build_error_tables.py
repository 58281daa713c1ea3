"""Build the doctor's code tables (ascend_lab/doctor/error_codes.json) from recorded facts.

    python scripts/build_error_tables.py            # offline: facts.json -> error_codes.json
    python scripts/build_error_tables.py --check    # exit 1 when error_codes.json is stale
    python scripts/build_error_tables.py --extract MIRRORS_DIR   # re-read the sources

Two stages, so the build runs offline from files kept in this repository:

1. ``--extract`` reads the public sources (git snapshots of the repositories below, found
   under MIRRORS_DIR as ``<owner>+<name>/repo``) and records only facts in
   ``scripts/error_tables/facts.json``: each code's number, its name or title, the message
   template the software prints, and where it was read (repository, commit, date, path).
   No prose of the documentation is kept (its causes and solutions are not copied).
   GE's internal status numbers are packed from the headers that define them by
   ``ge_status_table.py`` (its ``SNAPSHOTS``), which this script imports.
2. The default run joins those facts with this script's own words (``KINDS`` and
   ``RETURN_NOTES`` below, English and Chinese: what a kind of error means, its likely
   causes, the next step, and the topics of ascend_lab/doctor/topics.json) and writes the
   table. It prints the coverage: codes per family in the table against the sources.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter, OrderedDict
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FACTS = os.path.join(HERE, "error_tables", "facts.json")
WORDS = os.path.join(HERE, "error_tables", "words.json")
TABLE = os.path.join(REPO, "ascend_lab", "doctor", "error_codes.json")
sys.path.insert(0, HERE)
import ge_status_table  # noqa: E402 - GE's internal status numbers (a sibling module)

# ---------------------------------------------------------------------------------------
# Stage 1: facts from the sources
# ---------------------------------------------------------------------------------------

SOURCES = OrderedDict(
    [
        (
            "cann-error-manager",
            {
                "repo": "hicann/runtime",
                "path": "src/dfx/error_manager/error_code.json",
                "what": "CANN's error_manager definitions (ErrCode, errTitle, ErrMessage) for "
                "every module but GE: E2-EZ",
            },
        ),
        (
            "cann-runtime-docs",
            {
                "repo": "hicann/runtime",
                "path": "docs/en/error_code_ref",
                "what": "one documentation page per code (RTS, ACL, Dump, Profiling, FE, "
                "TEFusion errors)",
            },
        ),
        (
            "cann-ge-docs",
            {
                "repo": "hicann/ge",
                "path": "docs/en/user_guides/error_codes",
                "what": "one documentation page per GE code (E1xxxx), English and Chinese",
            },
        ),
        (
            "acl-headers",
            {
                "repo": "Ascend/pytorch",
                "commit": "c4840e3c095952083edcaa4a92f2ae7139bd7c51",
                "path": "third_party/acl/inc/acl/acl_base.h, "
                "third_party/acl/inc/acl/error_codes/rt_error_codes.h, "
                "third_party/acl/inc/ge/ge_error_codes.h",
                "what": "the CANN headers torch_npu vendors (the last commit before they were "
                "removed from its tree): ACL_ERROR_*, ACL_ERROR_RT_*, ACL_ERROR_GE_*",
            },
        ),
        (
            "aclnn-header",
            {
                "repo": "hicann/opbase",
                "path": "include/nnopbase/opdev/op_errno.h",
                "what": "aclnn return codes (ACLNN_ERR_*)",
            },
        ),
        (
            "hccl-header",
            {
                "repo": "Ascend/pytorch",
                "path": "third_party/hccl/inc/hccl/hccl_types.h",
                "what": "HcclResult; errNo[0x..] = (5 << 24) + (sub-module << 16) + result, "
                "from hicann/hccl src/common/log.h HCCL_ERROR_CODE",
            },
        ),
        (
            "dcmi-header",
            {
                "repo": "hicann/driver",
                "path": "src/custom/include/dcmi_interface_api.h",
                "what": "DCMI return codes (DCMI_ERR_CODE_*, -8001...-8255)",
            },
        ),
        (
            "torch-npu-exception",
            {
                "repo": "Ascend/pytorch",
                "path": "torch_npu/csrc/core/npu/NPUException.h, "
                "torch_npu/csrc/core/npu/NPUException.cpp",
                "what": "torch_npu's own error codes (enum SubModule, enum ErrCode, errCodeMap):"
                " ERR + 2-digit submodule + 3-digit code, then the submodule and the meaning",
            },
        ),
        (
            "cann-internal-codes",
            {
                "url": "https://www.hiascend.com/doc_center/source/zh/CANNCommunityEdition/"
                "81RC1beta1/maintenref/troubleshooting/atlaserrorcode_15_0314.html",
                "what": "the list of each module's internal code E*9999 (CANN 8.1.RC1 "
                "troubleshooting, read with the search tool's docs corpus)",
                "codes": "E19999 E29999 E39999 E49999 E59999 E69999 E79999 E89999 E99999 "
                "EA9999 EC9999 ED9999 EE9999 EF9999 EG9999 EH9999 EI9999 EJ9999 EK9999 "
                "EL9999 EN9999 EO9999 EZ9999",
            },
        ),
    ]
)


# The CANN troubleshooting references of other versions (hiascend.com, 5.0.4 ... 9.2.0), read
# with the search tool's docs corpus: each code the sources above lack, with its title, message
# template and the versions / pages it was seen on (facts.json "cann_docs"). --extract keeps them.
DOCS_SOURCE = "cann-docs-versions"


def _recorded(key: str) -> Optional[Dict[str, Any]]:
    """What facts.json recorded for a source no mirror can give again (its record and codes)."""
    if not os.path.exists(FACTS):
        return None
    with open(FACTS, encoding="utf-8") as f:
        facts = json.load(f, object_pairs_hook=OrderedDict)
    if key not in facts.get("sources", {}):
        return None
    return {"source": facts["sources"][key], "codes": facts.get("cann_docs", {})}


def _git(repo_dir: str, *args: str) -> str:
    out = subprocess.run(["git", "-C", repo_dir, *args], capture_output=True, check=True)
    return out.stdout.decode("utf-8")


def _head(repo_dir: str, commit: Optional[str]) -> Tuple[str, str]:
    line = _git(repo_dir, "log", "-1", "--format=%H %cI", commit or "HEAD").split()
    return line[0], line[1]


def _first_text_block(md: str) -> str:
    m = re.search(r"```text\n([^`]{1,2000})```", md)
    return " ".join(m.group(1).split()) if m else ""


def extract(mirrors: str) -> Dict[str, Any]:
    def repo_dir(name: str) -> str:
        return os.path.join(mirrors, name.replace("/", "+"), "repo")

    sources: Dict[str, Any] = OrderedDict()
    for key, src in SOURCES.items():
        rec = dict(src)
        if "repo" in src:
            commit, date = _head(repo_dir(src["repo"]), src.get("commit"))
            rec.update(commit=commit, date=date, url=f"https://github.com/{src['repo']}")
        sources[key] = rec
    cann: Dict[str, Dict[str, str]] = OrderedDict()

    rt = repo_dir("hicann/runtime")
    doc = json.loads(_git(rt, "show", f"{sources['cann-error-manager']['commit']}:"
                          + SOURCES["cann-error-manager"]["path"]))  # fmt: skip
    for item in doc["error_info_list"]:
        code = item["ErrCode"].strip()
        if not re.fullmatch(r"E[1-9A-Z]\d{4}", code):
            continue  # W* warnings are not errors
        cann[code] = {
            "title": item.get("errTitle", "").strip(),
            "message": " ".join(item["ErrMessage"].split())[:300],
            "source": "cann-error-manager",
        }
    pages = _git(rt, "ls-tree", "-r", "--name-only", sources["cann-runtime-docs"]["commit"],
                 SOURCES["cann-runtime-docs"]["path"]).split()  # fmt: skip
    for path in pages:
        m = re.search(r"/(E[1-9A-Z]\d{4})-([^/]*)\.md$", path)
        if m:
            entry = cann.setdefault(
                m.group(1), {"title": m.group(2), "message": "", "source": "cann-runtime-docs"}
            )
            entry["doc"] = path
    ge = repo_dir("hicann/ge")
    commit = sources["cann-ge-docs"]["commit"]
    for path in _git(ge, "ls-tree", "-r", "--name-only", commit,
                     SOURCES["cann-ge-docs"]["path"]).split():  # fmt: skip
        m = re.search(r"/(E[1-9A-Z]\d{4})-([^/]*)\.md$", path)
        if not m:
            continue
        md = _git(ge, "show", f"{commit}:{path}")
        cann.setdefault(
            m.group(1),
            {"title": m.group(2), "message": _first_text_block(md)[:300], "source": "cann-ge-docs"},
        )["doc"] = path
    for code in SOURCES["cann-internal-codes"]["codes"].split():
        cann.setdefault(
            code, {"title": "Inner_Error", "message": "", "source": "cann-internal-codes"}
        )
    # The codes other CANN versions' troubleshooting pages document (read with the search tool,
    # not from a mirror): kept as they were recorded, minus those the sources now carry.
    old = _recorded(DOCS_SOURCE)
    if old:
        sources[DOCS_SOURCE] = old["source"]

    returns: Dict[str, Dict[str, str]] = OrderedDict()
    pt = repo_dir("Ascend/pytorch")
    acl_commit = SOURCES["acl-headers"]["commit"]
    for header in SOURCES["acl-headers"]["path"].split(", "):
        text = _git(pt, "show", f"{acl_commit}:{header}")
        for m in re.finditer(
            r"(ACL_ERROR_[A-Z0-9_]+|ACLNN_[A-Z0-9_]+)\s*=?\s*(\d{6})U?;?"
            r"[ \t]*(?://[ \t]*([^\n]*))?",
            text,
        ):
            returns.setdefault(
                m.group(2),
                {"name": m.group(1), "note": (m.group(3) or "").strip(), "source": "acl-headers",
                 "header": header.rsplit("/", 1)[-1]},
            )  # fmt: skip
    ob = repo_dir("hicann/opbase")
    text = _git(
        ob, "show", f"{sources['aclnn-header']['commit']}:{SOURCES['aclnn-header']['path']}"
    )
    for m in re.finditer(r"#define (ACLNN_ERR_[A-Z0-9_]+) (\d{6})", text):
        returns.setdefault(
            m.group(2), {"name": m.group(1), "note": "", "source": "aclnn-header",
                         "header": "op_errno.h"},
        )  # fmt: skip
    hccl: Dict[str, Dict[str, str]] = OrderedDict()
    text = _git(pt, "show", f"{sources['hccl-header']['commit']}:{SOURCES['hccl-header']['path']}")
    for m in re.finditer(r"(HCCL_(?:SUCCESS|E_[A-Z_]+)) = (\d+),\s*/\*\*?<? ?([^*]*)\*/", text):
        hccl[m.group(2)] = {"name": m.group(1), "note": m.group(3).strip()}
    dcmi: Dict[str, Dict[str, str]] = OrderedDict()
    dr = repo_dir("hicann/driver")
    text = _git(dr, "show", f"{sources['dcmi-header']['commit']}:{SOURCES['dcmi-header']['path']}")
    for m in re.finditer(
        r"#define (DCMI_ERR_CODE_[A-Z_]+)\s+\(DCMI_ERROR_CODE_BASE - (\d+)\)", text
    ):
        dcmi[str(-8000 - int(m.group(2)))] = {"name": m.group(1)}
    torch_npu = _torch_npu_facts(pt, sources["torch-npu-exception"]["commit"])
    ge_status = ge_status_table.extract(repo_dir, sources)
    docs = OrderedDict(
        (c, e) for c, e in sorted((old or {}).get("codes", {}).items()) if c not in cann
    )
    out = OrderedDict(
        [
            ("format", "ascend-lab.error-facts/1"),
            ("sources", sources),
            ("cann", OrderedDict(sorted(cann.items()))),
            ("cann_docs", docs),
            ("returns", OrderedDict(sorted(returns.items()))),
            ("hccl", hccl),
            ("dcmi", dcmi),
            ("torch_npu", torch_npu),
            ("ge_status", ge_status),
        ]
    )
    # MindIE's and MindX SDK's codes were read in their docs with the search tool (no mirror
    # gives them again): kept as they were recorded.
    for section, source in DOWNSTREAM_SECTIONS:
        kept = _recorded_section(section, source)
        if kept:
            sources[source], out[section] = kept
    return out


# The sections of facts.json read from downstream tools' documentation, and their sources.
DOWNSTREAM_SECTIONS = (("mindie", "mindie-docs"), ("mindx_sdk", "mindx-sdk-docs"))


def _recorded_section(section: str, source: str) -> Optional[Tuple[Any, Any]]:
    """What facts.json recorded for a section read in documentation: (its source, its facts)."""
    if not os.path.exists(FACTS):
        return None
    with open(FACTS, encoding="utf-8") as f:
        facts = json.load(f, object_pairs_hook=OrderedDict)
    if section not in facts or source not in facts.get("sources", {}):
        return None
    return facts["sources"][source], facts[section]


def _torch_npu_facts(pt: str, commit: str) -> Dict[str, Any]:
    """torch_npu's submodules and error codes, with the meaning each code prints."""
    header_path, source_path = SOURCES["torch-npu-exception"]["path"].split(", ")
    header = _git(pt, "show", f"{commit}:{header_path}")
    source = _git(pt, "show", f"{commit}:{source_path}")

    def enum(name: str) -> List[Tuple[str, str]]:
        body = re.search(r"enum class " + name + r"\s*\{([^}]*)\}", header)
        return re.findall(r"(\w+)\s*=\s*(\d+)", body.group(1) if body else "")

    printed = dict(re.findall(r'\{ErrCode::(\w+), "([^"]+)"\}', source))
    submodules = OrderedDict((number, name) for name, number in enum("SubModule"))
    codes = OrderedDict(
        (number, [name, printed.get(name, "")]) for name, number in enum("ErrCode") if number != "0"
    )
    return OrderedDict([("submodules", submodules), ("codes", codes)])


# ---------------------------------------------------------------------------------------
# Stage 2: the table, in our own words
# ---------------------------------------------------------------------------------------


def _kind_of_title(title: str, family: str) -> str:
    """The kind of a CANN code from its documented title (errTitle) and family."""
    t = title.lower()
    rules = (
        ("ranktable", "ranktable"),
        ("inconsistent_collective", "rank-mismatch"),
        ("bind_ip_port", "port-in-use"),
        ("communication_error_timeout", "collective-timeout"),
        ("get_socket", "link-setup"),
        ("communication_error", "link-setup"),
        ("hccp_process", "link-setup"),
        ("ip_address", "link-setup"),
        ("network_connection", "link-setup"),
        ("insufficient_device_memory", "oom-device"),
        ("memory_allocation_failure", "oom-device"),
        ("insufficient_host_memory", "oom-host"),
        ("allocate_memory", "oom-device"),
        ("incorrect_driver_version", "version-mismatch"),
        ("incorrect_hccl_version", "version-mismatch"),
        ("incorrect_python_version", "install-package"),
        ("package_error", "install-package"),
        ("module_import", "install-package"),
        ("not_installed", "install-package"),
        ("import_python_module", "install-package"),
        ("call_python_function", "install-package"),
        ("stream_synchronize_timeout", "task-timeout"),
        ("operator_timeout", "task-timeout"),
        ("operation_timeout", "task-timeout"),
        ("startup_timeout", "device-fault"),
        ("invalid_device_id", "device-id"),
        ("no_permission", "permission"),
        ("permission_denied", "permission"),
        ("remote_device", "other"),  # Auto Tune's remote host, not an NPU
        ("device_absent", "device-fault"),
        ("device_connection", "device-fault"),
        ("device_status", "device-fault"),
        ("device_error", "device-fault"),
        ("driver_failure", "device-fault"),
        ("invalid_device_access", "device-fault"),
        ("tsdaemon", "device-fault"),
        ("resource_busy", "device-busy"),
        ("stream_resources", "stream-limit"),
        ("event_resources", "stream-limit"),
        ("notify_resources", "stream-limit"),
        ("bind_stream", "stream-limit"),
        ("insufficient", "resources"),
        ("full_service_queue", "resources"),
        ("resource_error", "resources"),
        ("dynamic_shape", "dynamic-shape"),
        ("shape", "shape"),
        ("tiling_fail", "op-compile"),
        ("compile", "op-compile"),
        ("compilation", "op-compile"),
        ("fusion_pass", "op-compile"),
        ("unsupported", "unsupported"),
        ("not_supported", "unsupported"),
        ("dtype", "unsupported"),
        ("data_type", "unsupported"),
        ("file_format", "file"),
        ("execute_function", "op-compile"),  # an operator's Python check/format function (TE)
        ("obtain_op_format", "op-compile"),
        ("format", "unsupported"),
        ("profiling", "profiling"),
        ("environment_variable", "config"),
        ("config", "config"),
        ("numa", "config"),
        ("memory_budget", "config"),
        ("slice_number", "config"),
        ("file", "file"),
        ("directory", "file"),
        ("model", "model"),
        ("name_conflict", "model"),  # two operators of the graph with one name
        ("ge_graph", "model"),
        ("graph_pattern", "model"),
        ("call_sequence", "call-order"),
        ("null_pointer", "invalid-argument"),
        ("execution_error", "execution"),
        ("system_terminated", "internal"),
        ("aclnn_runtime", "execution"),
        ("inner_error", "internal"),
        ("environment_error", "link-setup" if family == "EJ" else "config"),
        ("attr", "op-input"),
        ("operator_data", "op-input"),
        ("input", "op-input"),
        ("invalid", "invalid-argument"),
        ("parameter_error", "invalid-argument"),
        ("cgroup", "device-fault"),
        ("nn_process", "device-fault"),
    )
    for needle, kind in rules:
        if needle in t:
            return kind
    return "internal" if not t else "other"


# Operator families: a shape/argument kind there is an operator refusing its inputs.
OP_FAMILIES = ("E5", "E6", "E7", "E8", "EZ")


# Families whose codes are about operators (GE, FE, AI CPU, TE fusion, the compile checks,
# TBE, operators / aclnn): "not supported" there is an operator, dtype, format or shape.
OPERATOR_FAMILIES = ("E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "EA", "EB", "EZ")


# Codes the CANN error manager of our facts' commit lacks, from the newer HCCL (hcomm) error
# list: `hcomm_g_msg` registered with REG_FORMAT_ERROR_MSG in hicann/hcomm (read with the
# search tool's code index, 2026-12-07). EI0009 is the one users meet most (transport init).
HCOMM_SOURCE = "hcomm-error-list"
HCOMM_CODES = (
    ("EI0009", "Communication_Error_Initialize_Transport",
     "Device %s transport init error. Reason: %s."),
    ("EI0018", "Execution_Error_UB_CQE",
     "An error CQE occurred during operator execution. Local information: server %s, device ID"
     " %s, device IP %s. Peer information: server %s, device ID %s, device IP %s."),
    ("EI0019", "Communication_Error_Bind_IP_Port",
     "Failed to enable listening for the host network adapter socket. Reason: %s"),
    ("EI0020", "Communication_Error_Bind_IP_Port",
     "Failed to enable listening for the NPU network adapter socket. Reason: %s"),
)  # fmt: skip


# A topic by meaning for codes whose kind alone maps to none (issue #36: a code-tier finding
# without a topic cannot be read right). Each with its reason; a code whose meaning names no
# failure of topics.json (a null pointer, an internal error, a generic argument check) keeps
# none on purpose.
CODE_TOPICS: Dict[str, Tuple[str, str]] = {
    "EI0007": ("oom-device", "HCCL could not allocate: 'Memory resources are exhausted'"),
    "EI0012": ("comm-memory", "SDMA copy of a collective: buffer unallocated, too small or freed"),
    "EI0013": ("link-setup", "an error CQE: RoCE packets lost between two devices (port flapping)"),
    "EI0018": ("link-setup", "an error CQE on the UB link between two devices"),
    "E60118": ("op-unsupported", "'Invalid platform, only support [...]': not for this chip"),
    "E68016": ("env-not-sourced", "'the environment path [...] is not set or invalid'"),
    "E68056": ("op-unsupported", "'platform flag [...] is not supported'"),
    "E80001": ("install-package", "the OPP package's configuration lacks an entry: broken ops"),
}  # fmt: skip
# Environment variables with an invalid value: CANN's environment is set wrongly.
ENV_TITLE = "environment_variable"
ENV_TOPIC = ("env-not-sourced", "an environment variable of CANN has an invalid value")
# Operator families' checks printed as "In op[NAME], ...": an operator refused its inputs.
OP_CHECK = re.compile(r"(?:In op ?\[|Op ?\[|The op \[)")
OP_CHECK_TOPIC = ("op-input-check", "an operator's own check of its inputs: 'In op[...]'")
# HCCL results and DCMI codes, by name.
NAME_TOPICS: Dict[str, Tuple[str, str]] = {
    "HCCL_E_NOT_SUPPORT": ("op-unsupported", "not supported on this device or version"),
    "HCCL_E_AGAIN": ("device-busy", "the resource was busy"),
    "HCCL_E_RUNTIME": ("device-fault", "a runtime call on the device failed under HCCL"),
    "DCMI_ERR_CODE_NOT_SUPPORT": ("device-fault", "npu-smi / DCMI: the device lacks the function"),
    "DCMI_ERR_CODE_CONFIG_INFO_NOT_EXIST": ("device-fault", "npu-smi / DCMI: no such setting"),
}  # fmt: skip


# ACL / runtime / GE / aclnn return codes whose class gives no topic, by the meaning their
# name states (reasons in the tuple).
_PROF = ("profiler", "the profiler was configured or run wrongly")
_UNSUP = ("op-unsupported", "not supported here (feature, task type, kernel, dynamic op)")
_OPIN = ("op-input-check", "an operator's format, shape or dtype did not fit")
_DYN = ("dynamic-shape", "a dynamic batch / input size or a model without dynamic shapes")
_HW = ("device-fault", "a driver failure or a failed hardware stress test")
_MODEL = ("model-file", "a model file that cannot be read, parsed, deserialised or loaded")
_CAPTURE = ("mode-mismatch", "a call not allowed while a stream is captured into a graph")
RETURN_TOPICS: Dict[str, Tuple[str, str]] = {
    "ACL_ERROR_INVALID_PROFILING_CONFIG": _PROF, "ACL_ERROR_PROF_ALREADY_RUN": _PROF,
    "ACL_ERROR_PROF_NOT_RUN": _PROF, "ACL_ERROR_PROF_REPEAT_SUBSCRIBE": _PROF,
    "ACL_ERROR_PROF_API_CONFLICT": _PROF, "ACL_ERROR_PROF_MODULES_UNSUPPORTED": _PROF,
    "ACL_ERROR_PROFILING_FAILURE": _PROF, "ACL_ERROR_RT_PROFILING_ERROR": _PROF,
    "ACL_ERROR_KERNEL_NOT_FOUND": _UNSUP, "ACL_ERROR_OP_UNSUPPORTED_DYNAMIC": _UNSUP,
    "ACL_ERROR_FEATURE_UNSUPPORTED": _UNSUP, "ACL_ERROR_API_NOT_SUPPORT": _UNSUP,
    "ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT": _UNSUP,
    "ACL_ERROR_OP_INPUT_NOT_MATCH": _OPIN, "ACL_ERROR_OP_OUTPUT_NOT_MATCH": _OPIN,
    "ACL_ERROR_OP_ATTR_NOT_MATCH": _OPIN, "ACL_ERROR_FORMAT_NOT_MATCH": _OPIN,
    "ACL_ERROR_GE_FORMAT_INVALID": _OPIN, "ACL_ERROR_GE_SHAPE_INVALID": _OPIN,
    "ACL_ERROR_GE_DATATYPE_INVALID": _OPIN, "ACLNN_ERR_INNER_INFERSHAPE_ERROR": _OPIN,
    "ACL_ERROR_MODEL_NOT_DYNAMIC": _DYN, "ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID": _DYN,
    "ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID": _DYN,
    "ACL_ERROR_RT_STREAM_TASK_FULL": ("stream-limit", "a stream's task queue is full"),
    "ACL_ERROR_RT_LINK_ERROR": ("link-setup", "a link between devices failed"),
    "ACL_ERROR_DRV_FAILURE": _HW, "ACLNN_STRESS_BIT_FAIL": _HW, "ACLNN_STRESS_LOW_BIT_FAIL": _HW,
    "ACLNN_STRESS_HIGH_BIT_FAIL": _HW, "ACLNN_CLEAR_DEVICE_STATE_FAIL": _HW,
    "ACL_ERROR_RT_SOC_VERSION": ("version-mismatch", "software built for another chip (SoC)"),
    "ACL_ERROR_WAIT_CALLBACK_TIMEOUT": ("task-timeout", "a stream's callback timed out"),
}  # fmt: skip
# Names that state a meaning by their words, whatever the number: a model file that cannot be
# read, parsed, deserialised or loaded (ACL's and GE's executor's), and a call not allowed on
# a stream being captured into a graph (the runtime's capture codes).
RETURN_NAME_TOPICS = (
    (re.compile(r"^ACL_ERROR_(?:DESERIALIZE_MODEL|PARSE_MODEL|READ_MODEL_FAILURE|MODEL_SIZE_INVALID"
                r"|MODEL_MISSING_ATTR|GE_EXEC_MODEL_PATH_INVALID|GE_LOAD_MODEL"
                r"|GE_EXEC_LOAD_[A-Z]{1,12}_PARTITION_FAILED)$"), _MODEL),
    (re.compile(r"^ACL_ERROR_(?:RT_)?(?:\w{0,30}CAPTURE\w{0,30}|\w{1,20}_CAPTURED"
                r"|STREAM_UNJOINED)$"), _CAPTURE),
)  # fmt: skip


# The model parsers' codes (ATC / GE, titled *_Model_Data, *_Model_Weight, *_Model_Size,
# Invalid_Argument_Model, and the parser's own ONNX_Model_Data_Error): the model file given is
# not one that can be loaded or converted, unless the message says an operator of it has no
# parser or is unsupported.
MODEL_TITLE = re.compile(r"_Model_(?:Data|Weight|Size)(?:_Error)?$|^Invalid_Argument_Model$")
MODEL_TOPIC = ("model-file", "a model parser's code: the model file cannot be loaded or converted")
MODEL_OP_UNSUPPORTED = re.compile(r"[Nn]o (?:ONNX )?parser is registered|is unsupported\.")


def _meaning_topic(code: str, title: str, message: str, family: str) -> List[str]:
    """The topic CODE_TOPICS / ENV_TOPIC / OP_CHECK_TOPIC / MODEL_TOPIC give a code, else none."""
    if code in CODE_TOPICS:
        return [CODE_TOPICS[code][0]]
    if ENV_TITLE in title.lower():
        return [ENV_TOPIC[0]]
    if family in OP_FAMILIES + ("E6", "E7") and OP_CHECK.match(message):
        return [OP_CHECK_TOPIC[0]]
    if MODEL_TITLE.search(title):
        return ["op-unsupported" if MODEL_OP_UNSUPPORTED.search(message) else MODEL_TOPIC[0]]
    return []


def _topics_for(words: Dict[str, Any], kind: str, family: str, code: str) -> List[str]:
    topics = list(words["kinds"][kind].get("topics", []))
    if kind == "unsupported" and family not in OPERATOR_FAMILIES:
        topics = []  # a feature of the runtime, ACL, profiling...: not an operator's
    if family in OP_FAMILIES and kind in ("shape", "invalid-argument", "op-input"):
        topics = ["op-input-check"]
    if family == "E3" and kind in ("execution", "internal"):
        topics = ["aicpu-error"]
    if family == "EK":
        topics = ["profiler"]
    if family == "EI" and kind == "config":
        topics = ["dist-init"]
    return topics + ["code:" + code, "family:" + family]


def _return_topics(note: Dict[str, Any], cls: Dict[str, Any], name: str) -> List[str]:
    """A return code's topics: its note's, its class's, else the one RETURN_TOPICS gives."""
    topics = list(note.get("topics", cls.get("topics", [])))
    if not topics and name in RETURN_TOPICS:
        topics = [RETURN_TOPICS[name][0]]
    for pattern, (topic, _why) in RETURN_NAME_TOPICS:
        if not topics and pattern.match(name):
            topics = [topic]
    return topics


def _named(note: Dict[str, Any], name: str) -> List[str]:
    """A note's topics, or the one NAME_TOPICS gives its name."""
    topics = list(note["topics"])
    if not topics and name in NAME_TOPICS:
        topics = [NAME_TOPICS[name][0]]
    return topics


def _words() -> Dict[str, Any]:
    with open(WORDS, encoding="utf-8") as f:
        return json.load(f)


def _doc_url(facts: Dict[str, Any], entry: Dict[str, Any]) -> Tuple[str, str]:
    if "doc" not in entry:
        return "", ""
    key = "cann-ge-docs" if entry["doc"].startswith("docs/en/user_guides/") else "cann-runtime-docs"
    src = facts["sources"][key]
    repo = src["repo"]
    en = f"https://github.com/{repo}/blob/{src['commit']}/{entry['doc']}"
    return en, en.replace("/docs/en/", "/docs/zh/")


def build(facts: Dict[str, Any]) -> Dict[str, Any]:
    words = _words()
    old = words["table"]
    families = {f["prefix"]: f for f in old["families"]}
    codes: Dict[str, Any] = OrderedDict()
    cann = dict(facts["cann"])
    for code, title, message in HCOMM_CODES:
        cann.setdefault(code, {"title": title, "message": message, "source": HCOMM_SOURCE})
    for code, entry in facts.get("cann_docs", {}).items():
        # a code of today's sources keeps today's facts; the others say where they were seen
        cann.setdefault(code, dict(entry, source=DOCS_SOURCE))
    for code, entry in sorted(cann.items()):
        family = code[:2]
        if family not in families:
            continue
        kind = _kind_of_title(entry["title"], family)
        if int(code[2:]) >= 9000 and kind in ("other", "internal"):
            kind = "internal"
        en, zh = _doc_url(facts, entry)
        topics = _topics_for(words, kind, family, code)
        if topics[0].startswith("code:"):
            topics = _meaning_topic(code, entry["title"], entry["message"], family) + topics
        item = OrderedDict(
            [("kind", kind), ("title", entry["title"].replace("\\", "")),
             ("message", entry["message"]), ("topics", topics),
             ("source", entry["source"])]
        )  # fmt: skip
        if en:
            item["doc"] = en
            item["doc_zh"] = zh
        if "seen" in entry:  # only in other versions' docs: those versions, the newest page
            item["versions"] = list(OrderedDict.fromkeys(s["version"] for s in entry["seen"]))
            own = [s for s in entry["seen"] if s.get("page") != "list"]  # else its family's list
            item["doc"] = item["doc_zh"] = (own or entry["seen"])[-1]["url"]
        codes[code] = item
    notes = words["return_notes"]
    returns: Dict[str, Any] = OrderedDict()
    for number, entry in facts["returns"].items():
        note = notes.get(number, {})
        cls = words["return_classes"][number[0]]
        item = OrderedDict(
            [("name", entry["name"]), ("label", entry["note"]),
             ("topics", _return_topics(note, cls, entry["name"]) + ["code:" + number]),
             ("source", entry["source"])]
        )  # fmt: skip
        if note:
            item["meaning"] = note["en"]
            item["zh"] = note["zh"]
            if note.get("next"):
                item["next"] = note["next"]
                item["next_zh"] = note["next_zh"]
        returns[number] = item
    hccl: Dict[str, Any] = OrderedDict()
    for number, entry in facts["hccl"].items():
        if number == "0":
            continue
        note = words["hccl"][entry["name"]]
        hccl[number] = OrderedDict(
            [("name", entry["name"]), ("meaning", note["en"]), ("zh", note["zh"]),
             ("topics", _named(note, entry["name"]) + ["code:" + entry["name"]])]
        )  # fmt: skip
    dcmi: Dict[str, Any] = OrderedDict()
    for number, entry in facts["dcmi"].items():
        note = words["dcmi"][entry["name"]]
        dcmi[number] = OrderedDict(
            [("name", entry["name"]), ("meaning", note["en"]), ("zh", note["zh"]),
             ("next", note["next"]), ("next_zh", note["next_zh"]),
             ("topics", _named(note, entry["name"]) + ["code:" + number])]
        )  # fmt: skip
    table = OrderedDict(old)
    table["format"] = "ascend-lab.doctor-codes/2"
    table["generated_by"] = "scripts/build_error_tables.py from scripts/error_tables/facts.json"
    table["sources"] = OrderedDict(facts["sources"])
    table["sources"][HCOMM_SOURCE] = OrderedDict(
        [("repo", "hicann/hcomm"), ("url", "https://github.com/hicann/hcomm"),
         ("what", "HCCL's error list hcomm_g_msg (REG_FORMAT_ERROR_MSG): the EI codes newer than"
                  " cann-error-manager's (read 2026-12-07 with the search tool's code index)"),
         ("codes", " ".join(c for c, _, _ in HCOMM_CODES))]
    )  # fmt: skip
    table["kinds"] = words["kinds"]
    table["return_classes"] = words["return_classes"]
    table["return_codes"] = _return_groups(old, facts, words)
    table["codes"] = codes
    table["returns"] = returns
    table["hccl"] = hccl
    table["dcmi"] = dcmi
    table["hccl_common"] = words["hccl_common"]
    table["dcmi_common"] = words["dcmi_common"]
    table["torch_npu"] = _torch_npu_table(facts, words)
    table["torch_npu_common"] = words["torch_npu_common"]
    ge_words = words["ge_status"]
    table["ge_status"] = ge_status_table.build(facts, words)
    table["ge_status_common"] = ge_words["common"]
    table["ge_status_families"] = ge_words["families"]
    table["ge_status_kinds"] = ge_words["kinds"]
    if "mindie" in facts:
        table["mindie"] = _mindie_table(facts["mindie"], words["mindie"])
        table["mindie_common"] = words["mindie_common"]
    if "mindx_sdk" in facts:
        table["mindx_sdk"] = _mindx_sdk_table(facts["mindx_sdk"], words["mindx_sdk"], returns)
        table["mindx_sdk_common"] = words["mindx_sdk_common"]
    return table


def _mindie_table(facts: Dict[str, Any], own: Dict[str, Any]) -> Dict[str, Any]:
    """MindIE's MIE codes: every documented code with its page group's words and topic, the
    components, and the fields that decode a code no page lists (MS's types, Server's lists)."""
    groups = own["groups"]
    codes: Dict[str, Any] = OrderedDict()
    for code, entry in facts["codes"].items():
        words = groups[entry["group"]]
        seen = sorted(entry["seen"], key=_version_key)  # oldest first: the newest page last
        codes[code] = OrderedDict(
            [("name", code), ("group", entry["group"]), ("meaning", words["en"]),
             ("zh", words["zh"]), ("next", [words["next"]]), ("next_zh", [words["next_zh"]]),
             ("topics", ([words["topic"]] if words["topic"] else []) + ["code:" + code]),
             ("internal", words["internal"]),
             ("versions", list(OrderedDict.fromkeys(s["version"] for s in seen))),
             ("doc", seen[-1]["url"])]
        )  # fmt: skip
    server = facts["structure"]["04"]
    categories: Dict[str, Any] = OrderedDict()
    for cat, fact in server["categories"].items():
        words = own["server_categories"][cat]
        title_zh, title_en = (
            fact["title"].rstrip(")").split(" (", 1)
        )  # "初始化异常 (initialisation)"
        categories[cat] = OrderedDict(
            [("level", fact["level"]), ("title", title_en), ("title_zh", title_zh),
             ("meaning", words["en"]),
             ("zh", words["zh"]), ("next", [words["next"]]), ("next_zh", [words["next_zh"]]),
             ("internal", words["internal"]), ("doc", fact["seen"][-1]["url"])]
        )  # fmt: skip
    ms = facts["structure"]["03"]
    ms_types = OrderedDict(
        (t, OrderedDict([("name", name), ("meaning", own["ms_types"][t]["en"]),
                         ("zh", own["ms_types"][t]["zh"]),
                         ("internal", own["ms_types"][t]["internal"])]))
        for t, name in ms["types"].items()
    )  # fmt: skip
    components = OrderedDict(
        (c, OrderedDict([("name", name), ("zh", own["components"][c][1]),
                         ("module", own["components"][c][0])]))
        for c, name in facts["format"]["components"].items()
    )  # fmt: skip
    return OrderedDict(
        [("components", components), ("codes", codes),
         ("server", OrderedDict(
             [("subcomponents", server["subcomponents"]),
              ("subcomponents_310", server["subcomponents_310"]),
              ("sequences", [f"{n:02d}" for n in range(1, 10)]),
              ("categories", categories), ("also_listed", server["also_listed"]),
              ("types_310", OrderedDict(
                  [("en", own["server_types_310"]["en"]), ("zh", own["server_types_310"]["zh"]),
                   ("types", OrderedDict(
                       (t, [name, own["server_types_310"]["types"][t]])
                       for t, name in server["types_310"].items()))]))])),
         ("ms", OrderedDict([("subcomponents", ms["subcomponents"]), ("types", ms_types)])),
         ("unlisted", own["unlisted"]), ("ms_decoded", own["ms_decoded"]),
         ("documented", own["documented"])]
    )  # fmt: skip


def _version_key(seen: Dict[str, str]) -> Tuple[int, ...]:
    """Order MindIE's versions ("1.0.0", "2.0.RC1", "3.0.0 (en)", "latest (en)")."""
    if seen["version"].startswith("latest"):
        return (99,)
    return tuple(int(n) for n in re.findall(r"\d+", seen["version"]))


# MindX SDK's APP_ERR_* ranges: the class of a name by its number (the ACL codes are 27 and
# below; each other range starts at its *_BASE, "Success").
MINDX_CLASSES = (
    (1000, "ACL"), (2000, "COMM"), (3000, "DVPP"), (4000, "INFER"), (5000, "COMMANDER"),
    (6000, "QUEUE"), (7000, "STREAM"), (9000, "PLUGIN_TOOLKIT"), (10000, "DEVICE_MANAGER"),
    (11000, "OP"), (12000, "MXPLUGINS"),
)  # fmt: skip


def _mindx_class(value: int) -> str:
    return next(name for bound, name in MINDX_CLASSES if value < bound)


def _mindx_sdk_table(
    facts: Dict[str, Any], own: Dict[str, Any], returns: Dict[str, Any]
) -> Dict[str, Any]:
    """Every APP_ERR_* error (not the "Success" bases): number, return information, class,
    and the topic its meaning names (an APP_ERR_ACL_* name takes CANN's ACL_ERROR_* topic)."""
    acl = {item["name"]: item["topics"] for item in returns.values()}
    codes: Dict[str, Any] = OrderedDict()
    for name, entry in facts["codes"].items():
        if entry["info"] == "Success":
            continue
        topics = [own["topics"][name]] if name in own["topics"] else []
        twin = "ACL_ERROR_" + name[len("APP_ERR_ACL_") :] if name.startswith("APP_ERR_ACL_") else ""
        if not topics and twin in acl:
            topics = [t for t in acl[twin] if not t.startswith("code:")]
        codes[name] = OrderedDict(
            [("name", name), ("value", entry["value"]), ("info", entry["info"]),
             ("class", _mindx_class(entry["value"])), ("topics", topics + ["code:" + name]),
             ("internal", name in own["internal"])]
        )  # fmt: skip
    return OrderedDict([("classes", own["classes"]), ("codes", codes)])


def _torch_npu_topic(submodule: str, code: str) -> List[str]:
    """The topic a torch_npu ERR code names by meaning (see words.json torch_npu)."""
    if submodule == "PROF":
        return ["profiler"]
    if submodule == "OPS" and code in ("PARAM", "TYPE", "VALUE"):
        return ["op-input-check"]
    by_code = {
        "NOT_SUPPORT": "op-unsupported",
        "PERMISSION": "permission",
        "TIMEOUT": "collective-timeout" if submodule == "DIST" else "task-timeout",
        "MEMORY": "oom-device" if submodule in ("PTA", "OPS") else "",
    }
    return [by_code[code]] if by_code.get(code) else []


def _torch_npu_table(facts: Dict[str, Any], words: Dict[str, Any]) -> Dict[str, Any]:
    """Every ERR code: submodule x code, with what it prints, its words and its topic."""
    out: Dict[str, Any] = OrderedDict()
    own = words["torch_npu"]
    for sub_number, sub in facts["torch_npu"]["submodules"].items():
        sub_en, sub_zh = own["submodules"][sub]
        for number, (name, printed) in facts["torch_npu"]["codes"].items():
            code = f"ERR{int(sub_number):02d}{int(number):03d}"
            en, zh = own["codes"][name]
            out[code] = OrderedDict(
                [("name", f"{code} {sub} {printed}"), ("meaning", f"{en}, in {sub_en}"),
                 ("zh", f"{sub_zh}：{zh}"),
                 ("topics", _torch_npu_topic(sub, name) + ["code:" + code])]
            )  # fmt: skip
    return out


def _return_groups(old: Dict[str, Any], facts: Dict[str, Any], words: Dict[str, Any]) -> List[Any]:
    """The prefix groups (first three digits) that every known return number falls in."""
    groups = {g["prefix"]: g for g in old["return_codes"]}
    for number, entry in facts["returns"].items():
        prefix = number[:3]
        if prefix in groups:
            continue
        cls = words["return_classes"][number[0]]
        owner = words["return_owners"][number[1:3]]
        doc = "aclnn-return-codes" if prefix[1:] in ("61", "74") else "acl-return-codes"
        groups[prefix] = OrderedDict(
            [("prefix", prefix), ("owner", owner["en"]), ("meaning", cls["en"]),
             ("next", list(cls["next"])),
             ("zh", {"owner": owner["zh"], "meaning": cls["zh"], "next": list(cls["next_zh"])}),
             ("docs", [doc]),
             ("source", f"{doc}; numbers: {entry['source']} ({entry['header']})")]
        )  # fmt: skip
    for g in groups.values():
        g.pop("known", None)
        g.get("zh", {}).pop("known", None)
    return [groups[k] for k in sorted(groups)]


def coverage(facts: Dict[str, Any], table: Dict[str, Any]) -> List[str]:
    out = ["codes per family: in the table / in the sources (+ only in other versions' docs)"]
    src = Counter(c[:2] for c in facts["cann"])
    docs = Counter(c[:2] for c in facts.get("cann_docs", {}) if c not in facts["cann"])
    have = Counter(c[:2] for c in table["codes"])
    for fam in sorted(set(src) | set(docs) | {f["prefix"] for f in table["families"]}):
        extra = f" + {docs[fam]}" if docs.get(fam) else ""
        out.append(f"  {fam}: {have.get(fam, 0)} / {src.get(fam, 0)}{extra}")
    out.append(f"  CANN E-codes: {sum(have.values())} / {sum(src.values())} + {sum(docs.values())}"
               f" only in other CANN versions' troubleshooting pages"
               f" ({facts['sources'].get(DOCS_SOURCE, {}).get('versions', '-')})")  # fmt: skip
    src_r = Counter(n[:3] for n in facts["returns"])
    have_r = Counter(n[:3] for n in table["returns"])
    for prefix in sorted(src_r):
        out.append(f"  {prefix}xxx: {have_r.get(prefix, 0)} / {src_r[prefix]}")
    own = sum(1 for r in table["returns"].values() if "meaning" in r)
    out.append(f"  ACL/runtime/GE/aclnn numbers: {len(table['returns'])} / {len(facts['returns'])}"
               f" ({own} with a note of their own, the rest by class)")  # fmt: skip
    out.append(f"  HCCL results: {len(table['hccl'])} / {len(facts['hccl']) - 1}")
    out.append(f"  DCMI codes: {len(table['dcmi'])} / {len(facts['dcmi'])}")
    tn = facts["torch_npu"]
    out.append(f"  torch_npu ERR codes: {len(table['torch_npu'])} / "
               f"{len(tn['submodules'])} submodules x {len(tn['codes'])} codes")  # fmt: skip
    out += ge_status_table.coverage(facts, table)
    if "mindie" in table:
        out.extend(_mindie_coverage(facts, table))
    named = sum(1 for c in table["codes"].values() if not c["topics"][0].startswith("code:"))
    out.append(f"  E-codes whose meaning names a topic: {named} / {len(table['codes'])}")
    kinds = Counter(c["kind"] for c in table["codes"].values())
    out.append("  kinds of the E-codes: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    return out


def _mindie_coverage(facts: Dict[str, Any], table: Dict[str, Any]) -> List[str]:
    """MindIE's codes per component (listed on its pages; Server's by its pages' lists) and
    MindX SDK's APP_ERR codes, with how many name a topic."""
    mindie = table["mindie"]
    per = Counter(c[3:5] for c in mindie["codes"])
    server = mindie["server"]
    listed = len(server["subcomponents"]) * len(server["sequences"]) * len(server["categories"])
    per["04"] = listed + len(server["also_listed"])
    names = {c: v["name"] for c, v in mindie["components"].items()}
    out = ["  MindIE MIE codes documented on the pages read (per component):"]
    out.append("    " + ", ".join(f"{c} {names[c]} {per.get(c, 0)}" for c in sorted(names)))
    topical = sum(1 for v in mindie["codes"].values() if not v["topics"][0].startswith("code:"))
    out.append(f"    {sum(per.values())} in all ({listed + len(server['also_listed'])} MindIE "
               f"Server codes by its sub-component x 01-09 x category lists); {topical} of the "
               f"{len(mindie['codes'])} others name a topic")  # fmt: skip
    sdk = table["mindx_sdk"]["codes"]
    topical = sum(1 for v in sdk.values() if not v["topics"][0].startswith("code:"))
    out.append(f"  MindX SDK APP_ERR codes: {len(sdk)} / {len(facts['mindx_sdk']['codes'])} "
               f"(without the 'Success' bases); {topical} name a topic")  # fmt: skip
    return out


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extract", metavar="MIRRORS_DIR")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.extract:
        facts = extract(args.extract)
        with open(FACTS, "w", encoding="utf-8") as f:
            json.dump(facts, f, indent=1, ensure_ascii=False)
            f.write("\n")
    with open(FACTS, encoding="utf-8") as f:
        facts = json.load(f)
    table = build(facts)
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        with open(TABLE, encoding="utf-8") as f:
            if f.read() != text:
                print("error_codes.json is not what scripts/build_error_tables.py builds")
                return 1
    else:
        with open(TABLE, "w", encoding="utf-8") as f:
            f.write(text)
    print("\n".join(coverage(facts, table)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

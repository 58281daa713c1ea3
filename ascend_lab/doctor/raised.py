"""Where an error was raised, read from the text's structure when no rule or code names it.

A pasted failure nearly always says where it came from, even when nothing in it is a known
error: a Python traceback ends with the exception and the frame that raised it, MindSpore adds
its C++ call stack (``mindspore/ccsrc/minddata/...``), and MindSpore's and CANN's log lines
carry a module tag (``[ERROR] MD(...)``, ``[ERROR] RUNTIME(...)``). Read from those, the doctor
can still say which part of the stack raised the error, what that part does, where the
user's own code called it, and what to try next: a finding of the lowest rank ("raised"),
which names no topic and so never claims a cause it does not know.

Pure and linear: text in, a :class:`Raised` out; one pass over the lines with anchored,
bounded patterns. Nothing here imports MindSpore.
"""

import re
from dataclasses import dataclass, replace
from typing import List, Optional, Sequence, Tuple

from ascend_lab.i18n import N_

MAX_MESSAGE = 300

# 'File "/path/x.py", line 12, in fn' (Python's traceback frame)
_FRAME = re.compile(r'^\s{0,16}File "([^"\n]{1,500})", line (\d{1,7})(?:, in ([^\s]{1,200}))?')
# 'ValueError: message', 'mindspore.common.api.SomeError: ...', '[rank0]: RuntimeError: ...';
# a prefix of pytest ('E   ') or torchrun ('[rank3]: ') is allowed before it
_EXCEPTION = re.compile(
    r"^(?:\[rank\d{1,6}\]:\s{0,4}|E\s{1,8})?"
    r"([A-Za-z_][\w.]{0,200}(?:Error|Exception|Exit|Interrupt|Failure|Fault))(?::\s?(.{0,1000}))?$"
)
# a MindSpore C++ source path, as its call stack and its log lines print it
# (after "mindspore/" or at a word's start: torch_npu's "csrc/core/npu/..." is not MindSpore's)
_CC_PATH = re.compile(
    r"(?:mindspore/|^|[\s\[(])((?:ccsrc|core|ops|plugin)/[\w/.+-]{1,300}?)\.(?:cc|cpp|h)\b"
)
# '[ERROR] MD(1234,...)' / '[ERROR] RUNTIME(1234,python)': MindSpore's and CANN's log tags
_LOG_TAG = re.compile(r"^\[(?:ERROR|CRITICAL|EXCEPTION)\]\s{0,4}([A-Z][A-Z_]{1,23})\(\d{1,9}[,:]")
# MindSpore's own verdict on an exception: its report's section for errors it did not expect
# of itself ("- Framework Unexpected Exception Raised:", then "This exception is caused by
# framework's unexpected error. Please create an issue ...")
_FRAMEWORK_BANNER = re.compile(
    r"Framework Unexpected Exception Raised|"
    r"This exception is caused by framework's unexpected error"
)
_LIB_DIRS = ("site-packages/", "dist-packages/")
_STDLIB = re.compile(r"/lib(?:64)?/python\d(?:\.\d{1,2})?/|^<frozen |^<(?:string|stdin)>$")
_CANN_PATH = re.compile(r"/Ascend/|/ascend-toolkit/|/opp/op_impl/")


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.path}, line {self.line}" + (f", in {self.function}" if self.function else "")


@dataclass(frozen=True)
class Component:
    key: str
    name: str  # what it is, English (a catalogue message)
    does: str  # what it does, English
    steps: Tuple[str, ...]  # what to try, English


def _c(key: str, name: str, does: str, *steps: str) -> Component:
    return Component(key, name, does, tuple(steps))


_REPRO = N_("Reproduce it in a few lines, then search the project's issues for the message")
COMPONENTS = {
    c.key: c
    for c in (
        _c(
            "ms-dataset",
            N_("MindSpore's data pipeline (mindspore.dataset)"),
            N_("reads, decodes, maps and batches the data in worker threads or processes"),
            N_(
                "Iterate the dataset alone (`for row in ds.create_dict_iterator(): ...`) to see "
                "the error without the network"
            ),
            N_(
                "An error inside your own map or generator function is shown in its traceback: "
                "look for your file in it"
            ),
        ),
        _c(
            "ms-graph-compile",
            N_("MindSpore's graph compiler (parsing and type/shape inference)"),
            N_(
                "turns construct() into a graph in GRAPH_MODE: it parses the Python code and "
                "infers every node's type and shape"
            ),
            N_(
                "Run the same cell in PYNATIVE_MODE (`ms.set_context(mode=ms.PYNATIVE_MODE)`): "
                "an error in your code then points at its line"
            ),
            N_(
                "Read analyze_fail.ir (`ascend-lab view` draws it, with the node where "
                "inference stopped)"
            ),
        ),
        _c(
            "ms-op-infer",
            N_("an operator's shape and type check (MindSpore's op inference)"),
            N_("checks each operator's inputs (shapes, types, attributes) before it runs"),
            N_(
                "Print the shapes and dtypes of the operator's inputs just before the call; the "
                "message names the operator and the input it refused"
            ),
        ),
        _c(
            "ms-arg-check",
            N_("an argument check of a MindSpore API"),
            N_("checks the arguments of a MindSpore function before it does anything"),
            N_("The message names the argument and what it must be: change the call in your code"),
        ),
        _c(
            "ms-serialization",
            N_("MindSpore's save and load (checkpoint, export, MindIR)"),
            N_("writes and reads checkpoints and exported models"),
            N_(
                "Check the file name and folder (exists, writable, allowed characters) and that "
                "the file was written by a compatible MindSpore version"
            ),
        ),
        _c(
            "ms-communication",
            N_("MindSpore's distributed start-up (mindspore.communication)"),
            N_("starts the collective communication (HCCL on Ascend) between the ranks"),
            N_(
                "Check how the job was started (msrun or mpirun, rank table, RANK_ID / "
                "RANK_SIZE) and that every rank can reach the others"
            ),
        ),
        _c(
            "ms-parallel",
            N_("MindSpore's parallel strategy (auto and semi-auto parallel)"),
            N_("splits the graph and its tensors across devices by the strategies set"),
            N_("Check the shard strategies against the device count and the tensor shapes"),
        ),
        _c(
            "ms-device",
            N_("MindSpore's Ascend backend (device memory, streams, kernels)"),
            N_("allocates device memory and launches the compiled kernels on the NPU"),
            N_("Run `npu-smi info` (is the NPU free and healthy?) and read the CANN plog"),
        ),
        _c(
            "ms-runtime",
            N_("MindSpore's runtime (graph execution)"),
            N_("schedules the compiled graph's kernels and their memory"),
            N_("Set `export GLOG_v=1` and rerun to see what the runtime did before it failed"),
        ),
        _c(
            "ms-kernel",
            N_("MindSpore's kernel selection and build"),
            N_("picks and compiles a device kernel for every operator of the graph"),
            N_(
                "The operator may not support these dtypes or shapes on this device: try "
                "another dtype, or check the operator's supported platforms"
            ),
        ),
        _c(
            "ms-train",
            N_("MindSpore's training loop (Model, callbacks)"),
            N_("runs the steps, the callbacks and the dataset sink"),
            _REPRO,
        ),
        _c(
            "ms-nn",
            N_("a MindSpore layer (mindspore.nn)"),
            N_("builds the layer's parameters and calls its operators"),
            N_("Check the layer's arguments and the shape of its input"),
        ),
        _c(
            "ms-other",
            N_("MindSpore"),
            N_("the framework"),
            N_('Check the install: `python -c "import mindspore; mindspore.run_check()"`'),
            _REPRO,
        ),
        _c(
            "cann",
            N_("CANN (the runtime, graph engine or operator libraries)"),
            N_("runs the model on the NPU under the framework"),
            N_(
                "Read the CANN plog (`ls -t ~/ascend/log/debug/plog/ | head`) for the first "
                "[ERROR] line"
            ),
        ),
        _c(
            "torch_npu",
            N_("torch_npu (PyTorch's Ascend adapter)"),
            N_("runs PyTorch operators on the NPU through CANN"),
            N_("Check that torch, torch_npu and CANN are a supported combination"),
            _REPRO,
        ),
        _c(
            "vllm",
            N_("vLLM or vllm-ascend (the serving engine and its Ascend plugin)"),
            N_("loads the model, plans the KV cache and runs the NPU kernels through torch_npu"),
            N_(
                "Check that vllm, vllm-ascend, torch_npu and CANN are the versions one "
                "vllm-ascend release names"
            ),
            _REPRO,
        ),
        _c(
            "mindformers",
            N_("MindSpore Transformers (mindformers)"),
            N_("builds the model, its parallel configuration and training loop from a YAML file"),
            N_(
                "Check the YAML configuration against the model's documented one, and that "
                "mindformers and MindSpore are a supported pair"
            ),
        ),
        _c(
            "mindspeed",
            N_("MindSpeed (Megatron on Ascend)"),
            N_("patches Megatron-LM to train on the NPU through torch_npu"),
            N_(
                "Check that MindSpeed, Megatron-LM, torch_npu and CANN are the versions one "
                "MindSpeed release names"
            ),
        ),
        _c(
            "user",
            N_("your own code"),
            N_("the code the traceback's last frame belongs to"),
            N_("The exception was raised by your code: read the line it names"),
        ),
        _c(
            "unknown",
            N_("a part of the program the text does not show"),
            N_("raised the exception; the text has no traceback or log line saying which part"),
            N_(
                "Paste the whole traceback, from 'Traceback (most recent call last):' to the "
                "end, and the log lines before it: they show where it was raised"
            ),
        ),
        _c(
            "library",
            N_("a library"),
            N_("a Python package the code calls"),
            N_(
                "Check that the package's version is one your framework supports "
                "(`pip show <package>`)"
            ),
            _REPRO,
        ),
    )
}

# Python modules (longest prefix wins) and MindSpore C++ source areas -> component
_MODULES = (
    ("mindspore.dataset", "ms-dataset"),
    ("mindspore.mindrecord", "ms-dataset"),
    ("mindspore._extends.parse", "ms-graph-compile"),
    ("mindspore.common.api", "ms-graph-compile"),
    ("mindspore.common.jit", "ms-graph-compile"),
    ("mindspore._checkparam", "ms-arg-check"),
    ("mindspore.ops.primitive", "ms-op-infer"),
    ("mindspore.ops.operations", "ms-op-infer"),
    ("mindspore.ops", "ms-op-infer"),
    ("mindspore.train.serialization", "ms-serialization"),
    ("mindspore.communication", "ms-communication"),
    ("mindspore.parallel", "ms-parallel"),
    ("mindspore.train", "ms-train"),
    ("mindspore.nn", "ms-nn"),
    ("mindspore", "ms-other"),
    ("torch_npu", "torch_npu"),
    ("vllm_ascend", "vllm"),
    ("vllm", "vllm"),
    ("mindformers", "mindformers"),
    ("mindspeed", "mindspeed"),
    ("mindspeed_llm", "mindspeed"),
    ("tbe", "cann"),
    ("te_fusion", "cann"),
)
_CC_AREAS = (
    ("ccsrc/minddata", "ms-dataset"),
    ("ccsrc/pipeline/jit", "ms-graph-compile"),
    ("ccsrc/frontend/operator", "ms-graph-compile"),
    ("ccsrc/frontend/optimizer", "ms-graph-compile"),
    ("ccsrc/frontend/parallel", "ms-parallel"),
    ("ccsrc/pybind_api/ir", "ms-graph-compile"),
    ("ccsrc/plugin/device/ascend", "ms-device"),
    ("plugin/device/ascend", "ms-device"),
    ("ccsrc/runtime/device", "ms-device"),
    ("ccsrc/runtime/hardware", "ms-device"),
    ("ccsrc/runtime", "ms-runtime"),
    ("ccsrc/backend/common/session", "ms-runtime"),
    ("ccsrc/kernel", "ms-kernel"),
    ("ccsrc/backend", "ms-kernel"),
    ("ccsrc/distributed", "ms-communication"),
    ("ccsrc/transform", "ms-device"),
    ("core/ops", "ms-op-infer"),
    ("ops/infer", "ms-op-infer"),
    ("core/abstract", "ms-graph-compile"),
    ("core/utils/check_convert_utils", "ms-op-infer"),
    ("ccsrc/utils", "ms-other"),
    ("core", "ms-other"),
)
# log module tags (MindSpore's SubModuleId names, CANN's module names) -> component
_TAGS = {
    "MD": "ms-dataset",
    "ANALYZER": "ms-graph-compile",
    "PARSER": "ms-graph-compile",
    "PIPELINE": "ms-graph-compile",
    "OPTIMIZER": "ms-graph-compile",
    "PARALLEL": "ms-parallel",
    "DEVICE": "ms-device",
    "GE_ADPT": "ms-device",
    "HCCL_ADPT": "ms-communication",
    "DISTRIBUTED": "ms-communication",
    "RUNTIME_FRAMEWORK": "ms-runtime",
    "KERNEL": "ms-kernel",
    "RUNTIME": "cann",
    "GE": "cann",
    "FE": "cann",
    "TBE": "cann",
    "ASCENDCL": "cann",
    "HCCL": "cann",
    "HCCP": "cann",
    "DRV": "cann",
    "AICPU": "cann",
    "TEFUSION": "cann",
}


@dataclass(frozen=True)
class Raised:
    """What the text's structure says about where its error came from."""

    component: str  # a key of COMPONENTS
    where: str  # what shows it: a module, a C++ source path, a log tag
    exception: str = ""  # "ValueError" ("" when the text has no exception line)
    message: str = ""  # the exception's message, first line, at most MAX_MESSAGE chars
    line: int = 0  # 1-based line of the exception (or of the path / tag that shows it)
    text_line: str = ""  # that line
    user_frame: Optional[Frame] = None  # the innermost frame of the user's own code
    # MindSpore's report calls the error its own unexpected one (:data:`_FRAMEWORK_BANNER`)
    framework_internal: bool = False

    @property
    def info(self) -> Component:
        return COMPONENTS[self.component]


# packages also recognised outside site-packages (a source checkout, CANN's own Python)
_KNOWN_PACKAGES = (
    "mindspore",
    "torch_npu",
    "vllm_ascend",
    "mindformers",
    "mindnlp",
    "mindspeed",
    "mindspeed_llm",
    "tbe",
    "te_fusion",
)


def _module_of(path: str) -> Optional[str]:
    """'.../site-packages/mindspore/dataset/engine/x.py' -> 'mindspore.dataset.engine.x';
    a checkout of a known package ('/src/mindspore/mindspore/nn/x.py') reads the same."""
    norm = path.replace("\\", "/")
    rel = None
    for marker in _LIB_DIRS:
        at = norm.rfind(marker)
        if at >= 0:
            rel = norm[at + len(marker) :]
            break
    if rel is None:
        starts = [norm.rfind("/" + p + "/") for p in _KNOWN_PACKAGES]
        at = max(starts)
        if at < 0:
            return None
        rel = norm[at + 1 :]
    if rel.endswith(".py"):
        rel = rel[:-3]
    return rel.replace("/", ".")


def is_user_frame(path: str) -> bool:
    norm = path.replace("\\", "/")
    return _module_of(norm) is None and not _STDLIB.search(norm) and not _CANN_PATH.search(norm)


def _by_prefix(name: str, table: Sequence[Tuple[str, str]], sep: str) -> Optional[str]:
    for prefix, key in table:
        if name == prefix or name.startswith(prefix + sep):
            return key
    return None


def module_component(module: str) -> str:
    return _by_prefix(module, _MODULES, ".") or "library"


def cc_component(path: str) -> Optional[str]:
    for prefix, key in _CC_AREAS:
        if path.startswith(prefix + "/") or ("/" + prefix + "/") in "/" + path:
            return key
    return None


def read_raised(text: str) -> Optional[Raised]:
    """Where the text's (last) error was raised, or None when its structure shows nothing;
    ``framework_internal`` when MindSpore's report says the error is its own unexpected one."""
    raised = _read_raised(text)
    if raised is not None and _FRAMEWORK_BANNER.search(text):
        return replace(raised, framework_internal=True)
    return raised


def _read_raised(text: str) -> Optional[Raised]:
    frames: List[Frame] = []  # of the traceback being read
    last_frames: List[Frame] = []  # of the traceback the last exception line closed
    exc: Optional[Tuple[int, str, str, str]] = None  # (line, type, message, text)
    cc: Optional[Tuple[int, str, str]] = None  # first C++ path after the exception
    tag: Optional[Tuple[int, str, str]] = None  # first error log tag
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        found = _FRAME.match(line)
        if found:
            frames.append(Frame(found.group(1), int(found.group(2)), found.group(3) or ""))
            continue
        stripped = line.strip()
        if not stripped:
            continue
        found = _EXCEPTION.match(stripped)
        if found and (frames or exc is None or "." in found.group(1) or found.group(2)):
            exc = (n, found.group(1), (found.group(2) or "").strip()[:MAX_MESSAGE], stripped)
            if frames:
                last_frames, frames = frames, []
            cc = None
            continue
        if tag is None:
            t = _LOG_TAG.match(stripped)
            if t and t.group(1) in _TAGS:
                tag = (n, t.group(1), stripped)
        if cc is None and ("ccsrc/" in line or "core/" in line or "ops/" in line):
            p = _CC_PATH.search(line)
            if p and cc_component(p.group(1)):
                cc = (n, p.group(1), stripped)
    user = next((f for f in reversed(last_frames) if is_user_frame(f.path)), None)
    if exc is not None:
        n, etype, message, text_line = exc
        component, where = _component_of(last_frames, cc, tag)
        return Raised(component, where, etype, message, n, text_line[:MAX_MESSAGE], user)
    if cc is not None:
        return Raised(cc_component(cc[1]) or "ms-other", cc[1], line=cc[0], text_line=cc[2][:300])
    if tag is not None:
        return Raised(_TAGS[tag[1]], tag[1], line=tag[0], text_line=tag[2][:300])
    return None


def _component_of(
    frames: Sequence[Frame],
    cc: Optional[Tuple[int, str, str]],
    tag: Optional[Tuple[int, str, str]],
) -> Tuple[str, str]:
    """The most precise source of the three: a MindSpore C++ path (it names the area that
    threw), then the innermost library frame, then a log tag; else the user's code."""
    if cc is not None:
        key = cc_component(cc[1])
        if key:
            return key, cc[1]
    for f in reversed(frames):
        module = _module_of(f.path)
        if module is not None:
            return module_component(module), module
        if _CANN_PATH.search(f.path):
            return "cann", f.path
        if not is_user_frame(f.path):
            continue  # the standard library: look further out
        break
    if tag is not None:
        return _TAGS[tag[1]], tag[1]
    if frames and is_user_frame(frames[-1].path):
        return "user", frames[-1].path
    return ("library", "") if frames else ("unknown", "")

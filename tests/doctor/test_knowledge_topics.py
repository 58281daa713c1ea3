"""What each rule names (topics.json), and that the meaning survives other wordings.

Every example of every rule is already checked by test_knowledge.py (recognised, ranked
first). Here: the rules carry topics; the kinds issue #36 lists all have a rule; a library
that will not load is mapped to the package that ships it (never to another one); and the
variable parts of MindSpore's, torch_npu's and HCCL's messages (names, shapes, dtypes,
numbers) may change without losing the rule.
"""

import pytest

from ascend_lab.doctor.knowledge import known_topics, load_entries
from ascend_lab.doctor.match import match_text

ENTRIES = load_entries()

# Performance and numerics pitfalls that no failure topic describes (topics.json has no
# "performance" topic, and a weight-layout or epsilon difference is not an overflow).
WITHOUT_TOPIC = {
    "asnumpy-in-loop",
    "pynative-in-production",
    "numerics-layernorm-epsilon",
    "numerics-dense-transposed",
}


def _first_topic(text):
    found = match_text(text)
    assert found, f"nothing recognised in {text!r}"
    return found[0].entry.topics[0] if found[0].entry.topics else None, found[0]


def test_every_rule_names_what_it_is():
    missing = sorted(e.id for e in ENTRIES if not e.topics)
    assert missing == sorted(WITHOUT_TOPIC)
    for entry in ENTRIES:
        assert set(entry.topics) <= set(known_topics()), entry.id


def test_the_kinds_issue_36_lists_all_have_a_rule():
    first = {e.topics[0] for e in ENTRIES if e.topics}
    wanted = {
        # MindSpore graph-mode compile errors
        "graph-syntax", "graph-type-join", "graph-shape-join", "call-depth", "duplicate-param",
        "construct-signature", "dynamic-shape", "jit-fallback", "mode-mismatch",
        # runtime and distributed start-up
        "oom-device", "impossible-size", "stream-limit", "op-input-check", "op-unsupported",
        "dist-init", "ranktable", "collective-timeout", "link-setup", "port-in-use",
        "parallel-strategy",
        # dataset pipeline
        "dataset-worker", "dataset-shape", "dataset-column", "dataset-structure", "dataset-file",
        # installation: packages, libraries by the package that ships them, versions
        "install-package", "version-mismatch", "env-not-sourced", "lib-load:driver",
        "lib-load:toolkit", "lib-load:ops", "lib-load:nnal", "lib-load:torch_npu",
        "lib-load:mindspore",
    }  # fmt: skip
    assert wanted - first == set()


def _lib_texts(lib):
    """The ways a dynamic loader and the stacks around it report a library it cannot load."""
    return [
        f"ImportError: {lib}: cannot open shared object file: No such file or directory",
        f"python3: error while loading shared libraries: {lib}: cannot open shared object file: "
        "No such file or directory",
        f"OSError: {lib}: cannot open shared object file: No such file or directory",
    ]


LIBRARIES = {
    "lib-load:driver": ["libascend_hal.so", "libdcmi.so", "libdrvdsmi_host.so"],
    "lib-load:toolkit": [
        "libascendcl.so", "libge_runner.so", "libhccl.so", "libruntime.so", "libtsdclient.so",
        "libacl_op_compiler.so", "libge_compiler.so", "libgraph.so", "libregister.so",
    ],
    "lib-load:ops": ["libopapi.so", "libopapi_math.so", "libcust_opapi.so", "liboptiling.so"],
    "lib-load:nnal": ["libatb.so", "libasdops.so", "liblcal.so", "libatb_mixops.so"],
    "lib-load:torch_npu": ["libtorch_npu.so"],
    "lib-load:mindspore": ["_c_expression.cpython-39-x86_64-linux-gnu.so"],
}  # fmt: skip
LIB_CASES = [
    (topic, lib, text)
    for topic, libs in LIBRARIES.items()
    for lib in libs
    for text in _lib_texts(lib)
]


@pytest.mark.parametrize(
    "topic,lib,text", LIB_CASES, ids=[f"{lib}-{i % 3}" for i, (_, lib, _) in enumerate(LIB_CASES)]
)
def test_a_library_that_will_not_load_names_the_package_that_ships_it(topic, lib, text):
    first, match = _first_topic(text)
    assert first == topic, (lib, match.entry.id)
    other_packages = [t for t in match.entry.topics if t.startswith("lib-load:") and t != topic]
    assert other_packages == [], (lib, match.entry.id, other_packages)


def test_the_library_that_failed_is_the_one_named_not_the_one_that_loaded_it():
    # libascendcl.so (toolkit) loads; its dependency libascend_hal.so (driver) does not.
    text = (
        "executor init fails with `dlopen failed (/usr/local/Ascend/ascend-toolkit/latest/lib64/"
        "libascendcl.so): libascend_hal.so: cannot open shared object file: No such file or "
        "directory`"
    )
    assert _first_topic(text)[0] == "lib-load:driver"
    text = (
        "Load dynamic library: libmindspore_ascend.so.2 failed. libge_runner.so: cannot open "
        "shared object file: No such file or directory"
    )
    assert _first_topic(text)[0] == "lib-load:toolkit"
    text = (
        "Load dynamic library: libmindspore_ascend.so.2 failed. liboptiling.so: cannot open "
        "shared object file: No such file or directory"
    )
    assert _first_topic(text)[0] == "lib-load:ops"


def test_a_missing_symbol_between_packages_is_a_version_mismatch_not_a_missing_library():
    text = (
        "ImportError: /usr/local/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: "
        "undefined symbol: _ZN3atb15CreateOperationINS_5infer9ReshapeParamEEEiRKT_PPNS_9OperationE"
    )
    assert _first_topic(text)[0] == "version-mismatch"


# The same failures with the user's own names, shapes, dtypes and numbers in them (the
# variable parts of the messages in the rules' examples, changed).
VARIANTS = [
    (
        "TypeError: Cannot join the return values of different branches, perhaps you need to "
        "make them equal.\nType Join Failed: dtype1 = Int32, dtype2 = Float32.",
        "graph-type-join",
    ),
    (
        "TypeError: Type Join Failed: abstract type AbstractScalar cannot join with "
        "AbstractTensor.",
        "graph-type-join",
    ),
    ("ValueError: Shape Join Failed: shape1 = (8, 16), shape2 = (8, 32).", "graph-shape-join"),
    (
        "RuntimeError: Exceed function call depth limit 2000, (function call depth: 2001, "
        "simulate call depth: 1500).",
        "call-depth",
    ),
    (
        "ValueError: The value Parameter (name=encoder.layer.0.weight, shape=(768, 768), "
        "dtype=Float16, requires_grad=True) , its name 'encoder.layer.0.weight' already exists. "
        "Please set a unique name for the parameter.",
        "duplicate-param",
    ),
    (
        "TypeError: For 'Cell', the function construct requires 3 positional argument and "
        "1 default argument, total 4, but got 5.",
        "construct-signature",
    ),
    (
        "ValueError: For set_inputs and tuple(list) in set_inputs, the dims of 2th input must be "
        "the same as expected, but got expected: 4, and input: 2!",
        "dynamic-shape",
    ),
    (
        "Nested execution during JIT execution for 'Helper.run' is not supported when "
        "'MyNet.construct' compile and execute.",
        "jit-fallback",
    ),
    (
        "RuntimeError: Should not use Python object in runtime, node: ValueNode<InterpretedObject> "
        "InterpretedObject: 'abc'.",
        "jit-fallback",
    ),
    (
        "RuntimeError: NPU out of memory. Tried to allocate 1.50 GiB (NPU 3; 29.50 GiB total "
        "capacity; 27.10 GiB already allocated; 27.10 GiB current active; 0.90 GiB free; "
        "28.00 GiB reserved in total by PyTorch)",
        "oom-device",
    ),
    (
        "RuntimeError: Device(id:3) memory isn't enough and alloc failed, kernel name: "
        "Default/Conv2D-op7, alloc size: 1073741824B.",
        "oom-device",
    ),
    ("NPU out of memory. Tried to allocate more than 1EB memory", "impossible-size"),
    (
        "[rank3]:[E101 00:00:00.000000000 compiler_depend.ts:574] [Rank 3] Watchdog caught "
        "collective operation timeout: WorkHCCL(SeqNum=9, OpType=BROADCAST, NumelIn=10, "
        "NumelOut=10, Timeout(ms)=1800000) ran for 1800100 milliseconds before timing out.",
        "collective-timeout",
    ),
    (
        "[ERROR] HCCL(4242,python):2025-01-01-00:00:00.000.000 [hccl_socket.cc:106] [4242]"
        "[HcclSocket][Listen] socket type[1], listen on ip[10.0.0.2] and specific port[60001] "
        "fail. Please check the port status and whether the port is being used by other process.",
        "port-in-use",
    ),
    (
        "[ERROR] HCCL(9,python):2025-01-01-00:00:00.000.000 [hccl_socket_manager.cc:778] [9]"
        "[Wait][LinkEstablish]wait socket establish timeout, role[0] rank[3] timeout[600]",
        "link-setup",
    ),
    (
        "RuntimeError: Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error "
        "Message'.\n[ERROR] Cannot batch tensors with different shapes in column 1. First element "
        "had shape <3,224,224> and this element had shape <3,256,256>",
        "dataset-shape",
    ),
    ("ValueError: num_parallel_workers exceeds the boundary between 1 and 16!", "dataset-worker"),
    (
        "The error from device(chipId:1, dieId:0), serial number is 2, an exception occurred "
        "during AICPU execution, stream_id:5, task_id:7, errcode:21008, msg:inner error.",
        "aicpu-error",
    ),
]


@pytest.mark.parametrize("text,topic", VARIANTS, ids=[t for _, t in VARIANTS])
def test_the_meaning_survives_other_names_shapes_and_numbers(text, topic):
    assert _first_topic(text)[0] == topic

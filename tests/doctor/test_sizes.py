"""The sizes an out-of-memory text states are read and said (issue #36), in English and
Chinese; an impossible size says it points at corrupted data. The texts are the
knowledge base's real examples (their sources are in doctor/knowledge/)."""

import pytest

from ascend_lab.doctor import diagnose_text
from ascend_lab.doctor.knowledge import load_entries
from ascend_lab.doctor.sizes import human, memory_numbers
from ascend_lab.i18n import using

GIB = 1 << 30


def _example(rule, index):
    return next(e for e in load_entries() if e.id == rule).examples[index]


@pytest.mark.parametrize(
    "rule, index, asked, free, total",
    [
        ("torch-npu-oom", 1, 2 * GIB, int(1.8 * GIB), int(60.96 * GIB)),
        ("device-oom", 2, 8 * GIB, None, None),  # "alloc size: 8589934592B."
        ("device-oom", 1, 30 * GIB, None, None),  # "Malloc device memory failed, size[...]"
        ("device-oom", 6, 241827840, 0, None),  # "free memory size[0] ... required size[...]"
        ("device-oom", 7, 301990400, None, 29464985600),  # "alloc size : ... total mem size"
        ("device-oom", 9, 30 * GIB, None, None),  # halMemAlloc failed: ... size=
        # torch_npu's workspace allocator: "tried to allocate 180.00 MiB(NPU 0; ...)"
        ("torch-npu-oom", 3, 180 << 20, int(89.51 * (1 << 20)), int(60.96 * GIB)),
        # vLLM: "60.00 GiB KV cache is needed, ... available KV cache memory\n(56.13 GiB)"
        ("vllm-max-model-len", 1, 60 * GIB, int(56.13 * GIB), None),
        # the driver's EL0019: "Failed to allocate 1024 bytes device memory requested by ..."
        ("device-oom", 16, 1024, None, None),
    ],
)
def test_each_stack_s_wording_of_the_sizes_is_read(rule, index, asked, free, total):
    found = memory_numbers(_example(rule, index))
    assert (found.asked, found.free, found.total) == (asked, free, total)
    assert not found.impossible


def test_the_finding_states_the_sizes_in_english_and_chinese():
    text = _example("torch-npu-oom", 1)
    diag = diagnose_text(text)
    assert diag.findings[0].memory is not None
    assert "asked for 2 GiB with 1.8 GiB free (of 60.96 GiB in all)" in diag.to_text()
    assert diag.to_dict()["findings"][0]["memory"]["asked_bytes"] == 2 * GIB
    with using("zh_CN"):
        shown = diagnose_text(text).to_text()
    assert "申请了 2 GiB，空闲仅 1.8 GiB" in shown


def test_an_impossible_size_points_at_corrupted_data():
    diag = diagnose_text(_example("impossible-allocation", 0))  # "more than 1EB"
    f = diag.findings[0]
    assert f.memory.impossible and f.topics[0] == "impossible-size"
    assert "corrupted data or a wrong shape" in diag.to_text()
    # a device-memory wording with a size no device needs reads as that, first
    text = "RuntimeError: Malloc device memory failed, size[18446744073709551104], ret[207001]"
    diag = diagnose_text(text)
    assert diag.findings[0].topics[0] == "impossible-size"
    assert "16 EiB" in diag.to_text()
    negative = memory_numbers("Out of Memory!!! Request memory size: -4096B, Memory Statistic:")
    assert negative.impossible and human(negative.asked) == "-4 KiB"


def test_host_wordings_and_an_impossible_host_request():
    text = _example("host-oom", 2)  # Torch: not enough memory: you tried to allocate 72GB
    assert memory_numbers(text).asked == 72 * GIB
    assert diagnose_text(text).findings[0].topics[0] == "oom-host"
    numpy = (
        "MemoryError: Unable to allocate 1.50 PiB for an array with shape (1000000, 1000000, 200)"
    )
    diag = diagnose_text(numpy)
    assert diag.findings[0].topics[0] == "impossible-size"  # host-oom's MemoryError, 1.5 PiB


def test_no_sizes_no_line_and_numbers_are_bounded():
    assert memory_numbers("EL0004: Failed to allocate memory.") is None
    assert diagnose_text(_example("device-oom", 4)).findings[0].memory is None
    # a number is read to 20 digits at most (the regexes are linear: the knowledge loader's
    # backtracking check passes them); a longer run of digits is not a size
    assert memory_numbers("Tried to allocate " + "9" * 200_000 + " alloc size: x") is None

"""npu-smi parsers over every recorded fixture, the synthetic variants, and fuzzed input."""

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_lab.parsers import npu_smi
from benchmarks.support.fakes.ascend_machine import NPU_SMI_FIXTURES, SYNTHETIC, fixture_path


def _read(name):
    with open(fixture_path(name), encoding="utf-8") as f:
        return f.read()


REAL = os.path.join(os.path.dirname(NPU_SMI_FIXTURES), "real", "npu_smi")
ALL_INFO = sorted(
    [n for n in os.listdir(NPU_SMI_FIXTURES) if n.startswith("info_")]
    + [n for n in os.listdir(SYNTHETIC) if n.startswith("info_")]
)


def test_910b3_x8():
    info = npu_smi.parse_info(_read("info_910b3_x8_npu-smi-25.2.0.txt"))
    assert info.has_table and info.problems == []
    assert info.npu_smi_version == "25.2.0" and info.driver_version == "25.2.0"
    assert [c.npu for c in info.chips] == list(range(8))
    assert {c.name for c in info.chips} == {"910B3"}
    assert all(c.chip == 0 and c.health == "OK" and c.device is None for c in info.chips)
    c2 = info.chips[2]
    assert (c2.hbm_used_mb, c2.hbm_total_mb) == (41052, 65536)
    assert (c2.memory_used_mb, c2.memory_total_mb) == (0, 0)
    assert c2.power_w == 92.3 and c2.temp_c == 32 and c2.aicore_percent == 0
    assert (c2.hugepages_used, c2.hugepages_total) == (0, 0)
    assert c2.bus_id == "0000:81:00.0"
    assert info.chips[0].power_w == 97.9 and info.chips[0].hbm_used_mb == 3408
    assert info.chips[3].hbm_used_mb == 3390
    assert info.chips[7].bus_id == "0000:42:00.0"
    assert len(info.processes) == 1
    p = info.processes[0]
    assert (p.npu, p.chip, p.pid, p.name, p.memory_mb) == (2, 0, 1333928, "", 37709)


def test_910prob_named_process_after_blank_line():
    info = npu_smi.parse_info(_read("info_910prob_npu-smi-23.0.rc1.txt"))
    assert info.npu_smi_version == "23.0.rc1"
    (c,) = info.chips
    assert (c.npu, c.chip, c.name, c.health) == (0, 0, "910ProB", "OK")
    assert (c.memory_used_mb, c.memory_total_mb) == (1198, 15137)
    assert (c.hbm_used_mb, c.hbm_total_mb) == (30711, 32768)
    assert c.power_w == 78.4 and c.temp_c == 33
    (p,) = info.processes
    assert (p.npu, p.chip, p.pid, p.name, p.memory_mb) == (0, 0, 55115, "python", 30784)


def test_310p3_has_no_hbm():
    info = npu_smi.parse_info(_read("info_310p3_npu-smi-22.0.0.txt"))
    assert (info.npu_smi_version, info.driver_version) == ("22.0.0", "22.0.2")
    (c,) = info.chips
    assert (c.name, c.device, c.bus_id) == ("310P3", 0, "0000:5E:00.0")
    assert (c.memory_used_mb, c.memory_total_mb) == (931, 21534)
    assert c.hbm_used_mb is None and c.hbm_total_mb is None
    assert c.power_w == 16.5 and c.temp_c == 55
    assert info.processes == []


def test_310p3_x2_without_header_line():
    info = npu_smi.parse_info(_read("info_310p3_x2_no_header.txt"))
    assert info.npu_smi_version is None and info.has_table
    assert [(c.npu, c.chip, c.device) for c in info.chips] == [(0, 0, 0), (1, 0, 1)]
    assert [c.memory_used_mb for c in info.chips] == [1074, 1070]
    assert [c.bus_id for c in info.chips] == ["0000:82:00.0", "0000:89:00.0"]
    assert [c.power_w for c in info.chips] == [15.8, 15.4]


def test_310b4_alarm_na_bus_id():
    info = npu_smi.parse_info(_read("info_310b4_alarm_npu-smi-23.0.0.txt"))
    (c,) = info.chips
    assert (c.name, c.health, c.bus_id) == ("310B4", "Alarm", None)
    assert (c.hugepages_used, c.hugepages_total) == (15, 15)
    assert (c.memory_used_mb, c.memory_total_mb) == (2500, 7545)
    assert c.power_w == 0.0 and c.temp_c == 58


def test_a3_two_chips_per_npu_and_several_processes():
    info = npu_smi.parse_info(_read("info_a3_2chips_synthetic.txt"))
    assert info.problems == []
    assert [(c.npu, c.chip, c.device) for c in info.chips] == [
        (0, 0, 0),
        (0, 1, 1),
        (1, 0, 2),
        (1, 1, 3),
    ]
    assert [c.power_w for c in info.chips] == [178.9, None, 171.2, None]
    assert info.chips[0].hbm_used_mb == 23167 and info.chips[0].aicore_percent == 12
    assert [(p.pid, p.name, p.memory_mb) for p in info.processes] == [
        (402114, "python3.9", 10236),
        (402115, "python3.9", 10236),
    ]


def test_dash_and_na_values_become_none():
    info = npu_smi.parse_info(_read("info_910b_na_values_synthetic.txt"))
    a, b = info.chips
    assert (a.health, a.power_w, a.temp_c, a.bus_id, a.aicore_percent) == (
        "Warning",
        None,
        None,
        None,
        None,
    )
    assert (a.hugepages_used, a.hugepages_total) == (None, None)
    assert (a.hbm_used_mb, a.hbm_total_mb) == (None, 65536)
    assert (b.health, b.power_w, b.temp_c, b.hbm_used_mb) == ("Critical", 88.0, None, 1024)


def test_old_310_layout_without_hugepages_column():
    info = npu_smi.parse_info(_read("info_310_old_no_hugepages_synthetic.txt"))
    assert [(c.npu, c.chip, c.device, c.name) for c in info.chips] == [
        (0, 0, 0, "310"),
        (0, 1, 1, "310"),
    ]
    assert [c.temp_c for c in info.chips] == [45, 47]
    assert [c.hugepages_total for c in info.chips] == [None, None]
    assert [(c.memory_used_mb, c.memory_total_mb) for c in info.chips] == [
        (2621, 8192),
        (2703, 8192),
    ]
    assert info.chips[1].aicore_percent == 3


def test_narrow_columns_and_names_with_spaces():
    info = npu_smi.parse_info(_read("info_910b3_narrow_synthetic.txt"))
    assert info.npu_smi_version == "23.0.6"
    assert [(c.hbm_used_mb, c.hbm_total_mb) for c in info.chips] == [(4096, 65536), (65536, 65536)]
    assert [c.temp_c for c in info.chips] == [33, 34]
    (p,) = info.processes
    assert (p.npu, p.chip, p.pid, p.name, p.memory_mb) == (1, 0, 77, "my train job", 61000)


@pytest.mark.parametrize("name", ALL_INFO)
def test_trailing_spaces_and_crlf_change_nothing(name):
    text = _read(name)
    plain = npu_smi.parse_info(text)
    assert plain.chips, name
    spaced = npu_smi.parse_info("\n".join(line + "   " for line in text.splitlines()))
    crlf = npu_smi.parse_info(text.replace("\n", "\r\n"))
    assert spaced.chips == plain.chips == crlf.chips
    assert spaced.processes == plain.processes == crlf.processes


@pytest.mark.parametrize("name", ALL_INFO)
def test_wider_columns_change_nothing(name):
    """Pad every cell: values are read by header, not by character position."""
    text = _read(name)
    wide = "\n".join(
        re.sub(r"\|", "  |  ", line) if line.lstrip().startswith("|") else line
        for line in text.splitlines()
    )
    assert npu_smi.parse_info(wide).chips == npu_smi.parse_info(text).chips


def test_truncated_output_keeps_complete_chips_and_reports_the_rest():
    text = _read("info_910b3_x8_npu-smi-25.2.0.txt")
    lines = text.splitlines()
    cut = "\n".join(lines[:13])  # header + chips 0..1 + chip 2's first line
    info = npu_smi.parse_info(cut)
    assert [c.npu for c in info.chips] == [0, 1]
    assert len(info.problems) == 1 and "910B3" in info.problems[0]


def test_empty_and_non_text():
    for text in ("", "\n\n", "command not found"):
        info = npu_smi.parse_info(text)
        assert (info.has_table, info.chips, info.processes) == (False, [], [])
    assert npu_smi.parse_info(None).problems == ["npu-smi output is not text"]  # type: ignore[arg-type]


def test_board_usages_health():
    board = npu_smi.parse_board(_read("board_npu0.txt"))
    assert board["Software Version"] == "23.0.5"
    assert board["Firmware Version"] == "7.1.0.7.220"
    assert board["PCIe Bus Info"] == "0000:61:00.0"  # the value's own colons survive
    assert board["Chip Count"] == "1" and board["Compatibility"] == "OK"
    usages = npu_smi.parse_usages(_read("usages_npu0.txt"))
    assert usages["HBM Capacity(MB)"] == "32768" and usages["DDR Capacity(MB)"] == "13553"
    assert usages["Aicore Usage Rate(%)"] == "0" and len(usages) == 14
    health = npu_smi.parse_health(_read("health_npu0_chip0.txt"))
    assert health == {"Health Status": "OK", "Error Code": "NA", "Error Information": "NA"}
    assert npu_smi.parse_key_values("garbage\n: no key\n") == {}


FIXTURE_LINES = [line for n in ALL_INFO for line in _read(n).splitlines()] + [
    line  # the real public outputs too (tests/fixtures/real/npu_smi): -m, -l, failures
    for n in sorted(os.listdir(REAL))
    if n.endswith(".txt")
    for line in open(os.path.join(REAL, n), encoding="utf-8").read().splitlines()
]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_fuzz_random_text_never_raises(text):
    info = npu_smi.parse_info(text)
    for c in info.chips:
        assert isinstance(c.npu, int) and isinstance(c.chip, int)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FIXTURE_LINES),
            st.sampled_from(FIXTURE_LINES).map(lambda s: s[: len(s) // 2]),
            st.sampled_from(FIXTURE_LINES).map(lambda s: "> " + s),
            st.text(alphabet="|+-=/ 0123456789.NAOK-", max_size=80),
        ),
        max_size=40,
    )
)
def test_fuzz_shuffled_fixture_lines_never_raise(lines):
    text = "\n".join(lines)
    info = npu_smi.parse_info(text)
    assert all(isinstance(r.npu, int) for r in npu_smi.parse_map(text))
    assert all(isinstance(n, int) for n, _ in npu_smi.parse_list(text).npus)
    assert all(isinstance(w.npu, int) for w in npu_smi.parse_watch(text))
    kinds = ("info", "map", "list", "watch", "failure", "values", "unknown")
    assert npu_smi.kind_of(text) in kinds
    for p in info.processes:
        assert isinstance(p.pid, int)
    for c in info.chips:
        for used, total in ((c.hbm_used_mb, c.hbm_total_mb), (c.memory_used_mb, c.memory_total_mb)):
            assert used is None or isinstance(used, int)
            assert total is None or isinstance(total, int)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_fuzz_key_values_never_raise(text):
    out = npu_smi.parse_key_values(text)
    assert all(isinstance(k, str) and k for k in out)

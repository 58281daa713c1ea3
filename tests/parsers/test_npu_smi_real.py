"""The npu-smi reader on real public outputs (tests/fixtures/real/npu_smi, issue #36).

Every text of the corpus is read the way its manifest says is right (the same checks as
``python -m tests.device.measure_npu_smi``): the dev half, and the held-out half since its
one measurement (see the corpus README). Then the grammar's tolerances, each made from a real
text: a row a narrow terminal wrapped, a markdown quote, a log prefix, a second table, an
unknown row, and ``-m`` / ``-l``.
"""

import os

import pytest

from ascend_lab.parsers import npu_smi
from tests.device import measure_npu_smi as measure

CASES = measure._load()
ROOT = measure.ROOT


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_each_real_text_is_read_right(case):
    outcome, why = measure.measure(case)
    assert outcome == "right", why


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_each_real_text_is_told_apart(case):
    kinds = {"info": "info", "map": "map", "list": "list", "keyvalue": "values", "topo": "topo"}
    assert npu_smi.kind_of(_read(case["file"])) == kinds.get(case["kind"], case["kind"])


def test_the_corpus_is_split_by_the_hash_of_the_name():
    import hashlib

    for case in CASES:
        even = int(hashlib.sha1(case["file"].encode()).hexdigest(), 16) % 2 == 0
        # a text collected to write a rule against is dev, whatever its hash, and says so
        assert case["half"] == ("dev" if even or case.get("collected") else "heldout")
    assert len(CASES) >= 25 and len(os.listdir(ROOT)) == len(CASES) + 2  # + manifest, README


PREMIUM = "info_910premiuma_x8_procs_23.0.rc2_go_profile.txt"


def _chips(text):
    return [c.to_dict() for c in npu_smi.parse_info(text).chips]


def test_a_prompt_before_the_table_is_not_its_version():
    info = npu_smi.parse_info(_read(PREMIUM))
    assert (info.npu_smi_version, info.driver_version) == ("23.0.rc2", "23.0.rc2")
    assert [p.pid for p in info.processes][:2] == [5139, 5141] and info.problems == []


def test_rows_wrapped_by_a_narrow_terminal_are_joined():
    text = _read(PREMIUM)
    wrapped = []
    for line in text.splitlines():
        if line.startswith("|") and len(line) > 60:  # a 60-column terminal
            wrapped += [line[:60], line[60:]]
        else:
            wrapped.append(line)
    assert _chips("\n".join(wrapped)) == _chips(text)


def test_markdown_quotes_and_log_prefixes_are_looked_through():
    text = _read(PREMIUM)
    quoted = "\n".join("> " + line for line in text.splitlines())
    logged = "\n".join("INFO 06-26 08:18:55 [env.py:12] " + line for line in text.splitlines())
    assert _chips(quoted) == _chips(logged) == _chips(text)
    assert len(npu_smi.parse_info(logged).processes) == 8


def test_a_second_table_is_flagged_not_merged():
    text = _read("info_910b4_prompt_24.1.1_1panel_9472.txt")
    info = npu_smi.parse_info(text + "\n" + text)
    assert [c.npu for c in info.chips] == [0, 1]
    assert any("second npu-smi table" in p for p in info.problems)


def test_an_unknown_row_is_kept_as_a_problem_and_the_rest_is_read():
    lines = _read("info_910b1_x8_23.0.rc2.2_go_profile.txt").splitlines()
    lines.insert(9, "| ??? something new in a later npu-smi | -- | -- |")
    info = npu_smi.parse_info("\n".join(lines))
    assert len(info.chips) == 8
    assert any("something new" in p for p in info.problems)


def test_two_chip_rows_under_one_npu_row_without_a_border():
    lines = _read("info_a3_25.5.0_vllm_omni_3597.txt").splitlines()
    del lines[9:11]  # the border and the repeated NPU row between chip 0 and chip 1
    chips = npu_smi.parse_info("\n".join(lines)).chips
    assert [(c.npu, c.chip, c.device, c.hbm_used_mb) for c in chips] == [
        (0, 0, 0, 56152),
        (0, 1, 1, 55770),
    ]


def test_chip_map_and_list():
    rows = npu_smi.parse_map(_read("map_m_910b4_x8_atlas800ia2_notes.txt"))
    assert len(rows) == 16 and rows[0] == npu_smi.ChipMapEntry(0, 0, 0, "Ascend 910B4")
    assert rows[1].logic_id is None and rows[1].name == "Mcu"
    with_phy = (
        "NPU ID  Chip ID  Chip Logic ID  Chip Phy-ID Chip Name\n0 0 0 0 Ascend910\n0 2 - - Mcu\n"
    )
    assert npu_smi.parse_map(with_phy) == [
        npu_smi.ChipMapEntry(0, 0, 0, "Ascend910", phy_id=0),
        npu_smi.ChipMapEntry(0, 2, None, "Mcu", phy_id=None),
    ]
    listed = npu_smi.parse_list(_read("list_l_910b4_x8_atlas800ia2_notes.txt"))
    assert listed.total == 8 and listed.npus == [(n, 1) for n in range(8)]
    assert npu_smi.parse_map("garbage") == [] and npu_smi.parse_list("x").total is None


def test_ret_4_before_the_dcmi_code_is_read_as_an_access_problem():
    from ascend_lab.probes import smi_failure

    text = _read("fail_8005_ret4_permission_hwhiaiuser_notes.txt")
    failure = npu_smi.failure_of(text)
    assert (failure.kind, failure.code, failure.detail) == ("dcmi", "-8005", "access")
    cause, step = smi_failure.explain_failure(failure)
    assert "HwHiAiUser" in cause and "usermod" in step
    reason, fix = measure._status_of_failure(text)
    assert cause in reason and fix == step
    normal = "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\n" + text.splitlines()[1]
    assert npu_smi.failure_of(normal).detail == ""


def test_every_failure_kind_has_a_cause_and_a_next_step():
    from ascend_lab.probes import smi_failure

    for failure in (
        npu_smi.SmiFailure("dcmi", "ret is -8005", code="-8005"),
        npu_smi.SmiFailure("dcmi", "ret is -8999", code="-8999"),
        npu_smi.SmiFailure("dcmi", "ret is -8005", code="-8005", detail="access"),
        npu_smi.SmiFailure("dcmi-init", "dcmi module initialize failed"),
        npu_smi.SmiFailure("library", "x", library="libdrvdsmi_host.so"),
        npu_smi.SmiFailure("device-node", "/dev/davinci0: No such file"),
        npu_smi.SmiFailure("permission", "Permission denied"),
    ):
        cause, step = smi_failure.explain_failure(failure)
        assert cause and step, failure


def test_an_unrecognised_printout_shows_its_first_line_in_the_status():
    from ascend_lab.probes import npu_smi_runner, smi_reading

    text = _read("watch_x8_npu_util_npu_smi_reference.txt")  # not what `npu-smi info` prints

    def run(exe, argv, timeout):
        return npu_smi_runner.RunResult(ok=True, stdout=text)

    smi = smi_reading.read_npu_smi("/usr/local/sbin/npu-smi", True, run, 5.0)
    assert smi.failed and smi.reason.startswith("npu-smi printed no NPU table")
    assert "NpuID(Idx)  Pwr(W)" in smi.reason


def test_the_26_process_table_is_read_by_its_header():
    text = _read("info_910b2_procs_container_pid_26.0.rc1_bench_test.txt")
    (p,) = npu_smi.parse_info(text).processes
    assert (p.npu, p.chip, p.pid, p.name, p.memory_mb) == (0, 0, 1504884, "", 35358)
    named = text.replace("| 1504884       |                    |", "| 1504884       | run|job |")
    (p,) = npu_smi.parse_info(named).processes
    assert (p.pid, p.name, p.memory_mb) == (1504884, "run | job", 35358)


def test_rows_without_a_header_are_read_only_as_a_pair():
    rows = _read("info_310b4_rows_only_alarm_report.txt")
    info = npu_smi.parse_info(rows)
    assert info.has_table and [(c.name, c.health, c.memory_used_mb) for c in info.chips] == [
        ("310B4", "Alarm", 6680)
    ]
    assert info.problems == ["no header row: the columns are read in npu-smi's usual order"]
    # a markdown table in prose is not a chip table: no chip row follows its rows
    prose = "| 1 Ascend | Yes | 3 |\n| 2 Other | No | 4 |\n"
    info = npu_smi.parse_info(prose)
    assert (info.has_table, info.chips, info.problems) == (False, [], [])
    assert npu_smi.kind_of(prose) != "info"


def test_batch_5_sources_are_new_to_the_real_fixtures():
    """Batch 5 took no address the real fixtures already held (the other corpora, and the
    earlier npu-smi batches); the held-out batch another helper collects is not read."""
    real = os.path.dirname(ROOT)
    batch5 = [c for c in CASES if c.get("batch") == 5]
    earlier = {c["source"] for c in CASES if c.get("batch") != 5}
    assert len(batch5) >= 20
    others = []
    for folder, dirs, files in os.walk(real):
        dirs[:] = [d for d in dirs if d != "fresh" and os.path.join(folder, d) != ROOT]
        for name in files:
            if name.endswith((".json", ".md")):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    others.append(f.read())
    for case in batch5:
        source = case["source"]
        assert source not in earlier, source
        key = source.replace("index id ", "") if source.startswith("index id") else source
        assert not any(key in text for text in others), source


# npu-smi's own messages, as its main prints them ("dcmi module initialize failed. ret is %d"...)
# and as the shell and docker print a missing program: each is one kind with a cause and a
# next step, in English and Chinese
GRAMMAR = [
    ("dcmi module initialize failed. ret is -8005", "dcmi", "-8005"),
    ("dcmi model initialized failed, because the device is used. ret is -8020", "dcmi", "-8020"),
    ("npu get board type failed. ret is -9005", "board-type", "-9005"),
    ("Failed to execute npu-smi info. ret is -9001.", "execute", "-9001"),
    ("Failed to execute npu-smi set. ret is -8255.", "dcmi", "-8255"),
    ("Command or option is not found.", "bad-option", ""),
    ("This device does not support querying topo.", "unsupported", ""),
    ("bash: npu-smi: command not found", "not-found", ""),
    ("zsh: command not found: npu-smi", "not-found", ""),
    ("sh: 1: npu-smi: not found", "not-found", ""),
    ('exec: "npu-smi": executable file not found in $PATH', "not-found", ""),
    ("/bin/sh: /usr/local/sbin/npu-smi: No such file or directory", "not-found", ""),
    ("The device is not exist.", "bad-id", ""),
    ("Error: the card id is invalid", "bad-id", ""),
]


@pytest.mark.parametrize("text,kind,code", GRAMMAR, ids=[g[0][:40] for g in GRAMMAR])
def test_npu_smi_failure_grammar(text, kind, code):
    from ascend_lab.i18n import localize
    from ascend_lab.probes import smi_failure

    failure = npu_smi.failure_of("some other line\n" + text + "\n")
    assert (failure.kind, failure.code) == (kind, code)
    assert failure.line == text.strip()
    cause, step = smi_failure.explain_failure(failure)
    assert cause and step
    reason, fix = measure._status_of_failure(text)
    assert cause in reason and fix == step
    zh_reason = localize(
        smi_failure.smi_failure_reason("npu-smi exited with code 255", cause, step), "zh"
    )
    assert "下一步" in zh_reason and localize(cause, "zh") != cause and localize(step, "zh") != step


def test_a_query_the_device_lacks_names_the_query():
    failure = npu_smi.failure_of(_read("hccs_t_unsupported_atlas200ia2_24.1.0_doc.txt"))
    assert (failure.kind, failure.detail) == ("unsupported", "hccs topo")
    assert npu_smi.failure_of(None) is None and npu_smi.failure_of("all fine\n") is None


def test_a_timeout_names_a_cause_and_a_next_step():
    from ascend_lab.probes import npu_smi_runner, smi_reading

    def run(exe, argv, timeout):
        return npu_smi_runner.RunResult(
            ok=False, reason="npu-smi timed out after 5 s", timed_out=True
        )

    smi = smi_reading.read_npu_smi("/usr/local/sbin/npu-smi", True, run, 5.0)
    assert smi.failed and smi.reason == "npu-smi timed out after 5 s"
    assert "driver is busy or stuck" in smi.fix and "dmesg" in smi.fix


def test_topo_matrix_by_its_header():
    text = _read("topo_t_x8_hccs_raw_string_cpp_test.txt")
    topo = npu_smi.parse_topo(text)
    assert topo.rows == topo.npus == [f"NPU{i}" for i in range(8)]
    assert topo.links[1][0] == "HCCS" and topo.links[1][1] == "X"
    assert topo.legend["HCCS"] == "Connection traversing HCCS." and len(topo.legend) == 7
    # a prompt line before it, and rows without an affinity (a header without the column)
    prompted = "root@host:~# npu-smi info -t topo\n" + text
    assert npu_smi.parse_topo(prompted).affinity == topo.affinity
    lines = text.splitlines()
    bare = "\n".join(
        [lines[0].replace("CPU Affinity", "")] + [ln.rsplit(None, 1)[0] for ln in lines[1:9]]
    )
    assert npu_smi.parse_topo(bare).affinity == [None] * 8
    assert npu_smi.kind_of(text) == "topo" and npu_smi.parse_topo("NPU0 X\n").rows == []
    # prose that names two NPUs is not a matrix
    assert npu_smi.parse_topo("NPU0 NPU1\nNPU0 is fine\nNPU2 X HCCS\n").rows == []


def test_key_value_blocks_and_prompts():
    text = _read("power_t_blank_indented_line_atlas200ia2_2520_doc.txt")
    block = text.split("\n", 3)[3]  # from "Chip ID" on: chip 0's block
    two = "root@host:~# npu-smi info -t power -i 0\n" + text + block.replace(": 0", ": 1")
    values = npu_smi.parse_key_values(two)
    assert "root@host" not in values and values["Chip ID"] == "1"
    records = npu_smi.parse_key_value_records(two)
    assert [r.get("Chip ID") for r in records] == ["0", "1"]
    assert records[0]["NPU ID"] == "0" and records[1]["Power Dissipation(W)"] == "16.9"


def test_process_table_by_its_header_cells():
    text = _read("info_910b2_procs_container_pid_26.0.rc1_bench_test.txt")
    lines = text.splitlines()
    header = next(i for i, ln in enumerate(lines) if "Process id" in ln)
    row = next(i for i, ln in enumerate(lines) if "1504884" in ln)
    in_bytes = list(lines)
    in_bytes[header] = in_bytes[header].replace("Process memory(MB)", "Process memory(B) ")
    in_bytes[row] = in_bytes[row].replace("35358", str(35358 * 1024 * 1024))
    (p,) = npu_smi.parse_info("\n".join(in_bytes)).processes
    assert (p.pid, p.memory_mb) == (1504884, 35358)
    # Ascend 950's first column names the NPU only: "NPU ID | Process id | ..."
    cols = npu_smi._process_columns(["NPU ID", "Process id", "Process name", "Process memory(MB)"])
    proc = npu_smi._process_from_cells(["5", "4242", "python", "1024"], cols)
    assert (proc.npu, proc.chip, proc.pid, proc.memory_mb) == (5, 0, 4242, 1024)


def test_chip_map_columns_by_the_header():
    a5 = "NPU ID  Slot ID  Chip ID  Chip Phy-ID  Chip Name\n5  22  0  5  Ascend950PR\n"
    (row,) = npu_smi.parse_map(a5)
    assert (row.npu, row.chip, row.phy_id, row.logic_id, row.name) == (5, 0, 5, None, "Ascend950PR")

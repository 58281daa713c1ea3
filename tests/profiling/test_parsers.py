"""Pure parsers and the Profile built from them, on recorded CPU files (MindSpore 2.7 and
2.10) and on Ascend files made from the documentation (tests/fixtures/profile/README.md).
No MindSpore here.
"""

import csv
import io
import json
import os
import shutil

import pytest

from ascend_lab.errors.profile import ProfileError, ProfileParseError
from ascend_lab.model.graph import Graph, Node
from ascend_lab.parsers.profiler.profiler_ascend_files import (
    parse_kernel_details,
    parse_op_statistic,
)
from ascend_lab.parsers.profiler.profiler_cpu_files import (
    op_type_of,
    parse_execute_timestamps,
    parse_op_detail,
)
from ascend_lab.parsers.profiler.profiler_files import MAX_BYTES_ENV, find_files, read_text
from ascend_lab.parsers.profiler.trace_view import overlap_spans, parse_trace_view
from ascend_lab.payload import PayloadError, validate_payload
from ascend_lab.payload.profile_section import profile_payload
from ascend_lab.profiling.api import load_profile

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "profile")
CPU_DIRS = ["cpu-2.10-convbnrelu", "cpu-2.7-convbnrelu", "cpu-2.10-lenet"]
ASCEND = os.path.join(FIXTURES, "ascend-doc-lenet")
ASCEND_OUT = os.path.join(ASCEND, "profiler", "ASCEND_PROFILER_OUTPUT")

# The final kernel graph of LeNet5 as ascend_lab.trace printed it (MindSpore 2.10, CPU):
# (id, op, full name with scope), in execution order.
LENET_KERNELS = [
    ("%1", "Conv2D", "Default/conv1-Conv2d/Conv2D-op0"),
    ("%2", "ReLU", "Default/relu-ReLU/ReLU-op0"),
    ("%3", "MaxPool", "Default/pool-MaxPool2d/MaxPool-op0"),
    ("%5", "Conv2D", "Default/conv2-Conv2d/Conv2D-op0"),
    ("%6", "ReLU", "Default/relu-ReLU/ReLU-op1"),
    ("%7", "MaxPool", "Default/pool-MaxPool2d/MaxPool-op1"),
    ("%8", "Flatten", "Default/flatten-Flatten/Flatten-op0"),
    ("%10", "MatMul", "Default/fc1-Dense/MatMul-op0"),
    ("%12", "BiasAdd", "Default/fc1-Dense/BiasAdd-op0"),
    ("%13", "ReLU", "Default/relu-ReLU/ReLU-op2"),
    ("%15", "MatMul", "Default/fc2-Dense/MatMul-op0"),
    ("%17", "BiasAdd", "Default/fc2-Dense/BiasAdd-op0"),
    ("%18", "ReLU", "Default/relu-ReLU/ReLU-op3"),
    ("%20", "MatMul", "Default/fc3-Dense/MatMul-op0"),
    ("%22", "BiasAdd", "Default/fc3-Dense/BiasAdd-op0"),
]


class FakeTrace:
    """What the join reads of a Trace: its final graph."""

    def __init__(self, graph):
        self.graph = graph


def lenet_graph(renumber=0):
    nodes = []
    for node_id, op, name in LENET_KERNELS:
        if renumber:  # a second compile in one process numbers its ops anew
            head, _, number = name.rpartition("-op")
            name = f"{head}-op{int(number) + renumber}"
        nodes.append(Node(id=node_id, op=op, name=name, scope=name.rsplit("/", 1)[0]))
    return Graph(name="kernel_graph_0", nodes=nodes)


def windows_of(folder):
    with open(os.path.join(FIXTURES, folder, "steps.json")) as f:
        return [tuple(w) for w in json.load(f)["windows_us"]]


def cpu_file(folder, name):
    return os.path.join(FIXTURES, folder, "FRAMEWORK", name)


# -- CPU files ---------------------------------------------------------------------------
@pytest.mark.parametrize("folder", CPU_DIRS)
def test_cpu_timestamps_agree_with_mindsporess_own_totals(folder):
    """Per-kernel totals from the launch list equal cpu_op_detail_info's op_total_time(ms)."""
    launches = parse_execute_timestamps(
        read_text(cpu_file(folder, "cpu_op_execute_timestamp_0.txt"))
    )
    with open(cpu_file(folder, "cpu_op_detail_info_0.csv")) as f:
        detail = list(csv.DictReader(f))
    assert len(launches) == sum(int(r["op_occurrences"]) for r in detail)
    for row in detail:
        mine = [k for k in launches if k.name == row["full_op_name"]]
        assert len(mine) == int(row["op_occurrences"])
        assert sum(k.duration_us for k in mine) == pytest.approx(
            float(row["op_total_time(ms)"]) * 1000, rel=1e-4
        )
        assert {k.op_type for k in mine} == {row["op_type"]}
    starts = [k.start_us for k in launches]
    assert starts == sorted(starts)


@pytest.mark.parametrize("folder", CPU_DIRS)
def test_cpu_profile_steps_hold_every_launch_and_kernel_time_fits_the_step(folder):
    p = load_profile(os.path.join(FIXTURES, folder), "net", windows_of(folder))
    assert p.source == "cpu"
    assert len(p.steps) == 3
    kernels = len(p.kernels)
    for step in p.steps:
        assert step.launches == kernels  # each kernel ran once per step
        assert step.kernel_sum_us <= step.wall_us
        assert step.busy_us <= step.wall_us
        assert step.gap_us == pytest.approx(step.wall_us - step.busy_us)
        assert step.communication_us == 0.0
    assert all(k.calls == 3 for k in p.kernels)
    assert sum(k.share for k in p.kernels) <= 1.0
    assert not any("outside the measured steps" in n for n in p.notes)


def test_cpu_launches_outside_the_windows_are_counted_out_and_said():
    windows = windows_of("cpu-2.10-convbnrelu")[1:]  # forget the first step
    p = load_profile(os.path.join(FIXTURES, "cpu-2.10-convbnrelu"), "net", windows)
    assert len(p.steps) == 2
    assert all(k.calls == 2 for k in p.kernels)
    assert any(n.startswith("4 launch(es) fell outside") for n in p.notes)


def test_lenet_joins_by_name_and_lists_the_nop_flatten():
    p = load_profile(
        os.path.join(FIXTURES, "cpu-2.10-lenet"),
        "LeNet5",
        windows_of("cpu-2.10-lenet"),
        trace=FakeTrace(lenet_graph()),
    )
    by_node = {k.node_id: k for k in p.kernels}
    for node_id, op, name in LENET_KERNELS:
        if op == "Flatten":
            continue
        assert by_node[node_id].name == name
        assert by_node[node_id].joined_by == "name"
    assert p.unjoined_rows == []
    assert [(u.node_id, u.op_type) for u in p.unmeasured_nodes] == [("%8", "Flatten")]
    assert "nop" in p.unmeasured_nodes[0].reason


def test_lenet_joins_by_scope_and_order_when_the_op_numbers_differ():
    p = load_profile(
        os.path.join(FIXTURES, "cpu-2.10-lenet"),
        "LeNet5",
        windows_of("cpu-2.10-lenet"),
        trace=FakeTrace(lenet_graph(renumber=7)),
    )
    by_node = {k.node_id: k for k in p.kernels}
    for node_id, op, name in LENET_KERNELS:
        if op == "Flatten":
            continue
        assert by_node[node_id].name == name  # e.g. ReLU-op2 (3rd ReLU run) -> %13
        assert by_node[node_id].joined_by == "order"
    assert p.unjoined_rows == []


def test_profile_without_trace_keeps_the_table_and_says_so():
    p = load_profile(
        os.path.join(FIXTURES, "cpu-2.10-lenet"), "LeNet5", windows_of("cpu-2.10-lenet")
    )
    assert len(p.kernels) == 14 and all(k.node_id is None for k in p.kernels)
    assert any("no trace" in n for n in p.notes)
    assert p.slowest.op_type == "Conv2D"
    payload = profile_payload(p)
    validate_payload(payload)
    assert payload["profile"]["graph"] is None
    assert len(payload["profile"]["launches"]) == 42


def test_op_type_of():
    assert op_type_of("Default/conv-Conv2d/Conv2D-op12") == "Conv2D"
    assert op_type_of("Default/fc1-Dense/Fused_BiasAdd_ReLU_fusion") == "Fused_BiasAdd_ReLU_fusion"
    assert op_type_of("Default/x/Net-opx") == "Net-opx"


@pytest.mark.parametrize(
    "line, message",
    [
        ("Default/a/Conv2D-op0", "expected '<name>;<kind>"),
        ("Default/a/Conv2D-op0;HostCpuOps;12,abc,0", "bad launch record"),
        ("Default/a/Conv2D-op0;HostCpuOps;12", "bad launch record"),
    ],
)
def test_cpu_timestamps_bad_lines_name_the_line(line, message):
    with pytest.raises(ProfileParseError) as err:
        parse_execute_timestamps("Default/ok/ReLU-op0;HostCpuOps;1,0.5,0\n" + line, path="t.txt")
    assert message in str(err.value) and "t.txt, line 2" in str(err.value)


def test_cpu_timestamps_hostile_line_is_refused_or_read_in_one_pass():
    many = "Default/a/ReLU-op0;HostCpuOps;" + " ".join(f"{i},0.001,0" for i in range(50000))
    assert len(parse_execute_timestamps(many)) == 50000
    semicolons = ";" * 1_000_000
    with pytest.raises(ProfileParseError):
        parse_execute_timestamps(semicolons + "x")


def test_op_detail_missing_column_names_it():
    with pytest.raises(ProfileParseError, match="missing column.*full_op_name"):
        parse_op_detail("op_side,op_type\nHost,ReLU\n")


# -- Ascend files (made from the documentation) --------------------------------------------
def test_kernel_details_reads_cores_waits_block_dims_and_steps():
    text = read_text(os.path.join(ASCEND_OUT, "kernel_details.csv"))
    launches = parse_kernel_details(text)
    assert len(launches) == 34
    assert {k.core for k in launches} == {"AI_CORE", "AI_VECTOR_CORE", "AI_CPU", "MIX_AIC", "HCCL"}
    assert {k.step for k in launches} == {1, 2}
    assert {k.lane for k in launches} == {"stream 2", "stream 8"}
    conv = next(k for k in launches if k.name.endswith("conv1-Conv2d/Conv2D-op5"))
    assert (conv.block_dim, conv.duration_us, conv.wait_us) == (8, 18.42, 0.0)
    relu = next(k for k in launches if k.name.endswith("ReLU-op6"))
    assert relu.wait_us == 6.5 and relu.op_type == "Relu"
    assert conv.start_us == 1717577432191000.0  # the trailing tab of the cell is stripped


def test_ascend_profile_agrees_with_op_statistic_and_splits_communication():
    p = load_profile(ASCEND, "LeNet5")
    assert p.source == "ascend" and len(p.steps) == 2
    stat = parse_op_statistic(read_text(os.path.join(ASCEND_OUT, "op_statistic.csv")))
    mine = {(t.op_type, t.core): t for t in p.op_types}
    assert len(stat) == len(mine)
    for row in stat:
        t = mine[(row.op_type, row.core)]
        assert t.calls == row.calls
        assert t.total_us == pytest.approx(row.total_us, abs=1e-3)
        assert t.max_us == pytest.approx(row.max_us, abs=1e-3)
    for step in p.steps:
        assert step.communication_us == pytest.approx(42.0)
        # the all-reduce overlaps computation: the busy time counts it once
        assert step.busy_us < step.kernel_sum_us
        assert step.busy_us <= step.wall_us
    assert not any(n.startswith("op_statistic.csv counts") for n in p.notes)
    assert any("overlap analysis" in n for n in p.notes)
    hcom = next(k for k in p.kernels if k.core == "HCCL")
    assert hcom.calls == 2 and hcom.wait_us == 0.0


def ascend_graph():
    """The same net traced on the Ascend machine: same scopes, MindSpore op names, new
    op numbers; no TransData (inserted later) and no all-reduce in it."""
    scope = "Default/network-WithLossCell/_backbone-LeNet5"
    ops = [
        ("conv1-Conv2d", "Conv2D"),
        ("relu-ReLU", "ReLU"),
        ("pool-MaxPool2d", "MaxPool"),
        ("conv2-Conv2d", "Conv2D"),
        ("relu-ReLU", "ReLU"),
        ("pool-MaxPool2d", "MaxPool"),
        ("flatten-Flatten", "Flatten"),
        ("fc1-Dense", "MatMul"),
        ("fc1-Dense", "BiasAdd"),
        ("relu-ReLU", "ReLU"),
        ("fc2-Dense", "MatMul"),
        ("fc2-Dense", "BiasAdd"),
        ("relu-ReLU", "ReLU"),
        ("fc3-Dense", "MatMul"),
        ("fc3-Dense", "BiasAdd"),
    ]
    nodes = [
        Node(id=f"%{i}", op=op, name=f"{scope}/{cell}/{op}-op{100 + i}")
        for i, (cell, op) in enumerate(ops)
    ]
    nodes.append(
        Node(
            id="%loss",
            op="OneHot",
            name="Default/network-WithLossCell/_loss_fn-SoftmaxCrossEntropyWithLogits/OneHot-op3",
        )
    )
    return Graph(name="kernel_graph_1", nodes=nodes)


def test_ascend_join_reports_rows_without_a_node_and_the_nop_node():
    p = load_profile(ASCEND, "LeNet5", trace=FakeTrace(ascend_graph()))
    joined = [k for k in p.kernels if k.node_id]
    assert len(joined) == 15  # 14 by order (op numbers differ) + OneHot by name
    assert len({k.node_id for k in joined}) == 15
    assert next(k for k in p.kernels if k.op_type == "OneHot").joined_by == "name"
    assert sorted(u.op_type for u in p.unjoined_rows) == ["TransData", "hcom_allReduce_"]
    assert all("no kernel of the traced graph" in u.reason for u in p.unjoined_rows)
    assert [u.op_type for u in p.unmeasured_nodes] == ["Flatten"]
    # the k-th ReLU launched is the k-th ReLU of the graph
    relus = sorted((k for k in p.kernels if k.op_type == "Relu"), key=lambda k: k.first_start_us)
    assert [k.node_id for k in relus] == ["%1", "%4", "%9", "%12"]
    payload = profile_payload(p)
    validate_payload(payload)


def test_trace_view_reads_process_and_thread_names():
    spans = parse_trace_view(read_text(os.path.join(ASCEND_OUT, "trace_view.json")))
    hardware = [s for s in spans if s.process == "Ascend Hardware"]
    assert len(hardware) == 34
    assert {s.thread for s in hardware} == {"Stream 2", "Stream 8"}
    overlap = overlap_spans(spans)
    assert set(overlap) >= {"Computing", "Communication", "Free"}
    cpu = parse_trace_view(
        read_text(
            os.path.join(
                FIXTURES, "cpu-2.10-convbnrelu", "ASCEND_PROFILER_OUTPUT", "trace_view.json"
            )
        )
    )
    kernels = [s for s in cpu if s.process == "CPU OP"]
    assert len(kernels) == 12  # 4 kernels x 3 steps, as in cpu_op_execute_timestamp_0.txt
    assert {s.name.rsplit("/", 1)[-1] for s in kernels} == {
        "Conv2D-op0",
        "BiasAdd-op0",
        "BatchNorm-op0",
        "ReLU-op0",
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("Name,Type,Start Time(us)\nx,y,1\n", "missing column.*Duration"),
        ("Name,Type,Start Time(us),Duration(us)\nx,y,1,fast\n", "is not a number"),
        ("Name,Type,Start Time(us),Duration(us)\nx,y,,2\n", "no start or duration"),
    ],
)
def test_kernel_details_bad_input(text, message):
    with pytest.raises(ProfileParseError, match=message):
        parse_kernel_details(text, path="kernel_details.csv")


@pytest.mark.parametrize("text", ["{", '{"traceEvents": 3}', '"x"'])
def test_trace_view_bad_input(text):
    with pytest.raises(ProfileParseError):
        parse_trace_view(text)


def test_reads_are_capped(tmp_path, monkeypatch):
    path = tmp_path / "kernel_details.csv"
    path.write_text("x" * 200)
    monkeypatch.setenv(MAX_BYTES_ENV, "100")
    with pytest.raises(ProfileParseError, match=f"over the limit of 100 bytes.*{MAX_BYTES_ENV}"):
        read_text(str(path))
    monkeypatch.setenv(MAX_BYTES_ENV, "lots")
    with pytest.raises(ValueError, match="positive whole number"):
        read_text(str(path))


def test_folder_without_profiler_files(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    with pytest.raises(ProfileError, match="no per-kernel profiler file"):
        load_profile(str(tmp_path))
    with pytest.raises(ProfileError, match="is not a folder"):
        load_profile(str(tmp_path / "missing"))


def test_find_files_prefers_the_shallowest_and_copes_with_copies(tmp_path):
    shutil.copytree(ASCEND, tmp_path / "a")
    deeper = tmp_path / "a" / "profiler" / "PROF_1" / "mindstudio_profiler_output"
    deeper.mkdir(parents=True)
    (deeper / "op_statistic_1.csv").write_text("OP Type\n")
    found = find_files(str(tmp_path))
    assert found.is_ascend and not found.is_cpu
    assert found.get("op_statistic").endswith(
        os.path.join("ASCEND_PROFILER_OUTPUT", "op_statistic.csv")
    )


def test_html_escapes_names():
    p = load_profile(os.path.join(FIXTURES, "cpu-2.10-convbnrelu"), "<b>net</b>")
    p.kernels[0].name = "Default/<script>alert(1)</script>/Conv2D-op0"
    out = p._repr_html_()
    assert "<script>" not in out and "&lt;script&gt;" in out and "&lt;b&gt;net" in out


def test_payload_section_is_checked_by_the_schema():
    p = load_profile(ASCEND, "LeNet5")
    payload = profile_payload(p)
    payload["profile"]["launches"][0] = [0, 0, 1.0]  # too short
    with pytest.raises(PayloadError):
        validate_payload(payload)


def test_plot_draws_one_bar_per_kernel():
    p = load_profile(ASCEND, "LeNet5")
    fig, ax = p.plot(n=5)
    assert len(ax.patches) == 5
    widths = [bar.get_width() for bar in ax.patches]
    assert widths[-1] == pytest.approx(p.slowest.total_us / len(p.steps))
    assert widths == sorted(widths)
    assert "LeNet5" in ax.get_title()


def test_table_lists_the_slowest_first():
    p = load_profile(
        os.path.join(FIXTURES, "cpu-2.10-lenet"), "LeNet5", windows_of("cpu-2.10-lenet")
    )
    lines = p.table(3).splitlines()
    assert len(lines) == 5 and "Conv2D-op0" in lines[2]
    assert io.StringIO(repr(p)).read().startswith("Profile of LeNet5 (cpu, 3 step(s), 14 kernels")

"""The budget of every reader, as properties (issue #37): whatever hypothesis hands over
(deep nesting, repeated names, long lines, huge counts, huge numbers, special files), a
reader answers or refuses cleanly, within memory that is a small multiple of its input's
bytes plus a constant, and in time that grows like its input, not faster.

Memory is measured with tracemalloc (what the reader allocates, its input excluded) and
must stay under ``factor x bytes + 16 MiB`` (each test names its factor). Time is never
compared with a clock: each case is read at n and at 8n, and the ratio of the two CPU
times must stay under 8 x 3 (n log n and a loaded machine's noise fit; a quadratic
reader's ratio is 64: with the old id allocation of .mindir it was 40, and the old scope
repair took 23.6 MB for 15 KB of .ir). The CLI entry points run in a child process under a 1 GiB
address-space limit and must exit 0 or 2 with no traceback.

Readers, and what the strategies generate for each:

- ``parse_ir_text`` + the payload's ``graph_data`` (scope repair): scopes 150-1,200 deep,
  of one repeated class or all distinct; one name for every node; 50 KB attribute lines,
  2,000 open brackets; shapes of 400-digit and 1e308 numbers.
- ``parse_mindir``: 250 and 2,000 nodes sharing one name (``same``, ``x``, empty), with an
  input of that name or of ``x~2``.
- ``parse_kernel_details`` (CSV): rows of 8 bytes, rows of 200 empty columns, cells of
  1e308 and 1e400; ``parse_op_statistic``: totals of 1e308 that would sum to inf.
- ``parse_trace_view``: events of 50 bytes, arrays nested 24,000 deep, 1e308 timestamps,
  the ``{"traceEvents": [...]}`` form.
- ``parse_execute_timestamps`` (CPU profiler): lines of 16,000 launch records, durations
  of 1e300, inf and nan.
- ``read_profiler_db``: generated columns of 2 MB strings or plain ones, 300 and 2,400 rows.
- ``read_reference`` (.npz): 600 MB of zeros compressed to 0.6 MB (over the 512 MiB cap).
- ``read_gated`` (the one gate): a FIFO, a socket, /dev/zero, a link out of the root, a
  file over its cap, a folder.
- ``ascend-lab view``: a 297 KB .ir of 1,200-deep scopes, a profiler folder whose
  kernel_details.csv is a FIFO, one whose database has computed columns;
  ``ascend-lab status --from`` and ``doctor --from``: a FIFO, /dev/zero, 200,000 nested
  brackets as the bundle.
"""

import gc
import json
import os
import socket
import subprocess
import sys
import time
import tracemalloc
import zipfile
from typing import Any, Callable, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_lab.errors import AscendLabError
from ascend_lab.parsers.regular_file import FileRefused, NotARegularFile, confined, read_gated
from tests.support.profiler_db import write_profiler_db

MB = 1 << 20
SLACK = 16 * MB  # constant part of every memory budget
GROWTH = 8  # time is measured at n and GROWTH * n
TIME_RATIO = GROWTH * 3  # n log n plus noise; a quadratic reader reaches GROWTH ** 2
FEW = settings(
    max_examples=3,
    deadline=None,
    database=None,  # nothing written to the repo
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _measure(read: Callable[[Any], Any], data: Any) -> Tuple[float, int, bool]:
    """(seconds, peak bytes allocated, refused) of one read; a refusal is a clean
    AscendLabError (or OSError of the gate), anything else fails the test."""
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    refused = False
    try:
        read(data)
    except (AscendLabError, OSError):
        refused = True
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return seconds, peak, refused


def _timed(read: Callable[[Any], Any], data: Any) -> float:
    """CPU seconds of this process, best of three untraced runs (tracemalloc slows Python
    code unevenly; CPU time, unlike wall time, does not count the other processes of a
    shared machine)."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        try:
            read(data)
        except (AscendLabError, OSError):
            pass
        best = min(best, time.process_time() - start)
    return best


def check_budget(read: Callable[[Any], Any], make: Callable[[int], Any], n: int, factor: int):
    """``read(make(n))`` within ``factor`` x bytes + SLACK of memory, and
    t(GROWTH n) / t(n) under TIME_RATIO (the first time floored at 10 ms, below which a
    clock measures the machine, not the reader)."""
    small, large = make(n), make(GROWTH * n)
    size = len(large) if isinstance(large, (str, bytes)) else os.path.getsize(large)
    _seconds, peak, _refused = _measure(read, large)
    assert peak <= factor * size + SLACK, f"{peak:,} bytes for {size:,} bytes of input"
    ratio = _timed(read, large) / max(_timed(read, small), 0.01)
    assert ratio <= TIME_RATIO, f"time grew {ratio:.1f}x for {GROWTH}x the input"


# ------------------------------------------------------------------ .ir text and its payload


def _ir(nodes: int, scope_of: Callable[[int], str], shape: str = "(1, 8)", attr: str = "") -> str:
    lines = [
        "# IR entry: @kernel_graph0",
        "",
        f"%para1_x: <Tensor[Float32], {shape}>",
        "",
        "subgraph @kernel_graph0() {",
    ]
    prev = "%para1_x"
    for i in range(nodes):
        lines.append(f"  %{i}(CNode_{i}) = ReLU({prev}){attr}")
        lines.append(f"      : (<Tensor[Float32], {shape}>) -> (<Tensor[Float32], {shape}>)")
        lines.append(f"      # Fullname with scope: ({scope_of(i)}/ReLU-op{i})")
        prev = f"%{i}"
    lines += [f"  Return({prev})", "}", ""]
    return "\n".join(lines)


IR_SHAPES = {
    # every node its own instance, then one class repeated thousands deep: each rule looked
    # at every prefix (d^2); 297 KB took 494 MB before the cut
    "deep repeated class": lambda depth: (
        lambda i: "Default/" + f"{i}-A/" + "/".join(f"{k}-A" for k in range(depth))
    ),
    "deep distinct": lambda depth: (
        lambda i: "Default/" + "/".join(f"c{i}_{k}" for k in range(depth))
    ),
    "one name for all": lambda depth: lambda i: "Default/" + "/".join("0-A" for _ in range(depth)),
}


def _read_ir_payload(text: str) -> Any:
    from ascend_lab.parsers.ir.ir_text import parse_ir_text
    from ascend_lab.payload.build import graph_data

    return graph_data(parse_ir_text(text, "x.ir"))


@FEW
@given(kind=st.sampled_from(sorted(IR_SHAPES)), nodes=st.integers(2, 12))
def test_ir_with_deep_or_repeated_scopes_stays_in_budget(kind, nodes):
    # grows the depth: 150 and 1,200 levels
    check_budget(_read_ir_payload, lambda n: _ir(nodes, IR_SHAPES[kind](n)), 150, factor=40)


SHAPES = {
    "400 digits": "(9" + "9" * 400 + ", 8)",
    "1e308": "(1e308, 8)",
    "-1": "(-1, 9" + "9" * 30 + ")",
}
ATTRS = {
    "none": "",
    "50 KB line": " {v: " + "x" * 50_000 + "}",
    "nested": " {v: " + "(" * 2000 + "}",
}


@FEW
@given(shape=st.sampled_from(sorted(SHAPES)), attr=st.sampled_from(sorted(ATTRS)))
def test_ir_with_huge_numbers_or_long_lines_stays_in_budget(shape, attr):
    make = lambda n: _ir(n, lambda i: f"Default/{i}-A", SHAPES[shape], ATTRS[attr])  # noqa: E731
    check_budget(_read_ir_payload, make, 20, factor=40)


# ------------------------------------------------------------------ .mindir


def _mindir(nodes: int, name: str, input_name: str) -> bytes:
    """A ModelProto whose graph chains ``nodes`` ReLUs that all share one name, written with
    the wire encoder of ``mind_ir.proto``'s field numbers (no MindSpore needed: the Python
    3.8 leg has none)."""
    from benchmarks.support.mindir_writer import field

    def text(number: int, value: str) -> bytes:
        return field(number, value.encode())

    prev = f"g:{input_name}"
    body = text(2, "g") + field(5, text(1, prev))  # GraphProto.name, .input (ValueInfoProto)
    node = text(1, prev) + text(2, f"g:{name}") + text(3, f"g:{name}") + text(4, "ReLU")
    first = node
    later = text(1, f"g:{name}") + text(2, f"g:{name}") + text(3, f"g:{name}") + text(4, "ReLU")
    nodes_bytes = field(1, first) + field(1, later) * max(0, nodes - 1) if nodes else b""
    body = nodes_bytes + body + field(6, text(1, f"g:{name}" if nodes else prev))
    # ModelProto: ir_version 1, producer_name 2, graph 7
    return text(1, "0.1.1") + text(2, "MindSpore") + field(7, body)


@FEW
@given(name=st.sampled_from(["same", "x", ""]), input_name=st.sampled_from(["same", "x~2", "y"]))
def test_mindir_nodes_sharing_one_name_are_linear(name, input_name):
    from ascend_lab.parsers.mindir.mindir import parse_mindir

    # ids were allocated by trying k = 2, 3, ... from the start: 99 KB took 10 s
    check_budget(parse_mindir, lambda n: _mindir(n, name, input_name), 250, factor=150)


# ------------------------------------------------------------------ profiler CSV, trace, CPU


CSV_ROWS = {
    "short rows": lambda n: "Name,Type,Start Time(us),Duration(us)\n" + "a,b,1,1\n" * n,
    "wide empty rows": lambda n: (
        "Name,Type,Start Time(us),Duration(us)"
        + ",x" * 200
        + "\n"
        + ("a,b,1,1" + "," * 200 + "\n") * n
    ),
    "huge numbers": lambda n: "Name,Type,Start Time(us),Duration(us)\n" + "a,b,1e308,1e308\n" * n,
    "overflowing numbers": lambda n: (
        "Name,Type,Start Time(us),Duration(us)\n" + "a,b,1e400,1\n" * n
    ),
}


@FEW
@given(kind=st.sampled_from(sorted(CSV_ROWS)))
def test_profiler_csv_stays_in_budget(kind):
    from ascend_lab.parsers.profiler.profiler_ascend_files import parse_kernel_details

    # a dict per row was kept: 64x the file; rows now stream, capped by the file's bytes
    check_budget(parse_kernel_details, CSV_ROWS[kind], 1_500, factor=30)


def test_huge_numbers_never_sum_to_infinity():
    from ascend_lab.errors.profile import ProfileParseError
    from ascend_lab.parsers.profiler.profiler_ascend_files import parse_op_statistic

    head = "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us)\n"
    with pytest.raises(ProfileParseError, match="is not a number of at most"):
        parse_op_statistic(head + "MatMul,AI_CORE,1,1e308,1,1,1\n" * 3)


TRACES = {
    "short events": lambda n: (
        "[" + '{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"a"},' * n + "{}]"
    ),
    "huge numbers": lambda n: (
        "[" + '{"ph":"X","ts":1e308,"dur":1e308,"pid":1,"tid":1,"name":"a"},' * n + "{}]"
    ),
    "object form": lambda n: (
        '{"traceEvents":['
        + '{"ph":"X","ts":"1","dur":"2","pid":1,"tid":1},' * n
        + '{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}}]}'
    ),
    "deep nesting": lambda n: "[" * (n * 20) + "]" * (n * 20),
}


@FEW
@given(kind=st.sampled_from(sorted(TRACES)))
def test_trace_view_stays_in_budget(kind):
    from ascend_lab.parsers.profiler.trace_view import parse_trace_view

    # json.loads of the whole array held every event: 29x the file
    check_budget(parse_trace_view, TRACES[kind], 2_000, factor=30)


@FEW
@given(duration=st.sampled_from(["0.5", "1e300", "inf", "nan"]), per_line=st.integers(1, 3))
def test_cpu_timestamps_stay_in_budget(duration, per_line):
    from ascend_lab.parsers.profiler.profiler_cpu_files import parse_execute_timestamps

    def make(n: int) -> str:
        records = " ".join(f"{1700000000000000000 + k},{duration},1" for k in range(n))
        return "\n".join(f"Default/Conv2D-op{j};HostCpuOps;{records}" for j in range(per_line))

    check_budget(parse_execute_timestamps, make, 2_000, factor=30)


# ------------------------------------------------------------------ profiler database


@FEW
@given(computed=st.booleans(), length=st.sampled_from([10, 2_000_000]))
def test_profiler_database_stays_in_budget(tmp_path_factory, computed, length):
    from ascend_lab.parsers.profiler.profiler_db import read_profiler_db

    tmp = str(tmp_path_factory.getbasetemp())
    # columns computed when read: a 32 KB database took 2.4 GB and 80 s
    make = lambda n: write_profiler_db(tmp, n, computed, length)  # noqa: E731
    check_budget(read_profiler_db, make, 300, factor=60)


def test_a_computed_column_is_refused_before_any_row(tmp_path):
    from ascend_lab.errors.profile import ProfileParseError
    from ascend_lab.parsers.profiler.profiler_db import read_profiler_db

    with pytest.raises(ProfileParseError, match="computed columns"):
        read_profiler_db(write_profiler_db(str(tmp_path), 10, True, 2_000_000))


# ------------------------------------------------------------------ numerics reference (.npz)


def test_a_reference_that_inflates_is_refused_from_its_headers(tmp_path):
    import numpy as np

    from ascend_lab.errors.numerics import NumericsReferenceError
    from ascend_lab.numerics.reference import read_reference

    bomb = tmp_path / "bomb.npz"  # 600 MB of zeros in ~0.6 MB: the cap is 512 MiB read
    count = 75_000_000
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("a.npy", "w", force_zip64=True) as member:
            header = {"descr": "<f8", "fortran_order": False, "shape": (count,)}
            np.lib.format.write_array_header_1_0(member, header)
            chunk = bytes(8 << 20)
            for _ in range(count * 8 // len(chunk)):
                member.write(chunk)
            member.write(bytes(count * 8 % len(chunk)))
    assert bomb.stat().st_size < 4 * MB
    _seconds, peak, refused = _measure(read_reference, str(bomb))
    assert refused and peak < 8 * MB
    with pytest.raises(NumericsReferenceError, match="once read"):
        read_reference(str(bomb))


# ------------------------------------------------------------------ the gate


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "link out", "over cap", "folder"])
def test_the_gate_refuses_what_is_not_a_small_regular_file_inside(tmp_path, kind):
    root = tmp_path / "root"
    root.mkdir()
    target = root / "x.csv"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
    elif kind == "device":
        target.symlink_to("/dev/zero")
    elif kind == "link out":
        (tmp_path / "secret.txt").write_text("first line of a file outside\n")
        target.symlink_to(tmp_path / "secret.txt")
    elif kind == "over cap":
        target.write_bytes(b"x" * 1000)
    else:
        target.mkdir()
    start = time.monotonic()
    with confined(str(root)), pytest.raises((FileRefused, NotARegularFile)) as caught:
        read_gated(str(target), cap=100)
    assert time.monotonic() - start < 5  # never waits on a FIFO (a hang would time out)
    assert "first line" not in str(caught.value)  # nothing of the file is quoted


# ------------------------------------------------------------------ CLI entry points

MEMORY = 1 << 30


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _cli(*args: str) -> "subprocess.CompletedProcess[str]":
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    return subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "-m", "ascend_lab", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        preexec_fn=_limited,
    )


@pytest.mark.parametrize("case", ["deep scopes", "profiler folder with a fifo", "computed db"])
def test_view_ends_cleanly_under_one_gib(tmp_path, case):
    if case == "deep scopes":
        scope_of = IR_SHAPES["deep repeated class"](1200)
        path = tmp_path / "deep.ir"
        path.write_text(_ir(40, scope_of))  # 297 KB: 494 MB and 6.6 s before, 31 MB after
    else:
        path = tmp_path / "h_1_ascend_ms"
        out = path / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(parents=True)
        if case == "profiler folder with a fifo":
            os.mkfifo(out / "kernel_details.csv")
        else:
            write_profiler_db(str(out), 400, True, 2_000_000)
            os.rename(
                os.path.join(str(out), "ascend_mindspore_profiler_400_1_2000000.db"),
                out / "ascend_mindspore_profiler_0.db",
            )
    done = _cli("view", str(path), "-o", str(tmp_path / "page.html"))
    assert done.returncode in (0, 2), done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    if done.returncode == 0:
        page = (tmp_path / "page.html").read_text(encoding="utf-8")
        payload = page.split('id="ascend-lab-payload">', 1)[1].split("</script>", 1)[0]
        json.loads(payload)  # valid JSON: no NaN or Infinity, so the page opens


@pytest.mark.parametrize("command", ["status", "doctor"])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "deep json"])
def test_replaying_a_hostile_bundle_ends_cleanly(tmp_path, command, kind):
    path = tmp_path / "r.tar.gz"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text("[" * 200_000 + "]" * 200_000)
    done = _cli(command, "--from", str(path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stderr.strip()


# ------------------------------------------------------------------ path redaction

# The path patterns nest repeats (a folder may hold single spaces; a Windows path is folders
# of words): inputs built to make such patterns backtrack, each a run of what one repeat
# takes, never closed the way the pattern needs.
REDACT_INPUTS = {
    "spaced words after a slash": lambda n: "/" + "a " * n,
    "spaced folders never closed": lambda n: "/a" + " a/" * n + " a",
    "windows words never closed": lambda n: "C:\\" + "a " * n,
    "many windows starts": lambda n: "C:\\a a a " * n,
    "climbs": lambda n: "../" * n + "x",
    "spaced climbs": lambda n: " ../" * n,
    "a long file url": lambda n: "file://" + "a" * (8 * n),
    "spaced segments": lambda n: "/x y/" * n,
}


@pytest.mark.parametrize("kind", sorted(REDACT_INPUTS))
def test_path_redaction_is_linear_on_hostile_text(kind):
    from ascend_lab.payload.redact import PathRedactor

    redactor = PathRedactor("/home/ann/project")
    check_budget(redactor.text, REDACT_INPUTS[kind], 20_000, factor=40)

"""The course on a fake Ascend machine, up to where MindSpore itself needs the NPU (issue #28).

Each English notebook (and three of the Chinese edition) runs in a real kernel whose
environment is an Ascend machine's: a fake ``npu-smi`` first on PATH (it prints the
recorded 8 x 910B3 table) and a fake install root (``benchmarks/support/fakes/ascend_machine.py``,
with
what CANN's ``set_env.sh`` sets). ascend-lab takes
the same code path as on a real machine: it runs ``npu-smi``, reads the version files, and
the course's ``pick_device()`` chooses Ascend.

Two runs of the setup cell, in one kernel per notebook:

1. **As shipped.** The setup cell stops in ``ms.set_device("Ascend")``: MindSpore's CPU
   wheel cannot load its Ascend plugin. The test asserts that this is the first error, that
   it is MindSpore's own ``RuntimeError`` raised inside MindSpore (called from the course's
   ``pick_device``, no ascend-lab frame below it), and that the status behind the choice
   came from the fake ``npu-smi``.
2. **Past the plugin load.** On a real NPU that call succeeds. A stand-in replaces only
   ``mindspore.set_device`` (it records the target; MindSpore stays on its CPU default),
   the setup cell runs again and the cells after it run one by one until the first cell
   after which MindSpore's runtime has started (its device context is initialised: the
   cell ran a kernel, which on a real NPU would be an Ascend kernel). That cell is the
   device boundary; the test stops there. Every cell before it must run without error.

Notebook 10 reads the live machine in the cells that print LIVE or RECORDED; its first
kernel (``ms.run_check()``) comes before them, so after the boundary the test also runs
the LIVE cells that use no MindSpore name, and checks that they read the fake machine.
Notebook 08 runs with ``ASCEND_RT_VISIBLE_DEVICES=0`` (one visible NPU) and must fall back
to CPU workers with the reason.
"""

import json
import os
import re
import shutil

import nbformat
import pytest

from ascend_lab.doctor import diagnose_text
from benchmarks.support.fakes.ascend_machine import FIXTURES, make_fake_machine
from benchmarks.support.nbrun import EXPECTED, NOTEBOOKS, kernel_env, output_text

pytestmark = [pytest.mark.mindspore, pytest.mark.slow]  # one kernel per notebook

# MindSpore's own refusal, the first line of its RuntimeError on a CPU wheel (2.10:
# mindspore/device_manager.py -> MSContext.set_device_target_inner).
UNSUPPORTED = re.compile(r"Unsupported device target Ascend\b")

# Only MindSpore's device load is replaced; everything else is MindSpore's and ascend-lab's.
STAND_IN = """
import mindspore as _ms
_FAKE_ASCEND_ASKED = []


def _fake_ascend_set_device(device_target, device_id=None):
    _FAKE_ASCEND_ASKED.append([device_target, device_id])


_ms.set_device = _fake_ascend_set_device
"""

# Has MindSpore's runtime started? (sync first: PyNative launches kernels asynchronously)
PROBE = """
import json as _json

from mindspore._c_expression import DeviceContextManager as _DCM
from mindspore.common.api import _pynative_executor as _pe

_pe.sync()
_ctx = _DCM.get_instance().get_device_context("CPU")
print("FAKE-ASCEND-PROBE" + _json.dumps(
    {"runtime": bool(_ctx is not None and _ctx.initialized()), "asked": _FAKE_ASCEND_ASKED}
))
"""

MINDSPORE_NAMES = re.compile(
    r"\b(ms|mindspore|nn|ops)\.|\bConvBNReLU\(|ascend_lab\.(trace|profile)"
)
PLOG_SOURCE = os.path.join(FIXTURES, "real", "errors", "ms_docs_ee9999_halmemalloc.txt")


def _names(source, kind):
    """Names ``source`` stores (assignments, loop targets, imports) or loads, by ast."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: nothing we can read
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, kind):
            found.add(node.id)
        elif kind is ast.Store and isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
    return found


def without_mindspore(cells):
    """The cells that need no MindSpore name, and no name that only a MindSpore cell makes
    (a cell that prints a MindSpore cell's result cannot run once that cell was refused)."""
    import ast

    kept, refused = [], set()
    for cell in cells:
        if MINDSPORE_NAMES.search(cell.source) or _names(cell.source, ast.Load) & refused:
            refused |= _names(cell.source, ast.Store)
        else:
            kept.append(cell)
            refused -= _names(cell.source, ast.Store)
    return kept


def code_cells(nb):
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def printed(cells):
    """What ``cells`` printed, as one text (a print may arrive as several stream outputs)."""
    parts = []
    for cell in cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(str(out.get("text", "")))
            elif "text/plain" in out.get("data", {}):
                parts.append(str(out["data"]["text/plain"]) + "\n")
    return "".join(parts)


def plain_traceback(error):
    """The traceback without IPython's colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", error["traceback"])


class FakeAscendRun:
    """One notebook in one kernel on the fake machine; cells are run with ``run``."""

    def __init__(self, client, nb, machine):
        self.client = client
        self.nb = nb
        self.machine = machine

    def run(self, cell):
        """Execute ``cell``; the error its execute reply reports (or None), as nbclient and
        Jupyter see it: an error output with an "ok" reply (MindSpore 2.10 prints numpy's
        ImportError while the cell goes on) is not a failed cell."""
        from nbclient.exceptions import CellExecutionError

        added = not any(c is cell for c in self.nb.cells)
        if added:  # nbclient stores the cell back at its index: give it one, for this run
            self.nb.cells.append(cell)
        index = next(i for i, c in enumerate(self.nb.cells) if c is cell)
        try:
            self.client.execute_cell(cell, index)
        except CellExecutionError as exc:
            return {"ename": exc.ename, "evalue": exc.evalue, "traceback": str(exc)}
        finally:
            if added:
                self.nb.cells.pop(index)
        return None

    def run_code(self, code):
        cell = nbformat.v4.new_code_cell(code)
        error = self.run(cell)
        assert error is None, plain_traceback(error)
        return output_text(cell)

    def probe(self):
        text = self.run_code(PROBE)
        line = next(x for x in text.splitlines() if x.startswith("FAKE-ASCEND-PROBE"))
        return json.loads(line[len("FAKE-ASCEND-PROBE") :])


@pytest.fixture
def fake_course(tmp_path):
    """Run a notebook on the fake machine: ``fake_course(name, env=...) -> (run, steps)``."""
    from nbclient import NotebookClient

    clients = []

    def start(name, **env_extra):
        machine = make_fake_machine(tmp_path / "machine", mindspore=None)
        copy = tmp_path / "notebooks"
        if not copy.exists():
            shutil.copytree(
                NOTEBOOKS,
                copy,
                symlinks=True,  # zh/course_nets.py and zh/data point at the English edition's
                ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"),
            )
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        env = machine.environ(kernel_env(), sourced=True)
        env.update({"HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"})
        env.pop("ASCEND_PROCESS_LOG_PATH", None)
        env.update(env_extra)
        path = str(copy / name)
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb,
            kernel_name="python3",
            timeout=600,
            resources={"metadata": {"path": os.path.dirname(path)}},
        )
        context = client.setup_kernel(env=env)
        context.__enter__()
        clients.append(context)
        return FakeAscendRun(client, nb, machine)

    yield start
    for context in clients:
        context.__exit__(None, None, None)


def run_to_the_boundary(run):
    """Both runs of the module docstring; returns what the test asserts on."""
    cells = code_cells(run.nb)
    setup_index, setup = cells[0]
    assert "pick_device()" in setup.source  # the course chooses the device in its first cell

    # 1. as shipped: the first error is MindSpore's refusal to load its Ascend plugin
    shipped_error = run.run(setup)
    shipped_stdout = output_text(setup)
    calls_at_the_choice = run.machine.calls()

    # 2. past the plugin load: the stand-in, the setup cell again, then cell by cell
    run.run_code(STAND_IN)
    setup_again = nbformat.from_dict(json.loads(json.dumps(setup)))
    setup_again.outputs = []
    run.nb.cells[setup_index] = setup_again
    error = run.run(setup_again)
    assert error is None, plain_traceback(error)
    ran = [setup_again]
    boundary = None
    if run.probe()["runtime"]:
        boundary = setup_again
    for _i, cell in cells[1:]:
        if boundary is not None:
            break
        error = run.run(cell)
        ran.append(cell)
        assert error is None, f"cell before the device boundary failed:\n{cell.source}\n" + (
            plain_traceback(error)
        )
        if run.probe()["runtime"]:
            boundary = cell
    where = boundary.source.splitlines()[0] if boundary is not None else "(none)"
    print(f"device boundary: code cell {len(ran)} of {len(cells)}: {where}")  # pytest -rP
    return {
        "shipped_error": shipped_error,
        "shipped_stdout": shipped_stdout,
        "calls_at_the_choice": calls_at_the_choice,
        "ran": ran,
        "boundary": boundary,
        "asked": run.probe()["asked"],
    }


def assert_mindspore_refused(result):
    error = result["shipped_error"]
    assert error is not None, "the setup cell ran on the fake machine: no device boundary?"
    assert error["ename"] == "RuntimeError", error["ename"]
    assert UNSUPPORTED.search(error["evalue"]), error["evalue"]
    tb = plain_traceback(error)
    # called from the course's pick_device, raised inside MindSpore, no ascend-lab frame below
    files = re.findall(r"(\S+\.py)", tb)
    assert any(f.endswith("course_nets.py") for f in files), tb
    below = files[max(i for i, f in enumerate(files) if f.endswith("course_nets.py")) + 1 :]
    assert below and all(os.sep + "mindspore" + os.sep in f for f in below), tb
    assert not any(os.sep + "ascend_lab" + os.sep in f for f in below), below
    # the choice was made on the fake machine's live npu-smi, before MindSpore refused
    assert "info" in result["calls_at_the_choice"], result["calls_at_the_choice"]
    # and the course said what to do before MindSpore's own error (pick_device's advice)
    advice = result["shipped_stdout"]
    assert "cannot load its Ascend backend" in advice and "set_env.sh" in advice, advice


@pytest.mark.parametrize("name", [n for n in EXPECTED if n[:2] not in ("00", "08", "10")])
def test_notebook_chooses_ascend_and_stops_where_mindspore_needs_the_npu(name, fake_course):
    run = fake_course(name)
    result = run_to_the_boundary(run)
    assert_mindspore_refused(result)
    assert result["asked"] == [["Ascend", None]], result["asked"]
    first = output_text(result["ran"][0])
    assert "device: Ascend" in first and "NOTE:" not in first, first
    assert result["boundary"] is not None, "no cell started MindSpore's runtime"


@pytest.mark.parametrize(
    "name",
    ["00_stack_and_machine.ipynb", "03_graph_compilation.ipynb", "05b_host_and_device.ipynb"],
)
def test_zh_edition_chooses_ascend_and_says_what_to_do_in_chinese(name, fake_course):
    """The Chinese edition (its kernel runs in notebooks/zh) takes the same path: Ascend is
    chosen from the fake npu-smi, the advice before MindSpore's refusal is in Chinese, and
    the cells run up to the device boundary."""
    run = fake_course(os.path.join("zh", name))
    result = run_to_the_boundary(run)
    error = result["shipped_error"]
    assert error is not None and UNSUPPORTED.search(error["evalue"]), error
    advice = result["shipped_stdout"]
    assert "无法加载它的 Ascend 后端" in advice and "set_env.sh" in advice, advice
    assert "cannot load" not in advice, advice
    assert result["asked"] == [["Ascend", None]], result["asked"]
    first = output_text(result["ran"][0])
    assert "设备：Ascend" in first and "注意" not in first, first
    if name.startswith("00_"):  # the status card, in Chinese, shows the fake machine's NPUs
        card = [c for c in result["ran"] if c.source.strip() == "%ascend_status"]
        assert card, "the boundary came before %ascend_status"
        shown = output_text(card[0]) + "".join(
            str(o.get("data", {}).get("text/html", "")) for o in card[0].outputs
        )
        assert "910B3" in shown and "0000:C1:00.0" in shown, shown[:2000]
        assert "CPU mode" not in shown and "CPU 模式" not in shown, shown[:2000]
        assert re.search(r"[\u4e00-\u9fff]", shown), shown[:2000]
    else:
        assert result["boundary"] is not None, "no cell started MindSpore's runtime"


def test_00_status_card_shows_the_fake_npus(fake_course):
    run = fake_course("00_stack_and_machine.ipynb")
    result = run_to_the_boundary(run)
    assert_mindspore_refused(result)
    assert result["asked"] == [["Ascend", None]]
    assert "device: Ascend" in output_text(result["ran"][0])
    status_cells = [c for c in result["ran"] if c.source.strip() == "%ascend_status"]
    assert status_cells, "the boundary came before %ascend_status"
    card = status_cells[0].outputs
    html = "".join(str(o.get("data", {}).get("text/html", "")) for o in card)
    text = output_text(status_cells[0])
    assert "8x910B3" in text or "8x910B3" in html, text
    for bus in ("0000:C1:00.0", "0000:42:00.0"):  # the first and the last chip of the fake
        assert bus in html or bus in text
    assert "CPU mode" not in text and "CPU mode" not in html
    text = printed(result["ran"])
    assert "mode: ascend | 8 NPU chips found by npu-smi" in text, text


def test_08_one_visible_npu_falls_back_to_cpu_workers_and_says_why(fake_course):
    run = fake_course("08_parallel_training.ipynb", ASCEND_RT_VISIBLE_DEVICES="0")
    result = run_to_the_boundary(run)
    assert_mindspore_refused(result)
    text = printed(result["ran"])
    assert "device: Ascend" in text
    assert "2 workers need one visible NPU each, but this machine shows 1" in text, text
    assert "(ASCEND_RT_VISIBLE_DEVICES=0)" in text and "HCCL" in text
    assert "workers run on: CPU" in text, text


def test_10_reads_the_live_fake_machine_not_the_recorded_files(fake_course, tmp_path):
    logs = tmp_path / "ascend-logs"
    plog = logs / "debug" / "plog" / "plog-4242_20261201000000000.log"
    plog.parent.mkdir(parents=True)
    shutil.copyfile(PLOG_SOURCE, str(plog))  # a real CANN error text, as a plog on the NPU
    run = fake_course("10_day_one_on_ascend.ipynb", ASCEND_PROCESS_LOG_PATH=str(logs))
    result = run_to_the_boundary(run)
    assert_mindspore_refused(result)
    assert "device: Ascend" in output_text(result["ran"][0])
    boundary = result["boundary"]
    assert boundary is not None and "run_check" in boundary.source, boundary
    # after the boundary: the cells that use no MindSpore name, in order (the LIVE ones
    # among them read the machine; the others define what they use, e.g. diagnose_text)
    after = without_mindspore([c for _i, c in code_cells(run.nb)[len(result["ran"]) :]])
    assert sum("LIVE" in c.source for c in after) >= 2, [c.source[:60] for c in after]
    calls_before = len(run.machine.calls())
    for cell in after:
        error = run.run(cell)
        assert error is None, f"{cell.source}\n" + plain_traceback(error)
    text = printed(after)
    assert "LIVE: npu-smi info on this machine" in text, text
    assert "RECORDED: npu-smi info" not in text
    assert "parsed by ascend_lab.parsers.npu_smi.parse_info: 8 chip(s)" in text
    assert "info" in run.machine.calls()[calls_before:]  # the fake npu-smi ran again
    assert f"LIVE: 1 plog file(s) in {plog.parent}" in text, text
    with open(PLOG_SOURCE, encoding="utf-8") as fh:
        top = diagnose_text(fh.read()).findings[0]
    assert top.entry.id in text, text

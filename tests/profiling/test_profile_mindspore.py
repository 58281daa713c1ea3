"""ascend_lab.profile() on real MindSpore (CPU) on the reference nets (ascend_lab/course/nets.py).

Each net is traced and profiled once (module-scoped); the heavier checks share the results.
"""

import glob
import os
import tempfile

import mindspore as ms
import numpy as np
import pytest

import ascend_lab
from ascend_lab.analysis.profile_join import NOP_OPS
from ascend_lab.capture import compile as capture_mod
from ascend_lab.course.nets import ConvBNReLU, EncoderBlock, LeNet5
from ascend_lab.errors.profile import ProfileError
from ascend_lab.errors.trace import TraceError
from ascend_lab.payload import validate_payload
from ascend_lab.payload.profile_section import profile_payload
from ascend_lab.profiling import magic as magic_mod

pytestmark = pytest.mark.mindspore

STEPS = 3


def _input(name):
    rng = np.random.default_rng(0)
    shape = {"convbnrelu": (1, 3, 16, 16), "lenet": (2, 1, 32, 32), "encoder": (2, 16, 128)}[name]
    return ms.Tensor(rng.random(shape, dtype=np.float32))


NETS = {"convbnrelu": ConvBNReLU, "lenet": LeNet5, "encoder": EncoderBlock}


def _profile_dirs():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "ascend-lab-profile-*")))


@pytest.fixture(scope="module", autouse=True)
def private_tempdir(tmp_path_factory):
    """Temp folders of this module's profiles go to a folder of its own: another process's
    profile in the shared /tmp (a notebook, a parallel run) must not count as a leftover."""
    saved = tempfile.tempdir
    tempfile.tempdir = str(tmp_path_factory.mktemp("tmp"))
    yield
    tempfile.tempdir = saved


@pytest.fixture(scope="module", params=sorted(NETS))
def profiled(request):
    net = NETS[request.param]()
    x = _input(request.param)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    cwd = os.getcwd()
    before = _profile_dirs()
    prof = ascend_lab.profile(net, x, steps=STEPS, warmup=1)
    state = {
        "mode": ms.get_context("mode"),
        "cwd": os.getcwd(),
        "cwd_before": cwd,
        "left": _profile_dirs() - before,
    }
    return request.param, prof, state


def test_every_kernel_of_the_final_graph_has_a_time_or_a_reason(profiled):
    name, prof, _ = profiled
    graph = prof.trace.graph
    kernel_ids = {n.id for n in graph.kernels}
    measured = {k.node_id for k in prof.kernels if k.node_id}
    unmeasured = {u.node_id for u in prof.unmeasured_nodes}
    assert measured | unmeasured == kernel_ids
    assert not measured & unmeasured
    assert prof.unjoined_rows == []  # on CPU every row is a kernel of the graph
    for u in prof.unmeasured_nodes:
        assert u.op_type in NOP_OPS, (name, u)
        assert "nop" in u.reason
    assert all(k.calls == STEPS for k in prof.kernels)


def test_kernel_time_fits_in_the_measured_step(profiled):
    _, prof, _ = profiled
    assert len(prof.steps) == STEPS
    for step in prof.steps:
        assert step.launches == len(prof.kernels)
        assert 0 < step.kernel_sum_us <= step.wall_us
        assert step.busy_us <= step.wall_us
    assert 0 < sum(k.share for k in prof.kernels) <= 1.0
    assert not any("outside the measured steps" in n for n in prof.notes)


def test_state_is_restored_and_the_profiler_folder_removed(profiled):
    _, prof, state = profiled
    assert state["mode"] == ms.PYNATIVE_MODE
    assert state["cwd"] == state["cwd_before"]
    assert state["left"] == set()
    assert prof.profiler_dir is None
    assert prof.mindspore_version == ms.__version__ and prof.device == "CPU"


def test_profile_payload_validates(profiled):
    _, prof, _ = profiled
    payload = profile_payload(prof)
    validate_payload(payload)
    section = payload["profile"]
    nodes = {n["id"] for n in payload["graphs"][section["graph"]]["nodes"]}
    assert {k["node"] for k in section["kernels"]} <= nodes
    assert len(section["launches"]) == STEPS * len(prof.kernels)


def test_a_failed_trace_still_gives_the_table_with_a_note(monkeypatch):
    def no_trace(*args, **kwargs):
        raise TraceError("MindSpore could not compile the net (simulated)")

    monkeypatch.setattr("ascend_lab.tracing.api.trace_net", no_trace)
    prof = ascend_lab.profile(ConvBNReLU(), _input("convbnrelu"), steps=2, warmup=1, keep=True)
    try:
        assert prof.trace is None
        assert [k.op_type for k in prof.top(4)].count("Conv2D") == 1 and len(prof.kernels) == 4
        assert any(
            "no trace" in n and "the trace failed: MindSpore could not compile" in n
            for n in prof.notes
        )
        assert os.path.isdir(prof.profiler_dir)
        validate_payload(profile_payload(prof))
    finally:
        import shutil

        shutil.rmtree(prof.profiler_dir, ignore_errors=True)


def test_busy_and_bad_arguments():
    net = ConvBNReLU()
    with pytest.raises(ValueError, match="steps"):
        ascend_lab.profile(net, _input("convbnrelu"), steps=0)
    with pytest.raises(ValueError, match="warmup"):
        ascend_lab.profile(net, _input("convbnrelu"), warmup=-1, trace=False)
    assert capture_mod.CAPTURE_LOCK.acquire(blocking=False)
    try:
        with pytest.raises(ProfileError, match="one at a time"):
            ascend_lab.profile(net, _input("convbnrelu"), trace=False)
    finally:
        capture_mod.CAPTURE_LOCK.release()


def test_magic_profiles_a_net_from_the_namespace(capsys):
    class Shell:
        user_ns = {"net": LeNet5(), "x": _input("lenet")}

    shell = Shell()
    magic_mod.profile_magic(shell, "net x --steps 2 --warmup 1 --no-trace -o prof")
    prof = shell.user_ns["prof"]
    assert len(prof.steps) == 2 and all(k.calls == 2 for k in prof.kernels)
    # which kernel is slowest depends on the machine's load (MaxPool and Conv2D are close on
    # CPU): the magic's profile names the kernel with the largest total, whichever it is
    assert prof.slowest.total_us == max(k.total_us for k in prof.kernels)
    assert {"Conv2D", "MaxPool", "MatMul"} <= {k.op_type for k in prof.kernels}
    magic_mod.profile_magic(shell, "nope x")
    assert "'nope' is not defined" in capsys.readouterr().out


def test_a_step_function_shows_host_work_as_gaps():
    """The slow-preprocessing trap: host work inside the step is a gap between kernels."""
    import time

    net = ConvBNReLU()
    pause_s = 0.05

    def step():
        time.sleep(pause_s)  # stands for a slow preprocessing of the next batch
        return net(_input("convbnrelu")).asnumpy()

    prof = ascend_lab.profile(net, _input("convbnrelu"), steps=2, warmup=1, trace=False, step=step)
    assert len(prof.steps) == 2 and all(k.calls == 2 for k in prof.kernels)
    for s in prof.steps:
        assert s.gap_us >= pause_s * 1e6  # sleep guarantees at least this much host time
    assert any("your step function" in n for n in prof.notes)
    with pytest.raises(TypeError, match="step must be a function"):
        ascend_lab.profile(net, _input("convbnrelu"), trace=False, step=3)


def test_the_profiler_is_started_once():
    """mindspore.profiler.profile starts in its constructor unless told not to; a second
    start() logs "The profile has already started" (2.10), which reads like an error in a
    learner's notebook."""
    import logging

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler = Keep()
    logger = ms.log._get_logger()  # MindSpore's own logger ("mindspore.<log name>")
    logger.addHandler(handler)
    try:
        ascend_lab.profile(LeNet5(), _input("lenet"), steps=1, warmup=1, trace=False)
    finally:
        logger.removeHandler(handler)
    assert (
        ms.log._get_logger() is logger
    )  # the logger the profiler wrote to (it caught this before)
    assert not [r for r in records if "already started" in r], records


def test_a_later_mindspore_profiler_writes_where_it_is_told(tmp_path):
    # tensorboard_trace_handler(dir) keeps dir in MindSpore's ProfilerContext singleton: after
    # ascend_lab.profile, notebook 05's own ms.Profiler(output_path=...) wrote into ascend-lab's
    # removed folder on the second Run All, with a warning (MindSpore 2.10)
    import logging

    from mindspore import log as ms_log

    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    net = LeNet5()
    net.set_train(False)
    ascend_lab.profile(net, _input("lenet"), steps=1, trace=False)
    logger = ms_log._get_logger()
    handler, level = Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    try:
        ms.Profiler(start_profile=False, output_path=str(tmp_path))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert not [m for m in seen if "on_trace_ready path" in m], seen

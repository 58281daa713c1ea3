"""ascend_lab.trace() on real MindSpore (CPU): capture, timeline, fusion map, payload, MindIR.

The nets are defined in this file so the ``In file`` source lines of the dumps point here.
Each net is compiled once per mode (module-scoped fixtures); fusion (slow: AKG) only for
LeNet and the encoder block.
"""

import glob
import inspect
import os
import re
import shutil
import tempfile
import threading

import mindspore as ms
import numpy as np
import pytest
from mindspore import nn, ops

import ascend_lab
from ascend_lab.analysis.fusion import name_ops
from ascend_lab.capture import compile as capture_mod
from ascend_lab.course import nets as course_nets
from ascend_lab.course.nets import ConvBNReLU, LeNet5
from ascend_lab.errors.trace import TraceBusyError, TraceError
from ascend_lab.parsers.ir.ir_text import parse_ir_text
from ascend_lab.payload import validate_payload

pytestmark = pytest.mark.mindspore

THIS_FILE = os.path.abspath(__file__)
ENV_KEYS = ("MS_DEV_SAVE_GRAPHS", "MS_DEV_SAVE_GRAPHS_PATH", "AKG_WHITE_LIST_PATH")
# the reference nets (ConvBNReLU, LeNet5) are the package's, for the tests and benchmarks
NETS_FILE = os.path.abspath(course_nets.__file__)


def _conv_line():
    """The line of ConvBNReLU.construct's call of the conv (in ascend_lab/course/nets.py)."""
    lines, first = inspect.getsourcelines(ConvBNReLU.construct)
    return first + next(i for i, text in enumerate(lines) if "self.conv(x)" in text)


class BasicBlock(nn.Cell):
    """ResNet basic block: conv-bn-relu-conv-bn + identity, relu."""

    def __init__(self, channels=8):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, pad_mode="same")
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode="same")
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + x)


class EncoderBlock(nn.Cell):
    """Transformer encoder block: self-attention + LayerNorm + MLP with GeLU."""

    def __init__(self, d=32, heads=4, hidden=64):
        super().__init__()
        self.heads = heads
        self.dk = d // heads
        self.qkv = nn.Dense(d, 3 * d)
        self.proj = nn.Dense(d, d)
        self.ln1 = nn.LayerNorm((d,))
        self.ln2 = nn.LayerNorm((d,))
        self.fc1 = nn.Dense(d, hidden)
        self.fc2 = nn.Dense(hidden, d)
        self.gelu = nn.GELU()
        self.softmax = nn.Softmax(axis=-1)
        self.scale = 1.0 / (self.dk**0.5)

    def construct(self, x):
        b, s, d = x.shape
        qkv = self.qkv(x).reshape(b, s, 3, self.heads, self.dk).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = self.softmax(ops.matmul(q, k.swapaxes(-1, -2)) * self.scale)
        y = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, s, d)
        x = self.ln1(x + self.proj(y))
        return self.ln2(x + self.fc2(self.gelu(self.fc1(x))))


class NotGraphable(nn.Cell):
    def construct(self, x):
        return {set([1]): x}  # BAD_LINE


class _RemovesAFolderWhenCalled:
    """Deletes the folder ``doomed`` when called: the user's folder vanishes mid-trace."""

    doomed = None

    def __call__(self, *args):
        shutil.rmtree(self.doomed)
        return super().__call__(*args)


class ConvRemovingAFolder(_RemovesAFolderWhenCalled, ConvBNReLU):
    pass


class NotGraphableRemovingAFolder(_RemovesAFolderWhenCalled, NotGraphable):
    pass


def _line_of(marker):
    with open(THIS_FILE, encoding="utf-8") as fh:
        for number, text in enumerate(fh, 1):
            if marker in text and "_line_of" not in text:
                return number
    raise AssertionError(marker)


def _state():
    """Everything a trace may touch: context keys, env vars, cwd."""
    ctx = capture_mod.read_context(ms)
    return ctx, {k: os.environ.get(k) for k in ENV_KEYS}, os.getcwd()


def _tensor(shape, seed=0):
    return ms.Tensor(np.random.RandomState(seed).rand(*shape).astype(np.float32))


def _traced(net, x, tmp_path_factory, **options):
    """Trace from an empty working folder; return the trace, states and leftover files."""
    workdir = tmp_path_factory.mktemp("cwd")
    old = os.getcwd()
    os.chdir(workdir)
    try:
        before = _state()
        tr = ascend_lab.trace(net, x, **options)
        after = _state()
        left = os.listdir(workdir)
    finally:
        os.chdir(old)
    return tr, before, after, left


def _kernel_actor_ids(trace):
    """(actor index, kernel name) of the kernel actors in MindSpore's own final actor set,
    in the order listed."""
    texts = [t for n, t in trace.actor_sets.items() if n.startswith("final_actor_set")]
    assert texts, sorted(trace.actor_sets)
    found = []
    for text in texts:
        found += re.findall(
            r"^%\d+ = kernel_graph\d+:\S+\(.*\n(?:\t#.*\n)*?\t# AID : (\d+)_(\S+)", text, re.M
        )
    return [(int(index), name) for index, name in found]


def _kernel_actors(trace):
    """Kernel actor names from MindSpore's own final actor set, in order."""
    return [name for _, name in _kernel_actor_ids(trace)]


@pytest.fixture(scope="module")
def conv_net():
    net = ConvBNReLU()
    net.set_train(False)
    return net


@pytest.fixture(scope="module")
def conv_trace(conv_net, tmp_path_factory):
    x = _tensor((1, 3, 16, 16))
    old_mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        first = conv_net(x)  # the learner already ran it in graph mode: compile cache is warm
    finally:
        ms.set_context(mode=old_mode)
    phase = conv_net.current_phase  # MindSpore's key of the learner's compiled graph
    tr, before, after, left = _traced(conv_net, x, tmp_path_factory)
    return {
        "trace": tr,
        "before": before,
        "after": after,
        "left": left,
        "first": first,
        "x": x,
        "phase": phase,
    }


@pytest.fixture(scope="module")
def lenet_fused(tmp_path_factory):
    net = LeNet5()
    net.set_train(False)
    x = _tensor((1, 1, 32, 32))
    tr, before, after, left = _traced(net, x, tmp_path_factory, fusion=True)
    return {"trace": tr, "before": before, "after": after, "left": left}


@pytest.fixture(scope="module")
def lenet_plain():
    net = LeNet5()
    net.set_train(False)
    return ascend_lab.trace(net, _tensor((1, 1, 32, 32)))


@pytest.fixture(scope="module")
def block_trace():
    net = BasicBlock()
    net.set_train(False)
    return ascend_lab.trace(net, _tensor((1, 8, 8, 8)))


@pytest.fixture(scope="module")
def encoder_plain():
    net = EncoderBlock()
    net.set_train(False)
    return ascend_lab.trace(net, _tensor((1, 8, 32)))


@pytest.fixture(scope="module")
def encoder_fused():
    net = EncoderBlock()
    net.set_train(False)
    return ascend_lab.trace(net, _tensor((1, 8, 32)), fusion=True)


# ------------------------------------------------------------------ capture


def test_trace_of_already_compiled_net_has_dumps_and_output(conv_trace):
    tr = conv_trace["trace"]
    assert len(tr.passes) > 50
    names = [s.name for s in tr.passes]
    assert any(n.startswith("00_bootstrap") for n in names)
    assert any(n.startswith("hwopt_") for n in names)
    assert tr.final_pass.name.startswith("graph_build_")
    np.testing.assert_allclose(tr.output.asnumpy(), conv_trace["first"].asnumpy(), rtol=1e-6)


def test_context_env_cwd_restored_and_no_files_left(conv_trace, lenet_fused):
    for run in (conv_trace, lenet_fused):
        assert run["before"] == run["after"]
        assert run["left"] == []  # no akg_kernel_meta, rank_0, dumps in the user's folder
    assert conv_trace["trace"].dump_dir is None
    assert not os.path.exists(conv_trace["trace"].capture.workdir)


def test_learners_cache_still_used_after_trace(conv_net, conv_trace, monkeypatch):
    """After a trace, the learner's next call runs the graph compiled before the trace.

    MindSpore's own executor says so: its ``compile`` returns ``(phase, compiled_now)``,
    and ``compiled_now`` is False only when that phase's graph was found in the cache.
    """
    import mindspore.nn.cell as cell_module

    executor = cell_module._cell_graph_executor
    original = executor.compile
    compiles = []

    def recording(obj, *args, **kwargs):
        phase, compiled_now = original(obj, *args, **kwargs)
        if obj is conv_net:
            compiles.append((phase, compiled_now))
        return phase, compiled_now

    monkeypatch.setattr(executor, "compile", recording)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        again = conv_net(conv_trace["x"])
    finally:
        ms.set_context(mode=conv_trace["before"][0]["mode"])
    assert compiles == [(conv_trace["phase"], False)]
    assert str(conv_net.create_time) in conv_trace["phase"]
    np.testing.assert_allclose(again.asnumpy(), conv_trace["first"].asnumpy(), rtol=1e-6)


def _private_tmp(monkeypatch, tmp_path):
    """A temp folder of this test's own, so folders left behind there are ours to count."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _leftovers(folder):
    return sorted(
        os.path.basename(p)
        for pattern in ("ascend-lab-trace-*", "ascend-lab-mindir-*")
        for p in glob.glob(os.path.join(str(folder), pattern))
    )


def _trace_from_a_vanishing_folder(net, call, monkeypatch, tmp_path):
    """Run ``call()`` with the cwd in a folder that ``net`` deletes when it is called."""
    tmp = _private_tmp(monkeypatch, tmp_path)
    doomed = tmp_path / "notebook-folder"
    doomed.mkdir()
    net.doomed = str(doomed)
    old = os.getcwd()
    os.chdir(doomed)
    try:
        context = capture_mod.read_context(ms)
        with pytest.warns(RuntimeWarning, match="disappeared during the trace") as warned:
            try:
                outcome = call()
            except Exception as exc:
                outcome = exc
        state = {
            "context_before": context,
            "context_after": capture_mod.read_context(ms),
            "cwd": os.getcwd(),
            "left": _leftovers(tmp),
            "warnings": [str(w.message) for w in warned],
        }
    finally:
        os.chdir(old)
    assert not doomed.exists()
    return outcome, state


def test_folder_removed_during_trace_restores_context_and_leaks_nothing(monkeypatch, tmp_path):
    net = ConvRemovingAFolder()
    net.set_train(False)
    x = _tensor((1, 3, 16, 16))
    tr, state = _trace_from_a_vanishing_folder(
        net, lambda: ascend_lab.trace(net, x, progress=False), monkeypatch, tmp_path
    )
    assert [n.op for n in tr.graph.kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]
    assert state["context_after"] == state["context_before"]
    assert state["context_after"]["save_graphs"] in (0, False)
    assert state["cwd"] == str(tmp_path)  # the nearest folder that still exists
    assert state["left"] == []
    assert f"now {tmp_path}" in state["warnings"][0]


def test_failing_trace_in_a_removed_folder_raises_its_own_error(monkeypatch, tmp_path):
    net = NotGraphableRemovingAFolder()
    err, state = _trace_from_a_vanishing_folder(
        net, lambda: ascend_lab.trace(net, _tensor((2, 2)), progress=False), monkeypatch, tmp_path
    )
    assert isinstance(err, TraceError), repr(err)
    assert "make_dict" in err.ms_message
    assert state["context_after"] == state["context_before"]
    assert state["cwd"] == str(tmp_path)
    assert state["left"] == []


def test_mindir_export_from_a_removed_folder(conv_trace, monkeypatch, tmp_path):
    from ascend_lab.capture.mindir_export import export_and_compare

    net = ConvRemovingAFolder()
    net.set_train(False)
    out = tmp_path / "out"
    out.mkdir()
    result, state = _trace_from_a_vanishing_folder(
        net,
        lambda: export_and_compare(net, conv_trace["x"], path=str(out / "conv.mindir")),
        monkeypatch,
        tmp_path,
    )
    assert result.match, result
    assert os.listdir(out) == ["conv.mindir"]
    assert state["context_after"] == state["context_before"]
    assert state["cwd"] == str(tmp_path)
    assert state["left"] == []


def test_failing_compile_raises_trace_error_and_restores(tmp_path):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        before = _state()
        with pytest.raises(TraceError) as info:
            ascend_lab.trace(NotGraphable(), _tensor((2, 2)))
        after = _state()
        left = os.listdir(tmp_path)
    finally:
        os.chdir(old)
    err = info.value
    assert before == after
    assert left == []
    assert err.file == THIS_FILE
    assert err.line == _line_of("# BAD_LINE")
    assert "make_dict" in err.ms_message
    assert f"{THIS_FILE}:{err.line}" in str(err)
    assert "C++ Call Stack" not in str(err)


def test_failing_compile_is_explained_in_the_learners_language(tmp_path, monkeypatch):
    from ascend_lab import i18n

    monkeypatch.chdir(tmp_path)
    with i18n.using("zh_CN"), pytest.raises(TraceError) as info:
        ascend_lab.trace(NotGraphable(), _tensor((2, 2)))
    text = str(info.value)
    line = _line_of("# BAD_LINE")
    where = f"（位于 {THIS_FILE}:{line}）"
    assert text.startswith(f"MindSpore 无法在图模式下编译 NotGraphable{where}：\n")
    assert "make_dict" in text  # MindSpore's own words follow, as it wrote them


def test_second_trace_while_one_runs_is_refused(conv_net, conv_trace):
    assert capture_mod.CAPTURE_LOCK.acquire(blocking=False)
    try:
        errors = []

        def other():
            try:
                ascend_lab.trace(conv_net, conv_trace["x"])
            except TraceBusyError as exc:
                errors.append(exc)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(60)
    finally:
        capture_mod.CAPTURE_LOCK.release()
    assert len(errors) == 1
    assert "one at a time" in str(errors[0])


def test_keep_dumps_and_level_2(conv_net, conv_trace, tmp_path):
    import shutil

    tr = ascend_lab.trace(conv_net, conv_trace["x"], level=2, keep_dumps=True)
    try:
        assert tr.dump_dir is not None and os.path.isdir(tr.dump_dir)
        files = os.listdir(tr.dump_dir)
        assert any(f.startswith("graph_build_") for f in files)
        assert "verbose_ir_files" in files
        assert len(tr.passes) > len(conv_trace["trace"].passes)
        # kernel graph ids grow within a process: this one is not the first
        assert tr.final_pass.name != "graph_build_0"
    finally:
        shutil.rmtree(tr.capture.workdir)


# ------------------------------------------------------------------ graph facts


def test_conv_kernel_graph_shapes_dtypes_and_sources(conv_trace):
    tr = conv_trace["trace"]
    conv = [n for n in tr.graph.kernels if n.op == "Conv2D"]
    assert len(conv) == 1
    node = conv[0]
    assert node.name.startswith("Default/conv-Conv2d/Conv2D")
    assert [t.shape for t in node.input_types] == [(1, 3, 16, 16), (8, 3, 3, 3)]
    assert node.outputs[0].shape == (1, 8, 16, 16)
    assert node.outputs[0].dtype.lower() == "float32"
    assert node.outputs[0].format == "DefaultFormat"
    assert f"{NETS_FILE}:{_conv_line()}" in node.source
    assert [n.op for n in tr.graph.kernels] == ["Conv2D", "BiasAdd", "BatchNorm", "ReLU"]


def test_kernel_counts_match_mindspore_actor_set(conv_trace, lenet_plain, lenet_fused, block_trace):
    for tr in (conv_trace["trace"], lenet_plain, lenet_fused["trace"], block_trace):
        actors = _kernel_actors(tr)
        assert tr.kernel_count == len(actors), (tr.net_name, actors)
        assert [n.name for n in tr.graph.kernels] == actors
        assert [n.step for n in tr.graph.kernels] == list(range(len(actors)))


def test_training_step_traces_with_its_backward_graph_and_optimizer():
    """TrainOneStepCell: the frontend dumps call the gradient graph through a parameter."""
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9)
    )
    step.set_train(True)
    labels = ms.Tensor(np.array([1, 2], np.int32))
    tr = ascend_lab.trace(step, _tensor((2, 1, 32, 32)), labels)
    # kernels in the runtime's execution order: its actor ids number them, and that
    # order is not the one the kernel graph dump prints
    numbered = sorted(_kernel_actor_ids(tr))
    assert [n.name for n in tr.graph.kernels] == [name for _, name in numbered]
    assert sorted(_kernel_actors(tr)) == sorted(n.name for n in tr.graph.kernels)
    assert [n.step for n in tr.graph.kernels] == list(range(tr.kernel_count))
    printed = parse_ir_text(tr.passes.text(tr.final_index)).kernels
    assert sorted(n.name for n in printed) == sorted(n.name for n in tr.graph.kernels)
    assert [n.name for n in printed] != [n.name for n in tr.graph.kernels]
    ops_ = {n.op for n in tr.graph.kernels}
    assert {"Conv2D", "ApplyMomentum"} <= ops_
    assert any("Backprop" in op or "Grad" in op for op in ops_)
    assert all(not s.header_error for s in tr.passes)
    assert tr.passes.snapshot(1).subgraphs  # type inference: closures, the grad graph


def test_resnet_block_graph(block_trace):
    ops_ = [n.op for n in block_trace.graph.kernels]
    assert ops_.count("Conv2D") == 2
    assert ops_.count("BatchNorm") == 2
    assert "Add" in ops_ or "AddExt" in ops_
    assert block_trace.fusion is None
    assert block_trace.before_fusion is None


# ------------------------------------------------------------------ timeline


def test_timeline_order_stages_and_lazy_parsing(conv_trace):
    tr = conv_trace["trace"]
    counters = [s.counter for s in tr.passes]
    assert counters == sorted(counters)
    stages = [s.stage for s in tr.passes]
    # frontend first, build last, backend before build
    assert stages[0] == "frontend"
    assert stages.index("backend") < stages.index("build")
    assert max(i for i, s in enumerate(stages) if s == "frontend") < stages.index("backend")
    assert all(s.explain for s in tr.passes)
    opt_a = [s for s in tr.passes if s.name.endswith("opt_a") and s.name.startswith("opt_pass")]
    assert opt_a and opt_a[0].stage == "optimize"
    assert "simplification" in opt_a[0].explain
    # only what was asked for is parsed
    parsed = [i for i in range(len(tr.passes)) if tr.passes.is_parsed(i)]
    assert parsed == [tr.final_index]


def test_timeline_diffs_and_unchanged_passes(conv_trace):
    tr = conv_trace["trace"]
    timeline = tr.passes
    unchanged = [s for s in timeline if not s.changed]
    assert len(unchanged) > 30  # most parallel/pipeline passes do nothing on one CPU
    for snap in unchanged[:5]:
        assert not timeline.diff(snap.index).changed
        assert not timeline.is_parsed(snap.index)  # answered from the digest
    select = [s for s in timeline if "kernel_select" in s.name][0]
    d = timeline.diff(select.index)
    graph = tr.snapshot(select.index)
    modified_ops = {graph.node(i).op for i in d.modified}
    assert "Conv2D" in modified_ops  # device dtype/format attached by kernel selection
    assert all(i in graph for i in d.added + d.modified)
    opt_a = [s for s in timeline if s.name == "opt_pass_2_opt_a"][0]
    d = timeline.diff(opt_a.index)
    assert d.removed  # inlining removes the call nodes of the cells


# ------------------------------------------------------------------ fusion


def test_lenet_fusion_map(lenet_fused, lenet_plain):
    tr = lenet_fused["trace"]
    fmap = tr.fusion
    assert fmap is not None and tr.before_fusion is not None
    names = fmap.by_name()
    assert names.get("Fused_BiasAdd_ReLU_fusion") == 2
    assert fmap.kernel_count_after == tr.kernel_count
    assert fmap.kernel_count_before == lenet_plain.kernel_count
    assert fmap.kernel_count_after < fmap.kernel_count_before
    assert fmap.unmapped == []
    for k in fmap.kernels:
        orig_ops = sorted(tr.before_fusion.node(o).op for o in k.originals)
        assert orig_ops == sorted(name_ops(k.name)), k  # the kernel's name lists its ops
    fused = [k for k in fmap.kernels if k.name == "Fused_BiasAdd_ReLU_fusion"]
    scopes = sorted(tr.before_fusion.node(k.originals[0]).name.split("/")[1] for k in fused)
    assert scopes == ["fc1-Dense", "fc2-Dense"]
    assert lenet_plain.fusion is None
    assert "Fused_BiasAdd_ReLU_fusion x2" in tr.summary()


def test_encoder_fusion_finds_gelu_kernel(encoder_fused, encoder_plain):
    fmap = encoder_fused.fusion
    names = fmap.by_name()
    assert any("GeLU" in n for n in names), names
    gelu = [k for k in fmap.kernels if "GeLU" in k.name][0]
    assert "GeLU" in gelu.ops
    originals = [encoder_fused.before_fusion.node(o) for o in gelu.originals]
    assert sorted(n.op for n in originals) == sorted(name_ops(gelu.name))
    assert [n.name.split("/")[1] for n in originals if n.op == "BiasAdd"] == ["fc1-Dense"]
    assert fmap.unmapped == []
    assert fmap.kernel_count_before == encoder_plain.kernel_count
    assert fmap.kernel_count_after == encoder_fused.kernel_count < fmap.kernel_count_before
    assert any(n.op == "GeLU" for n in encoder_plain.graph.kernels)


# ------------------------------------------------------------------ payload


def test_payloads_validate(conv_trace, lenet_fused, block_trace, encoder_plain):
    for tr in (conv_trace["trace"], lenet_fused["trace"], block_trace, encoder_plain):
        for mode in ("none", "changed"):
            payload = tr.to_payload(passes=mode)
            validate_payload(payload)
            assert payload["views"]["main"] == "final"
    payload = lenet_fused["trace"].to_payload(passes="changed")
    assert payload["views"]["before"] == "before"
    assert payload["fusion"]["kernel_count_after"] == lenet_fused["trace"].kernel_count
    changed = [p for p in payload["passes"] if p["changed"]]
    assert all(p["graph"] in payload["graphs"] for p in changed)
    assert all(p["graph"] is None for p in payload["passes"] if not p["changed"])
    fused_nodes = [n for n in payload["graphs"]["final"]["nodes"] if n["kind"] == "call"]
    assert fused_nodes and all(n["subgraph"] in payload["graphs"] for n in fused_nodes)


def test_mimebundle_and_memory_hook(conv_trace):
    tr = conv_trace["trace"]
    bundle = tr._repr_mimebundle_()
    assert bundle["text/plain"] == tr.summary()
    payload = bundle["application/vnd.ascend-lab.graph+json"]
    validate_payload(payload)
    assert all(p["graph"] in (None, "final") for p in payload["passes"])
    assert payload["memory"]["graph"] == "final"
    assert tr.to_payload(passes="none", memory=False)["memory"] is None


# ------------------------------------------------------------------ magic and MindIR


def test_magic_traces_names_from_namespace(conv_net, conv_trace, capsys):
    from ascend_lab.tracing.magic import trace_magic

    class Shell:
        user_ns = {"net": conv_net, "x": conv_trace["x"]}

    trace_magic(Shell, "net x -o t1")
    assert Shell.user_ns["t1"].kernel_count == 4
    trace_magic(Shell, "net nope")
    assert "'nope' is not defined" in capsys.readouterr().out
    assert "_trace" not in Shell.user_ns


def test_mindir_export_compare(conv_net, conv_trace, tmp_path):
    tr = conv_trace["trace"]
    before = _state()
    result = tr.export_mindir(str(tmp_path / "conv.mindir"))
    assert _state() == before
    assert os.listdir(tmp_path) == ["conv.mindir"]
    assert result.max_abs_diff is not None and result.max_abs_diff < 1e-5
    assert result.graph is not None, result.parse_error
    assert "Conv2D" in {n.op for n in result.graph.nodes}


def test_mindir_export_never_writes_through_a_planted_part_link(conv_trace, tmp_path):
    # issue #37: the copy went through the predictable <target>.part, which a link planted
    # there redirected; it now goes through an exclusive, randomly named file
    victim = tmp_path / "victim.txt"
    victim.write_text("not to be overwritten")
    os.symlink(victim, tmp_path / "conv.mindir.part")
    conv_trace["trace"].export_mindir(str(tmp_path / "conv.mindir"))
    assert victim.read_text() == "not to be overwritten"
    assert sorted(os.listdir(tmp_path)) == ["conv.mindir", "conv.mindir.part", "victim.txt"]


def test_mindir_unwritable_target_is_a_clear_error(conv_net, conv_trace, tmp_path):
    from ascend_lab.capture.mindir_export import MindIRExportError, export_and_compare

    if os.geteuid() == 0:
        target = "/proc/self/conv.mindir"  # root ignores permissions; /proc is never writable
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        target = str(ro / "conv.mindir")
    with pytest.raises(MindIRExportError, match="not writable"):
        export_and_compare(conv_net, conv_trace["x"], path=target)


def test_line_magic_in_a_real_ipython_shell(conv_net, conv_trace):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "ascend_lab")
    shell.user_ns.update({"net": conv_net, "x": conv_trace["x"]})
    shell.run_line_magic("ascend_trace", "net x --level 1")
    tr = shell.user_ns["_trace"]
    assert tr.kernel_count == 4
    assert tr.net_name == "ConvBNReLU"


def test_failed_export_keeps_the_existing_file(tmp_path):
    from ascend_lab.capture.mindir_export import MindIRExportError, export_and_compare

    target = tmp_path / "model.mindir"
    target.write_bytes(b"previous export")
    before = _state()
    with pytest.raises(MindIRExportError, match="NotGraphable"):
        export_and_compare(NotGraphable(), _tensor((2, 2)), path=str(target))
    assert _state() == before
    assert target.read_bytes() == b"previous export"
    assert os.listdir(tmp_path) == ["model.mindir"]


def test_to_html_writes_one_offline_page_with_the_trace(conv_trace, tmp_path, monkeypatch):
    tr = conv_trace["trace"]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(THIS_FILE)))
    home = os.path.dirname(repo)  # a home folder that holds the project and the venv
    monkeypatch.setenv("HOME", home)
    path = tr.to_html(str(tmp_path / "conv.html"), project=repo)
    page = open(path, encoding="utf-8").read()
    assert path == str(tmp_path / "conv.html")
    assert "ascend-lab.graph/1" in page
    assert "Conv2D" in page
    # Self-contained: no script or stylesheet is fetched from anywhere.
    assert 'src="http' not in page and 'href="http' not in page
    # Shareable: no path of this machine; sources relative to the project.
    site_packages = os.path.dirname(os.path.dirname(os.path.abspath(ms.__file__)))
    dumps = os.path.join(tempfile.gettempdir(), "ascend-lab-")
    for secret in (home, site_packages, dumps, tr.capture.workdir, NETS_FILE):
        assert secret not in page, secret
    assert f'"ascend_lab/course/nets.py:{_conv_line()}"' in page
    assert "<site-packages>/mindspore/" in page and "<dump>/" in page
    raw = open(tr.to_html(str(tmp_path / "raw.html"), redact=False), encoding="utf-8").read()
    assert NETS_FILE in raw and site_packages in raw


def test_show_returns_the_viewer_widget_with_this_trace(conv_trace):
    widget = conv_trace["trace"].show()
    assert widget.payload["schema"] == "ascend-lab.graph/1"
    final = widget.payload["views"]["main"]
    ops = {n["op"] for n in widget.payload["graphs"][final]["nodes"]}
    assert "Conv2D" in ops

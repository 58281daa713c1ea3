"""Pure tests of the trace analyses (no MindSpore): stage names, dump order, diffs, the
fusion map, the payload validator, the magic's argument parsing and the progress switch."""

import os
import shutil

import pytest

import ascend_lab
from ascend_lab.analysis.fusion import build_fusion_map, name_ops, op_budget
from ascend_lab.capture.compile import locate_user_line
from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.parsers.ir import timeline as tl
from ascend_lab.payload import PayloadError, add_graph, is_valid, validate_payload
from ascend_lab.tracing.magic import parse_line
from ascend_lab.tracing.progress import Progress, is_interactive
from tests.support.python import run_python

# Four passes of the recorded Conv2d+BN+ReLU dump (tests/fixtures/ir/conv, see its README).
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ir", "conv")
DUMP_FILES = (
    "00_bootstrap_0000.ir",
    "opt_pass_2_opt_a_0016.ir",
    "hwopt_comm_after_kernel_select_kernel_graph0_0090.ir",
    "graph_build_0_0094.ir",
)


# ------------------------------------------------------------------ stage names


@pytest.mark.parametrize(
    "name, stage",
    [
        ("00_bootstrap", "frontend"),
        ("03_auto_monad", "frontend"),
        ("opt_pass_2_opt_a", "optimize"),
        ("13_optimize", "optimize"),
        ("22_backend_pass", "backend"),
        ("hwopt_comm_after_kernel_select_kernel_graph3", "backend"),
        ("hwopt_before_mindrt_unify_mindir_graph_63_42___main___Wrap_construct_130", "backend"),
        (
            "verbose_ir_files/graph_kernel/0008_stage1_cluster_4_graph_kernel_cluster",
            "graph_kernel",
        ),
        ("verbose_ir_files/hwopt_final_opt_1_add_akg_kernel_attrs", "graph_kernel"),
        ("graph_build_12", "build"),
        ("23_task_emit", "build"),
        ("24_execute", "build"),
        ("somethig_new_in_2_11", "other"),
    ],
)
def test_classify(name, stage):
    assert tl.classify(name) == stage


def test_numbered_stage_after_optimizer_is_optimize():
    assert tl.classify("21_validate", after_optimize=True) == "optimize"
    assert tl.classify("21_validate", after_optimize=False) == "frontend"


@pytest.mark.parametrize(
    "name, key",
    [
        ("opt_pass_2_opt_a", "opt_a"),
        ("opt_pass_9_opt_b", "opt_b"),  # numbers differ between versions; names match
        ("12_auto_monad", "auto_monad"),
        ("03_auto_monad", "auto_monad"),
        ("hwopt_comm_after_kernel_select_kernel_graph0", "comm_after_kernel_select"),
        ("hwopt_common_after_graph_2", "common_after"),
        (
            "hwopt_end_mindrt_unify_mindir_graph_108_39___main___LeNet5_construct_423",
            "end_mindrt_unify_mindir",
        ),
        (
            "verbose_ir_files/hwopt_pm_1_matmul_biasadd_relu_fusion_cpu",
            "matmul_biasadd_relu_fusion_cpu",
        ),
        (
            "verbose_ir_files/graph_kernel/0007_stage1_cluster_3_graph_kernel_expander",
            "graph_kernel_expander",
        ),
        ("graph_build_3", "graph_build"),
    ],
)
def test_stage_key_and_known_explanations(name, key):
    assert tl.stage_key(name) == key
    assert tl.explain(name) == tl.EXPLAIN[key]


def test_unknown_stage_gets_generic_explanation():
    assert tl.explain("99_brand_new_pass") == tl.GENERIC_EXPLAIN["frontend"]
    assert tl.explain("hwopt_brand_new_graph_0") == tl.GENERIC_EXPLAIN["backend"]
    assert tl.explain("x") == tl.GENERIC_EXPLAIN["other"]


def test_kernel_graph_id():
    assert tl.kernel_graph_id("graph_build_12") == 12
    assert tl.kernel_graph_id("hwopt_comm_after_kernel_select_kernel_graph3") == 3
    assert tl.kernel_graph_id("hwopt_common_after_graph_2") == 2
    assert tl.kernel_graph_id("00_bootstrap") is None


# ------------------------------------------------------------------ listing and digests


def _copy_fixture_dump(tmp_path):
    """The recorded dumps, plus a no-op pass (byte copy) and the start of a 2nd compile."""
    dump = tmp_path / "dump"
    dump.mkdir()
    for name in DUMP_FILES:
        shutil.copy(os.path.join(FIXTURES, name), dump / name)
    shutil.copy(
        dump / "hwopt_comm_after_kernel_select_kernel_graph0_0090.ir",
        dump / "hwopt_common_final_graph_0_0091.ir",
    )
    shutil.copy(dump / "00_bootstrap_0000.ir", dump / "00_bootstrap_0098.ir")
    (dump / "actor_set").mkdir()
    (dump / "actor_set" / "final_actor_set_kernel_graph_0.ir").write_text("%0 = x\n")
    (dump / "trace_code_graph_0095").write_text("not a pass")
    return str(dump)


def test_listing_uses_the_counter_not_the_stage_number(tmp_path):
    dump = _copy_fixture_dump(tmp_path)
    files = tl.list_dump_files(dump)
    assert [(c, n) for c, n, _ in files] == [
        (0, "00_bootstrap"),
        (16, "opt_pass_2_opt_a"),
        (90, "hwopt_comm_after_kernel_select_kernel_graph0"),
        (91, "hwopt_common_final_graph_0"),
        (94, "graph_build_0"),
        (98, "00_bootstrap"),  # a second compile in the same process comes last
    ]


def _recording_parser():
    """``(calls, parse)``: the real .ir parser, recording the file name of each call."""
    from ascend_lab.parsers.ir.ir_text import parse_ir_text

    calls = []

    def parse(text, path):
        calls.append(os.path.basename(path))
        return parse_ir_text(text, path)

    return calls, parse


def test_timeline_flags_unchanged_passes(tmp_path):
    dump = _copy_fixture_dump(tmp_path)
    calls, parse = _recording_parser()
    timeline = tl.PassTimeline(dump, parse=parse)
    select, final, build = timeline[2], timeline[3], timeline[4]
    assert select.node_count == 44
    # a byte-identical dump: unchanged without parsing anything
    assert final.digest == select.digest and final.changed is False
    assert timeline.diff(final.index).changed is False
    assert calls == []
    # graph_build differs only in a renumbered "-opN" suffix: found unchanged, not parsed
    assert build.changed is True
    assert timeline.diff(build.index).changed is False
    assert build.changed is False
    assert calls == []
    assert timeline.snapshot(final.index) is timeline.snapshot(select.index)
    # kernel selection vs opt_a: a real change
    d = timeline.diff(select.index)
    assert d.changed and d.added and "%1" in d.modified
    assert [s.stage for s in timeline] == [
        "frontend",
        "optimize",
        "backend",
        "backend",
        "build",
        "optimize",
    ]


def test_timeline_repr_says_what_it_holds_without_parsing(tmp_path):
    dump = _copy_fixture_dump(tmp_path)
    calls, parse = _recording_parser()
    text = repr(tl.PassTimeline(dump, parse=parse))
    # what `t.passes` shows in a notebook: counts and what to call, not "object at 0x..."
    assert text.startswith("<PassTimeline: 6 passes (5 whose dump differs")
    assert "frontend 1, optimize 2, backend 2, build 1" in text
    assert ".diff(i)" in text and " at 0x" not in text
    assert calls == []


def test_timeline_does_not_parse_again_a_dump_of_nodes_it_knows(tmp_path):
    dump = _copy_fixture_dump(tmp_path)
    # the kernel selection's dump again, after graph_build (the same nodes, renumbered)
    again = "hwopt_again_kernel_graph0_0095.ir"
    shutil.copy(
        os.path.join(dump, "hwopt_comm_after_kernel_select_kernel_graph0_0090.ir"),
        os.path.join(dump, again),
    )
    calls, parse = _recording_parser()
    timeline = tl.PassTimeline(dump, parse=parse)
    diffs = [timeline.diff(snap.index) for snap in timeline]
    names = [s.name for s in timeline][4:]
    assert names == ["graph_build_0", "hwopt_again_kernel_graph0", "00_bootstrap"]
    assert again not in calls  # its nodes are graph_build's, as the diff before found
    assert diffs[5].changed is False and timeline[5].changed is False
    assert diffs[6].changed  # the second compile's bootstrap: against pass 5's nodes
    # each diff is the one the parsed graphs give
    graphs = [tl._memo_parser()(timeline.text(s.index), s.path) for s in timeline]
    for index in range(1, len(timeline)):
        reference = tl.diff_graphs(graphs[index - 1], graphs[index])
        assert diffs[index] == reference, timeline[index].name


def test_timeline_keeps_pinned_graphs_and_a_few_recent_ones(tmp_path):
    dump = _copy_fixture_dump(tmp_path)
    calls, parse = _recording_parser()
    timeline = tl.PassTimeline(dump, parse=parse, keep_text=True)
    timeline.CACHE_SIZE = 1
    final = timeline.pin(4)
    first = timeline.snapshot(0)
    timeline.snapshot(1)  # pushes pass 0 out of a one-graph cache
    assert timeline.is_parsed(4) and timeline.is_parsed(1) and not timeline.is_parsed(0)
    again = timeline.snapshot(0)
    assert again is not first and again.to_dict() == first.to_dict()
    assert timeline.snapshot(4) is final
    assert calls.count(os.path.basename(timeline[0].path)) == 2
    assert calls.count(os.path.basename(timeline[4].path)) == 1
    # the kept texts are the files' texts, whatever happens to the folder
    for snap in timeline:
        with open(snap.path, encoding="utf-8") as f:
            assert timeline.text(snap.index) == f.read()


def test_timeline_keeps_one_text_of_identical_dumps(tmp_path):
    # a compile dumps the same graph many times over (97 dumps of a 32-layer decoder hold 21
    # bodies): one text is kept, compressed, and it stands for the others
    dump = _copy_fixture_dump(tmp_path)
    names = sorted(os.listdir(dump))
    final = [n for n in names if n.startswith("graph_build")][0]
    counter = max(int(n.rsplit("_", 1)[1][:-3]) for n in names if n.endswith(".ir"))
    with open(os.path.join(dump, final), encoding="utf-8") as f:
        text = f.read()
    again = text.replace("0x", "0xabc", 1) if "0x" in text else text
    assert tl.body_digest(again) == tl.body_digest(text)
    copy = os.path.join(dump, f"hwopt_again_{counter + 1:04d}.ir")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(again)
    timeline = tl.PassTimeline(dump, keep_text=True)
    shutil.rmtree(dump)
    last, original = timeline[len(timeline) - 1], timeline.find("graph_build")[0]
    assert last.name == "hwopt_again" and last.digest == original.digest
    assert len(timeline._texts) == len({(s.digest, s.node_count) for s in timeline}) < len(timeline)
    assert timeline.text(last.index) == text
    assert (last.node_count, last.entry) == (original.node_count, original.entry)
    # the same graph, read from the first pass's text, but named after its own file
    again_graph, original_graph = (timeline.snapshot(s.index).to_dict() for s in (last, original))
    assert again_graph.pop("file") == last.path and original_graph.pop("file") == original.path
    assert again_graph == original_graph


def test_body_digest_ignores_addresses_and_instance_lines():
    a = "# IR entry: @g\nsubgraph instance: kernel_graph0 : 0x56191eb4e760\n%0 = Foo(0x1)\n"
    b = "# IR entry: @g\nsubgraph instance: kernel_graph1 : 0x7fffabcd0000\n%0 = Foo(0x2)\n"
    c = "# IR entry: @g\nsubgraph instance: kernel_graph1 : 0x7fffabcd0000\n%0 = Bar(0x2)\n"
    assert tl.body_digest(a) == tl.body_digest(b) != tl.body_digest(c)
    assert tl.body_digest(a) == tl.body_digest(a.encode())


def test_body_digest_ignores_addresses():
    a = "subgraph instance: kernel_graph0 : 0x56191eb4e760\n%0 = Foo(0x1)\n"
    b = "subgraph instance: kernel_graph0 : 0x7fffabcd0000\n%0 = Foo(0x2)\n"
    assert tl.body_digest(a) == tl.body_digest(b)
    assert tl.body_digest(a) != tl.body_digest(a.replace("Foo", "Bar"))


# ------------------------------------------------------------------ diffs


def _n(nid, op, name=None, scope=None, inputs=(), shape=(1, 8), kind="op", **attrs):
    return Node(
        id=nid,
        op=op,
        kind=kind,
        name=name,
        scope=scope,
        inputs=list(inputs),
        outputs=[TensorType("Float32", shape)],
        attrs=dict(attrs),
    )


def test_diff_matches_by_scope_and_op_not_by_percent_id():
    before = Graph(
        "g",
        [
            _n("%para1_x", "Parameter", kind="input"),
            _n("%0", "Conv2D", scope="Default/conv-Conv2d", inputs=["%para1_x"]),
            _n("%1", "BiasAdd", scope="Default/conv-Conv2d", inputs=["%0"]),
            _n("%2", "ReLU", scope="Default/relu-ReLU", inputs=["%1"]),
        ],
    )
    after = Graph(
        "g",
        [
            _n("%para3_x", "Parameter", kind="input"),  # renumbered parameter
            _n("%7", "Conv2D", name="Default/conv-Conv2d/Conv2D-op4", inputs=["%para3_x"]),
            _n(
                "%8", "BiasAdd", name="Default/conv-Conv2d/BiasAdd-op9", inputs=["%7"], shape=(1, 9)
            ),
            _n("%9", "Sigmoid", scope="Default/relu-ReLU", inputs=["%8"]),
        ],
    )
    d = tl.diff_graphs(before, after)
    assert d.added == ["%9"]
    assert d.removed == ["Default/relu-ReLU/ReLU|ReLU"]
    assert d.modified == ["%8"]  # its output shape changed; Conv2D did not change
    assert not tl.diff_graphs(before, before).changed


def test_repeated_keys_get_occurrence_numbers():
    g = Graph("g", [_n("%0", "Load", scope="Default"), _n("%1", "Load", scope="Default")])
    assert sorted(tl.graph_keys(g)) == ["Default/Load|Load", "Default/Load|Load#1"]


# ------------------------------------------------------------------ fusion map


def _fused_pair():
    before = Graph(
        "kernel_graph0",
        [
            _n("%para1_x", "Parameter", kind="input"),
            _n("%1", "MatMul", name="Default/fc1-Dense/MatMul-op0", inputs=["%para1_x"]),
            _n("%2", "BiasAdd", name="Default/fc1-Dense/BiasAdd-op0", inputs=["%1"]),
            _n("%3", "ReLU", name="Default/relu-ReLU/ReLU-op0", inputs=["%2"]),
            _n("%4", "MatMul", name="Default/fc2-Dense/MatMul-op0", inputs=["%3"]),
            _n("%5", "BiasAdd", name="Default/fc2-Dense/BiasAdd-op0", inputs=["%4"]),
            _n("%6", "ReLU", name="Default/relu-ReLU/ReLU-op1", inputs=["%5"]),
        ],
    )
    sub1 = Graph(
        "sub1",
        [
            _n("%para9_a", "Parameter", kind="input"),
            _n(
                "%0",
                "Add",
                name="Default/fc1-Dense/expand_BiasAdd/Add-op0",
                inputs=["%para9_a"],
                **{"cnode:expand_from": '"BiasAdd"'},
            ),
            _n(
                "%1",
                "Maximum",
                name="Default/Maximum-op0",
                inputs=["%0"],
                **{"cnode:expand_from": '"ReLU"'},
            ),
        ],
    )
    sub2 = Graph("sub2", [n for n in sub1.nodes])
    after = Graph(
        "kernel_graph0",
        [
            _n("%para1_x", "Parameter", kind="input"),
            _n("%1", "MatMul", name="Default/fc1-Dense/MatMul-op0", inputs=["%para1_x"]),
            _n(
                "%2",
                "Fused_BiasAdd_ReLU_fusion",
                kind="call",
                name="Default/GraphKernel_BiasAdd_ReLU_fusion-op0",
                inputs=["%1"],
            ),
            _n("%3", "MatMul", name="Default/fc2-Dense/MatMul-op0", inputs=["%2"]),
            _n(
                "%4",
                "Fused_BiasAdd_ReLU_fusion",
                kind="call",
                name="Default/GraphKernel_BiasAdd_ReLU_fusion-op1",
                inputs=["%3"],
            ),
        ],
        subgraphs={"sub1": sub1, "sub2": sub2},
    )
    after.nodes[2].subgraph = "sub1"
    after.nodes[4].subgraph = "sub2"
    for step, node in enumerate(n for n in after.nodes if n.kind != "input"):
        node.step = step
    return before, after


def test_fusion_map_follows_dataflow():
    before, after = _fused_pair()
    fmap = build_fusion_map(before, after)
    assert [(k.kernel, k.originals) for k in fmap.kernels] == [
        ("%2", ["%2", "%3"]),
        ("%4", ["%5", "%6"]),
    ]
    assert fmap.kernel_count_before == 6 and fmap.kernel_count_after == 4
    assert fmap.unmapped == []
    assert fmap.by_name() == {"Fused_BiasAdd_ReLU_fusion": 2}
    assert fmap.to_dict()["kernels"][0]["ops"] == ["BiasAdd", "ReLU"]


def test_fused_kernel_names_and_budgets():
    assert name_ops("Fused_BiasAdd_ReLU_fusion") == ["BiasAdd", "ReLU"]
    assert name_ops("Fused_BiasAdd_Reshape_GeLU_Reshape_fusion") == [
        "BiasAdd",
        "Reshape",
        "GeLU",
        "Reshape",
    ]
    assert name_ops("Fused_Transpose_split") == ["Transpose"]
    assert name_ops("Fused_ReLU") == ["ReLU"]
    gelu = Graph("g", [_n(f"%{i}", "Mul", **{"cnode:expand_from": '"GeLU"'}) for i in range(9)])
    assert op_budget("Fused_GeLU", gelu) == {"GeLU": 1}


# ------------------------------------------------------------------ payload


def _payload(**extra):
    before, after = _fused_pair()
    graphs = {}
    add_graph(graphs, "final", after)
    add_graph(graphs, "before", before)
    payload = {
        "schema": "ascend-lab.graph/1",
        "meta": {"title": "t"},
        "graphs": graphs,
        "views": {"main": "final", "before": "before", "after": "final"},
        "passes": [
            {
                "index": 0,
                "name": "graph_build_0",
                "stage": "build",
                "changed": True,
                "graph": "final",
            }
        ],
        "fusion": build_fusion_map(before, after).to_dict(),
        "memory": None,
    }
    payload.update(extra)
    return payload


def test_payload_subgraph_keys_are_rewritten_and_valid():
    payload = _payload()
    validate_payload(payload)
    calls = [n for n in payload["graphs"]["final"]["nodes"] if n["kind"] == "call"]
    assert [c["subgraph"] for c in calls] == ["final/sub1", "final/sub2"]


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"schema": "ascend-lab.graph/2"}, "schema"),
        ({"views": {"main": "nope"}}, "views.main"),
        ({"passes": [{"index": 0, "name": "x", "stage": "weird", "changed": True}]}, "passes/0"),
        (
            {
                "passes": [
                    {"index": 0, "name": "x", "stage": "build", "changed": True, "graph": "pass:9"}
                ]
            },
            "passes[0].graph",
        ),
        ({"extra": 1}, "Additional properties"),
    ],
)
def test_validator_rejects_bad_payloads(change, needle):
    bad = _payload(**change)
    with pytest.raises(PayloadError) as info:
        validate_payload(bad)
    assert needle in str(info.value)
    assert not is_valid(bad)


def test_validator_checks_fusion_node_ids():
    bad = _payload()
    bad["fusion"]["kernels"][0]["originals"] = ["%99"]
    with pytest.raises(PayloadError, match="%99"):
        validate_payload(bad)
    with pytest.raises(PayloadError, match="must be an object"):
        validate_payload([])


# ------------------------------------------------------------------ magic, errors, progress


def test_magic_line_parsing():
    args = parse_line("net x y --fusion --level 2 --keep-dumps -o t")
    assert (args.net, args.inputs, args.fusion, args.level, args.keep_dumps, args.output) == (
        "net",
        ["x", "y"],
        True,
        2,
        True,
        "t",
    )
    assert parse_line("net").output == "_trace"
    for bad, needle in [
        ("", "name the net"),
        ("net --level 7", "invalid choice"),
        ("net -o 1x", "Python name"),
        ("net 'x", "cannot read"),
    ]:
        with pytest.raises(ValueError, match=needle):
            parse_line(bad)


def test_locate_user_line_skips_library_frames():
    text = (
        "# 0 In file /usr/lib/python3/site-packages/mindspore/nn/cell.py:12, 4~8\n"
        "# 1 In file /home/me/net.py:42, 15~28\n"
    )
    assert locate_user_line(text) == ("/home/me/net.py", 42)
    assert locate_user_line("no location") == (None, None)


def test_progress_is_silent_outside_notebooks(monkeypatch):
    monkeypatch.delenv("ASCEND_LAB_PROGRESS", raising=False)
    monkeypatch.setenv("CI", "1")
    assert not is_interactive()
    bar = Progress("x")
    bar.step("compiling")
    bar.done()
    assert bar.messages == ["compiling", "done"] and bar._handle is None
    monkeypatch.setenv("ASCEND_LAB_PROGRESS", "0")
    assert not is_interactive()
    monkeypatch.setenv("ASCEND_LAB_PROGRESS", "1")  # forced on, before CI (the registry's bool)
    assert is_interactive()
    monkeypatch.setenv("ASCEND_LAB_PROGRESS", "maybe")  # garbage: the default (CI: off)
    assert not is_interactive()


def test_trace_is_a_plain_function_with_its_signature_and_imports_no_mindspore():
    code = (
        "import inspect, sys, types, ascend_lab, ascend_lab.tracing.api, "
        "ascend_lab.tracing.magic, ascend_lab.capture.mindir_export, ascend_lab.payload\n"
        "assert type(ascend_lab.trace) is types.FunctionType, type(ascend_lab.trace)\n"
        "for p in inspect.signature(ascend_lab.trace).parameters.values():\n"
        "    print(p.name, p.kind.name, repr(p.default) if p.default is not p.empty else '-')\n"
        "print(ascend_lab.tracing.Trace is ascend_lab.results.trace.Trace)\n"
        "print('mindspore' in sys.modules)\n"
    )
    lines = run_python(code).stdout.splitlines()
    assert lines == [
        "net POSITIONAL_OR_KEYWORD -",
        "inputs VAR_POSITIONAL -",
        "fusion KEYWORD_ONLY False",
        "level KEYWORD_ONLY 1",
        "keep_dumps KEYWORD_ONLY False",
        "run KEYWORD_ONLY True",
        "progress KEYWORD_ONLY None",
        "True",
        "False",
    ]
    assert ascend_lab.trace.__annotations__["return"] == "Trace"
    assert "GRAPH_MODE" in ascend_lab.trace.__doc__
    assert "fusion:" in ascend_lab.trace.__doc__ and "decorator" in ascend_lab.trace.__doc__


def test_fusion_without_decorator_says_how_to_install_it(monkeypatch):
    import sys

    from ascend_lab.errors.trace import TraceError

    monkeypatch.setitem(sys.modules, "decorator", None)  # `import decorator` fails
    with pytest.raises(TraceError) as info:
        ascend_lab.trace(object(), fusion=True, progress=False)
    message = str(info.value)
    assert "fusion=True needs the `decorator` package" in message
    assert f"{sys.executable} -m pip install decorator" in message


def _printed_otherwise(text, rename=None):
    """``text`` as an ``opt_pass_*`` dump prints it: each full name as its scope (the part
    before the last ``/``), ``rename`` = (old, new) applied to the scopes only."""
    import re

    def scope(m):
        name = m.group(2)
        value = name[: name.rfind("/")] if name.rfind("/") > 0 else name
        if rename is not None:
            value = value.replace(*rename)
        return f"{m.group(1)}# Scope: ({value})"

    return re.sub(r"^(\s*)# Fullname with scope: \((.*)\)$", scope, text, flags=re.M)


def test_a_pass_that_prints_its_names_otherwise_is_unchanged_without_a_parse(tmp_path):
    # issue #27: MindSpore prints "Scope: (...)" in opt_pass_* dumps and "Fullname with
    # scope: (...-opN)" in the others, -opN renumbered: the same nodes, not a change, and
    # not worth a parse to find that out (a 32-layer decoder's 11 MB frontend dump)
    src = os.path.join(FIXTURES, "hwopt_comm_after_kernel_select_kernel_graph0_0090.ir")
    with open(src, encoding="utf-8") as f:
        text = f.read()
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "hwopt_a_0001.ir").write_text(text)
    (dump / "opt_pass_1_b_0002.ir").write_text(_printed_otherwise(text))
    (dump / "hwopt_c_0003.ir").write_text(text.replace("-op0)", "-op7)"))
    renamed = _printed_otherwise(text, ("conv-Conv2d", "conv2-Conv2d"))
    (dump / "opt_pass_2_d_0004.ir").write_text(renamed)
    calls, parse = _recording_parser()
    timeline = tl.PassTimeline(str(dump), parse=parse)
    assert len({s.digest for s in timeline}) == 4  # four different texts
    diffs = [timeline.diff(s.index) for s in timeline]
    assert [s.changed for s in timeline] == [True, False, False, True]
    assert calls == ["hwopt_a_0001.ir", "opt_pass_2_d_0004.ir"]
    # what a parse of every pass gives: the renamed scope moves the Conv2d's nodes
    graphs = [tl._memo_parser()(timeline.text(s.index), s.path) for s in timeline]
    for index in (1, 2, 3):
        assert diffs[index] == tl.diff_graphs(graphs[index - 1], graphs[index])
    assert diffs[3].added and diffs[3].removed


def test_printed_names_and_names_agree():
    text = (
        b"# IR entry: @g\n  %0 = Conv2D(%x)\n"
        b"      # Fullname with scope: (Default/c-Conv2d/Conv2D-op3)\n"
        b"  %1 = call @f(%0)\n      # Fullname with scope: (151)\n"
    )
    other = text.replace(
        b"Fullname with scope: (Default/c-Conv2d/Conv2D-op3)", b"Scope: (Default/c-Conv2d)"
    )
    other = other.replace(b"Fullname with scope: (151)", b"Scope: (Default)")
    a, b = tl.printed_names(text), tl.printed_names(other)
    assert a.digest == b.digest
    assert a.names == [(True, "Default/c-Conv2d/Conv2D-op3"), (True, "151")]
    assert b.names == [(False, "Default/c-Conv2d"), (False, "Default")]
    assert tl.names_agree(a.names, b.names)
    assert tl.names_agree(a.names, [(True, "Default/c-Conv2d/Conv2D-op9"), (True, "151")])
    # two full names without a scope are compared as they are: the parse tells
    assert not tl.names_agree(a.names, [(True, "Default/c-Conv2d/Conv2D-op9"), (True, "152")])
    assert not tl.names_agree(a.names, [(False, "Default/d-Conv2d"), (False, "Default")])
    assert not tl.names_agree(a.names, a.names[:1])
    # a name line on another node is another text, not the same names in other places
    moved = b"# IR entry: @g\n  %0 = Conv2D(%x)\n  %1 = call @f(%0)\n      # Scope: (Default)\n"
    assert tl.printed_names(moved).digest != b.digest
    assert tl.printed_names(b"  %0 = X()\n      # Scope: Default\n") is None  # not (...)

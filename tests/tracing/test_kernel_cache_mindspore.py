"""A fusion trace and the learner's own fusion compile share AKG's kernels (issue #39).

AKG's build server remembers the fused kernels it built for the whole process; MindSpore
looks for their files under ``MS_COMPILER_CACHE_PATH``, else under the current directory. A
trace builds in its private folder, so before ascend-lab set one path for the process:
- the learner's compile after a trace (notebook 03's fusion timing) found no file and split
  the fused kernels back into single ops ("do not have compile cache after compiling and will
  be split"), so "fusion on" ran unfused;
- a trace after the learner's compile counted the split kernels (ConvBNReLU: 4 -> 5).
Each order runs in a fresh interpreter (one AKG server per process), in a folder of its own,
started as the MindSpore kernel starts (it sets the path before any compile). A script whose
own fusion compile comes before its first trace still gets the second case (the docstring of
``share_kernel_cache`` says so); the first case holds in a script too.
"""

import json
import os

import pytest

from ascend_lab.capture.compile import KERNEL_CACHE_ENV, share_kernel_cache
from tests.support.python import run_python

SCRIPT = """
import json, os, sys
if sys.argv[2] == "kernel":  # what the MindSpore kernel does at start
    from ascend_lab.capture.compile import share_kernel_cache
    share_kernel_cache()
import numpy as np, mindspore as ms, ascend_lab
from ascend_lab.course.nets import ConvBNReLU
x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32))
def user():
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=True)
    n = ConvBNReLU()
    n.set_train(False)
    n(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE, enable_graph_kernel=False)
counts = []
for step in sys.argv[1].split(","):
    if step == "user":
        user()
    else:
        f = ascend_lab.trace(ConvBNReLU(), x, fusion=True)
        counts.append([f.fusion.kernel_count_before, f.fusion.kernel_count_after])
print(json.dumps({"counts": counts, "left": sorted(os.listdir("."))}))
"""


def _run(order, folder, start="kernel"):
    env = {k: v for k, v in os.environ.items() if k != KERNEL_CACHE_ENV}
    code = f"import sys; sys.argv[1:] = [{order!r}, {start!r}]\n" + SCRIPT
    proc = run_python(code, cwd=str(folder), env=env, timeout=300)
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.mark.mindspore
@pytest.mark.parametrize("start", ["kernel", "script"])
def test_the_learners_compile_after_a_trace_keeps_its_fused_kernels(tmp_path, start):
    result, stderr = _run("trace,user", tmp_path, start)
    assert "will be split" not in stderr, stderr[-2000:]
    assert result["left"] == []  # no akg_kernel_meta in the learner's folder


@pytest.mark.mindspore
def test_a_trace_after_the_learners_compile_counts_what_a_trace_alone_counts(tmp_path):
    alone, after = tmp_path / "alone", tmp_path / "after"
    alone.mkdir()
    after.mkdir()
    first, _ = _run("trace", alone)
    after, _ = _run("user,trace", after)
    assert after["counts"] == first["counts"], (first, after)


def test_a_cache_path_the_user_chose_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv(KERNEL_CACHE_ENV, str(tmp_path))
    assert share_kernel_cache() is None
    assert os.environ[KERNEL_CACHE_ENV] == str(tmp_path)
    monkeypatch.delenv(KERNEL_CACHE_ENV)
    chosen = share_kernel_cache()
    assert chosen and os.path.isdir(chosen) and os.environ[KERNEL_CACHE_ENV] == chosen

"""MindSpore's native (C++) output during a trace goes to a file, not to fds 1/2.

Why it matters: with IR dumps on, MindSpore logs two lines per node ("Get realpath failed",
"may not exists") for a net whose source file is not on disk, as for a class defined in a
notebook cell: ~9,000 lines (>1 MB), written from C++ while holding the GIL. In a Jupyter
kernel fds 1/2 are pipes drained by a kernel thread that needs the GIL, so the pipe filled
up and the kernel hung forever. Here the child's fds 1/2 are pipes that nobody reads until
it exits: a trace that wrote the flood there would block on the full pipe and time out.
"""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import linecache, sys
sys.path.insert(0, {repo!r})
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
import ascend_lab

SOURCE = '''
class Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        if x.sum() > 0:
            x = self.dense(x)
        else:
            x = x * 2
        return x
'''
# What IPython does for a cell: the source is in linecache, the "file" is not on disk.
FAKE = "/nonexistent/ipykernel_0/cell.py"
linecache.cache[FAKE] = (len(SOURCE), None, SOURCE.splitlines(True), FAKE)
exec(compile(SOURCE, FAKE, "exec"))
ms.set_context(mode=ms.GRAPH_MODE)
tr = ascend_lab.trace(Branchy(), Tensor(np.ones((2, 4), np.float32)), progress=False)
with open({result!r}, "w") as f:
    f.write("kernels %d\\n" % tr.kernel_count)
    f.write("\\n".join(tr.compile_log))
"""


@pytest.mark.mindspore
@pytest.mark.slow
def test_native_log_flood_is_kept_off_the_processes_stdout_and_stderr(tmp_path):
    result = tmp_path / "result.txt"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(repo=str(REPO), result=str(result))],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(tmp_path),
    )
    try:
        proc.wait(timeout=90)  # without reading the pipes: a flood would block the child
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the trace blocked writing MindSpore's log to a full pipe")
    _out, err = proc.communicate()
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    text = result.read_text()
    assert int(text.split()[1]) > 0
    # The flood was captured into Trace.compile_log (with counts), not written to fd 2.
    assert "Get realpath failed" in text
    realpath = [line for line in text.splitlines() if "Get realpath failed" in line]
    assert int(realpath[0].split(" x ")[0]) > 1000
    assert b"Get realpath failed" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.txt"]

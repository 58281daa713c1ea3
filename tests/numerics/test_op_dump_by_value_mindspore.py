"""capture="dump" sends what its child process cannot import by value (real MindSpore, CPU):
Cell classes defined in a script's ``__main__`` and in a real IPython kernel's cells (with
the cells' source text, which MindSpore's graph parser reads), Primitive attributes set
after ``__init__``; and says clearly what still cannot travel."""

import json
import os
import subprocess
import sys
import tempfile

import mindspore as ms
import numpy as np
import pytest

import ascend_lab
from ascend_lab.errors.numerics import NumericsInputError, NumericsRunError
from tests.numerics import nets

pytestmark = pytest.mark.mindspore

# One planted discrepancy, written where the child cannot import it: a softmax over large
# logits in float16, inside the construct, through a helper function and a global of the
# same cell (both must reach the child's __main__ for MindSpore's parser).
_CELLS = [
    """
import json
import mindspore as ms
import numpy as np
from mindspore import nn, ops
import ascend_lab

OFFSET = 1000.0
""",
    """
def shifted(z, offset):
    return z + offset


class Head(nn.Cell):
    def __init__(self, half=False):
        super().__init__()
        self.fc = nn.Dense(16, 16)
        self.offset = ms.Tensor(np.float32(OFFSET))
        self.half = half

    def construct(self, x):
        z = shifted(self.fc(x), self.offset)
        if self.half:
            return ops.softmax(z.astype(ms.float16), -1).astype(ms.float32)
        return ops.softmax(z, -1)
""",
    """
a = Head()
b = Head(half=True)
ms.load_param_into_net(
    b, {k: ms.Parameter(ms.Tensor(v.asnumpy()), name=k) for k, v in a.parameters_dict().items()}
)
x = np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)
r = ascend_lab.compare_numerics(a, b, x, capture="dump")
clean = ascend_lab.compare_numerics(a, a, x, capture="dump")
d = r.first_divergence
print("RESULT" + json.dumps({
    "label": d.label, "op_a": d.op_type_a, "op_b": d.op_type_b,
    "source_a": d.source_a, "source_b": d.source_b,
    "pairs": [p.label for p in r.pairs], "clean": clean.first_divergence is None,
    "module": Head.__module__,
}))
""",
]
CELLS = [cell.lstrip("\n") for cell in _CELLS]  # IPython drops a cell's leading blank lines


def _check(result):
    """The planted Softmax is the first divergence, at its lines of the cell / script."""
    assert result["module"] == "__main__"
    assert result["label"] == "Softmax" and result["op_a"] == "Softmax" == result["op_b"]
    assert result["pairs"][:3] == ["fc/MatMul", "fc/BiasAdd", "Add"], result["pairs"]
    assert result["clean"] is True
    lines = CELLS[1].splitlines()
    want_a = lines.index("        return ops.softmax(z, -1)")
    want_b = [i for i, line in enumerate(lines) if "ops.softmax(z.astype" in line][0]
    return want_a, want_b


def test_classes_of_a_scripts_main_are_sent_by_value(tmp_path):
    script = tmp_path / "planted.py"
    script.write_text("".join(CELLS))
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=str(tmp_path),
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    assert done.returncode == 0 and found, done.stderr[-3000:]
    result = json.loads(found[0][len("RESULT") :])
    want_a, want_b = _check(result)
    offset = len(CELLS[0].splitlines())  # the script's line numbers: the cells one after another
    assert result["source_a"] == f"{script}:{offset + want_a + 1}"
    assert result["source_b"] == f"{script}:{offset + want_b + 1}"
    assert list((tmp_path / "tmp").iterdir()) == []


def test_classes_of_a_kernel_cell_travel_with_the_cells_source(tmp_path):
    """A real IPython kernel: the cell's code has no file on disk, only linecache."""
    from jupyter_client.manager import KernelManager

    (tmp_path / "tmp").mkdir()
    km = KernelManager(kernel_name="python3")
    km.start_kernel(env=dict(os.environ, TMPDIR=str(tmp_path / "tmp")), cwd=str(tmp_path))
    kc = km.client()
    kc.start_channels()
    texts = []
    try:
        kc.wait_for_ready(timeout=120)

        def hook(msg):
            if msg["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                texts.append("\n".join(msg["content"]["traceback"]))

        for cell in CELLS:
            reply = kc.execute_interactive(cell, output_hook=hook, timeout=600)
            assert reply["content"]["status"] == "ok", "".join(texts)[-3000:]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    out = "".join(texts)
    found = [line for line in out.splitlines() if line.startswith("RESULT")]
    assert found, out[-3000:]
    result = json.loads(found[0][len("RESULT") :])
    want_a, want_b = _check(result)
    # the lines of the class's own cell, under the name IPython gave that cell
    cell_file, _, line_a = result["source_a"].rpartition(":")
    assert not os.path.exists(cell_file) and "ipykernel" in cell_file, result
    assert int(line_a) == want_a + 1
    assert result["source_b"] == f"{cell_file}:{want_b + 1}"
    assert list((tmp_path / "tmp").iterdir()) == []


class Holder(ms.nn.Cell):
    """A Dense, then whatever callable it is given."""

    def __init__(self, act):
        super().__init__()
        self.fc = ms.nn.Dense(16, 16)
        self.act = act

    def construct(self, x):
        return self.act(self.fc(x))


def test_what_cannot_travel_is_refused_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pending = (i for i in range(3))  # a generator: nothing pickles it, by name or by value
    net = Holder(lambda y: y * 2 if pending else y)
    with pytest.raises(NumericsInputError) as info:
        ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    msg = str(info.value)
    assert msg.startswith("capture='dump' cannot send side a (Holder) to its child process")
    assert "generator" in msg and "use capture='cells'" in msg
    assert list(tmp_path.iterdir()) == []


class Project(ms.nn.Cell):
    """x @ W through a MatMul Primitive the Cell holds, then a softmax."""

    def __init__(self, d=16):
        super().__init__()
        w = np.random.default_rng(1).standard_normal((d, d)).astype(np.float32)
        self.weight = ms.Parameter(ms.Tensor(w), name="weight")
        self.matmul = ms.ops.MatMul()

    def construct(self, x):
        return ms.ops.softmax(self.matmul(x, self.weight), -1)


def test_primitive_attributes_set_after_init_reach_the_child():
    from ascend_lab.capture.side_pickle import primitive_reduce

    net = Project()
    other = nets.twin(net, Project)
    # the planted port bug: the other side reads its weight transposed, set on the built net
    other.matmul.add_prim_attr("transpose_b", True)
    rebuild, args = primitive_reduce(other.matmul)
    assert args[2] == {"transpose_b": True} and args[3] == []
    assert rebuild(*args).attrs["transpose_b"] is True
    assert primitive_reduce(net.matmul)[1][2] == {}  # nothing set after init: nothing sent
    x = nets.inputs()
    expected = other(ms.Tensor(x)).asnumpy()
    assert not np.allclose(expected, net(ms.Tensor(x)).asnumpy())
    r = ascend_lab.compare_numerics(net, other, x, capture="dump", tensors=True)
    d = r.first_divergence
    assert d is not None and d.label == "MatMul" and d.op_type_a == "MatMul", str(r)
    # what the child ran is the learner's net: its softmax is the parent's output
    last = r.find("Softmax")
    assert last is not None
    assert np.allclose(last.b.outputs[0].array, expected, atol=1e-6)


MADE_BY_EXEC = """
class Made(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = ms.nn.Dense(16, 16)

    def construct(self, x):
        return self.fc(x)
"""


def test_a_class_without_source_text_is_a_clear_error(tmp_path, monkeypatch):
    """exec() in __main__: the class travels, but no file or linecache holds its construct."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ns = {"__name__": "__main__", "ms": ms}
    exec(compile(MADE_BY_EXEC, "<made by exec>", "exec"), ns)  # noqa: S102
    net = ns["Made"]()
    with pytest.raises(NumericsRunError) as info:
        ascend_lab.compare_numerics(net, net, nets.inputs(), capture="dump")
    msg = str(info.value)
    assert msg.startswith("side a (Made) could not compile or run in graph mode"), msg
    assert "reads each construct's source text" in msg and "inspect.py" not in msg
    assert list(tmp_path.iterdir()) == []

"""Exercise 06.3, "find the layer that breaks under O3" (issue #30), on the notebook's own net.

The net and its readings come from the notebook's code cell (run here as the notebook runs
it), so the test checks what a learner meets: as shipped "not answered yet", the solution ✓,
the first and the last layer ✗, and the verifier's answer is measured, not written down
(a net that does not break has no right answer, the planted layer's name included).
"""

import os
import re

import nbformat
import numpy as np
import pytest

from ascend_lab.exercises import ____, exercises
from benchmarks.support.nbrun import NOTEBOOKS

pytestmark = pytest.mark.mindspore

NOTEBOOK = "06_training_mixed_precision.ipynb"
CJK = re.compile(r"[\u4e00-\u9fff]")


def notebook_cell(folder, marker):
    """The one code cell of notebook 06 (in ``folder``) whose source holds ``marker``."""
    nb = nbformat.read(os.path.join(folder, NOTEBOOK), as_version=4)
    cells = [c.source for c in nb.cells if c.cell_type == "code" and marker in c.source]
    assert len(cells) == 1, f"{len(cells)} cells of {NOTEBOOK} hold {marker!r}"
    return cells[0]


def run_cell(source):
    import mindspore as ms
    from mindspore import nn

    import ascend_lab
    from ascend_lab.exercises import tr

    # the names the notebook's setup cell gives its later cells
    ns = {"ms": ms, "np": np, "nn": nn, "ascend_lab": ascend_lab, "tr": tr}
    exec(source, ns)  # noqa: S102 - the course's own notebook cell
    return ns


@pytest.fixture(scope="module")
def sensor():
    return run_cell(notebook_cell(NOTEBOOKS, "class SensorNet"))


def kind(q, *answers, **context):
    return q.verdict(*answers, lang="en", **context)[0]


def test_as_shipped_open_solution_right_first_and_last_layer_wrong(sensor):
    q3 = exercises("06")[2]
    net, x = sensor["sensor_net"], sensor["readings"]
    assert kind(q3, ____, net=net, x=x) == "open"  # the exercise cell as shipped

    ns = {"ascend_lab": sensor["ascend_lab"], "sensor_net": net, "readings": x}
    exec(q3.solution_code, ns)  # noqa: S102 - the course's own solution text
    answer = ns["my_layer"]
    assert answer == "norm"  # the planted BatchNorm, found by the comparison
    assert kind(q3, answer, net=net, x=x) == "right"
    assert kind(q3, "Default/norm-BatchNorm1d", net=net, x=x) == "right"  # its scope

    layers = [name for name, _ in net.cells_and_names() if name]
    assert layers[0] == "embed" and layers[-1] == "head"
    for wrong in (layers[0], layers[-1]):  # the first layer, the last layer
        kind_, message = q3.verdict(wrong, lang="en", net=net, x=x)
        assert kind_ == "wrong", (wrong, message)
    assert "still agrees" in q3.verdict("embed", lang="en", net=net, x=x)[1]
    assert "inputs are already wrong" in q3.verdict("head", lang="en", net=net, x=x)[1]
    # the class instead of the name, and a name the net does not have
    assert "Cell class" in q3.verdict("BatchNorm1d", lang="en", net=net, x=x)[1]
    assert kind(q3, "bn", net=net, x=x) == "wrong"


def test_the_right_answer_is_measured_not_written_down(sensor):
    import mindspore as ms

    q3 = exercises("06")[2]
    net, x = sensor["sensor_net"], sensor["readings"]
    # the same net on readings scaled to unit size, its statistics to match: nothing
    # overflows, O3 does not break, and no layer (the planted one included) is the answer
    small = (x / 1000.0).astype(np.float32)
    features = net.act(net.embed(ms.Tensor(small))).asnumpy()
    saved = (net.norm.moving_mean.asnumpy(), net.norm.moving_variance.asnumpy())
    net.norm.moving_mean.set_data(ms.Tensor(features.mean(axis=0)))
    net.norm.moving_variance.set_data(ms.Tensor(features.var(axis=0)))
    try:
        kind_, message = q3.verdict("norm", lang="en", net=net, x=small)
        assert kind_ == "wrong" and "no divergence" in message
    finally:
        net.norm.moving_mean.set_data(ms.Tensor(saved[0]))
        net.norm.moving_variance.set_data(ms.Tensor(saved[1]))
    assert kind(q3, "norm", net=net, x=x) == "right"


def test_the_chinese_edition_runs_the_same_net(sensor):
    zh = run_cell(notebook_cell(os.path.join(NOTEBOOKS, "zh"), "class SensorNet"))
    assert np.array_equal(zh["readings"], sensor["readings"])
    q3 = exercises("06")[2]
    context = {"net": zh["sensor_net"], "x": zh["readings"]}
    kind_, message = q3.verdict("norm", lang="zh", **context)
    assert kind_ == "right" and "最先出错" in message
    for wrong in ("embed", "head", "BatchNorm1d", "bn"):  # each pointer in Chinese, too
        kind_, pointer = q3.verdict(wrong, lang="zh", **context)
        assert kind_ == "wrong" and CJK.search(pointer), (wrong, pointer)
        kind_, pointer = q3.verdict(wrong, lang="en", **context)
        assert kind_ == "wrong" and not CJK.search(pointer), (wrong, pointer)

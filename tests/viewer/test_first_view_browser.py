"""The first view as a user sees it (issue #27), in Chromium at 1400×900: every label drawn
is at least 9 px tall on screen, with no hand zoom, for an 8-layer decoder whose rotary
embeddings go through a ``rotate_half`` helper function (benchmarks/support/nets.py), ResNet-50,
a MobileNet-style stack and a training step (TrainOneStepCell(WithLossCell(LeNet5()),
Momentum)). Screenshots of the decoder's and the training step's first views go to
test-artifacts/ (not committed)."""

import os

import pytest

from benchmarks.support.browser import block_network, chromium

pytestmark = [pytest.mark.browser, pytest.mark.mindspore]

ARTIFACTS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "test-artifacts"
)
VIEWPORT = {"width": 1400, "height": 900}
MIN_LABEL_PX = 9

# every label text of the graph view's panes, measured on screen after the page settled
MEASURE = """() => {
  const svgs = [...document.querySelectorAll('[data-view="graph"] svg.al-svg')]
    .filter(svg => svg.getBoundingClientRect().width > 0);
  const labels = [];
  let inView = 0;
  for (const svg of svgs) {
    const view = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const r = t.getBoundingClientRect();
      labels.push({ text: t.textContent, h: r.height });
      if (r.bottom > view.top && r.top < view.bottom && r.right > view.left
          && r.left < view.right) inView += 1;
    }
  }
  const heights = labels.map(l => l.h);
  const smallest = labels.reduce((a, l) => (a === null || l.h < a.h ? l : a), null);
  return { panes: svgs.length, count: labels.length, inView, smallest,
           min: heights.length ? Math.min(...heights) : 0 };
}"""

# resolves once no mutation happened in the page for 500 ms (the viewer settled)
SETTLE = """() => new Promise(resolve => {
  let timer = setTimeout(done, 500);
  const obs = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, 500); });
  function done() { obs.disconnect(); resolve(true); }
  obs.observe(document.body, { subtree: true, childList: true, attributes: true });
})"""


def _trace_html(net, inputs, path, train=False):
    import ascend_lab

    net.set_train(train)
    trace = ascend_lab.trace(net, *inputs, run=False)
    return trace.to_html(path)


def _decoder(path):
    from benchmarks.support.nets import Decoder, decoder_tokens

    return _trace_html(Decoder(layers=8), (decoder_tokens(),), path)


def _resnet50(path):
    import mindspore as ms
    import numpy as np

    from ascend_lab.course.nets import ResNet50

    return _trace_html(ResNet50(), (ms.Tensor(np.zeros((1, 3, 224, 224), np.float32)),), path)


def _mobilenet(path):
    from benchmarks.support.nets import MobileNetStack, mobilenet_input

    return _trace_html(MobileNetStack(), (mobilenet_input(),), path)


def _training_step(path):
    import mindspore as ms
    import mindspore.nn as nn
    import numpy as np

    from ascend_lab.course.nets import LeNet5

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9)
    )
    x = ms.Tensor(np.random.default_rng(0).random((2, 1, 32, 32), dtype=np.float32))
    labels = ms.Tensor(np.array([1, 2], np.int32))
    return _trace_html(step, (x, labels), path, train=True)


NETS = {
    "decoder8_rotate_half": _decoder,
    "resnet50": _resnet50,
    "mobilenet_stack": _mobilenet,
    "train_step_lenet5": _training_step,
}
SCREENSHOTS = {"decoder8_rotate_half", "train_step_lenet5"}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def first_view(browser, html, shot=None):
    """Open a page as a user does, let it settle, and measure every label it draws."""
    context = browser.new_context(viewport=VIEWPORT)
    attempts = block_network(context)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"file://{html}")
        page.wait_for_selector('[data-view="graph"] .al-canvas[data-state="ready"]', timeout=90000)
        page.evaluate(SETTLE)
        found = page.evaluate(MEASURE)
        if shot:
            os.makedirs(ARTIFACTS, exist_ok=True)
            page.screenshot(path=os.path.join(ARTIFACTS, shot))
    finally:
        context.close()
    assert errors == [] and attempts == []
    return found


@pytest.mark.parametrize("name", sorted(NETS))
def test_every_label_of_the_first_view_is_legible(browser, tmp_path, name):
    html = NETS[name](str(tmp_path / f"{name}.html"))
    found = first_view(browser, html, f"{name}_first_view.png" if name in SCREENSHOTS else None)
    assert found["panes"] >= 1
    assert found["inView"] >= 3, found  # the first view shows something to read
    assert found["min"] >= MIN_LABEL_PX, found["smallest"]

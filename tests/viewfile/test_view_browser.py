"""``ascend-lab view -o`` pages in real Chromium, offline: each kind of file draws its graph;
a corrupt file's page shows the reason, not a blank page."""

import pytest

from ascend_lab.cli import main
from tests.graph.helpers import FIXTURES
from tests.support.browser import TRAP_SCRIPT, block_network, chromium

pytestmark = pytest.mark.browser

LENET = FIXTURES / "lenet"
READY = '[data-view="graph"] .al-canvas[data-state="ready"]'


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _page(browser, path):
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    attempts = block_network(context)
    page = context.new_page()
    page.add_init_script(TRAP_SCRIPT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"file://{path}")
    return context, page, attempts, errors


@pytest.mark.parametrize(
    "source, kernel_ops",
    [
        (LENET / "lenet.mindir", {"Conv2D", "MatMul"}),
        (LENET / "graph_build_0_0094.ir", {"Conv2D", "ReLU"}),
        (LENET, {"Conv2D", "ReLU"}),
    ],
    ids=["mindir", "ir", "dump-folder"],
)
def test_view_page_draws_the_graph(browser, tmp_path, source, kernel_ops):
    out = tmp_path / "view.html"
    assert main(["view", str(source), "-o", str(out)]) == 0
    context, page, attempts, errors = _page(browser, out)
    try:
        page.wait_for_selector(READY, timeout=30000)
        ops = set(
            page.locator('[data-view="graph"] .al-node').evaluate_all(
                "els => els.map(e => e.dataset.op)"
            )
        )
        assert kernel_ops <= ops
        assert attempts == [] and errors == []
    finally:
        context.close()


def test_view_page_of_a_corrupt_file_says_why(browser, tmp_path):
    bad = tmp_path / "broken.mindir"
    bad.write_bytes((LENET / "lenet.mindir").read_bytes()[:300])
    out = tmp_path / "broken.html"
    assert main(["view", str(bad), "-o", str(out)]) == 2
    context, page, attempts, errors = _page(browser, out)
    try:
        message = page.locator("#ascend-lab-error").inner_text(timeout=10000)
        assert "corrupt or truncated MindIR" in message and "broken.mindir" in message
        assert page.locator("h1").inner_text() == "ascend-lab cannot show broken.mindir"
        assert errors == [] and attempts == []
    finally:
        context.close()

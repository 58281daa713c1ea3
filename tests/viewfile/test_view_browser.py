"""``ascend-lab view -o`` pages in real Chromium, offline: each kind of file draws its graph;
a corrupt file's page shows the reason, not a blank page."""

import pytest

from ascend_lab.cli import main
from benchmarks.support.browser import chromium
from tests.render.test_standalone_browser import _open
from tests.support.ir_fixtures import FIXTURES

pytestmark = pytest.mark.browser

LENET = FIXTURES / "lenet"
READY = '[data-view="graph"] .al-canvas[data-state="ready"]'


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


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
    context, page, attempts, errors = _open(browser, out, tmp_path)
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
    context, page, attempts, errors = _open(browser, out, tmp_path)
    try:
        message = page.locator("#ascend-lab-error").inner_text(timeout=10000)
        assert "corrupt or truncated MindIR" in message and "broken.mindir" in message
        assert page.locator("h1").inner_text() == "ascend-lab cannot show broken.mindir"
        assert errors == [] and attempts == []
    finally:
        context.close()


def test_packed_passes_open_offline(browser, tmp_path):
    """The dump folder's page packs its pass snapshots; a pass opened from the list is
    decoded (DecompressionStream) and drawn."""
    out = tmp_path / "lenet.html"
    assert main(["view", str(LENET), "--passes", "all", "-o", str(out)]) == 0
    page_text = out.read_text(encoding="utf-8")
    assert 'id="ascend-lab-passes"' in page_text and "ascend-lab.packed-passes/1" in page_text
    context, page, attempts, errors = _open(browser, out, tmp_path)
    try:
        page.wait_for_selector(READY)
        page.locator('.al-tab[data-tab="timeline"]').click()
        timeline = page.locator('[data-view="timeline"]')
        items = timeline.locator(".al-passlist li[data-pass]")
        for name in ("opt_pass_2_opt_a", "00_bootstrap"):  # packed: not a main view
            items.filter(has_text=name).first.click()
            page.wait_for_selector(
                '[data-view="timeline"] .al-canvas[data-state="ready"]', timeout=30000
            )
            timeline.locator(".al-node").first.wait_for(timeout=30000)
            assert "not included" not in timeline.locator(".al-passinfo").inner_text()
        assert items.count() >= 4
        assert errors == [] and attempts == []
        assert page.evaluate("window.__alerts") == []
    finally:
        context.close()

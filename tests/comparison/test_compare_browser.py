"""A comparison page (``ascend-lab view A B``) in real Chromium, offline: two panes drawn,
a click on one side selects its match on the other, fused kernels link to their ops."""

import os

import pytest

from ascend_lab.cli import main
from benchmarks.support.browser import chromium
from tests.render.test_standalone_browser import _open

pytestmark = pytest.mark.browser

HERE = os.path.dirname(__file__)
LENET = os.path.join(HERE, "..", "fixtures", "ir", "lenet")
LENET_FUSION = os.path.join(HERE, "..", "fixtures", "ir", "lenet_fusion")
READY = '[data-pane="{}"] .al-canvas[data-state="ready"]'


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _linked(page, pane):
    return sorted(
        page.locator(f'[data-pane="{pane}"] .al-node.al-linked').evaluate_all(
            "els => els.map(e => e.dataset.id)"
        )
    )


def test_comparison_page_links_the_two_sides(browser, tmp_path):
    out = tmp_path / "cmp.html"
    assert main(["view", LENET, LENET_FUSION, "-o", str(out)]) == 0
    context, page, attempts, errors = _open(browser, out, tmp_path)
    try:
        page.wait_for_selector(READY.format("a"), timeout=30000)
        page.wait_for_selector(READY.format("b"), timeout=30000)
        bar = page.locator(".al-cmp-summary")
        assert bar.locator('[data-field="kernels"]').inner_text() == "kernels: 15 → 13"
        # a plain op: conv1's Conv2D (%1 on both sides); dispatched: a tall graph has nodes
        # outside the fitted view
        page.locator('[data-pane="a"] .al-node[data-id="%1"]').dispatch_event("click")
        assert _linked(page, "b") == ["%1"]
        # a fused kernel on B: fc1's BiasAdd + ReLU on A
        page.locator('[data-pane="b"] .al-node[data-id="%12"]').dispatch_event("click")
        assert _linked(page, "a") == ["%12", "%13"]
        assert (
            page.locator('[data-pane="b"] .al-node.al-selected').get_attribute("data-id") == "%12"
        )
        panel = page.locator('[data-view="traces"] .al-panel').inner_text()
        assert "BiasAdd + ReLU → Fused_BiasAdd_ReLU_fusion" in panel
        page.screenshot(path=str(tmp_path / "compare.png"))
        assert attempts == [] and errors == []
    finally:
        context.close()

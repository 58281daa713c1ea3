"""The standalone HTML export in real Chromium, from file://, with the network blocked."""

import pytest

from ascend_lab.widgets import to_html
from tests.viewer.browser import TRAP_SCRIPT, block_network, chromium
from tests.viewer.payloads import XSS, big_payload, course_payload

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _open(browser, path, tmp_path):
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    attempts = block_network(context)
    page = context.new_page()
    page.add_init_script(TRAP_SCRIPT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"file://{path}")
    return context, page, attempts, errors


def test_standalone_html_draws_the_graph_offline(browser, tmp_path):
    path = to_html(course_payload(), str(tmp_path / "course.html"))
    context, page, attempts, errors = _open(browser, path, tmp_path)
    try:
        page.wait_for_selector('[data-view="graph"] .al-canvas[data-state="ready"]', timeout=15000)
        assert page.locator('[data-view="graph"] .al-node').count() == 5
        # the layout ran in a web worker built from a blob: URL
        xss = page.locator('.al-node[data-id="5"]')
        assert xss.get_attribute("data-op") == XSS
        assert page.locator("img").count() == 0
        xss.click()
        assert page.locator('[data-view="graph"] .al-panel h3').first.text_content() == XSS
        # linked views work here too: fused kernel -> originals
        page.locator('.al-tab[data-tab="compare"]').click()
        page.wait_for_selector('[data-pane="after"] .al-canvas[data-state="ready"]')
        page.locator('[data-pane="after"] .al-node[data-id="k1"]').click()
        linked = page.locator('[data-pane="before"] .al-node.al-linked')
        assert sorted(linked.evaluate_all("els => els.map(e => e.dataset.id)")) == ["2", "4"]
        page.screenshot(path=str(tmp_path / "standalone.png"))
        assert page.evaluate("window.__alerts") == []
        assert attempts == []
        assert errors == []
    finally:
        context.close()


def test_standalone_big_graph_starts_collapsed_and_expands(browser, tmp_path):
    path = to_html(big_payload(10000), str(tmp_path / "big.html"))
    context, page, attempts, errors = _open(browser, path, tmp_path)
    try:
        page.wait_for_selector('.al-canvas[data-state="ready"]', timeout=30000)
        boxes = page.locator(".al-node, .al-group").count()
        assert 10 < boxes <= 300
        uses_worker = page.evaluate("window.ascendLab.app.layout.usesWorker")
        assert uses_worker is True
        group = page.locator('.al-group[data-group="Default/layer4-SequentialCell/2-Bottleneck"]')
        group.dispatch_event("click")  # far down a tall graph: outside the fitted view
        page.wait_for_selector('.al-frame[data-frame="Default/layer4-SequentialCell/2-Bottleneck"]')
        assert page.locator(".al-node").count() > 0
        assert attempts == [] and errors == []
    finally:
        context.close()


@pytest.mark.parametrize("scheme, dark", [("light", False), ("dark", True)])
def test_standalone_follows_the_colour_scheme(browser, tmp_path, scheme, dark):
    path = to_html(course_payload(), str(tmp_path / "course.html"))
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(f"file://{path}")
        page.wait_for_selector('.al-canvas[data-state="ready"]', timeout=15000)
        rgb = page.evaluate("getComputedStyle(document.querySelector('.al-root')).backgroundColor")
        r, g, b = [int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
        assert ((r + g + b) / 3 < 80) is dark, rgb
        text = page.evaluate("getComputedStyle(document.querySelector('.al-node text')).fill")
        assert text != rgb
        page.screenshot(path=str(tmp_path / f"{scheme}.png"))
    finally:
        context.close()

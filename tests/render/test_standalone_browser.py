"""The standalone HTML export in real Chromium, from file://, with the network blocked."""

import pytest

from ascend_lab.render import to_html
from benchmarks.support.browser import TRAP_SCRIPT, block_network, chromium
from benchmarks.support.payloads import XSS, big_payload, course_payload

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
        assert page.locator('[data-view="graph"] .al-node').count() == 4
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
        # the Bottleneck drawn (collapsed) in layer 8's "10 × Bottleneck" stack
        group = page.locator('.al-group[data-group="Default/layer8-SequentialCell/0-Bottleneck"]')
        group.dispatch_event("click")  # far down a tall graph: outside the fitted view
        page.wait_for_selector('.al-frame[data-frame="Default/layer8-SequentialCell/0-Bottleneck"]')
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


def test_svg_and_png_export_download_real_files(browser, tmp_path):
    path = to_html(course_payload(), str(tmp_path / "course.html"))
    context = browser.new_context(accept_downloads=True)
    attempts = block_network(context)
    page = context.new_page()
    try:
        page.goto(f"file://{path}")
        page.wait_for_selector('.al-canvas[data-state="ready"]', timeout=15000)
        toolbar = page.locator('[data-view="graph"] .al-toolbar')
        with page.expect_download() as svg_download:
            toolbar.get_by_role("button", name="SVG").click()
        svg_file = tmp_path / "graph.svg"
        svg_download.value.save_as(str(svg_file))
        svg = svg_file.read_text(encoding="utf-8")
        assert svg_download.value.suggested_filename == "ascend-lab-graph.svg"
        assert svg.startswith("<svg") and "var(--" not in svg
        assert "&lt;img src=x onerror=alert(1)&gt;" in svg and XSS not in svg
        with page.expect_download() as png_download:
            toolbar.get_by_role("button", name="PNG").click()
        png_file = tmp_path / "graph.png"
        png_download.value.save_as(str(png_file))
        data = png_file.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width = int.from_bytes(data[16:20], "big")
        assert width > 200
        assert attempts == []
    finally:
        context.close()


def test_csp_runs_the_viewer_and_blocks_any_other_inline_script(browser, tmp_path):
    path = to_html(course_payload(), str(tmp_path / "course.html"))
    page_text = open(path, encoding="utf-8").read()
    injected = page_text.replace("<body>", '<body>\n<script>window.__injected = "ran"</script>', 1)
    (tmp_path / "injected.html").write_text(injected, encoding="utf-8")
    context = browser.new_context()
    page = context.new_page()
    violations = []
    page.on(
        "console", lambda m: violations.append(m.text) if "Content Security" in m.text else None
    )
    try:
        page.goto(f"file://{tmp_path / 'injected.html'}")
        page.wait_for_selector('.al-canvas[data-state="ready"]', timeout=15000)
        assert page.evaluate("window.__injected") is None
        assert any("script-src" in v for v in violations), violations
        assert page.evaluate("window.ascendLab.app.layout.usesWorker") is True
    finally:
        context.close()

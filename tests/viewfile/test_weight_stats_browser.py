"""Weight statistics on request, in real Chromium: a .mindir opened in JupyterLab asks the
server; a page served by ``ascend-lab view --serve`` asks its own server; a page written
with ``--weight-stats`` reads them offline; a page without them says how to get them.
The extension must be built."""

import shutil
import threading
from pathlib import Path
from typing import Iterator

import pytest

from ascend_lab.cli import main
from ascend_lab.render.standalone import render_html
from ascend_lab.viewfile.serve import make_server
from ascend_lab.viewfile.sources import payload_for_path
from ascend_lab.viewfile.weight_page import stats_answerer, with_stats_endpoint
from ascend_lab.viewfile.weight_stats import weight_stats
from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import cpu_machine_env
from benchmarks.support.lab import LabServer
from tests.render.test_standalone_browser import _open
from tests.support.ir_fixtures import FIXTURES
from tests.viewfile.test_lab_documents import ARTIFACTS

pytestmark = pytest.mark.browser

LENET = FIXTURES / "lenet" / "lenet.mindir"
WEIGHT = "fc1.weight"


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def show_weights(view, weight=WEIGHT):
    """Tick "show ... weights (parameters)" (the graph hides them by default) and fit the
    graph to the view, so no node is under the panel."""
    from playwright.sync_api import expect

    expect(view.locator('[data-view="graph"] .al-canvas[data-state="ready"]')).to_be_visible(
        timeout=60000
    )
    view.locator('[data-view="graph"] input[aria-label*="weights (parameters)"]').check()
    expect(view.locator(f'svg .al-node[data-id="{weight}"]')).to_be_attached(timeout=60000)
    expect(view.locator('[data-view="graph"] .al-canvas[data-state="ready"]')).to_be_visible()
    view.locator('[data-view="graph"] .al-toolbar button', has_text="Fit").click()


def show_stats(view, weight=WEIGHT):
    """Click the weight's node, then the panel's Statistics button; the panel."""
    from playwright.sync_api import expect

    show_weights(view, weight)
    node = view.locator(f'svg .al-node[data-id="{weight}"]')
    expect(node).to_be_visible(timeout=60000)
    node.click()
    panel = view.locator('[data-view="graph"] .al-panel')
    expect(panel.locator('[data-field="outputs"]')).to_contain_text("Float32")
    panel.locator(".al-weight-stats-button").click()
    expect(panel.locator('[data-stat="std"]')).to_be_visible(timeout=60000)
    return panel


def check_numbers(panel, weight=WEIGHT):
    expected = weight_stats(str(LENET), weight)
    for key in ("min", "max", "mean", "std"):
        shown = panel.locator(f'[data-stat="{key}"]').inner_text()
        assert float(shown) == pytest.approx(expected[key], rel=1e-5), key
    assert panel.locator('[data-stat="count"]').inner_text() == str(expected["count"])
    bars = panel.locator("svg.al-weight-histogram rect")
    counts = bars.evaluate_all("els => els.map(e => Number(e.dataset.count))")
    assert counts == expected["histogram"]["counts"]


# ---------------------------------------------------------------------------- JupyterLab


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[LabServer]:
    folder = tmp_path_factory.mktemp("lab-weights")
    server = LabServer(folder, cpu_machine_env(folder))
    shutil.copy(LENET, server.root / "lenet.mindir")
    server.start()
    yield server
    server.stop()


def test_statistics_in_jupyterlab(browser, lab):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/graph/weight" in r.url else None)
    try:
        page.goto(lab.lab_url(), wait_until="domcontentloaded", timeout=60000)
        item = page.locator(".jp-DirListing-item", has=page.locator('text="lenet.mindir"'))
        item.dblclick(timeout=60000)
        doc = page.locator(".jp-AscendLab-graphWidget")
        expect(doc).to_be_visible(timeout=60000)
        panel = show_stats(doc)
        check_numbers(panel)
        assert len(asked) == 1 and "name=fc1.weight" in asked[0] and "lenet.mindir" in asked[0]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(ARTIFACTS) / "lab_weight_stats.png"))
        assert errors == []
    finally:
        context.close()


# ---------------------------------------------------------------------------- ascend-lab view


def test_statistics_written_into_the_page_offline(browser, tmp_path):
    out = tmp_path / "lenet.html"
    assert main(["view", str(LENET), "-o", str(out), "--weight-stats"]) == 0
    context, page, attempts, errors = _open(browser, out, tmp_path)
    try:
        panel = show_stats(page, "conv2.weight")
        check_numbers(panel, "conv2.weight")
        assert attempts == [] and errors == []
    finally:
        context.close()


def test_an_ops_panel_gives_its_weights_statistics_while_weights_are_hidden(browser, tmp_path):
    """The default view hides weights: the MatMul that reads fc1.weight (through a Load)
    lists it, with its type and a Statistics button."""
    from playwright.sync_api import expect

    out = tmp_path / "lenet.html"
    assert main(["view", str(LENET), "-o", str(out), "--weight-stats"]) == 0
    context, page, attempts, errors = _open(browser, out, tmp_path)
    try:
        expect(page.locator('[data-view="graph"] .al-canvas[data-state="ready"]')).to_be_visible(
            timeout=60000
        )
        assert page.locator(f'svg .al-node[data-id="{WEIGHT}"]').count() == 0  # hidden
        page.locator('[data-view="graph"] .al-toolbar button', has_text="Fit").click()
        page.locator('svg .al-node[data-id="x:17"]').click(timeout=60000)
        panel = page.locator('[data-view="graph"] .al-panel')
        item = panel.locator(f'.al-op-weight[data-weight="{WEIGHT}"]')
        expect(item).to_contain_text(f"{WEIGHT}: ")
        expect(item).to_contain_text("Float32")
        item.locator(".al-weight-stats-button").click()
        expect(item.locator('[data-stat="std"]')).to_be_visible(timeout=60000)
        check_numbers(item)
        assert attempts == [] and errors == []
    finally:
        context.close()


def test_page_without_statistics_says_how_to_get_them(browser, tmp_path):
    from playwright.sync_api import expect

    out = tmp_path / "lenet.html"
    assert main(["view", str(LENET), "-o", str(out)]) == 0
    context, page, attempts, errors = _open(browser, out, tmp_path)
    try:
        show_weights(page)
        page.locator(f'svg .al-node[data-id="{WEIGHT}"]').click(timeout=60000)
        hint = page.locator(".al-weight-stats-hint")
        expect(hint).to_contain_text("--weight-stats")
        assert page.locator(".al-weight-stats-button").count() == 0
        assert attempts == [] and errors == []
    finally:
        context.close()


def test_statistics_from_the_serving_process(browser):
    page_html = with_stats_endpoint(render_html(payload_for_path(str(LENET))))
    server = make_server(page_html, 0, stats_answerer(str(LENET)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server.url)  # with its token, which the page passes on
        check_numbers(show_stats(page))
        assert errors == []
    finally:
        context.close()
        server.shutdown()
        server.server_close()

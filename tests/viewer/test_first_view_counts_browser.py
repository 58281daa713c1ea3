"""benchmarks/bench_first_view.py's first-view counts in real Chromium: "readable nodes" are
node boxes in the viewport whose label is drawn at >= 9 px on screen (font size x the SVG's
scale), and the Model Explorer probe settles on a shown canvas, not on a hidden one."""

import pytest

from benchmarks.bench_first_view import evaluate, me_probe, readable
from benchmarks.bench_netron import OURS_NODES, load, serve
from benchmarks.support.browser import chromium

pytestmark = pytest.mark.browser


def _node(x, y, size):
    return (
        f'<g class="al-node" transform="translate({x},{y})"><rect width="80" height="30"/>'
        f'<text x="4" y="20" font-size="{size}">MatMul</text></g>'
    )


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def site(tmp_path):
    server, origin = serve(str(tmp_path))
    yield tmp_path, origin
    server.shutdown()


def _open(browser, site, name, body, script, check):
    root, origin = site
    (root / name).write_text(f"<!doctype html><html><body style='margin:0'>{body}</body></html>")
    return load(browser, origin, f"{origin}/{name}", script, str(root / (name + ".png")), check)


def _svg(width, shown, group, grouped):
    """An SVG of ``width`` px holding ``shown`` and a <g ``group``> around ``grouped``."""
    return f'<svg width="{width}" height="600">{shown}<g {group}>{grouped}</g></svg>'


def _count(browser, site, *svg):
    body = svg[0] if len(svg) == 1 else _svg(*svg)
    root, origin = site
    (root / "g.html").write_text(
        f"<!doctype html><html><body style='margin:0'>{body}</body></html>"
    )
    context = browser.new_context(viewport={"width": 800, "height": 600})
    try:
        page = context.new_page()
        page.goto(f"{origin}/g.html")
        return readable(OURS_NODES)(page)
    finally:
        context.close()


def test_labels_count_by_their_size_on_screen(browser, site):
    # 12 px and 10 px labels are readable; 8 px is not; 18 px scaled by 0.4 is 7.2 px: not.
    nodes = _node(0, 0, 12) + _node(100, 0, 10) + _node(200, 0, 8)
    counts = _count(browser, site, 800, nodes, 'transform="scale(0.4)"', _node(0, 500, 18))
    assert counts["boxes"] == 4
    assert counts["readable"] == 2
    assert abs(counts["label_px_min"] - 7.2) < 0.01


def test_boxes_outside_the_viewport_or_hidden_do_not_count(browser, site):
    nodes = _node(0, 0, 12) + _node(2000, 0, 12)  # the second is right of the 800 px viewport
    counts = _count(browser, site, 3000, nodes, 'style="visibility: hidden"', _node(0, 100, 12))
    assert counts["boxes"] == 1
    assert counts["readable"] == 1


def test_evaluate_works_where_window_eval_is_replaced(browser, site):
    # Netron replaces window.eval; Playwright's page.evaluate then fails, the CDP call does not.
    root, origin = site
    (root / "e.html").write_text(
        "<!doctype html><script>window.eval = () => { throw new Error('no eval'); };</script>"
    )
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{origin}/e.html")
        assert evaluate(page, "(a) => a.n + 1", {"n": 41}) == 42
    finally:
        context.close()


def test_model_explorer_probe_waits_for_a_shown_canvas(browser, site):
    # The canvas inside <webgl-renderer> appears after 600 ms; a hidden one before it does not
    # count, so the first view is not reported before the shown one exists.
    body = (
        '<webgl-renderer style="display:none"><canvas width="300" height="150"></canvas>'
        "</webgl-renderer><script>setTimeout(() => { const r = document.createElement("
        "'webgl-renderer'); r.innerHTML = '<canvas width=\"300\" height=\"150\"></canvas>';"
        " document.body.appendChild(r); }, 600);</script>"
    )
    result = _open(browser, site, "me.html", body, me_probe(cap_ms=5000), None)
    assert "settled" in result, result
    assert result["graph"] >= 600
    assert result["boxes"] == 1


def test_a_match_inside_a_node_is_part_of_it(browser, site):
    # Netron draws each node as <g class="node"> holding <path class="node node-border">.
    body = (
        '<svg width="800" height="600"><g class="al-node"><path class="al-node" d="M0 0h80v30H0z"/>'
        '<text x="4" y="20" font-size="12">Add</text></g></svg>'
    )
    counts = _count(browser, site, body)
    assert counts["boxes"] == 1
    assert counts["readable"] == 1

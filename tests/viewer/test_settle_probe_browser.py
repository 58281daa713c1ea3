"""The "settled first view" probe of benchmarks/bench_netron.py in real Chromium: it waits for
a drawn graph, ignores a hidden one, and times the last DOM mutation, not the first paint."""

import os

import pytest

from ascend_lab.render import to_html
from benchmarks.bench_netron import OURS_ERROR, OURS_NODES, load, probe, serve
from benchmarks.support.browser import chromium
from benchmarks.support.payloads import course_payload

pytestmark = pytest.mark.browser

CAP_MS = 3000  # a page that never settles is reported as such after this long

GRAPH = '<svg width="400" height="300"><g class="al-node"><rect width="80" height="30"/></g></svg>'


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def site(tmp_path):
    server, origin = serve(str(tmp_path))
    yield tmp_path, origin
    server.shutdown()


def _load(browser, site, name, check=None):
    root, origin = site
    script = probe(OURS_NODES, OURS_ERROR, cap_ms=CAP_MS)
    shot = str(root / (name + ".png"))
    return load(browser, origin, f"{origin}/{name}", script, shot, check)


def _page(root, name, body):
    (root / name).write_text(f"<!doctype html><html><body>{body}</body></html>")


def test_settles_on_the_drawn_standalone_graph(browser, site):
    root, _ = site
    to_html(course_payload(), str(root / "course.html"))
    state = "document.querySelector('[data-view=\"graph\"] .al-canvas').dataset.state"
    result = _load(browser, site, "course.html", lambda page: page.evaluate(state))
    assert "settled" in result, result
    assert result["check"] == "ready"  # the viewer's own "laid out and drawn" flag
    assert result["boxes"] >= 4  # the four course nodes are in view
    assert 0 <= result["graph"] and result["lastMutation"] <= result["settled"]
    assert result["network_attempts"] == [] and result["page_errors"] == []
    assert os.path.getsize(root / "course.html.png") > 0


def test_a_graph_hidden_by_opacity_is_not_a_first_view(browser, site):
    root, _ = site
    _page(root, "hidden.html", f'<div style="opacity: 0">{GRAPH}</div>')
    result = _load(browser, site, "hidden.html")
    assert result["error"] == "not settled within the cap"
    assert result["graph"] == -1


def test_settled_is_the_last_mutation_not_the_first_paint(browser, site):
    root, _ = site
    # The graph is visible at once; the page keeps changing its DOM for one more second.
    script = (
        "<script>let n = 0; const t = setInterval(() => {"
        " document.getElementById('c').textContent = String(++n);"
        " if (performance.now() > 1000) clearInterval(t); }, 100);</script>"
    )
    _page(root, "busy.html", f'{GRAPH}<p id="c"></p>{script}')
    result = _load(browser, site, "busy.html")
    assert "settled" in result, result
    assert result["graph"] < 1000 <= result["lastMutation"] <= result["settled"]
    assert result["mutations"] >= 9


def test_a_page_that_never_stops_changing_never_settles(browser, site):
    root, _ = site
    script = (
        "<script>let n = 0; setInterval(() => {"
        " document.getElementById('c').textContent = String(++n); }, 200);</script>"
    )
    _page(root, "restless.html", f'{GRAPH}<p id="c"></p>{script}')
    result = _load(browser, site, "restless.html")
    assert result["error"] == "not settled within the cap"
    assert result["graph"] >= 0

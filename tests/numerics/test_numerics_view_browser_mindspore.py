"""The numerics view in the standalone HTML page, in real Chromium (no JupyterLab): a real
trace coloured by a real comparison (a Softmax over large logits under O3, as notebook 06
shows), the error colour on the traced graph's nodes, the first divergence selected with
its numbers in the node panel, from file:// with the network blocked."""

import math

import mindspore as ms
import pytest

import ascend_lab
from ascend_lab.render import to_html
from benchmarks.support.browser import chromium, open_offline
from tests.numerics import nets

pytestmark = [pytest.mark.browser, pytest.mark.mindspore]


def colour(entry):
    """numericsColour of labextension/src/viewer/numerics-view.ts for one node's entry: the
    hue falls from 120 (green, rel err <= 1e-7) to 0 (red, rel err >= 1) on a log scale."""
    rel = entry["max_rel"]
    if rel is None or entry.get("nonfinite"):
        return "hsl(0, 90%, 28%)"
    t = 0.0 if not rel > 1e-7 else min(1.0, math.log10(rel / 1e-7) / 7)
    return "hsl({}, 70%, {}%)".format(round(120 - 120 * t), 42 if entry["diverged"] else 48)


@pytest.fixture(scope="module")
def payload():
    net = nets.Head(offset=1000.0)
    net.set_train(False)
    x = nets.inputs()
    result = ascend_lab.compare_numerics(net, x, amp="O3")
    assert result.first_divergence is not None and result.first_divergence.path == "softmax"
    trace = ascend_lab.trace(net, ms.Tensor(x), run=False)
    return result.to_payload(trace)


def test_standalone_page_colours_nodes_by_error_and_selects_the_first_divergence(payload, tmp_path):
    section = payload["numerics"]
    first = section["first_divergence"]
    assert first and section["nodes"][first]["first"] and section["first_cell"] == "softmax"
    path = to_html(payload, str(tmp_path / "numerics.html"))
    with chromium() as browser:
        context, page, attempts, errors = open_offline(
            browser, f"file://{path}", viewport={"width": 1200, "height": 800}
        )
        try:
            graph = page.locator('[data-view="graph"]')
            page.wait_for_selector(
                '[data-view="graph"] .al-canvas[data-state="ready"]', timeout=30000
            )
            # the colour menu offers and shows the numeric error, with its legend
            select = graph.get_by_role("combobox", name="Colour nodes by")
            assert select.input_value() == "numerics"
            assert graph.locator(".al-numerics-legend").is_visible()
            # the first divergence is selected (centred), and the panel shows its numbers
            page.wait_for_selector(f'.al-node.al-selected[data-id="{first}"]', timeout=15000)
            selected = page.locator(".al-node.al-selected")
            assert selected.count() == 1 and selected.get_attribute("data-id") == first
            panel = graph.locator(".al-panel").first.text_content()
            assert "softmax (Softmax)" in panel and "first divergence" in panel
            # every drawn node of a compared Cell carries its Cell's error colour
            drawn = page.locator(".al-node").evaluate_all(
                "els => els.map(e => [e.dataset.id, e.querySelector('rect').getAttribute('fill')])"
            )
            coloured = [(nid, fill) for nid, fill in drawn if nid in section["nodes"]]
            assert coloured and any(nid == first for nid, _ in coloured)
            for nid, fill in coloured:
                assert fill == colour(section["nodes"][nid]), (nid, fill)
            hues = {nid: int(fill[4 : fill.index(",")]) for nid, fill in coloured}
            # the Cells that ran before the planted one still agree: greener than it
            before = {"proj", "norm", "logits"}
            agree = [n for n in hues if section["nodes"][n]["cell"] in before]
            assert agree and all(hues[first] < hues[n] for n in agree), hues
            page.screenshot(path=str(tmp_path / "numerics.png"))
            assert page.evaluate("window.__alerts") == []
            assert attempts == [] and errors == []
        finally:
            context.close()

"""Repeated-block stacks on a real traced 8-layer Llama-style decoder, in Chromium: the first
view draws "8 × Block" with one layer expanded, the other layers come on request, and the
search box finds a node in a stacked layer and draws that layer."""

import os

import pytest

from benchmarks.support.browser import block_network, chromium

pytestmark = [pytest.mark.browser, pytest.mark.mindspore]

LIST = "Default/blocks-CellList"
ARTIFACTS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "test-artifacts"
)


@pytest.fixture(scope="module")
def decoder(tmp_path_factory):
    """The standalone HTML of a traced Decoder(layers=8), and its main graph's nodes."""
    import ascend_lab
    from benchmarks.support.nets import Decoder, decoder_tokens

    net = Decoder(layers=8)
    net.set_train(False)
    trace = ascend_lab.trace(net, decoder_tokens(), run=False)
    path = trace.to_html(str(tmp_path_factory.mktemp("stacks") / "decoder8.html"))
    payload = trace.to_payload(passes="none")
    return path, payload["graphs"][payload["views"]["main"]]["nodes"]


@pytest.fixture()
def page(decoder):
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        attempts = block_network(context)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"file://{decoder[0]}")
        page.wait_for_selector('[data-view="graph"] .al-canvas[data-state="ready"]', timeout=60000)
        yield page
        assert errors == [] and attempts == []
        context.close()


def _ready(page):
    page.wait_for_selector('[data-view="graph"] .al-canvas[data-state="ready"]')


def test_first_view_stacks_the_layers_and_draws_one(page):
    heads = page.locator(".al-stack-head > text")
    assert heads.count() == 1
    assert heads.first.text_content() == "8 × Block"
    stack = page.locator(f'.al-stack[data-stack="{LIST}/0-Block"]')
    assert stack.count() == 1
    # layer 0 is drawn expanded (one level: the block's outline), in the stack; layers 1-7
    # are not drawn at all
    assert page.locator(f'.al-frame[data-frame="{LIST}/0-Block"]').count() == 1
    assert page.locator(f'.al-group[data-group="{LIST}/0-Block/attn-Attention"]').count() == 1
    for layer in range(1, 8):
        assert page.locator(f'[data-group="{LIST}/{layer}-Block"]').count() == 0
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, "decoder8_first_view.png"))


MODEL = "window.ascendLab.app.graphView.panes[0].model"


def test_another_layer_show_all_and_stack_again(page):
    # select a node of layer 0's attention (its scope opens), then draw the next layer
    node = page.evaluate(f"{MODEL}.groups.get('{LIST}/0-Block/attn-Attention').nodes[0]")
    page.evaluate(f"window.ascendLab.app.graphView.panes[0].select({node!r})")
    page.wait_for_selector(f'.al-node.al-selected[data-id="{node}"]')
    page.locator('.al-stack-btn[data-stack-action="next"]').dispatch_event("click")
    page.wait_for_selector(f'.al-frame[data-frame="{LIST}/1-Block"]')
    _ready(page)
    # the selection followed to the same node of layer 1
    selected = page.locator(".al-node.al-selected")
    assert selected.count() == 1
    twin = selected.get_attribute("data-id")
    assert page.evaluate(f"{MODEL}.groupOfNode({twin!r})") == f"{LIST}/1-Block/attn-Attention"
    assert page.evaluate(f"{MODEL}.byId.get({twin!r}).op") == selected.get_attribute("data-op")
    assert twin != node
    assert page.locator(f'[data-group="{LIST}/0-Block"]').count() == 0
    # the same picture, another layer's scopes: attention open as it was in layer 0
    assert page.locator(f'.al-frame[data-frame="{LIST}/1-Block/attn-Attention"]').count() == 1
    assert page.locator(f'.al-group[data-group="{LIST}/1-Block/mlp-SwiGLU"]').count() == 1
    page.locator('.al-stack-btn[data-stack-action="all"]').dispatch_event("click")
    page.wait_for_selector(f'[data-group="{LIST}/3-Block"]')
    _ready(page)
    assert page.locator(".al-stack").count() == 0
    for layer in range(8):
        assert page.locator(f'[data-group="{LIST}/{layer}-Block"]').count() == 1
    # the layers not drawn before come collapsed; one expands like the one the stack drew
    page.locator(f'.al-group[data-group="{LIST}/2-Block"]').dispatch_event("click")
    page.wait_for_selector(f'.al-frame[data-frame="{LIST}/2-Block/attn-Attention"]')
    page.locator('.al-stack-btn[data-stack-action="stack"]').dispatch_event("click")
    page.wait_for_selector(".al-stack-head")
    _ready(page)
    assert page.locator(f'.al-frame[data-frame="{LIST}/1-Block"]').count() == 1
    assert page.locator(f'[data-group="{LIST}/2-Block"]').count() == 0


def test_search_finds_a_node_in_a_stacked_layer_and_draws_it(page, decoder):
    nodes = decoder[1]
    names = [n.get("name") for n in nodes]
    target = next(
        n
        for n in nodes
        if n["kind"] == "op"
        and not n.get("bookkeeping")
        and (n.get("repaired_scope") or n.get("scope") or "").startswith(f"{LIST}/3-Block/")
        and n.get("name")
        and names.count(n["name"]) == 1
    )
    search = page.locator('[data-view="graph"] input[type="search"]')
    search.fill(target["name"])
    assert page.locator(".al-results li[role=button]").count() >= 1
    # the hit is hidden in the stack: the stack's header is marked as holding it
    assert "al-match" in (page.locator(".al-stack-head").get_attribute("class") or "")
    search.press("Enter")
    page.wait_for_selector(f'.al-node.al-selected[data-id="{target["id"]}"]')
    assert page.locator(f'.al-frame[data-frame="{LIST}/3-Block"]').count() == 1
    assert page.locator(".al-stack-head > text").first.text_content() == "8 × Block"
    # keyboard: the stack's "next" button works with Enter
    page.locator('.al-stack-btn[data-stack-action="next"]').focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f'.al-frame[data-frame="{LIST}/4-Block"]')

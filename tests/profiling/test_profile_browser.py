"""The profile in real Chromium: the standalone HTML of the recorded LeNet5 profile
(tests/fixtures/profile/lenet-profile-payload.json), from file://, network blocked.
Screenshots go to test-artifacts/profile/ (looked at by a person, not compared).
"""

import json
import os

import pytest

from ascend_lab.render import to_html
from benchmarks.support.browser import TRAP_SCRIPT, block_network, chromium

pytestmark = pytest.mark.browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAYLOAD = os.path.join(ROOT, "tests", "fixtures", "profile", "lenet-profile-payload.json")
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "profile")


def test_standalone_profile_colours_the_graph_and_links_the_table(tmp_path):
    with open(PAYLOAD) as f:
        payload = json.load(f)
    slowest = max(payload["profile"]["kernels"], key=lambda k: k["total_us"])
    path = to_html(payload, str(tmp_path / "profile.html"))
    os.makedirs(ARTIFACTS, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        attempts = block_network(context)
        page = context.new_page()
        page.add_init_script(TRAP_SCRIPT)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"file://{path}")
            page.wait_for_selector(
                '[data-view="graph"] .al-canvas[data-state="ready"]', timeout=30000
            )
            # colour by measured time: the slowest node is red, the nop Flatten grey
            fill = page.locator(f'.al-node[data-id="{slowest["node"]}"] rect').get_attribute("fill")
            assert fill == "hsl(0, 75%, 50%)"
            flatten = page.locator('.al-node[data-id="%8"] rect').get_attribute("fill")
            assert flatten == "hsl(0, 0%, 60%)"
            assert "not measured" in page.locator(".al-time-legend").text_content()
            page.screenshot(path=os.path.join(ARTIFACTS, "standalone-graph-by-time.png"))
            # the Profile tab: Gantt bars and the top-N table
            page.locator('.al-tab[data-tab="profile"]').click()
            page.wait_for_selector("rect.al-bar")
            assert page.locator("rect.al-bar").count() == len(payload["profile"]["launches"])
            page.locator("button", has_text="+").click()
            assert page.locator("rect.al-bar").count() < len(payload["profile"]["launches"])
            page.locator("button", has_text="All").click()
            page.screenshot(
                path=os.path.join(ARTIFACTS, "standalone-profile-tab.png"), full_page=True
            )
            # table -> graph: the node is selected and its panel shows the time per call
            page.locator(f'tr.al-prof-row[data-node="{slowest["node"]}"]').click()
            page.wait_for_selector(f'.al-node.al-selected[data-id="{slowest["node"]}"]')
            panel = page.locator('[data-view="graph"] .al-panel').text_content()
            assert "time per call" in panel
            page.screenshot(path=os.path.join(ARTIFACTS, "standalone-table-to-graph.png"))
            assert page.evaluate("window.__alerts") == []
            assert attempts == [] and errors == []
        finally:
            context.close()

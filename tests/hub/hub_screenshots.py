"""Screenshots of ascend-lab under a real hub: a learner's status bar, the instructor's panel.

    .venv/bin/python -m tests.hub.hub_screenshots [OUT_DIR]   (default test-artifacts/hub)

Starts the trial hub (tests/hub/hub_runner.py) with the fake 8-chip machine, two learners
and an instructor, logs each in through the hub's login page in Chromium
(benchmarks/support/browser.py) and saves what their JupyterLab shows. Needs the built
labextension (``cd labextension && ../.venv/bin/jlpm build``).
"""

import os
import sys
import tempfile
import time
from typing import Any, List

from benchmarks.support.browser import chromium
from benchmarks.support.fakes.ascend_machine import make_fake_machine
from tests.hub.hub_runner import INSTRUCTOR_PASSWORD, LEARNER_PASSWORD, REPO, Hub

LEARNERS = ["ann", "bob"]
INSTRUCTOR = "teacher"


def _spawn_all(hub: Hub, names: List[str]) -> List[int]:
    pids = []
    for name in names:
        r = hub.api("POST", f"/users/{name}/server")
        assert r.status_code in (201, 202), r.text
    deadline = time.monotonic() + 150
    pending = set(names)
    while pending and time.monotonic() < deadline:
        for name in sorted(pending):
            server = hub.api("GET", f"/users/{name}").json()["servers"].get("", {})
            if server.get("ready"):
                pending.discard(name)
                pids.append(server["state"]["pid"])
        time.sleep(1)
    if pending:
        raise RuntimeError(f"servers not ready: {sorted(pending)}\n{hub.log_tail()}")
    return pids


def _lab(browser: Any, hub: Hub, name: str, password: str) -> Any:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(hub.url + "/hub/login", wait_until="domcontentloaded", timeout=60000)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", password)
    page.click("input[type=submit], button[type=submit]")
    page.wait_for_url(f"**/user/{name}/lab**", timeout=90000)
    page.wait_for_selector("#ascend-lab-status .jp-AscendLab-status-text", timeout=90000)
    # JupyterLab's "get notified about news?" toast would cover the sidebar
    page.wait_for_timeout(2000)
    no = page.get_by_role("button", name="No", exact=True)
    if no.count():
        no.first.click()
    return context, page


def main(argv: List[str]) -> int:
    from playwright.sync_api import expect

    out = os.path.abspath(argv[0] if argv else os.path.join(REPO, "test-artifacts", "hub"))
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        machine = make_fake_machine(os.path.join(tmp, "machine"))
        hub = Hub(
            tmp,
            machine.environ(),
            {
                "ASCEND_LAB_HUB_PER_CHIP": "2",
                "ASCEND_LAB_HUB_INSTRUCTORS": INSTRUCTOR,
                "ASCEND_LAB_HUB_PROBE_INTERVAL": "3",
            },
        ).start()
        try:
            r = hub.api("POST", "/users", json={"usernames": LEARNERS + [INSTRUCTOR]})
            assert r.status_code == 201, r.text
            _spawn_all(hub, LEARNERS + [INSTRUCTOR])
            with chromium() as browser:
                context, page = _lab(browser, hub, LEARNERS[0], LEARNER_PASSWORD)
                item = page.locator("#ascend-lab-status")
                expect(item.locator(".jp-AscendLab-status-text")).to_contain_text(
                    "NPU 1x910B3", timeout=30000
                )
                page.wait_for_timeout(1500)
                page.locator("#jp-main-statusbar").screenshot(
                    path=os.path.join(out, "learner_statusbar.png")
                )
                item.click()
                panel = page.locator("#ascend-lab-device-panel")
                expect(panel).to_be_visible(timeout=10000)
                page.screenshot(path=os.path.join(out, "learner_lab.png"))
                assert page.locator("#ascend-lab-class-panel").count() == 0
                context.close()

                context, page = _lab(browser, hub, INSTRUCTOR, INSTRUCTOR_PASSWORD)
                tab = page.locator('.jp-SideBar li[data-id="ascend-lab-class-panel"]')
                expect(tab).to_be_visible(timeout=60000)
                tab.click()
                panel = page.locator("#ascend-lab-class-panel")
                expect(panel.locator(".jp-AscendLab-learner")).to_have_count(3, timeout=30000)
                page.wait_for_timeout(1000)
                panel.screenshot(path=os.path.join(out, "instructor_panel.png"))
                page.screenshot(path=os.path.join(out, "instructor_lab.png"))
                context.close()
        finally:
            hub.stop()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

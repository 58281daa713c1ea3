"""The profile in a real JupyterLab (the MIME renderer) and Debian Chromium: a saved
notebook output holding the recorded LeNet5 profile payload. The extension must be built
and installed (see tests/ui/test_lab_ui.py). Screenshots: test-artifacts/profile/.
"""

import json
import os
from pathlib import Path

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import cpu_machine_env
from benchmarks.support.lab import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = ROOT / "tests" / "fixtures" / "profile" / "lenet-profile-payload.json"
ARTIFACTS = ROOT / "test-artifacts" / "profile"
GRAPH_MIME = "application/vnd.ascend-lab.graph+json"


def test_profile_mime_output_in_jupyterlab(tmp_path):
    from playwright.sync_api import expect

    payload = json.loads(PAYLOAD.read_text(encoding="utf-8"))
    slowest = max(payload["profile"]["kernels"], key=lambda k: k["total_us"])
    server = LabServer(tmp_path, cpu_machine_env(tmp_path))
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {},
                "source": ["ascend_lab.profile(net, x)"],
                "outputs": [
                    {
                        "output_type": "execute_result",
                        "execution_count": 1,
                        "metadata": {},
                        "data": {GRAPH_MIME: payload, "text/plain": ["Profile of LeNet5"]},
                    }
                ],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (server.root / "profile.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    server.start()
    try:
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(
                f"{server.url}lab/tree/profile.ipynb?reset&token={server.token}",
                wait_until="domcontentloaded",
                timeout=60000,
            )
            no_kernel = page.locator(".jp-Dialog button", has_text="No Kernel")
            no_kernel.click(timeout=60000)
            viewer = page.locator('.jp-OutputArea-output [data-viewer="ascend-lab"]')
            expect(viewer).to_be_visible(timeout=60000)
            node = viewer.locator(f'.al-node[data-id="{slowest["node"]}"] rect')
            expect(node).to_have_attribute("fill", "hsl(0, 75%, 50%)", timeout=30000)
            expect(viewer.locator(".al-time-legend")).to_contain_text("not measured")
            os.makedirs(ARTIFACTS, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "lab-graph-by-time.png"))
            viewer.locator('.al-tab[data-tab="profile"]').click()
            expect(viewer.locator("rect.al-bar")).to_have_count(len(payload["profile"]["launches"]))
            page.screenshot(path=str(ARTIFACTS / "lab-profile-tab.png"))
            viewer.locator(f'tr.al-prof-row[data-node="{slowest["node"]}"]').click()
            expect(
                viewer.locator(f'.al-node.al-selected[data-id="{slowest["node"]}"]')
            ).to_be_visible(timeout=30000)
            expect(viewer.locator(".al-panel")).to_contain_text("time per call")
            page.screenshot(path=str(ARTIFACTS / "lab-table-to-graph.png"))
            assert errors == []
            context.close()
    finally:
        server.stop()

"""In a real JupyterLab (Debian Chromium): a profiler folder opens from the file browser's
context menu ("Open as ascend-lab profile") on its Profile tab, with no Graph tab, and a
folder of raw PROF_* data shows the analyse command. The extension must be built. The
kernel file is a real one (tests/fixtures/real/profiler/) in the profiler's folder layout.
"""

import os
from pathlib import Path

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import cpu_machine_env
from benchmarks.support.lab import LabServer
from tests.profiling.test_profiler_folders import KERNELS_HCCL, rank_folder

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "profile"


def test_open_as_profile_from_the_context_menu(tmp_path):
    from playwright.sync_api import expect

    server = LabServer(tmp_path, cpu_machine_env(tmp_path))
    rank_folder(server.root / "job", "node_1_20250109_ascend_pt", 0, KERNELS_HCCL)
    rank_folder(server.root / "raw", "node_1_20250109_ascend_pt", 0, analysed=False)
    server.start()
    try:
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.lab_url(), wait_until="domcontentloaded", timeout=60000)
            page.wait_for_selector(".jp-DirListing-item", timeout=60000)

            def open_profile(name):
                item = page.locator(".jp-DirListing-item", has=page.locator(f'text="{name}"'))
                item.click(button="right")
                page.locator(".lm-Menu-item", has_text="Open as ascend-lab profile").click()

            with page.expect_response(lambda r: "/ascend-lab/api/profile" in r.url) as answer:
                open_profile("job")
            assert answer.value.status == 200
            view = page.locator(".jp-AscendLab-graphDocument").last
            expect(view.locator('[data-view="profile"] rect.al-bar').first).to_be_visible(
                timeout=60000
            )
            assert view.locator(".al-tab").count() == 0
            assert view.locator('[data-tab="graph"]').count() == 0
            os.makedirs(ARTIFACTS, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "lab-open-profile-folder.png"))
            open_profile("raw")
            message = page.locator(".jp-AscendLab-graphDocument .jp-AscendLab-error").last
            expect(message).to_contain_text("not analysed yet", timeout=60000)
            expect(message).to_contain_text("torch_npu.profiler.profiler import analyse")
            assert str(server.root) not in message.text_content()
            assert errors == []
            context.close()
    finally:
        server.stop()

"""``ascend-lab view <profiler folder> -o page.html`` in real Chromium (file://, network
blocked): the page opens on the Profile tab with no empty Graph tab, and shows the measured
steps and ranks. The kernel file is a real one (tests/fixtures/real/profiler/), copied into
the profiler's rank-folder layout; the step_trace_time.csv rows are made up (its header is
torch_npu's writer's). Screenshot in test-artifacts/profile/ (looked at, not compared).
"""

import os
import shutil

import pytest

from ascend_lab.viewfile.cli import run
from benchmarks.support.browser import TRAP_SCRIPT, block_network, chromium
from tests.profiling.test_profiler_folders import KERNELS, STEP_HEADER, rank_folder

pytestmark = pytest.mark.browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "profile")


class Args:
    def __init__(self, path, output):
        self.path = path
        self.output = output
        self.serve = False
        self.port = 0
        self.passes = "changed"
        self.weight_stats = False
        self.lang = "en"


def test_a_profiler_folder_page_opens_on_profile(tmp_path):
    job = tmp_path / "job"
    first = rank_folder(job, "node_1_20250109_ascend_ms", 0, KERNELS)
    rank_folder(job, "node_2_20250109_ascend_ms", 1, analysed=False)
    (first / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_text(
        STEP_HEADER + "0,19,3000.5,200.25,100,300.25,50,3250.75,0,200.25,12\n"
    )
    page_path = str(tmp_path / "job.html")
    assert run(Args(str(job), page_path)) == 0
    os.makedirs(ARTIFACTS, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        attempts = block_network(context)
        page = context.new_page()
        page.add_init_script(TRAP_SCRIPT)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"file://{page_path}")
            page.wait_for_selector('[data-view="profile"] rect.al-bar', timeout=30000)
            assert page.locator(".al-tab").count() == 0  # one view: no tab bar
            assert page.locator('[data-tab="graph"]').count() == 0
            assert "laying out" not in page.locator("#ascend-lab-root").inner_text()
            assert page.locator("tr.al-prof-measured-row").count() == 1
            ranks = page.locator(".al-prof-ranks li").all_text_contents()
            assert ranks == ["rank 0 (shown)", "rank 1 \u2014 not analysed yet"]
            assert page.locator("rect.al-bar").count() == 29  # every kernel of the file
            page.screenshot(
                path=os.path.join(ARTIFACTS, "profiler-folder-page.png"), full_page=True
            )
            assert page.evaluate("window.__alerts") == []
            assert attempts == [] and errors == []
        finally:
            context.close()
    shutil.rmtree(job)

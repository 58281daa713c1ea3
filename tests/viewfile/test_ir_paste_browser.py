"""A pasted IR text's page (``ascend-lab view paste.ir -o page.html``) in real Chromium:
the graph is drawn and a banner above it says what the paste lacked."""

from pathlib import Path

import pytest

from ascend_lab.cli import main
from benchmarks.support.browser import TRAP_SCRIPT, block_network, chromium

pytestmark = pytest.mark.browser

PASTED = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "ir_pasted"


def test_pasted_ir_page_draws_the_nodes_under_a_partial_banner(tmp_path):
    out = tmp_path / "page.html"
    assert main(["view", str(PASTED / "recompute_md_validate_elided.ir"), "-o", str(out)]) == 0
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        attempts = block_network(context)
        page = context.new_page()
        page.add_init_script(TRAP_SCRIPT)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"file://{out}")
            page.wait_for_selector('.al-canvas[data-state="ready"]', timeout=20000)
            banner = page.locator('.al-notes[role="note"]').text_content()
            assert banner.startswith("partial IR (pasted text): 2 '...' lines")
            ops = page.locator(".al-node").evaluate_all("els => els.map(e => e.dataset.op)")
            assert ops.count("BatchMatMul") == 2 and "RealDiv" in ops
            page.screenshot(path=str(tmp_path / "pasted.png"))
            assert (attempts, errors) == ([], [])
        finally:
            context.close()

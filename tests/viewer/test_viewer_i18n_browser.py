"""The standalone HTML written under a Chinese locale, in real Chromium from file:// with the
network blocked: the viewer's own labels are Chinese, the payload's names are not touched.
Screenshots: test-artifacts/viewer_standalone_zh_CN_*.png (or ``$ASCEND_LAB_ARTIFACTS``)."""

import os
from pathlib import Path

import pytest

from ascend_lab import i18n
from ascend_lab.render import to_html
from benchmarks.support.browser import block_network, chromium
from benchmarks.support.payloads import course_payload

pytestmark = pytest.mark.browser

ARTIFACTS = Path(
    os.environ.get(
        "ASCEND_LAB_ARTIFACTS", str(Path(__file__).resolve().parents[2] / "test-artifacts")
    )
)


def test_standalone_page_under_zh_shows_chinese_labels(tmp_path):
    with i18n.using("zh"):
        path = to_html(course_payload(), str(tmp_path / "zh.html"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 820}, locale="en-US")
        attempts = block_network(context)
        page = context.new_page()
        errors: list = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"file://{path}")
            page.wait_for_selector('[data-view="graph"] .al-canvas[data-state="ready"]')
            assert page.evaluate("document.documentElement.lang") == "zh-CN"
            tabs = page.locator(".al-tab").all_text_contents()
            assert tabs == ["图", "融合前 / 融合后", "Pass 时间线", "内存"]

            page.locator('.al-tab[data-tab="compare"]').click()
            page.wait_for_selector('[data-pane="after"] .al-canvas[data-state="ready"]')
            before = page.locator('[data-pane="before"] .al-pane-title')
            assert before.evaluate("e => e.firstChild.textContent") == "融合前"
            after = page.locator('[data-pane="after"] .al-pane-title')
            assert after.evaluate("e => e.firstChild.textContent") == "融合后"
            page.locator('[data-pane="after"] .al-node[data-id="k1"]').click()
            panel = page.locator('[data-view="compare"] .al-panel')
            assert panel.locator("td", has_text="融合自").count() == 1
            # names from the payload stay as they are
            assert panel.locator('[data-field="fused kernel"]').text_content() == (
                "Fused_BatchNorm_ReLU_fusion"
            )
            page.screenshot(path=str(ARTIFACTS / "viewer_standalone_zh_CN_compare.png"))

            page.locator('.al-tab[data-tab="timeline"]').click()
            slider = page.locator('[data-view="timeline"] input[type="range"]')
            slider.wait_for()
            assert slider.get_attribute("aria-label") == "编译 Pass"
            assert page.locator(".al-timeline label").text_content() == "跳过未改变图的 Pass"
            page.locator('.al-passlist li[data-pass="2"]').click()
            page.wait_for_selector('[data-view="timeline"] .al-canvas[data-state="ready"]')
            info = page.locator(".al-passinfo").text_content()
            assert "graph_kernel_cluster — 图算融合，Pass 编号 2" in info
            assert "新增 1，删除 1，修改 1" in info
            page.screenshot(path=str(ARTIFACTS / "viewer_standalone_zh_CN_passes.png"))
            assert attempts == [] and errors == []
        finally:
            context.close()

"""The Chinese edition's notebook 03, run in JupyterLab with the zh_CN language pack (real
MindSpore on CPU): the fusion view's labels, the trace's progress line and its summary are
Chinese; so is the Launcher's course card.

Screenshots (``ASCEND_LAB_ARTIFACTS``, default test-artifacts/) in zh/:
nb03_fusion_view_zh_CN.png (融合前 / 融合后 side by side, a fused kernel selected),
nb03_fusion_cell_zh_CN.png (the cell that prints the fused trace's summary),
launcher_zh_CN.png and launcher_card_zh_CN.png.
"""

import os
import re
import shutil
from pathlib import Path

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.lab import LabServer, locale_entry_point_dir

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.mindspore]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("ASCEND_LAB_ARTIFACTS", str(REPO / "test-artifacts"))) / "zh"
NOTEBOOK = "notebooks/zh/03_graph_compilation.ipynb"
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def zh_lab(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab-zh-course")
    env = {
        "PYTHONPATH": os.pathsep.join(
            [str(locale_entry_point_dir(folder / "entry-points")), str(REPO)]
        )
    }
    for name in ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES"):  # the edition decides
        env[name] = ""
    env["LANG"] = "C.UTF-8"
    server = LabServer(
        folder, env, settings={"@jupyterlab/translation-extension/plugin": {"locale": "zh_CN"}}
    )
    shutil.copytree(
        REPO / "notebooks",
        server.root / "notebooks",
        symlinks=True,  # zh/course_nets.py and zh/data point at the English edition's
        ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"),
    )
    server.start()
    yield server
    server.stop()


def _cell_index(start):
    """The index of the notebook's cell that holds the line ``start``."""
    import nbformat

    nb = nbformat.read(str(REPO / NOTEBOOK), as_version=4)
    return next(i for i, c in enumerate(nb.cells) if start in c.source.splitlines())


def test_notebook_03_fusion_view_in_a_chinese_jupyterlab(zh_lab):
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    show_cell = _cell_index('fused.show(view="compare")')
    trace_cell = _cell_index("fused = ascend_lab.trace(net, x, fusion=True)")
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            url = f"{zh_lab.url}lab/tree/{NOTEBOOK}?reset&token={zh_lab.token}"
            page.goto(url, wait_until="domcontentloaded", timeout=60000)
            expect(page.get_by_role("button", name="MindSpore (test) | 空闲")).to_be_visible(
                timeout=120000
            )
            cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
            cells.first.click()
            page.keyboard.press("Escape")
            for _ in range(show_cell + 1):  # run (or pass) each cell up to the fusion view
                page.keyboard.press("Shift+Enter")

            viewer = cells.nth(show_cell).locator(".jp-OutputArea-output .al-root")
            after = viewer.locator('[data-pane="after"] .al-canvas[data-state="ready"]')
            expect(after).to_be_visible(timeout=600000)
            titles = viewer.locator('[data-view="compare"] .al-pane-title')
            expect(titles.first).to_contain_text("融合前")
            expect(titles.nth(1)).to_contain_text("融合后")
            fused = viewer.locator('[data-pane="after"] .al-node[data-op^="Fused_"]').first
            fused.click()
            panel = viewer.locator('[data-view="compare"] .al-panel')
            expect(panel).to_contain_text("融合自")
            viewer.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "nb03_fusion_view_zh_CN.png"))

            # the cell before: the fused trace against the plain one, in Chinese
            printed = cells.nth(trace_cell).locator(".jp-OutputArea")
            expect(printed).to_contain_text("对比：A = 关闭融合，B = 打开融合")
            expect(printed).to_contain_text("个数不同的算子类型：")
            text = printed.inner_text()
            for english in ("Tracing", "Trace of", "Comparison", "matched", "fusion on"):
                assert english not in text, text
            printed.scroll_into_view_if_needed()
            printed.screenshot(path=str(ARTIFACTS / "nb03_fusion_cell_zh_CN.png"))

            # the Launcher: the course card in Chinese
            page.goto(zh_lab.lab_url(), wait_until="domcontentloaded", timeout=60000)
            launcher = page.locator(".jp-Launcher-body")
            expect(launcher).to_be_visible(timeout=60000)
            page.screenshot(path=str(ARTIFACTS / "launcher_zh_CN.png"))
            card = launcher.locator(".jp-LauncherCard", has_text="打开昇腾课程")
            expect(card).to_be_visible(timeout=30000)
            card.scroll_into_view_if_needed()
            card.hover()
            page.screenshot(path=str(ARTIFACTS / "launcher_card_zh_CN.png"))
            assert HAN.search(launcher.inner_text())
            assert errors == []
        finally:
            context.close()

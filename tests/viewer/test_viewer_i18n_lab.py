"""JupyterLab with the zh_CN language pack: the viewer in a notebook output (MIME renderer)
and a .ir file opened as a document take their labels from JupyterLab's translator. The
extension must be built. Screenshots: test-artifacts/viewer_lab_zh_CN_*.png."""

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import cpu_machine_env
from benchmarks.support.lab import LabServer, locale_entry_point_dir
from benchmarks.support.payloads import course_payload
from tests.support.ir_fixtures import FIXTURES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GRAPH_MIME = "application/vnd.ascend-lab.graph+json"
ARTIFACTS = Path(
    os.environ.get(
        "ASCEND_LAB_ARTIFACTS", str(Path(__file__).resolve().parents[2] / "test-artifacts")
    )
)


@pytest.fixture(scope="module")
def zh_lab(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab-zh-viewer")
    env = cpu_machine_env(folder)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(locale_entry_point_dir(folder / "entry-points")), os.environ.get("PYTHONPATH", "")]
    )
    server = LabServer(
        folder, env, settings={"@jupyterlab/translation-extension/plugin": {"locale": "zh_CN"}}
    )
    output = {
        "output_type": "execute_result",
        "execution_count": 1,
        "metadata": {},
        "data": {GRAPH_MIME: course_payload(), "text/plain": ["<Trace>"]},
    }
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {},
                "source": ["trace"],
                "outputs": [output],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (server.root / "fusion.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    shutil.copy(FIXTURES / "lenet" / "graph_build_0_0094.ir", server.root / "lenet.ir")
    server.start()
    yield server
    server.stop()


def test_viewer_labels_follow_jupyterlab_display_language(zh_lab):
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        errors: list = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            url = zh_lab.url + "lab/tree/fusion.ipynb?reset&token=" + zh_lab.token
            page.goto(url, wait_until="domcontentloaded", timeout=60000)
            # the notebook names no kernel: answer JupyterLab's kernel dialog with "no kernel"
            page.locator(".jp-Dialog .jp-mod-reject").click(timeout=60000)
            viewer = page.locator(".jp-AscendLab-graph .al-root").first
            expect(viewer).to_be_visible(timeout=60000)
            expect(viewer.locator(".al-tab")).to_have_text(
                ["图", "融合前 / 融合后", "Pass 时间线", "内存"]
            )
            viewer.locator('.al-tab[data-tab="compare"]').click()
            titles = viewer.locator('[data-view="compare"] .al-pane-title')
            expect(titles.first).to_contain_text("融合前")
            expect(titles.nth(1)).to_contain_text("融合后")
            after = viewer.locator('[data-pane="after"] .al-node[data-id="k1"]')
            expect(after).to_be_visible(timeout=30000)
            after.click()
            panel = viewer.locator('[data-view="compare"] .al-panel')
            expect(panel).to_contain_text("融合自")
            expect(panel.locator('[data-field="fused kernel"]')).to_have_text(
                "Fused_BatchNorm_ReLU_fusion"
            )
            page.screenshot(path=str(ARTIFACTS / "viewer_lab_zh_CN_fusion.png"))

            # a .ir file opened as a document (Open With -> the viewer)
            url = zh_lab.url + "lab/tree/lenet.ir?reset&token=" + zh_lab.token
            page.goto(url, wait_until="domcontentloaded", timeout=60000)
            doc = page.locator(".jp-AscendLab-graphWidget")
            expect(doc.locator('svg .al-node[data-op="ReLU"]').first).to_be_visible(timeout=60000)
            expect(doc.locator('input[type="search"]')).to_have_attribute(
                "placeholder", "搜索算子、作用域、名称"
            )
            expect(doc.locator(".al-panel")).to_contain_text("单击节点")
            page.screenshot(path=str(ARTIFACTS / "viewer_lab_zh_CN_document.png"))
            assert errors == []
        finally:
            context.close()

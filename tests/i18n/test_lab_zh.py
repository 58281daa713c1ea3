"""JupyterLab in zh_CN: the status panel, and a doctor finding run in a notebook's kernel.

Screenshots go to test-artifacts/ (``ASCEND_LAB_ARTIFACTS``): i18n_status_panel_zh_CN.png,
i18n_doctor_finding_zh_CN.png.
"""

import json
import os
from pathlib import Path

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import make_fake_machine
from benchmarks.support.lab import LabServer, locale_entry_point_dir

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(
    os.environ.get(
        "ASCEND_LAB_ARTIFACTS", str(Path(__file__).resolve().parents[2] / "test-artifacts")
    )
)
BUSY = "dcmi model initialized failed, because the device is used. ret is -8020"


@pytest.fixture(scope="module")
def zh_lab(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab-zh-i18n")
    env = make_fake_machine(folder / "machine")
    env.pop("CALLS", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(locale_entry_point_dir(folder / "entry-points")), os.environ.get("PYTHONPATH", "")]
    )
    env.pop("ASCEND_LAB_LANG", None)  # the notebook says --lang zh itself
    server = LabServer(
        folder, env, settings={"@jupyterlab/translation-extension/plugin": {"locale": "zh_CN"}}
    )
    doctor = ["%load_ext ascend_lab\n", f'%ascend_doctor --lang zh "{BUSY}"']
    status = ["%ascend_status --lang zh"]
    nb = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": doctor, "outputs": []},
            {"cell_type": "code", "metadata": {}, "source": status, "outputs": []},
        ],
        "metadata": {"kernelspec": {"name": "mindspore", "display_name": "MindSpore (test)"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (server.root / "doctor.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    server.start()
    yield server
    server.stop()


def test_status_api_and_doctor_in_a_chinese_jupyterlab(zh_lab):
    from playwright.sync_api import expect

    # what the front end gets when it passes JupyterLab's language
    status = zh_lab.get_json("ascend-lab/api/status?lang=zh_CN")
    assert status["display"]["reason"] == "npu-smi 找到 8 个 NPU 芯片"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        try:
            page.goto(zh_lab.lab_url(), wait_until="domcontentloaded", timeout=60000)
            item = page.locator("#ascend-lab-status")
            expect(item).to_be_visible(timeout=60000)
            item.click()
            panel = page.locator("#ascend-lab-device-panel")
            expect(panel.locator(".jp-AscendLab-chip")).to_have_count(8, timeout=30000)
            expect(panel.locator('[data-action="copy"]')).to_have_text("复制为文本")
            page.screenshot(path=str(ARTIFACTS / "i18n_status_panel_zh_CN.png"))

            url = zh_lab.url + "lab/tree/doctor.ipynb?token=" + zh_lab.token
            page.goto(url, wait_until="domcontentloaded", timeout=60000)
            cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").first
            expect(cell).to_be_visible(timeout=60000)
            # the kernel is up (status bar, in Chinese: "idle" is 空闲)
            expect(page.get_by_role("button", name="MindSpore (test) | 空闲")).to_be_visible(
                timeout=60000
            )
            cell.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")
            finding = page.locator(".ascend-doctor-finding").first
            expect(finding).to_be_visible(timeout=120000)
            expect(finding).to_contain_text("NPU 已被其他进程或容器占用")
            expect(finding).to_contain_text("原因：")
            expect(finding).to_contain_text("解决方法：")
            expect(finding).to_contain_text("设备被占用（device occupied）")
            page.screenshot(path=str(ARTIFACTS / "i18n_doctor_finding_zh_CN.png"))
            finding.screenshot(path=str(ARTIFACTS / "i18n_doctor_finding_zh_CN_card.png"))

            page.keyboard.press("Shift+Enter")  # the second cell: %ascend_status --lang zh
            card = page.locator(".ascend-lab-status").first
            expect(card).to_be_visible(timeout=120000)
            expect(card).to_contain_text("npu-smi 找到 8 个 NPU 芯片")
            expect(card).to_contain_text("警告（请按此顺序处理）")
            expect(card).to_contain_text("尚未 source CANN 的 set_env.sh")
            card.scroll_into_view_if_needed()
            card.screenshot(path=str(ARTIFACTS / "i18n_status_card_zh_CN.png"))
        finally:
            context.close()

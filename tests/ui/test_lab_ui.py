"""End to end: the ascend-lab extension in a real JupyterLab and Debian Chromium.

The extension must be built and installed into the venv (``pip install -e .`` and
``jupyter labextension develop --overwrite .``). Screenshots go to ``test-artifacts/``
(or ``$ASCEND_LAB_ARTIFACTS``).
"""

import json
import os
from pathlib import Path
from typing import Iterator, List

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import (
    cpu_machine_env,
    info_with_process_name,
    make_fake_machine,
)
from benchmarks.support.lab import (
    LabServer,
    locale_entry_point_dir,
    write_notebook,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

XSS_NAME = "<img src=x onerror=alert(1)>"
GRAPH_MIME = "application/vnd.ascend-lab.graph+json"
ARTIFACTS = Path(
    os.environ.get(
        "ASCEND_LAB_ARTIFACTS", str(Path(__file__).resolve().parents[2] / "test-artifacts")
    )
)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def ascend_lab_server(tmp_path_factory) -> Iterator[LabServer]:
    folder = tmp_path_factory.mktemp("lab-ascend")
    env = make_fake_machine(folder / "machine", info_with_process_name(XSS_NAME))
    env.pop("CALLS")
    server = LabServer(folder, env)
    write_notebook(server.root / "notebooks" / "00_welcome.ipynb", "Welcome to the course")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def cpu_lab_server(tmp_path_factory) -> Iterator[LabServer]:
    """CPU mode, JupyterLab Dark theme, and a notebook holding a graph payload output."""
    from benchmarks.support.payloads import course_payload

    folder = tmp_path_factory.mktemp("lab-cpu")
    env = cpu_machine_env(folder)
    # the course lives outside the server root: the launcher must say so, not fail
    env["ASCEND_LAB_COURSE_DIR"] = str(folder / "elsewhere" / "course")
    write_notebook(folder / "elsewhere" / "course" / "00_welcome.ipynb")
    server = LabServer(
        folder,
        env,
        settings={"@jupyterlab/apputils-extension/themes": {"theme": "JupyterLab Dark"}},
    )
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {},
                "source": ["trace"],
                "outputs": [
                    {
                        "output_type": "execute_result",
                        "execution_count": 1,
                        "metadata": {},
                        "data": {
                            GRAPH_MIME: course_payload(),
                            "text/plain": ["<Trace: no widget state>"],
                        },
                    }
                ],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (server.root / "graph.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    server.start()
    yield server
    server.stop()


def _open_lab(browser, server: LabServer, dialogs: List[str]):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(server.lab_url(), wait_until="domcontentloaded", timeout=60000)
    page.wait_for_selector("#ascend-lab-status", timeout=60000)
    return context, page


def test_status_item_panel_and_course_on_fake_910b3(browser, ascend_lab_server):
    from playwright.sync_api import expect

    # the server side sees the fake machine (and answers under the base URL)
    status = ascend_lab_server.get_json("ascend-lab/api/status")
    assert status["summary"] == "NPU 8x910B3 · HBM 12% · OK"

    dialogs: List[str] = []
    context, page = _open_lab(browser, ascend_lab_server, dialogs)
    try:
        item = page.locator("#ascend-lab-status")
        expect(item.locator(".jp-AscendLab-status-text")).to_have_text(
            "NPU 8x910B3 · HBM 12% · OK", timeout=30000
        )
        expect(item.locator(".jp-AscendLab-status-mark")).to_be_hidden()
        _shot(page, "ui_status_910b3.png")

        item.click()
        panel = page.locator("#ascend-lab-device-panel")
        expect(panel).to_be_visible(timeout=10000)
        expect(panel.locator(".jp-AscendLab-chip")).to_have_count(8)
        expect(panel.locator(".jp-AscendLab-chip-name").first).to_have_text("NPU 0 · 910B3")
        expect(panel.locator(".jp-AscendLab-chip-mem").nth(2)).to_have_text(
            "41052 / 65536 MB HBM (63%)"
        )
        processes = panel.locator(".jp-AscendLab-process")
        expect(processes).to_have_count(1)
        expect(processes.locator(".jp-AscendLab-process-pid")).to_have_text("PID 1333928")
        expect(processes.locator(".jp-AscendLab-process-device")).to_have_text("NPU 2 · chip 0")
        name = processes.locator(".jp-AscendLab-process-name")
        expect(name).to_have_text(XSS_NAME)  # shown as text ...
        assert panel.locator("img").count() == 0  # ... never parsed as HTML
        expect(panel.locator(".jp-AscendLab-versions")).to_contain_text("8.3.RC2")
        _shot(page, "ui_panel_910b3.png")
        name.scroll_into_view_if_needed()
        panel.screenshot(path=str(ARTIFACTS / "ui_panel_910b3_processes.png"))

        # copy as text and refresh work without errors
        panel.locator('[data-action="refresh"]').click()
        expect(panel.locator(".jp-AscendLab-chip")).to_have_count(8)

        # the launcher card opens the course's first notebook with the MindSpore kernel
        card = page.locator(".jp-LauncherCard", has_text="Open the Ascend course")
        expect(card).to_be_visible(timeout=20000)
        _shot(page, "ui_launcher.png")
        card.click()
        tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="00_welcome.ipynb")
        expect(tab).to_be_visible(timeout=30000)
        expect(page.locator(".jp-Notebook .jp-MarkdownOutput h1").first).to_contain_text(
            "Welcome to the course", timeout=30000
        )
        expect(
            page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-kernelName")
        ).to_contain_text("MindSpore (test)", timeout=30000)
        _shot(page, "ui_course_opened.png")
        assert dialogs == [], dialogs  # no alert() from the process name
    finally:
        context.close()


def test_status_item_in_cpu_mode(browser, cpu_lab_server):
    from playwright.sync_api import expect

    dialogs: List[str] = []
    context, page = _open_lab(browser, cpu_lab_server, dialogs)
    try:
        item = page.locator("#ascend-lab-status")
        expect(item.locator(".jp-AscendLab-status-text")).to_have_text("CPU mode", timeout=30000)
        expect(item.locator(".jp-AscendLab-status-mark")).to_be_hidden()
        assert "npu-smi not found" in (item.get_attribute("title") or "")
        item.click()
        panel = page.locator("#ascend-lab-device-panel")
        expect(panel.locator(".jp-AscendLab-cpu")).to_contain_text("MindSpore runs on the CPU")
        expect(panel.locator(".jp-AscendLab-chip")).to_have_count(0)
        _shot(page, "ui_cpu_mode_dark.png")

        card = page.locator(".jp-LauncherCard", has_text="Open the Ascend course")
        try:  # the launcher a fresh lab opens; a second one opened meanwhile shows it twice
            expect(card.first).to_be_visible(timeout=15000)
        except AssertionError:
            page.locator(".jp-FileBrowser-toolbar .jp-ToolbarButtonComponent").first.click()
        card.first.click(timeout=20000)
        dialog = page.locator(".jp-Dialog")
        expect(dialog).to_contain_text("outside the Jupyter server's root", timeout=20000)
        expect(dialog).to_contain_text(str(cpu_lab_server.folder / "elsewhere" / "course"))
        _shot(page, "ui_course_outside_root.png")
        dialog.locator("button", has_text="Ok").click()
        expect(
            page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=".ipynb")
        ).to_have_count(0)
        assert dialogs == []
    finally:
        context.close()


def test_graph_mime_renderer_in_a_notebook(browser, cpu_lab_server):
    """A saved trace output (no widget state) renders with the viewer in JupyterLab."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        page.goto(
            f"{cpu_lab_server.url}lab/tree/graph.ipynb?reset&token={cpu_lab_server.token}",
            wait_until="domcontentloaded",
            timeout=60000,
        )
        output = page.locator(".jp-OutputArea-output.jp-AscendLab-graph")
        expect(output).to_be_visible(timeout=60000)
        viewer = output.locator('[data-viewer="ascend-lab"]')
        expect(viewer).to_be_visible(timeout=30000)
        expect(viewer).to_contain_text("Conv2d + BN + ReLU (synthetic)")
        expect(viewer.locator("svg .al-node").first).to_be_visible(timeout=30000)
        no_kernel = page.locator(".jp-Dialog button", has_text="No Kernel")
        no_kernel.click(timeout=30000)  # the notebook names no kernel: keep it that way
        expect(page.locator(".jp-Dialog")).to_have_count(0)
        _shot(page, "ui_graph_mime_dark.png")
    finally:
        context.close()


@pytest.fixture(scope="module")
def zh_cn_lab_server(tmp_path_factory) -> Iterator[LabServer]:
    folder = tmp_path_factory.mktemp("lab-zh")
    env = cpu_machine_env(folder)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(locale_entry_point_dir(folder / "entry-points")), os.environ.get("PYTHONPATH", "")]
    )
    server = LabServer(
        folder,
        env,
        settings={"@jupyterlab/translation-extension/plugin": {"locale": "zh_CN"}},
    )
    server.start()
    yield server
    server.stop()


def test_status_item_in_chinese(browser, zh_cn_lab_server):
    """With JupyterLab in zh_CN (language pack installed), our strings come from
    ascend_lab/locale/zh_CN/LC_MESSAGES/ascend_lab.json through translator.load()."""
    from playwright.sync_api import expect

    dialogs: List[str] = []
    context, page = _open_lab(browser, zh_cn_lab_server, dialogs)
    try:
        item = page.locator("#ascend-lab-status")
        expect(item.locator(".jp-AscendLab-status-text")).to_have_text("CPU 模式", timeout=30000)
        item.click()
        panel = page.locator("#ascend-lab-device-panel")
        expect(panel.locator('[data-action="copy"]')).to_have_text("复制为文本")
        expect(panel.locator(".jp-AscendLab-cpu")).to_contain_text("MindSpore 在 CPU 上运行")
        _shot(page, "ui_cpu_mode_zh_CN.png")
    finally:
        context.close()

"""In a real JupyterLab (Debian Chromium): a .mindir and a .ir file open in the ascend-lab
viewer by double-click from the file browser, a dump folder from its context menu, and a
corrupt file shows the reason in the document. The extension must be built."""

import os
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from benchmarks.support.browser import chromium
from benchmarks.support.fake_machine import cpu_machine_env
from benchmarks.support.lab import LabServer
from tests.support.ir_fixtures import FIXTURES

pytestmark = pytest.mark.browser

LENET = FIXTURES / "lenet"
ARTIFACTS = Path(
    os.environ.get(
        "ASCEND_LAB_ARTIFACTS", str(Path(__file__).resolve().parents[2] / "test-artifacts")
    )
)


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[LabServer]:
    folder = tmp_path_factory.mktemp("lab-graph-files")
    server = LabServer(folder, cpu_machine_env(folder))
    shutil.copy(LENET / "lenet.mindir", server.root / "lenet.mindir")
    shutil.copy(LENET / "graph_build_0_0094.ir", server.root / "graph_build_0_0094.ir")
    shutil.copytree(LENET, server.root / "lenet_dumps")
    (server.root / "broken.mindir").write_bytes((LENET / "lenet.mindir").read_bytes()[:300])
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser, lab):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(lab.lab_url(), wait_until="domcontentloaded", timeout=60000)
    page.wait_for_selector(".jp-DirListing-item", timeout=60000)
    yield page
    context.close()
    assert errors == []


def _item(page, name):
    return page.locator(".jp-DirListing-item", has=page.locator(f'text="{name}"'))


def _shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


@pytest.mark.parametrize(
    "name, op", [("lenet.mindir", "MatMul"), ("graph_build_0_0094.ir", "ReLU")]
)
def test_double_click_opens_the_viewer(page, name, op):
    from playwright.sync_api import expect

    _item(page, name).dblclick()
    doc = page.locator(".jp-AscendLab-graphWidget")
    expect(doc).to_be_visible(timeout=60000)
    node = doc.locator(f'svg .al-node[data-op="{op}"]').first
    expect(node).to_be_visible(timeout=60000)
    # the tab is the file, opened with this viewer
    expect(page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")).to_contain_text(name)
    _shot(page, f"lab_open_{name}.png")


def test_open_with_lists_the_viewer(page):
    from playwright.sync_api import expect

    _item(page, "graph_build_0_0094.ir").click(button="right")
    page.locator(".lm-Menu-item", has_text="Open With").hover()
    entry = page.locator(".lm-Menu-item", has_text="ascend-lab graph")
    expect(entry.first).to_be_visible(timeout=10000)
    entry.first.click()
    expect(page.locator(".jp-AscendLab-graphWidget svg .al-node").first).to_be_visible(
        timeout=60000
    )


def test_dump_folder_opens_from_the_context_menu(page):
    from playwright.sync_api import expect

    _item(page, "lenet_dumps").click(button="right")
    page.locator(".lm-Menu-item", has_text="Open as ascend-lab graph").click()
    view = page.locator(".jp-AscendLab-graphDocument")
    expect(view.locator('svg .al-node[data-op="Conv2D"]').first).to_be_visible(timeout=60000)
    # a folder is the whole pipeline: the passes view is there
    expect(view.locator(".al-tab", has_text="Passes")).to_be_visible()
    expect(page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")).to_contain_text(
        "lenet_dumps"
    )
    _shot(page, "lab_open_dump_folder.png")
    # a pass that is not a main view is asked of the server when it is opened
    view.locator(".al-tab", has_text="Passes").click()
    timeline = view.locator('[data-view="timeline"]')
    with page.expect_response(lambda r: "/ascend-lab/api/graph/pass" in r.url) as answer:
        timeline.locator(".al-passlist li[data-pass]").filter(
            has_text="opt_pass_2_opt_a"
        ).first.click()
    assert answer.value.status == 200
    expect(timeline.locator(".al-node").first).to_be_visible(timeout=60000)
    expect(timeline.locator(".al-passinfo")).not_to_contain_text("not included")


def test_corrupt_file_shows_the_reason_in_the_document(page):
    from playwright.sync_api import expect

    _item(page, "broken.mindir").dblclick()
    message = page.locator(".jp-AscendLab-graphWidget .jp-AscendLab-error")
    expect(message).to_be_visible(timeout=60000)
    expect(message).to_contain_text("corrupt or truncated MindIR")
    expect(message).to_contain_text("broken.mindir")
    _shot(page, "lab_open_corrupt.png")

"""The viewer's labels follow the Python side's language where JupyterLab cannot tell it:
the standalone HTML (``<html lang>``, the catalogue inside the inlined script) and the
anywidget (the ``lang`` trait, the catalogue inside viewer.js)."""

import json
import re
from pathlib import Path

from ascend_lab import i18n
from ascend_lab.render import to_html
from ascend_lab.render.assets import read_bundle
from ascend_lab.render.standalone import page_language, render_html, script_hash
from benchmarks.support.payloads import course_payload

CATALOGUE = (
    Path(__file__).resolve().parents[2]
    / "ascend_lab"
    / "locale"
    / "zh_CN"
    / "LC_MESSAGES"
    / "ascend_lab.json"
)

# viewer labels and their Chinese, as the shipped catalogue has them
VIEWER_LABELS = {
    "Before fusion": "融合前",
    "After fusion": "融合后",
    "Compile pass": "编译 Pass",
    "Node details": "节点详细信息",
}


def _html_lang(page: str) -> str:
    m = re.search(r'<html lang="([^"]*)">', page)
    assert m, "no <html lang>"
    return m.group(1)


def _module(page: str) -> str:
    m = re.search(r'<script type="module">(.*?)</script>', page, re.S)
    assert m, "no module script"
    return m.group(1)


def _strings(code: str) -> str:
    """The bundle with its ``\\uXXXX`` escapes read (esbuild writes ASCII-only bundles)."""
    return re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), code)


def test_the_shipped_catalogue_has_the_viewer_labels():
    shipped = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    for msgid, zh in VIEWER_LABELS.items():
        assert shipped[msgid] == [zh]


def test_to_html_under_zh_writes_a_chinese_page(tmp_path):
    with i18n.using("zh"):
        path = to_html(course_payload(), str(tmp_path / "zh.html"))
    page = Path(path).read_text(encoding="utf-8")
    assert _html_lang(page) == "zh-CN"
    module = _module(page)
    # the translations travel inside the one inlined script, which the CSP still allows
    strings = _strings(module)
    for msgid, zh in VIEWER_LABELS.items():
        assert f'"{msgid}":"{zh}"' in strings, msgid
    assert f"script-src '{script_hash(module)}'" in page
    assert page.count("<script") == 2  # no extra catalogue script: nothing else to allow


def test_the_page_language_follows_the_environment(monkeypatch):
    monkeypatch.setenv("ASCEND_LAB_LANG", "zh_CN.UTF-8")
    assert _html_lang(render_html(course_payload())) == "zh-CN"
    monkeypatch.setenv("ASCEND_LAB_LANG", "en_US.UTF-8")
    assert _html_lang(render_html(course_payload())) == "en"
    # an explicit lang wins over the environment
    assert _html_lang(render_html(course_payload(), lang="zh")) == "zh-CN"
    monkeypatch.setenv("ASCEND_LAB_LANG", "zh")
    assert _html_lang(render_html(course_payload(), lang="en")) == "en"


def test_an_unknown_language_gives_an_english_page():
    assert page_language("fr_FR") == "en"
    assert page_language("zh-TW") == "zh-CN"  # the one Chinese catalogue there is
    page = render_html(course_payload(), lang="xx")
    assert _html_lang(page) == "en"


def test_the_widget_bundle_carries_the_catalogue_and_the_widget_its_language():
    from ascend_lab.render.widgets import TraceView

    bundle = _strings(read_bundle("viewer.js"))
    for msgid, zh in VIEWER_LABELS.items():
        assert f'"{msgid}":"{zh}"' in bundle, msgid
    assert TraceView(course_payload(), lang="zh").lang == "zh-CN"
    with i18n.using("zh"):
        assert TraceView(course_payload()).lang == "zh-CN"
    with i18n.using("en"):
        assert TraceView(course_payload()).lang == "en"

"""``ascend-lab view --lang zh|en``: the page's viewer language, the command's messages, the
error page and ``--help`` in the chosen language (else $ASCEND_LAB_LANG, else the locale)."""

import re

import pytest

from ascend_lab.cli import main
from tests.support.ir_fixtures import FIXTURES

KERNEL_IR = FIXTURES / "lenet" / "graph_build_0_0094.ir"
HAN = re.compile(r"[\u4e00-\u9fff]")
HTML_LANG = re.compile(r'<html lang="([^"]*)"')


@pytest.fixture(autouse=True)
def _english_locale(monkeypatch):
    for name in ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


def _page_language(path):
    return HTML_LANG.search(path.read_text(encoding="utf-8")).group(1)


@pytest.mark.parametrize(
    "flag, tag, wrote", [(["--lang", "zh"], "zh-CN", "已写出 "), (["--lang=en"], "en", "Wrote ")]
)
def test_lang_sets_the_pages_viewer_language_and_the_messages(tmp_path, capsys, flag, tag, wrote):
    out = tmp_path / "page.html"
    assert main(["view", str(KERNEL_IR), "-o", str(out), *flag]) == 0
    assert _page_language(out) == tag
    assert "ascend-lab.graph/1" in out.read_text(encoding="utf-8")
    assert capsys.readouterr().out == f"{wrote}{out}\n"


def test_lang_defaults_to_ascend_lab_lang_then_english(tmp_path, capsys, monkeypatch):
    out = tmp_path / "page.html"
    assert main(["view", str(KERNEL_IR), "-o", str(out)]) == 0
    assert _page_language(out) == "en"
    monkeypatch.setenv("ASCEND_LAB_LANG", "zh_CN")
    assert main(["view", str(KERNEL_IR), "-o", str(out)]) == 0
    assert _page_language(out) == "zh-CN"
    assert main(["view", str(KERNEL_IR), "-o", str(out), "--lang", "en"]) == 0  # flag wins
    assert _page_language(out) == "en"
    assert capsys.readouterr().out.splitlines() == [f"Wrote {out}", f"已写出 {out}", f"Wrote {out}"]


def test_lang_zh_error_message_and_error_page(tmp_path, capsys):
    missing = tmp_path / "<b>gone.ir"
    en_page, zh_page = tmp_path / "en.html", tmp_path / "zh.html"
    assert main(["view", str(missing), "-o", str(en_page), "--lang", "en"]) == 2
    assert main(["view", str(missing), "-o", str(zh_page), "--lang", "zh"]) == 2
    captured = capsys.readouterr()
    en_err, zh_err = captured.err.splitlines()
    assert en_err == f"ascend-lab view: {missing}: no such file or folder"
    assert zh_err == f"ascend-lab view：{missing}：文件或文件夹不存在"  # the same path
    assert captured.out.splitlines() == [
        f"Wrote an error page to {en_page}",
        f"已写出错误页面：{zh_page}",
    ]
    page = zh_page.read_text(encoding="utf-8")
    assert _page_language(zh_page) == "zh-CN"
    assert "<title>ascend-lab 无法显示 &lt;b&gt;gone.ir</title>" in page
    assert "文件或文件夹不存在" in page and "<b>" not in page
    assert "<code>.mindir</code> 文件、<code>.ir</code> 文件" in page
    assert "cannot show" in en_page.read_text(encoding="utf-8")
    assert _page_language(en_page) == "en"


def test_lang_zh_for_a_folder_without_dumps_and_weight_stats_note(tmp_path, capsys):
    assert main(["view", str(tmp_path), "--lang", "zh"]) == 2
    assert capsys.readouterr().err == (
        f"ascend-lab view：{tmp_path}：此文件夹中没有 MindSpore IR dump（.ir 文件）\n"
    )
    out = tmp_path / "p.html"
    assert main(["view", str(KERNEL_IR), "-o", str(out), "--weight-stats", "--lang", "zh"]) == 0
    assert (
        "ascend-lab view：已忽略 --weight-stats（只有 .mindir 含有权重）" in capsys.readouterr().err
    )


def test_view_help_in_chinese_with_lang(capsys):
    with pytest.raises(SystemExit) as done:
        main(["view", "--help", "--lang", "zh"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "页面标签和本命令输出信息的语言：en 或 zh" in text
    assert "--lang LANG" in text and "--weight-stats" in text and text.startswith("用法：")
    with pytest.raises(SystemExit):
        main(["view", "--help", "--lang", "en"])
    english = capsys.readouterr().out
    assert "language of the page's labels" in english and not HAN.search(english)


def test_an_unknown_lang_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["view", str(KERNEL_IR), "--lang", "klingon"])
    assert done.value.code == 2
    assert "argument --lang: unknown language 'klingon': use zh or en" in capsys.readouterr().err


def test_lang_zh_weight_statistics_progress(tmp_path, capsys):
    out = tmp_path / "lenet.html"
    mindir = FIXTURES / "lenet" / "lenet.mindir"
    assert main(["view", str(mindir), "-o", str(out), "--weight-stats", "--lang", "zh"]) == 0
    err = capsys.readouterr().err
    assert "权重统计：1/8\n" in err and "权重统计：8/8\n" in err  # the same counts
    assert "weight statistics" not in err and _page_language(out) == "zh-CN"

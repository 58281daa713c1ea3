"""``GET ascend-lab/api/course?lang=``: the Launcher card opens the learner's edition."""

import json
from pathlib import Path

from ascend_lab.server.course_locator import NO_CHINESE_EDITION, locate_course

NB = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _notebook(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(NB))
    return path


def _both_editions(folder: Path):
    return (
        _notebook(folder / "00_stack_and_machine.ipynb"),
        _notebook(folder / "zh" / "00_stack_and_machine.ipynb"),
    )


def test_lang_picks_the_edition(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    english, chinese = _both_editions(tmp_path / "notebooks")
    for lang in ("zh", "zh-CN", "zh_CN", "zh_TW.UTF-8"):
        data = locate_course("", str(tmp_path), ["mindspore"], lang)
        assert data["path"] == "notebooks/zh/00_stack_and_machine.ipynb", lang
        assert (data["lang"], data["message"]) == ("zh", "")
        assert data["absolute"] == str(chinese)
    for lang in ("en", "en-US", None, "", "fr", "x" * 5000):
        data = locate_course("", str(tmp_path), ["mindspore"], lang)
        assert data["path"] == "notebooks/00_stack_and_machine.ipynb", lang
        assert data["lang"] == "en" and data["absolute"] == str(english)


def test_chinese_asked_english_only_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _notebook(tmp_path / "notebooks" / "00_stack_and_machine.ipynb")
    data = locate_course("", str(tmp_path), [], "zh-CN")
    assert data["path"] == "notebooks/00_stack_and_machine.ipynb"
    assert data["lang"] == "en"
    assert data["message"].startswith(NO_CHINESE_EDITION)
    assert "ascend-lab install-kernel" in data["message"]  # the kernel hint is kept


def test_the_chinese_edition_in_a_later_folder_beats_english_in_an_earlier_one(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _notebook(tmp_path / "00_mine.ipynb")  # the root itself: English only
    _both_editions(tmp_path / "notebooks")
    assert locate_course("", str(tmp_path), [], "zh")["path"] == (
        "notebooks/zh/00_stack_and_machine.ipynb"
    )
    assert locate_course("", str(tmp_path), [], "en")["path"] == "00_mine.ipynb"


def test_root_is_the_zh_folder_itself(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _both_editions(tmp_path / "course")
    data = locate_course("", str(tmp_path / "course" / "zh"), [], "en")
    # only the Chinese edition is under this root; it is what the server can open
    assert data["path"] == "00_stack_and_machine.ipynb" and data["lang"] == "zh"


def test_outside_the_root_names_the_edition(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "root"
    root.mkdir()
    _english, chinese = _both_editions(tmp_path / "course")
    data = locate_course(str(tmp_path / "course"), str(root), [], "zh")
    assert data["path"] is None and data["lang"] == "zh"
    assert data["absolute"] == str(chinese)
    assert "outside the Jupyter server's root" in data["message"]


async def test_course_api_takes_lang(jp_fetch, jp_root_dir, monkeypatch):
    monkeypatch.delenv("ASCEND_LAB_COURSE_DIR", raising=False)
    _both_editions(jp_root_dir / "notebooks")
    response = await jp_fetch("ascend-lab", "api", "course", params={"lang": "zh-CN"})
    data = json.loads(response.body)
    assert (data["path"], data["lang"]) == ("notebooks/zh/00_stack_and_machine.ipynb", "zh")
    response = await jp_fetch("ascend-lab", "api", "course", params={"lang": "en"})
    assert json.loads(response.body)["path"] == "notebooks/00_stack_and_machine.ipynb"
    # no ?lang=: the browser's Accept-Language
    response = await jp_fetch(
        "ascend-lab", "api", "course", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}
    )
    assert json.loads(response.body)["lang"] == "zh"
    response = await jp_fetch("ascend-lab", "api", "course")
    assert json.loads(response.body)["lang"] == "en"

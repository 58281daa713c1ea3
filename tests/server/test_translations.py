"""The zh_CN translation of the extension: consistent files, in the place and format
JupyterLab's translation service reads (``jupyterlab.locale`` entry point)."""

import json
import re
import sys
from pathlib import Path

from jupyterlab_server import translation_utils

from scripts.locale_files import parse_po, po_to_jed

PACKAGE = Path(__file__).resolve().parents[2] / "ascend_lab"
MESSAGES = PACKAGE / "locale" / "zh_CN" / "LC_MESSAGES"


def test_json_is_generated_from_the_po_file():
    po = (MESSAGES / "ascend_lab.po").read_text(encoding="utf-8")
    shipped = json.loads((MESSAGES / "ascend_lab.json").read_text(encoding="utf-8"))
    assert shipped == po_to_jed(po, "ascend_lab")
    assert shipped[""]["language"] == "zh-CN"  # what @jupyterlab/translation looks up
    assert shipped[""]["domain"] == "ascend_lab"
    assert shipped["CPU mode"] == ["CPU 模式"]


def test_every_message_is_translated_with_the_same_placeholders():
    _, messages = parse_po((MESSAGES / "ascend_lab.po").read_text(encoding="utf-8"))
    assert len(messages) >= 50
    for msgid, msgstr in messages:
        assert msgstr, msgid
        assert sorted(re.findall(r"%\d", msgid)) == sorted(re.findall(r"%\d", msgstr)), msgid


def test_jupyterlab_serves_it_for_zh_cn(tmp_path, monkeypatch):
    """With the ``jupyterlab.locale`` entry point ``ascend_lab = ascend_lab`` (as the
    installed package declares it), jupyterlab_server merges our messages into zh_CN."""
    dist = tmp_path / "ascend_lab_locale_probe-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ascend-lab-locale-probe\n")
    (dist / "entry_points.txt").write_text("[jupyterlab.locale]\nascend_lab = ascend_lab\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    data, message = translation_utils.get_installed_packages_locale("zh_CN")
    assert message == ""
    assert data["ascend_lab"]["Open the Ascend course"] == ["打开昇腾课程"]
    pack, _ = translation_utils.get_language_pack("zh_CN")
    # only present when a zh_CN language pack is installed (jupyterlab-language-pack-zh-CN)
    assert pack["ascend_lab"]["CPU mode"] == ["CPU 模式"]

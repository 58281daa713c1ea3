"""Which language messages are shown in: flag, ASCEND_LAB_LANG, the locale, English."""

import pytest

from ascend_lab import i18n
from ascend_lab.i18n import choose, from_accept_language, localize, msg, normalize, using


@pytest.mark.parametrize(
    "explicit, env, expected",
    [
        ("zh", {"ASCEND_LAB_LANG": "en", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ("en", {"ASCEND_LAB_LANG": "zh", "LC_ALL": "zh_CN.UTF-8"}, "en"),
        (None, {"ASCEND_LAB_LANG": "zh_CN", "LC_ALL": "en_US.UTF-8"}, "zh_CN"),
        (None, {"ASCEND_LAB_LANG": "en", "LC_ALL": "zh_CN.UTF-8"}, "en"),
        (None, {"LC_ALL": "zh_CN.UTF-8", "LC_MESSAGES": "en_US", "LANG": "en_US"}, "zh_CN"),
        (None, {"LC_MESSAGES": "zh_CN.utf8", "LANG": "en_US.UTF-8"}, "zh_CN"),
        (None, {"LC_MESSAGES": "en_GB", "LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"LANG": "zh_TW.UTF-8"}, "zh_CN"),  # zh_* -> the Chinese we have
        (None, {"LANG": "zh_CN.GB18030"}, "zh_CN"),
        (None, {"LANG": "fr_FR.UTF-8"}, "en"),  # a language we have no catalogue for
        (None, {"LANG": "C"}, "en"),
        (None, {}, "en"),
        ("zh-CN", {}, "zh_CN"),  # JupyterLab / BCP 47 spelling
        ("klingon", {"LANG": "zh_CN"}, "en"),
    ],
)
def test_language_order(explicit, env, expected):
    assert choose(explicit, env) == expected


def test_accept_language_follows_q_values():
    assert from_accept_language("zh-CN,zh;q=0.9,en;q=0.8") == "zh_CN"
    assert from_accept_language("en-US,en;q=0.9,zh-CN;q=0.8") == "en"
    assert from_accept_language("fr;q=1.0, zh;q=0.5, en;q=0.2") == "zh_CN"
    assert from_accept_language("de, fr") is None
    assert from_accept_language("") is None
    assert from_accept_language("zh;q=abc, en") == "en"  # a broken q-value ranks last


def test_normalize():
    assert normalize("zh_CN.UTF-8@pinyin") == "zh_CN"
    assert normalize("en") == "en"
    assert normalize("POSIX") is None


def test_using_sets_the_language_for_the_block_only(monkeypatch):
    monkeypatch.setenv("ASCEND_LAB_LANG", "en")
    with using("zh"):
        assert i18n._("CPU mode") == "CPU 模式"
        assert localize(msg("Device status: {}", "CPU mode")) == "设备状态：CPU 模式"
    assert i18n._("CPU mode") == "CPU mode"
    monkeypatch.setenv("ASCEND_LAB_LANG", "zh_CN")
    assert i18n._("CPU mode") == "CPU 模式"  # no block: the environment decides


def test_msg_is_english_text_that_remembers_its_template():
    m = msg("NPU {} chip {} health is {}", 0, 1, "Alarm")
    assert m == "NPU 0 chip 1 health is Alarm" and isinstance(m, str)
    assert localize(m, "zh") == "NPU 0 芯片 1 的健康状态为 Alarm"
    assert localize(m, "en") == m
    import json
    import pickle

    assert json.dumps([m]) == '["NPU 0 chip 1 health is Alarm"]'
    assert localize(pickle.loads(pickle.dumps(m)), "zh") == "NPU 0 芯片 1 的健康状态为 Alarm"


def test_an_unknown_lang_option_is_a_clear_error(capsys):
    import argparse

    from ascend_lab.device.magic import status_magic
    from ascend_lab.doctor.magic import doctor_magic
    from ascend_lab.i18n import language_argument

    assert language_argument("zh-CN") == "zh_CN" and language_argument("en_US") == "en"
    with pytest.raises(argparse.ArgumentTypeError, match="unknown language 'fr': use zh or en"):
        language_argument("fr")
    assert status_magic(None, "--lang fr") is None
    assert "unknown language 'fr': use zh or en" in capsys.readouterr().out

    class Shell:
        pass

    diag = doctor_magic(Shell(), '--lang fr "ret is -8020"', None)
    assert diag.notes[0] == "--lang: unknown language 'fr': use zh or en"
    assert diag.lang == "en"  # the environment's choice (tests run with ASCEND_LAB_LANG=en)

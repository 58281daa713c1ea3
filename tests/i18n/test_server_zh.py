"""``GET ascend-lab/api/status?lang=zh_CN``: a ``display`` object in Chinese, the rest English."""

import json

import jsonschema
import pytest

from ascend_lab.model.device_status import SCHEMA_PATH as STATUS_SCHEMA_PATH
from ascend_lab.probes import device as probe
from benchmarks.support.fake_machine import apply, make_fake_machine

SCHEMA = json.load(open(STATUS_SCHEMA_PATH))


@pytest.fixture(autouse=True)
def _fresh_probe_cache():
    probe.clear_cache()
    yield
    probe.clear_cache()


@pytest.fixture
def fake_ascend(tmp_path, monkeypatch):
    return apply(make_fake_machine(tmp_path / "machine"), monkeypatch)


async def _get(jp_fetch, headers=None, **params):
    response = await jp_fetch("ascend-lab", "api", "status", params=params, headers=headers or {})
    assert response.code == 200
    return json.loads(response.body.decode("utf-8"))


async def test_lang_zh_adds_chinese_display_texts(jp_fetch, fake_ascend):
    status = await _get(jp_fetch, lang="zh_CN")
    jsonschema.validate(status, SCHEMA)
    assert status["summary"] == "NPU 8x910B3 · HBM 12% · OK"  # machine-readable: English
    assert status["reason"] == "8 NPU chips found by npu-smi"
    shown = status["display"]
    assert shown["lang"] == "zh_CN"
    assert shown["reason"] == "npu-smi 找到 8 个 NPU 芯片"
    assert len(shown["warnings"]) == len(status["warnings"]) > 0
    for english, chinese in zip(status["warnings"], shown["warnings"]):
        assert chinese["message"] != english["message"], english["message"]
        assert chinese["severity"] in ("错误", "警告", "提示")


async def test_language_from_accept_language_unless_lang_says_otherwise(jp_fetch, fake_ascend):
    status = await _get(jp_fetch, headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert status["display"]["reason"] == "npu-smi 找到 8 个 NPU 芯片"
    status = await _get(jp_fetch, headers={"Accept-Language": "zh-CN"}, lang="en")
    assert "display" not in status  # JupyterLab in English: nothing added
    status = await _get(jp_fetch)
    assert "display" not in status
    jsonschema.validate(status, SCHEMA)

"""``ascend-lab doctor`` and ``%ascend_doctor`` in Chinese; JSON stays English."""

import json
import os
import re
import subprocess
import sys

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import load_entries
from ascend_lab.doctor.magic import doctor_magic, split_lang
from ascend_lab.i18n import using
from tests.i18n.catalogue import REPO

FIXTURE = REPO / "tests" / "doctor" / "fixtures" / "ms210_matmul.txt"
HAN = re.compile(r"[\u4e00-\u9fff]")
BUSY = "dcmi model initialized failed, because the device is used. ret is -8020\n"


def _env(**extra):
    drop = ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(PYTHONIOENCODING="utf-8", PYTHONPATH=str(REPO), LANG="C.UTF-8")
    env.update(extra)
    return env


def _doctor(*args, **env):
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", *args],
        capture_output=True,
        timeout=120,
        env=_env(**env),
    )
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def test_doctor_lang_zh_prints_the_finding_in_chinese():
    code, out, _ = _doctor("--lang", "zh", "--no-env", str(FIXTURE))
    assert code == 1
    assert "1. 矩阵乘的内侧维度不匹配：MatMul" in out
    assert "原因：    左输入的最后一维与右输入的行维度不同" in out
    assert "解决方法：" in out and "设置 `nn.Dense(in_channels=<x1_col>, ...)`" in out
    assert "证据：    第 17 行：ValueError: For 'MatMul'" in out  # evidence stays as logged
    assert "ascend doctor：已检查文件 " in out
    assert "Cause:" not in out and "Fix:" not in out


def test_doctor_language_from_the_locale_and_ascend_lab_lang():
    _, out, _ = _doctor("--no-env", str(FIXTURE), LANG="zh_CN.UTF-8")
    assert "矩阵乘的内侧维度不匹配" in out
    _, out, _ = _doctor("--no-env", str(FIXTURE), LANG="zh_CN.UTF-8", ASCEND_LAB_LANG="en")
    assert "Matrix multiply with mismatched inner dimensions: MatMul" in out
    _, out, _ = _doctor("--no-env", str(FIXTURE))
    assert "Cause:" in out and "原因" not in out


def test_doctor_json_stays_english_with_a_chinese_locale():
    code, out, _ = _doctor("--lang", "zh", "--json", "--no-env", str(FIXTURE), LANG="zh_CN.UTF-8")
    data = json.loads(out)
    finding = data["findings"][0]
    assert finding["title"] == "Matrix multiply with mismatched inner dimensions: MatMul"
    assert finding["cause"].startswith("The last dimension of the left input")
    known = len(load_entries())
    assert data["checked"][0].endswith(f"(30 lines) against {known} known problems")


def test_doctor_errors_in_chinese():
    code, _, err = _doctor("--lang", "zh", "/nonexistent/train.log")
    assert code == 2
    assert "ascend-lab doctor：无法读取 /nonexistent/train.log：" in err


def test_environment_only_diagnosis_in_chinese():
    status = {"mode": "cpu", "reason": "npu-smi not found on PATH", "summary": "CPU mode"}
    diag = diagnose(None, env={}, status=status)
    diag.lang = "zh_CN"
    text = diag.to_text()
    assert "设备状态：CPU 模式" in text
    assert "已检查：" in text and "接下来请收集：" in text
    assert "`npu-smi info`：NPU 是否都已列出" in text
    assert diag.to_dict()["checked"][0] == "Device status: CPU mode"


def test_machine_check_lines_in_chinese():
    status = {
        "mode": "ascend",
        "reason": "1 NPU chip found by npu-smi",
        # the template and arguments the probe records beside the English reason
        "i18n": {"reason": {"template": "{} NPU chip{} found by npu-smi", "args": [1, ""]}},
        "chips": [{"npu": 0, "chip": 0}],
        "processes": [{"npu": 0, "chip": 0, "pid": 42, "name": "python", "memory_mb": 3000}],
    }
    diag = diagnose(BUSY, env={"DEVICE_ID": "0"}, status=status)
    diag.lang = "zh_CN"
    text = diag.to_text()
    assert "本机检查（设备）：已在本机确认" in text
    assert "模式：ascend（npu-smi 找到 1 个 NPU 芯片）；1 个 NPU 芯片" in text
    assert "NPU 0 芯片 0 正被进程 42 python 占用（3000 MB）" in text
    assert "RANK_ID=（未设置）" in text


def test_doctor_magic_takes_lang():
    assert split_lang("--lang zh some error") == ("zh", "some error")
    assert split_lang("--lang=zh_CN") == ("zh_CN", "")
    assert split_lang('"--language is not a flag"') == (None, '"--language is not a flag"')

    class Shell:
        pass

    diag = doctor_magic(Shell(), "--lang zh " + BUSY.strip(), None)
    assert diag.findings[0].id == "device-busy"
    assert "NPU 已被其他进程或容器占用" in diag._repr_html_()
    diag = doctor_magic(Shell(), "--lang en " + BUSY.strip(), None)
    assert "The NPU is already in use" in diag._repr_html_()


def test_chinese_html_is_still_escaped():
    hostile = "ValueError: For 'MatMul' <script>alert(1)</script> 'x1_col': 5 and 'x2_row': 4."
    diag = diagnose(hostile, source="<b>x</b>", check_environment=False)
    diag.lang = "zh_CN"
    page = diag._repr_html_()
    assert "矩阵乘的内侧维度不匹配" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "<code>nn.Dense(in_channels=&lt;x1_col&gt;, ...)</code>" in page


def test_unknown_lang_is_refused_with_the_reason():
    code, out, err = _doctor("--lang", "klingon", "--no-env", str(FIXTURE))
    assert code == 2 and out == ""
    assert "argument --lang: unknown language 'klingon': use zh or en" in err


def test_a_findings_title_is_in_the_readers_language_and_json_stays_english():
    # notebook 09b prints `[(f.id, f.title) for f in d.findings]` in both editions
    text = FIXTURE.read_text(encoding="utf-8")
    with using("en"):
        en = [(f.id, f.title) for f in diagnose(text, check_environment=False).findings]
    with using("zh"):
        diag = diagnose(text, check_environment=False)
        zh = [(f.id, f.title) for f in diag.findings]
        data = diag.to_dict()
    assert [i for i, _ in zh] == [i for i, _ in en] and en
    assert en[0] == ("shape-matmul", "Matrix multiply with mismatched inner dimensions: MatMul")
    assert zh[0] == ("shape-matmul", "矩阵乘的内侧维度不匹配：MatMul")  # the op name kept
    assert all(HAN.search(t) for _, t in zh) and not any(HAN.search(t) for _, t in en)
    assert [f["title"] for f in data["findings"]] == [t for _, t in en]


def test_a_title_without_detail_follows_the_language_too():
    with using("zh"):
        zh = diagnose(BUSY, check_environment=False).findings[0]
        assert zh.title == zh.entry.text("title", "zh_CN") and HAN.search(zh.title)
        assert zh.english_title == zh.entry.title
        assert zh.english_title == "The NPU is already in use by another process or container"

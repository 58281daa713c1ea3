"""``ascend-lab status`` and ``%ascend_status`` in Chinese; JSON stays English; HTML escaped."""

import json
import os
import subprocess
import sys

from ascend_lab.device.magic import status_magic
from ascend_lab.i18n import msg, using
from ascend_lab.model.device_status import (
    Chip,
    Compatibility,
    DeviceStatus,
    Process,
    StatusWarning,
    Versions,
)
from benchmarks.support.fakes.ascend_machine import REPO, make_fake_machine

XSS = "<img src=x onerror=alert(1)>"


def _status(env, *args, ascend_lab_lang=None):
    env = {k: v for k, v in env.items() if k not in ("ASCEND_LAB_LANG", "LC_ALL", "LC_MESSAGES")}
    if ascend_lab_lang:
        env["ASCEND_LAB_LANG"] = ascend_lab_lang
    env.setdefault("LANG", "C.UTF-8")
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", "status", *args],
        env=env,
        cwd=str(REPO),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def test_status_lang_zh_on_a_fake_910b3_machine(tmp_path):
    m = make_fake_machine(tmp_path)
    out = _status(m.environ(), "--lang", "zh")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("ascend-lab 状态：NPU 8x910B3 · HBM 12% · 正常\n")  # as the status bar
    assert "模式：ascend（npu-smi 找到 8 个 NPU 芯片）" in text
    assert "芯片：" in text and "健康状态" in text and "进程：" in text
    assert "版本配套：" in text
    assert "Chips:" not in text and "Versions:" not in text


def test_status_language_from_the_locale_and_json_stays_english(tmp_path):
    m = make_fake_machine(tmp_path)
    env = dict(m.environ(), LANG="zh_CN.UTF-8")
    assert _status(env).stdout.startswith("ascend-lab 状态：")
    data = json.loads(_status(env, "--lang", "zh", "--json").stdout)
    assert data["reason"] == "8 NPU chips found by npu-smi"
    assert data["summary"] == "NPU 8x910B3 · HBM 12% · OK"
    assert all(not any("\u4e00" <= ch <= "\u9fff" for ch in w["message"]) for w in data["warnings"])
    english = _status(env, ascend_lab_lang="en").stdout
    assert english.startswith("ascend-lab status: NPU 8x910B3")
    # every warning and fix of this machine is translated (none left in English)
    chinese = _status(env).stdout
    assert "(or use the ascend-lab MindSpore kernel, which does it)" in english
    assert "（或使用 ascend-lab 的 MindSpore 内核，它会自动完成）" in chinese
    warnings = chinese.split("警告（请按此顺序处理）：", 1)[1]
    for line in warnings.splitlines():
        if line.strip() and not line.strip().startswith(("解决方法：", "source", "export")):
            assert any("\u4e00" <= ch <= "\u9fff" for ch in line), line


def test_cpu_machine_reason_and_compatibility_in_chinese(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path), ASCEND_LAB_ASCEND_ROOT=str(tmp_path / "none"))
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH"):
        env.pop(name, None)
    out = _status(env, "--lang", "zh", "--refresh")
    assert out.returncode == 0, out.stderr
    assert "ascend-lab 状态：CPU 模式" in out.stdout
    assert "模式：cpu（PATH 中找不到 npu-smi）" in out.stdout


def _hostile_status():
    return DeviceStatus(
        mode="ascend",
        reason=msg("{} NPU chip{} found by npu-smi", 1, ""),
        chips=[Chip(npu=0, chip=0, name=XSS, health="Alarm", bus_id=XSS)],
        processes=[Process(npu=0, chip=0, pid=7, name=XSS, memory_mb=10)],
        versions=Versions(driver=XSS),
        compatibility=Compatibility(
            "unknown",
            msg(
                "MindSpore {} is not in the compatibility table (check the CANN and driver it "
                "needs at {}).",
                XSS,
                XSS,
            ),
        ),
        warnings=[
            StatusWarning(
                msg("NPU {} chip {} health is {}", 0, 0, XSS),
                f"npu-smi info -t health -i 0 -c 0 {XSS}",
            ),
            StatusWarning(
                msg("ASCEND_OPP_PATH={} does not exist", XSS), "fix", "error", "environment"
            ),
        ],
    )


def test_chinese_html_card_is_still_escaped():
    with using("zh"):
        page = _hostile_status()._repr_html_()
    assert "<img" not in page and page.count("&lt;img src=x onerror=alert(1)&gt;") >= 6
    assert "模式 <b>ascend</b>：npu-smi 找到 1 个 NPU 芯片" in page  # a full-width colon
    assert "NPU 0 芯片 0 的健康状态为 &lt;img" in page
    assert "ASCEND_OPP_PATH=&lt;img src=x onerror=alert(1)&gt; 不存在" in page
    assert "MindSpore &lt;img src=x onerror=alert(1)&gt; 不在版本配套表中（" in page
    assert "警告（请按此顺序处理）" in page and "芯片" in page


def test_status_magic_lang(tmp_path, monkeypatch):
    make_fake_machine(tmp_path).activated(monkeypatch)
    shown = status_magic(None, "--lang zh --refresh")
    assert shown.mode == "ascend" and len(shown.chips) == 8  # still the status
    assert shown.to_text().startswith("ascend-lab 状态：NPU 8x910B3")
    assert "警告" in shown._repr_html_() or "芯片" in shown._repr_html_()
    english = status_magic(None, "--lang en")
    assert english.to_text().startswith("ascend-lab status: NPU 8x910B3")
    data = status_magic(None, "--lang zh --json")._repr_json_()
    assert data["summary"] == "NPU 8x910B3 · HBM 12% · OK"


def _columns(line):
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def test_chinese_tables_stay_aligned_in_a_terminal(tmp_path):
    m = make_fake_machine(tmp_path)
    text = _status(m.environ(), "--lang", "zh").stdout
    lines = text.splitlines()
    header = lines.index("芯片：") + 1
    head, first = lines[header], lines[header + 1]
    # the bus id column starts at the same terminal column in the header and the rows
    assert _columns(head[: head.index("Bus-Id")]) == _columns(first[: first.index("0000:")])
    versions = lines[lines.index("版本：") + 1 : lines.index("版本：") + 6]
    starts = {_columns(v[: v.index(v.split()[1], len(v.split()[0]) + 2)]) for v in versions}
    assert len(starts) == 1, versions


def test_the_summarys_health_in_chinese_like_the_status_bar():
    from ascend_lab.i18n import localize

    ok = DeviceStatus(
        mode="ascend",
        reason="1 NPU chip found by npu-smi",
        chips=[Chip(npu=0, chip=0, name="910B3", health="OK", hbm_used_mb=10, hbm_total_mb=100)],
    )
    assert ok.summary() == "NPU 1x910B3 · HBM 10% · OK"  # the JSON's, English
    assert localize(ok.summary(), "zh") == "NPU 1x910B3 · HBM 10% · 正常"
    ok.warnings = [StatusWarning("x", "y", "error"), StatusWarning("z", "w", "error")]
    assert localize(ok.summary(), "zh") == "NPU 1x910B3 · HBM 10% · 2 个错误"
    with using("zh"):
        assert "NPU 1x910B3 · HBM 10% · 2 个错误" in ok._repr_html_()


def test_a_structured_warning_renders_in_english_and_chinese_after_json():
    """The JSON carries each warning's template and arguments; a reader in another process
    (the server's ``display``) renders them in its language, nested messages too."""
    from ascend_lab.i18n import msg
    from ascend_lab.render.device_json import display

    fix = msg(
        "source {}   (or use the ascend-lab MindSpore kernel, which does it)", "/a b/set_env.sh"
    )
    status = DeviceStatus(
        mode="ascend",
        reason=msg("{} NPU chip{} found by npu-smi", 1, ""),
        chips=[Chip(npu=0, chip=0, name="910B3", health="OK")],
        warnings=[
            StatusWarning(msg("NPU {} chip {} health is {}", 0, 1, "Alarm"), "fix", "error", "npu"),
            StatusWarning(msg("ASCEND_OPP_PATH={} does not exist", XSS), fix, "error", "cann"),
        ],
    )
    data = json.loads(status.to_json())
    first = data["warnings"][0]
    assert first["message"] == "NPU 0 chip 1 health is Alarm"  # the English field stays
    assert first["i18n"]["message"] == {
        "template": "NPU {} chip {} health is {}",
        "args": [0, 1, "Alarm"],
    }
    assert "fix" not in first["i18n"]  # a plain string has no structure to carry
    zh = display(data, "zh_CN")
    assert zh["warnings"][0]["message"] == "NPU 0 芯片 1 的健康状态为 Alarm"
    assert zh["reason"] == "npu-smi 找到 1 个 NPU 芯片"
    assert (
        zh["warnings"][1]["fix"]
        == "source /a b/set_env.sh   （或使用 ascend-lab 的 MindSpore 内核，它会自动完成）"
    )
    assert zh["warnings"][1]["message"] == f"ASCEND_OPP_PATH={XSS} 不存在"  # escaped where shown
    en = display(data, "en")
    assert en["warnings"][0]["message"] == "NPU 0 chip 1 health is Alarm"
    # a status without the structured entries (an older ascend-lab) shows its English text,
    # and a plain sentence is still looked up whole
    del data["warnings"][0]["i18n"]
    data["warnings"][0]["fix"] = "Please report your `npu-smi info` output to ascend-lab"
    old = display(data, "zh_CN")["warnings"][0]
    assert old["message"] == "NPU 0 chip 1 health is Alarm"
    assert old["fix"] == "请把你的 `npu-smi info` 输出报告给 ascend-lab"


def test_a_structured_message_read_back_is_bounded():
    from ascend_lab.i18n import from_json

    assert from_json({"template": "{} and {}", "args": [1]}) is None  # too few arguments
    assert from_json({"template": "x" * 5000, "args": []}) is None
    assert from_json({"template": "{}", "args": [{"template": "{}", "args": [[1]]}]}) is None
    deep: dict = {"template": "ok", "args": []}
    for _ in range(10):
        deep = {"template": "{}", "args": [deep]}
    assert from_json(deep) is None
    assert (
        from_json({"template": "{} more warnings not shown", "args": [3]})
        == "3 more warnings not shown"
    )


def test_the_servers_own_statuses_are_structured_too():
    """A probe that fails inside the server, and a kernel whose Python cannot answer, give
    statuses whose reason and warning the front end's ``display`` shows in Chinese."""
    from ascend_lab.render.device_json import display
    from ascend_lab.server.cache import StatusCache
    from ascend_lab.server.kernel_env import KernelEnv, probe_kernel

    def broken(timeout):
        raise OSError("disk on fire")

    data = json.loads(json.dumps(StatusCache(5.0, 5.0, probe=broken)._run_probe()))
    assert data["reason"] == "device status probe failed: OSError: disk on fire"
    zh = display(data, "zh_CN")
    assert zh["reason"] == "设备状态探测失败：OSError：disk on fire"
    assert zh["warnings"][0]["fix"] == "在终端中运行 `ascend-lab status` 查看完整错误。"

    gone = KernelEnv(name="mine", display_name="Mine", python="/nonexistent/python")
    data = json.loads(json.dumps(probe_kernel(gone, 1.0)))
    assert data["reason"].startswith("could not read the 'mine' kernel's environment: ")
    assert display(data, "zh_CN")["reason"] == (
        "无法读取内核 'mine' 的环境：在 /nonexistent/python 未找到 内核 'mine' 的 Python"
    )


def test_a_bundles_recorded_npu_smi_failure_replays_translatable():
    """``ascend-lab report`` records npu-smi's failures; ``status --from BUNDLE`` replays
    them: the reason comes back with its template, so the replayed status is translated."""
    from ascend_lab.i18n import localize
    from ascend_lab.probes.npu_smi_runner import RunResult
    from ascend_lab.report.machine import NpuSmiRecorder
    from ascend_lab.report.replay import Recording, _calls

    recorder = NpuSmiRecorder.__new__(NpuSmiRecorder)  # no bundle to write: only its record
    failed = RunResult(False, reason=msg("{} exited with code {}", "npu-smi", 255), returncode=255)
    recorder.calls = {("info",): failed}
    recording = Recording.__new__(Recording)
    recording.calls = _calls(json.loads(json.dumps({"calls": recorder.to_json()})))
    replayed = recording.run("npu-smi", ["info"], 5.0)
    assert replayed.reason == "npu-smi exited with code 255"
    assert localize(replayed.reason, "zh_CN") == "npu-smi 退出，返回码 255"

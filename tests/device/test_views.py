"""Text, HTML and JSON views of DeviceStatus; HTML escaping of everything from tools/files."""

import json
import re
from html.parser import HTMLParser

import jsonschema

from ascend_lab.model.device_status import SCHEMA_PATH as STATUS_SCHEMA_PATH
from ascend_lab.model.device_status import (
    Chip,
    DeviceStatus,
    Process,
    RunCheck,
    StatusWarning,
    Versions,
)
from ascend_lab.probes import device as probe
from benchmarks.support.fakes.ascend_machine import make_fake_machine

XSS = "<img src=x onerror=alert(1)>"
SCHEMA_PATH = STATUS_SCHEMA_PATH


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(html):
    c = _Collector()
    c.feed(html)
    return c


def test_html_escapes_process_name_from_npu_smi(tmp_path, monkeypatch):
    make_fake_machine(tmp_path, info="info_910b3_xss_process_synthetic.txt").activated(monkeypatch)
    s = probe.collect_status()
    assert s.processes[0].name == XSS
    html = s._repr_html_()
    assert XSS not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    parsed = _parse(html)
    assert "img" not in {t for t, _ in parsed.tags}
    assert not any(k.startswith("on") for _, attrs in parsed.tags for k in attrs)
    assert XSS in "".join(parsed.text)  # shown to the reader as text


def test_html_escapes_every_field():
    evil = '<script>alert("x")</script>'
    s = DeviceStatus(
        mode="ascend",
        reason=evil,
        chips=[
            Chip(npu=0, chip=0, name=evil, health=evil, bus_id=evil, hbm_used_mb=1, hbm_total_mb=2)
        ],
        processes=[Process(npu=0, chip=0, pid=1, name=evil, memory_mb=3)],
        versions=Versions(driver=evil, firmware=evil, cann=evil, mindspore=evil, npu_smi=evil),
        warnings=[StatusWarning(evil, evil, "error", "npu")],
        run_check=RunCheck(False, evil),
    )
    s.compatibility.message = evil
    s.compatibility.install = [evil]
    html = s._repr_html_()
    assert "<script" not in html
    assert html.count("&lt;script&gt;") >= 12
    assert {t for t, _ in _parse(html).tags} <= {
        "div", "span", "table", "thead", "tbody", "tr", "th", "td", "b", "code", "ol", "li", "pre",
    }  # fmt: skip


def test_html_card_content_and_theme_variables(tmp_path, monkeypatch):
    make_fake_machine(tmp_path, info="info_910prob_npu-smi-23.0.rc1.txt").activated(monkeypatch)
    html = probe.collect_status()._repr_html_()
    text = "".join(_parse(html).text)
    for needle in ("910ProB", "55115", "python", "30784", "30711 / 32768 MB (94%)", "8.3.RC2"):
        assert needle in text
    assert "var(--jp-ui-font-color1" in html and "var(--jp-layout-color2" in html
    # the HBM bar is as wide as the usage
    assert re.search(r"width:93\.7%", html)
    assert "Warnings (fix in this order)" in text


def test_cpu_mode_card_is_short():
    s = DeviceStatus(
        mode="cpu", reason="npu-smi not found on PATH", versions=Versions(mindspore="2.10.0")
    )
    text = "".join(_parse(s._repr_html_()).text)
    assert "CPU mode" in text and "npu-smi not found on PATH" in text
    assert "Chips" not in text and "Warnings" not in text


def test_text_view(tmp_path, monkeypatch):
    make_fake_machine(tmp_path, info="info_a3_2chips_synthetic.txt").activated(monkeypatch)
    s = probe.collect_status()
    text = str(s)
    assert text.splitlines()[0] == "ascend-lab status: NPU 4xAscend910 · HBM 12% · OK"
    assert "23167/65536 MB (35%)" in text
    assert re.search(r"402115\s+python3\.9\s+10236 MB", text)
    assert "CANN       8.3.RC2" in text
    assert repr(s) == "<DeviceStatus NPU 4xAscend910 · HBM 12% · OK>"


def test_text_view_removes_control_characters():
    s = DeviceStatus(
        mode="ascend",
        chips=[Chip(npu=0, chip=0, name="910B3", health="OK")],
        processes=[Process(npu=0, chip=0, pid=5, name="evil\x1b[2Jname\nnext")],
    )
    text = s.to_text()
    assert "\x1b" not in text and "evil?[2Jname next" in text


def test_json_view_matches_schema(tmp_path, monkeypatch):
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    for info in ("info_910b3_x8_npu-smi-25.2.0.txt", "info_910b_na_values_synthetic.txt"):
        make_fake_machine(tmp_path / info, info=info).activated(monkeypatch)
        s = probe.collect_status(refresh=True, run_check=False)
        d = json.loads(s.to_json())
        jsonschema.validate(d, schema)
        assert d["schema"] == "ascend-lab.status/1" and d["summary"] == s.summary()
    s.run_check = RunCheck(True, "ok", 1.23456)
    jsonschema.validate(s.to_dict(), schema)
    assert s.to_dict()["run_check"] == {"ok": True, "output": "ok", "seconds": 1.235}


def test_summary_variants():
    assert DeviceStatus(mode="gpu").summary() == "GPU mode"
    mixed = DeviceStatus(
        mode="ascend",
        chips=[
            Chip(npu=0, chip=0, name="910B3", health="OK", hbm_used_mb=10, hbm_total_mb=100),
            Chip(npu=1, chip=0, name="310P3", health="OK", memory_used_mb=50, memory_total_mb=100),
        ],
        warnings=[StatusWarning("x", "y", "error", "cann")],
    )
    assert mixed.summary() == "NPU 1x910B3+1x310P3 · HBM 10% · 1 error"
    no_mem = DeviceStatus(mode="ascend", chips=[Chip(npu=0, chip=0, name="310", health=None)])
    assert no_mem.summary() == "NPU 1x310 · 1 unknown"

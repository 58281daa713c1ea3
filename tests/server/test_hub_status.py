"""A learner's server under the hub: status from the hub service's snapshot (no npu-smi
here), its own probe when the service does not answer; the hub's CPU-mode reason."""

import http.server
import json
import threading

import jsonschema

from ascend_lab.hub.allocator import Assignment
from ascend_lab.hub.views import Snapshot, status_for
from ascend_lab.model.device_status import SCHEMA_PATH as STATUS_SCHEMA_PATH
from ascend_lab.parsers import npu_smi
from ascend_lab.probes import device as probe
from ascend_lab.server.cache import hub_probe
from benchmarks.support.fakes.ascend_machine import DEFAULT_INFO, fixture_path, make_fake_machine

with open(STATUS_SCHEMA_PATH) as _f:
    SCHEMA = json.load(_f)


def _service_doc(user="ann", pid_user=lambda pid: None):
    """What the real service answers ``user``, from the fake machine's npu-smi table
    (``pid_user``: the owner the service finds for a pid, from the server process trees)."""
    with open(fixture_path(DEFAULT_INFO), encoding="utf-8") as f:
        info = npu_smi.parse_info(f.read())
    seats = {"ann": Assignment("ann", 2, since=1.0), "bob": Assignment("bob", 3, since=1.0)}
    snap = Snapshot(info, "", 1000.0, 0.4, 7, 5.0)
    return status_for(snap, seats, user, False, pid_user, now=1001.0)


class _Service:
    """A stand-in for the hub service: counts requests, checks the token."""

    def __init__(self, body: bytes, status: int = 200):
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append((self.path, self.headers.get("Authorization")))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/services/ascend-lab/"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_under_the_hub_the_status_is_the_services_chip_and_npu_smi_never_runs(
    tmp_path, monkeypatch
):
    machine = make_fake_machine(tmp_path).activated(monkeypatch)
    # the fixture's one process runs on NPU 2; the service found it in ann's server's tree
    owners = {1333928: "ann"}
    service = _Service(json.dumps(_service_doc(pid_user=owners.get)).encode())
    env = {
        "ASCEND_LAB_HUB_SERVICE_URL": service.url,
        "JUPYTERHUB_API_TOKEN": "secret-token",
        "ASCEND_LAB_CHIP": "2",
    }
    local_runs = []
    try:
        data = hub_probe(lambda t: local_runs.append(t) or {}, environ=env)(3.0)
    finally:
        service.close()
    jsonschema.validate(data, SCHEMA)
    assert service.requests == [("/services/ascend-lab/api/status", "token secret-token")]
    assert machine.calls() == [] and local_runs == []
    assert data["mode"] == "ascend"
    assert data["reason"] == "chip 2, shared by the class through the hub"
    assert [(c["npu"], c["chip"]) for c in data["chips"]] == [(2, 0)]  # ann's chip only
    assert [p["pid"] for p in data["processes"]] == [1333928]
    assert data["versions"]["cann"] == "8.3.RC2" and data["versions"]["mindspore"] == "2.8.0"
    assert data["subject"]["hub_chip"] == "2" and data["subject"]["kind"] == "server"


def test_a_process_the_service_cannot_place_is_not_shown_as_the_learners(tmp_path, monkeypatch):
    # issue #24: an owner is never guessed from the chip's seats (any learner can open any
    # chip on one server), so a process of unknown owner on ann's chip is not ann's
    make_fake_machine(tmp_path).activated(monkeypatch)
    doc = _service_doc()
    assert doc["chips"][0]["processes"] == [] and doc["chips"][0]["other_processes"] == 1
    service = _Service(json.dumps(doc).encode())
    env = {"ASCEND_LAB_HUB_SERVICE_URL": service.url, "JUPYTERHUB_API_TOKEN": "t"}
    try:
        data = hub_probe(lambda t: {}, environ=env)(3.0)
    finally:
        service.close()
    assert [(c["npu"], c["chip"]) for c in data["chips"]] == [(2, 0)]
    assert data["processes"] == []


def test_another_learner_sees_only_their_own_chip(tmp_path, monkeypatch):
    make_fake_machine(tmp_path).activated(monkeypatch)
    service = _Service(json.dumps(_service_doc("bob")).encode())
    env = {"ASCEND_LAB_HUB_SERVICE_URL": service.url, "JUPYTERHUB_API_TOKEN": "t"}
    try:
        data = hub_probe(lambda t: {}, environ=env)(3.0)
    finally:
        service.close()
    assert [(c["npu"], c["chip"]) for c in data["chips"]] == [(3, 0)]
    assert data["processes"] == []  # ann's process on chip 2 is not shown to bob


def test_when_the_service_fails_the_server_probes_itself_and_says_why(tmp_path, monkeypatch):
    machine = make_fake_machine(tmp_path).activated(monkeypatch)
    service = _Service(b'{"error": "boom"}', status=500)
    env = {"ASCEND_LAB_HUB_SERVICE_URL": service.url, "JUPYTERHUB_API_TOKEN": "t"}

    def local(timeout):
        return probe.collect_status(refresh=True, timeout=timeout).to_dict()

    try:
        data = hub_probe(local, environ=env)(3.0)
    finally:
        service.close()
    jsonschema.validate(data, SCHEMA)
    assert machine.calls() == ["info"]
    assert data["mode"] == "ascend" and len(data["chips"]) == 8
    notes = [w["message"] for w in data["warnings"] if "hub's status service" in w["message"]]
    assert notes == ["the hub's status service was not used: the hub service answered HTTP 500"]


def test_without_the_hub_only_the_local_probe_runs():
    runs = []
    data = hub_probe(lambda t: runs.append(t) or {"mode": "cpu"}, environ={})(2.0)
    assert runs == [2.0] and data == {"mode": "cpu"}


def test_a_learner_without_a_seat_gets_the_hubs_cpu_reason(tmp_path, monkeypatch):
    machine = make_fake_machine(tmp_path).activated(monkeypatch)
    reason = "no NPU free: all 8 chips have 2 learners"
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "")
    monkeypatch.setenv("ASCEND_LAB_CPU_REASON", reason)
    doc = _service_doc("carl")  # no seat on a chip: the service shows no chips
    assert doc["chips"] == []
    service = _Service(json.dumps(doc).encode())
    env = {"ASCEND_LAB_HUB_SERVICE_URL": service.url, "JUPYTERHUB_API_TOKEN": "t"}
    try:
        data = hub_probe(lambda t: {}, environ=env)(3.0)
    finally:
        service.close()
    jsonschema.validate(data, SCHEMA)
    assert machine.calls() == []
    assert data["mode"] == "cpu" and data["reason"] == reason
    assert data["chips"] == []


def test_with_the_hubs_chip_versions_are_judged_as_on_an_npu_machine(tmp_path, monkeypatch):
    # a server environment without the Ascend install (the hub does not pass its root on)
    machine = make_fake_machine(tmp_path, with_root=False).activated(monkeypatch)
    service = _Service(json.dumps(_service_doc()).encode())
    env = {"ASCEND_LAB_HUB_SERVICE_URL": service.url, "JUPYTERHUB_API_TOKEN": "t"}
    try:
        data = hub_probe(lambda t: {}, environ=env)(3.0)
    finally:
        service.close()
    jsonschema.validate(data, SCHEMA)
    assert machine.calls() == []
    assert data["mode"] == "ascend" and data["versions"]["cann"] is None
    # judged as with an NPU (the pinned MindSpore has no public CANN pairing), not "runs on
    # CPU"
    comp = dict(data["compatibility"])
    structured = comp.pop("i18n")["message"]  # the message's template and arguments
    assert comp == {
        "verdict": "unknown",
        "message": "No public page pairs MindSpore 2.8.0 with a CANN release yet (check the "
        "CANN and driver it needs at https://www.mindspore.cn/docs/en/r2.8.0/RELEASE.html).",
        "expected": {},
        "install": [],
    }
    assert structured["args"] == ["2.8.0", "https://www.mindspore.cn/docs/en/r2.8.0/RELEASE.html"]


def test_an_instructors_server_shows_its_own_chip_not_the_whole_class(tmp_path, monkeypatch):
    make_fake_machine(tmp_path).activated(monkeypatch)
    with open(fixture_path(DEFAULT_INFO), encoding="utf-8") as f:
        info = npu_smi.parse_info(f.read())
    seats = {"teach": Assignment("teach", 2, since=1.0), "ann": Assignment("ann", 3, since=1.0)}
    doc = status_for(Snapshot(info, "", 1000.0, 0.4, 7, 5.0), seats, "teach", True, lambda p: None)
    assert len(doc["chips"]) == 8  # the service shows an instructor every chip
    service = _Service(json.dumps(doc).encode())
    env = {"ASCEND_LAB_HUB_SERVICE_URL": service.url, "JUPYTERHUB_API_TOKEN": "t"}
    try:
        own = hub_probe(lambda t: {}, environ=dict(env, ASCEND_LAB_CHIP="2"))(3.0)
        none = hub_probe(lambda t: {}, environ=env)(3.0)  # an instructor in CPU mode
    finally:
        service.close()
    jsonschema.validate(own, SCHEMA)
    assert [(c["npu"], c["chip"]) for c in own["chips"]] == [(2, 0)]
    assert own["reason"] == "chip 2, shared by the class through the hub"
    assert [p["pid"] for p in own["processes"]] == [1333928]
    assert none["chips"] == [] and none["mode"] == "cpu"

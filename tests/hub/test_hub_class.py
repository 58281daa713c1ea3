"""A real class: JupyterHub + configurable-http-proxy + the ascend-lab service on 127.0.0.1,
the fake 8-chip npu-smi machine, ten learners spawned through the hub's REST API.

Needs scripts/hub_deps.sh (jupyterhub in the venv, configurable-http-proxy from npm).
"""

import json
import math
import threading
import time

import psutil
import pytest
import requests

from ascend_lab.hub.allocator import read_seats
from ascend_lab.hub.client import fetch_hub_status
from ascend_lab.hub.owners import process_owners
from benchmarks.support.fakes.ascend_machine import make_fake_machine
from tests.hub.hub_runner import INSTRUCTOR_PASSWORD, LEARNER_PASSWORD, Hub

pytestmark = [pytest.mark.slow, pytest.mark.hub]

LEARNERS = [f"learner{i}" for i in range(10)]
INSTRUCTOR = "teacher"
PER_CHIP = 2
INTERVAL = 3.0  # seconds between npu-smi runs in the service
POLL_EVERY = 1.0  # each learner's status bar polls this often
POLL_FOR = 30.0


def _process(pid):
    """The live process ``pid`` as psutil sees it now (start time included), or None."""
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


def _environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        pairs = [item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item]
    return {k.decode(): v.decode("utf-8", "replace") for k, v in pairs}


def _seats(hub):
    with open(hub.seats_path) as f:
        return {k: v["chip"] for k, v in json.load(f)["seats"].items()}


def _npu_smi_runs(machine):
    return sum(1 for line in machine.calls() if line == "info")


def _browser_login(hub, name, password):
    """A requests session logged in to the hub through its login form."""
    r, session = hub.login(name, password)
    assert r.status_code == 302, r.text[:500]
    return session


@pytest.fixture
def hub(tmp_path):
    machine = make_fake_machine(tmp_path / "machine")
    h = Hub(
        str(tmp_path),
        machine.environ(),
        {
            "ASCEND_LAB_HUB_PER_CHIP": str(PER_CHIP),
            "ASCEND_LAB_HUB_INSTRUCTORS": INSTRUCTOR,
            "ASCEND_LAB_HUB_PROBE_INTERVAL": str(INTERVAL),
        },
    )
    h.machine = machine
    h.server_pids = []
    try:
        yield h.start()
    finally:
        h.stop()
        # servers the hub started for us, if it left any. psutil's kill() checks the process's
        # start time: a pid the kernel has given to another process since (pid_max is 32768
        # here and the suite starts thousands) is left alone. A bare os.kill killed a
        # neighbour test's MindSpore AKG build server this way, and that test hung.
        for proc in filter(None, h.server_pids):
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                pass


def test_a_class_of_ten_on_one_8_chip_server(hub):
    # -- users, tokens, servers through the REST API ---------------------------------------
    r = hub.api("POST", "/users", json={"usernames": LEARNERS + [INSTRUCTOR]})
    assert r.status_code == 201, r.text
    tokens = {}
    for name in LEARNERS + [INSTRUCTOR]:
        r = hub.api("POST", f"/users/{name}/tokens", json={"note": "test"})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    for name in LEARNERS:
        r = hub.api("POST", f"/users/{name}/server")
        assert r.status_code in (201, 202), r.text
    deadline = time.monotonic() + 150
    pending = set(LEARNERS)
    while pending and time.monotonic() < deadline:
        for name in sorted(pending):
            server = hub.api("GET", f"/users/{name}").json()["servers"].get("", {})
            if server.get("ready"):
                pending.discard(name)
                hub.server_pids.append(_process(server["state"]["pid"]))
        time.sleep(1)
    assert not pending, f"servers not ready: {sorted(pending)}\n{hub.log_tail()}"

    # -- each server's environment holds its seat, at most PER_CHIP per chip ---------------
    seats = _seats(hub)
    assert sorted(seats) == LEARNERS
    assert all(chip in range(8) for chip in seats.values())
    per_chip = {c: list(seats.values()).count(c) for c in range(8)}
    assert max(per_chip.values()) <= PER_CHIP and sum(per_chip.values()) == 10
    assert min(per_chip.values()) >= 1  # least-loaded: every chip used before one is shared
    for name in LEARNERS:
        pid = hub.api("GET", f"/users/{name}").json()["servers"][""]["state"]["pid"]
        try:
            env = _environ(pid)
        except ProcessLookupError:  # a "ready" server that is gone: say why, from the hub
            raise AssertionError(f"{name}'s server {pid} exited\n{hub.log_tail()}") from None
        assert env["ASCEND_RT_VISIBLE_DEVICES"] == str(seats[name]), name
        assert env["ASCEND_LAB_CHIP"] == str(seats[name]) and env["DEVICE_ID"] == "0"
        assert env["JUPYTERHUB_USER"] == name
        assert env["ASCEND_LAB_HUB_SERVICE_URL"].endswith("/services/ascend-lab/")
        assert "ASCEND_LAB_CPU_REASON" not in env
    # each seat notes its server's pid as the hub started it: processes under it are the
    # learner's, whatever JUPYTERHUB_USER they claim
    seat_rows = read_seats(hub.seats_path)
    owners = process_owners(seat_rows)
    for name in LEARNERS:
        pid = hub.api("GET", f"/users/{name}").json()["servers"][""]["state"]["pid"]
        assert seat_rows[name].server_pid == pid and owners(pid) == name

    # -- the service: each learner sees their chip only; the instructor sees all ----------
    status_url = hub.url + "/services/ascend-lab/api/status"
    a, b = LEARNERS[0], LEARNERS[1]

    def status(token):
        return requests.get(status_url, headers={"Authorization": f"token {token}"}, timeout=30)

    deadline = time.monotonic() + 30
    while status(tokens[a]).json()["probe"]["runs"] == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    mine = status(tokens[a]).json()
    assert mine["user"] == a and mine["admin"] is False and mine["probe"]["ok"] is True
    assert [c["id"] for c in mine["chips"]] == [seats[a]]
    assert [s["server"] for s in mine["seats"]] == [a]
    assert "learners" not in mine["chips"][0]
    teacher = status(tokens[INSTRUCTOR]).json()
    assert teacher["admin"] is True and [c["id"] for c in teacher["chips"]] == list(range(8))
    assert {s["server"]: s["chip"] for s in teacher["seats"]} == seats
    for chip in teacher["chips"]:
        assert chip["learners"] == sorted(n for n, c in seats.items() if c == chip["id"])
    # the fixture's process on NPU 2 is in no learner's server tree: its owner stays unknown,
    # even when chip 2 has one learner only (any learner can open any chip on one server)
    procs = teacher["chips"][2]["processes"]
    assert [p["pid"] for p in procs] == [1333928]
    assert procs[0]["user"] is None
    assert requests.get(status_url, timeout=30).status_code == 403  # no token
    # a learner's server asks the service with its own token (what its status bar would do)
    pid_a = hub.api("GET", f"/users/{a}").json()["servers"][""]["state"]["pid"]
    from_server, why = fetch_hub_status(timeout=30, environ=_environ(pid_a))
    assert why == "" and from_server["user"] == a
    assert [c["id"] for c in from_server["chips"]] == [seats[a]]
    assert status("not-a-token").status_code == 403

    # -- in a browser: hub login, then the service's own OAuth (no token in the page) -----
    for name, instructor in ((b, False), (INSTRUCTOR, True)):
        browser = _browser_login(hub, name, INSTRUCTOR_PASSWORD if instructor else LEARNER_PASSWORD)
        r = browser.get(hub.url + "/services/ascend-lab/", timeout=30)
        assert (
            r.status_code == 200 and "/hub/api/oauth2/authorize" in r.history[0].headers["Location"]
        ), [h.url for h in r.history]
        doc = r.json()
        assert doc["user"] == name and doc["admin"] is instructor
        assert [c["id"] for c in doc["chips"]] == (list(range(8)) if instructor else [seats[b]])

    # -- user A cannot reach user B's server ----------------------------------------------
    def server_api(token, owner):
        return requests.get(
            f"{hub.url}/user/{owner}/api/status",
            headers={"Authorization": f"token {token}"},
            timeout=30,
            allow_redirects=False,
        )

    assert server_api(tokens[a], a).status_code == 200
    assert server_api(tokens[a], b).status_code == 403
    assert server_api(tokens[b], a).status_code == 403

    # -- a learner's JupyterLab status comes from the service: their chip only ------------
    def lab_api(token, owner, endpoint):
        return requests.get(
            f"{hub.url}/user/{owner}/ascend-lab/api/{endpoint}",
            headers={"Authorization": f"token {token}"},
            timeout=60,
        )

    for name in (a, b):
        r = lab_api(tokens[name], name, "status")
        assert r.status_code == 200, r.text[:500]
        lab = r.json()
        assert lab["mode"] == "ascend", lab["reason"]
        assert lab["reason"] == f"chip {seats[name]}, shared by the class through the hub"
        assert len(lab["chips"]) == 1 and lab["subject"]["hub_chip"] == str(seats[name])
        assert lab["npu_smi_path"] is None  # the server did not run npu-smi itself
    assert lab_api(tokens[a], a, "class").status_code == 403  # a learner has no class view

    # -- load: every learner polls the service; npu-smi runs once per interval -----------
    latencies = []
    errors = []
    lock = threading.Lock()

    def poll(name):
        session = requests.Session()
        session.headers["Authorization"] = f"token {tokens[name]}"
        end = time.monotonic() + POLL_FOR
        while time.monotonic() < end:
            t0 = time.monotonic()
            r = session.get(status_url, timeout=30)
            dt = time.monotonic() - t0
            with lock:
                latencies.append(dt)
                if r.status_code != 200 or [c["id"] for c in r.json()["chips"]] != [seats[name]]:
                    errors.append((name, r.status_code, r.text[:200]))
            time.sleep(max(0.0, POLL_EVERY - dt))

    runs_before = _npu_smi_runs(hub.machine)
    started = time.monotonic()
    threads = [threading.Thread(target=poll, args=(n,)) for n in LEARNERS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    runs = _npu_smi_runs(hub.machine) - runs_before
    assert errors == []
    assert len(latencies) >= len(LEARNERS) * 10  # each learner polled many times
    # one probe per interval (plus one at each edge of the window), not one per request
    assert 1 <= runs <= math.ceil(elapsed / INTERVAL) + 1, (runs, elapsed)
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(
        f"\nLOAD: {len(LEARNERS)} users x 1 poll/{POLL_EVERY:g} s for {elapsed:.1f} s: "
        f"{len(latencies)} requests, npu-smi ran {runs} times (interval {INTERVAL:g} s); "
        f"service latency p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms"
    )

    # -- stopping a learner frees their chip ---------------------------------------------
    chip_of_a = seats[a]
    r = hub.api("DELETE", f"/users/{a}/server")
    assert r.status_code in (202, 204), r.text
    deadline = time.monotonic() + 60
    while a in _seats(hub) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert a not in _seats(hub)
    teacher = status(tokens[INSTRUCTOR]).json()
    assert a not in teacher["chips"][chip_of_a]["learners"]
    assert status(tokens[a]).json()["chips"] == []  # no seat, no chip

    # -- the instructor's JupyterLab: the class view, with idle times from the hub --------
    r = hub.api("POST", f"/users/{INSTRUCTOR}/server")
    assert r.status_code in (201, 202), r.text
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        server = hub.api("GET", f"/users/{INSTRUCTOR}").json()["servers"].get("", {})
        if server.get("ready"):
            hub.server_pids.append(_process(server["state"]["pid"]))
            break
        time.sleep(1)
    mine = lab_api(tokens[INSTRUCTOR], INSTRUCTOR, "status").json()
    assert len(mine["chips"]) == 1, mine["reason"]  # their own chip, not the class's eight
    assert mine["subject"]["hub_chip"] == str(_seats(hub)[INSTRUCTOR])
    r = lab_api(tokens[INSTRUCTOR], INSTRUCTOR, "class")
    assert r.status_code == 200, r.text[:500]
    view = r.json()
    assert view["activity_error"] == ""
    rows = {row["server"]: row for row in view["learners"]}
    seats = _seats(hub)
    assert {k: row["chip"] for k, row in rows.items()} == seats
    assert a not in rows and INSTRUCTOR in rows
    for row in rows.values():
        assert row["hbm_total_mb"] > 0 and row["hbm_used_mb"] is not None
        # every learner's server has reported activity to the hub since it started
        assert row["idle_s"] is not None and 0 <= row["idle_s"] < 600, row

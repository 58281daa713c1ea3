"""``GET {base_url}ascend-lab/api/status`` in a real jupyter_server (pytest-jupyter)."""

import asyncio
import json
import threading

import pytest
from tornado.httpclient import HTTPClientError

from ascend_lab.probes import device as probe
from benchmarks.support.fake_machine import apply, call_count, cpu_machine_env, make_fake_machine


@pytest.fixture(autouse=True)
def _fresh_probe_cache():
    probe.clear_cache()
    yield
    probe.clear_cache()


@pytest.fixture
def fake_ascend(tmp_path, monkeypatch):
    return apply(make_fake_machine(tmp_path / "machine"), monkeypatch)


@pytest.fixture
def hanging_ascend(tmp_path, monkeypatch):
    return apply(make_fake_machine(tmp_path / "machine", hang=True), monkeypatch)


@pytest.fixture
def cpu_machine(tmp_path, monkeypatch):
    return apply(cpu_machine_env(tmp_path), monkeypatch)


async def get_status(jp_fetch, **params):
    response = await jp_fetch("ascend-lab", "api", "status", params=params)
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body.decode("utf-8"))


async def test_status_on_fake_910b3_machine(jp_fetch, fake_ascend):
    status = await get_status(jp_fetch)
    assert status["schema"] == "ascend-lab.status/1"
    assert status["mode"] == "ascend"
    assert len(status["chips"]) == 8
    assert {c["name"] for c in status["chips"]} == {"910B3"}
    assert [c["npu"] for c in status["chips"]] == list(range(8))
    assert status["chips"][2]["hbm_used_mb"] == 41052
    assert status["chips"][2]["hbm_total_mb"] == 65536
    assert [(p["npu"], p["pid"], p["memory_mb"]) for p in status["processes"]] == [
        (2, 1333928, 37709)
    ]
    # HBM: (3408+3408+41052+3390+3403+3400+3401+3400) / (8*65536) = 12.4 %
    assert status["summary"] == "NPU 8x910B3 · HBM 12% · OK"
    assert status["versions"]["npu_smi"] == "25.2.0"
    # no MindSpore kernel registered in this server: it describes its own Python, and says so
    assert status["subject"]["kind"] == "server"


async def test_status_in_cpu_mode(jp_fetch, cpu_machine):
    status = await get_status(jp_fetch)
    assert status["mode"] == "cpu"
    assert status["summary"] == "CPU mode"
    assert status["chips"] == []
    assert "npu-smi" in status["reason"]


async def test_without_token_is_refused(jp_fetch, fake_ascend):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "ascend-lab",
            "api",
            "status",
            headers={"Authorization": ""},
            follow_redirects=False,
        )
    assert err.value.code in (302, 401, 403)
    assert call_count(fake_ascend["CALLS"]) == 0  # refused before probing anything


async def test_course_without_token_is_refused(jp_fetch):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "ascend-lab", "api", "course", headers={"Authorization": ""}, follow_redirects=False
        )
    assert err.value.code in (302, 401, 403)


async def test_only_under_base_url(jp_fetch, jp_base_url, fake_ascend, http_server_client):
    assert jp_base_url != "/"
    with pytest.raises(HTTPClientError) as err:
        await http_server_client.fetch("/ascend-lab/api/status", raise_error=True)
    assert err.value.code == 404


@pytest.mark.parametrize("ascend_lab_config", [{"cache_seconds": 30.0}])
async def test_concurrent_requests_share_one_npu_smi_run(jp_fetch, fake_ascend):
    results = await asyncio.gather(*(get_status(jp_fetch) for _ in range(20)))
    assert all(r["mode"] == "ascend" and len(r["chips"]) == 8 for r in results)
    assert call_count(fake_ascend["CALLS"]) == 1
    runs_for_twenty = len(open(fake_ascend["CALLS"]).read().splitlines())
    # cached: more requests within cache_seconds run nothing
    await asyncio.gather(*(get_status(jp_fetch) for _ in range(5)))
    assert call_count(fake_ascend["CALLS"]) == 1
    # ?refresh=1 runs the probe once more, exactly as much as one request does
    await get_status(jp_fetch, refresh="1")
    total = len(open(fake_ascend["CALLS"]).read().splitlines())
    assert call_count(fake_ascend["CALLS"]) == 2
    assert total == 2 * runs_for_twenty


@pytest.mark.parametrize("ascend_lab_config", [{"cache_seconds": 2.0}])
async def test_cache_expires(jp_fetch, fake_ascend, jp_serverapp):
    now = [1000.0]
    jp_serverapp.web_app.settings["ascend_lab_status_cache"].clock = lambda: now[0]
    await get_status(jp_fetch)
    now[0] += 1.9
    await get_status(jp_fetch)
    assert call_count(fake_ascend["CALLS"]) == 1  # still fresh
    now[0] += 0.2
    await get_status(jp_fetch)
    assert call_count(fake_ascend["CALLS"]) == 2  # older than cache_seconds: probed again


@pytest.mark.parametrize("ascend_lab_config", [{"timeout": 1.0, "cache_seconds": 0.0}])
async def test_hanging_npu_smi_answers_within_timeout(jp_fetch, hanging_ascend):
    # npu-smi hangs for 600 s; with a 1 s timeout an answer within 60 s means it was cut off
    status = await asyncio.wait_for(get_status(jp_fetch), timeout=60)
    assert status["mode"] == "cpu"
    assert status["summary"] == "CPU mode"
    assert "timed out" in status["reason"] or "did not answer" in status["reason"]
    assert call_count(hanging_ascend["CALLS"]) >= 1


async def test_event_loop_not_blocked_while_probing(jp_fetch, fake_ascend, jp_serverapp):
    """While a probe is stuck, other requests (the Jupyter API) are still served."""
    cache = jp_serverapp.web_app.settings["ascend_lab_status_cache"]
    started, release = threading.Event(), threading.Event()
    real_probe = cache._probe

    def stuck_probe(timeout):
        started.set()
        release.wait(60)  # far longer than the request below needs
        return real_probe(timeout)

    cache._probe = stuck_probe
    cache.timeout = 120.0
    pending = asyncio.ensure_future(get_status(jp_fetch))
    for _ in range(6000):  # wait (up to ~60 s) until the probe runs in its worker thread
        if started.is_set():
            break
        await asyncio.sleep(0.01)
    assert started.is_set()
    response = await jp_fetch("api", "status")
    assert response.code == 200
    assert not pending.done()  # served while the probe was still stuck
    release.set()
    status = await asyncio.wait_for(pending, timeout=60)
    assert status["mode"] == "ascend"

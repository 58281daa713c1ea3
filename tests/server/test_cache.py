"""StatusCache on its own: one probe in flight, expiry, failures and hangs degrade."""

import asyncio
import json
import threading

from ascend_lab.server.cache import StatusCache


def _status(n):
    return {"schema": "ascend-lab.status/1", "mode": "ascend", "n": n}


async def test_one_probe_for_many_callers_and_text_made_once():
    gate = threading.Event()
    runs = []

    def probe(timeout):
        runs.append(timeout)
        gate.wait(5)
        return _status(len(runs))

    cache = StatusCache(cache_seconds=60, timeout=3, probe=probe)
    tasks = [asyncio.ensure_future(cache.get_json()) for _ in range(30)]
    await asyncio.sleep(0.05)
    gate.set()
    texts = await asyncio.gather(*tasks)
    assert runs == [3]
    assert {json.loads(t)["n"] for t in texts} == {1}
    assert all(t is texts[0] for t in texts)  # serialised once, shared
    cache.close()


async def test_expiry_and_refresh():
    clock = [100.0]
    runs = []
    cache = StatusCache(
        cache_seconds=2,
        timeout=1,
        probe=lambda t: runs.append(t) or _status(len(runs)),
        clock=lambda: clock[0],
    )
    assert (await cache.get())["n"] == 1
    clock[0] += 1.9
    assert (await cache.get())["n"] == 1
    clock[0] += 0.2
    assert (await cache.get())["n"] == 2
    assert (await cache.get(refresh=True))["n"] == 3
    cache.close()


async def test_probe_error_gives_cpu_mode_with_the_error():
    def probe(timeout):
        raise OSError("driver exploded")

    cache = StatusCache(cache_seconds=0, timeout=1, probe=probe)
    status = await cache.get()
    assert status["mode"] == "cpu"
    assert "OSError: driver exploded" in status["reason"]
    assert status["warnings"][0]["fix"]
    cache.close()


async def test_hanging_probe_answers_after_timeout_plus_grace():
    release, finished = threading.Event(), threading.Event()

    def probe(timeout):
        release.wait(600)  # hangs far longer than the bound below
        finished.set()
        return _status(1)

    cache = StatusCache(cache_seconds=60, timeout=1, probe=probe)
    status = await asyncio.wait_for(cache.get(), timeout=60)
    assert status["mode"] == "cpu"
    assert status["reason"] == "npu-smi did not answer within 1 s"
    assert not finished.is_set()  # answered without waiting for the probe
    release.set()  # the probe finishes later; its result is used from then on
    for _ in range(6000):  # up to ~60 s for the worker thread to hand its result over
        if (await cache.get())["mode"] == "ascend":
            break
        await asyncio.sleep(0.01)
    assert (await cache.get())["mode"] == "ascend"
    assert cache.probe_runs == 1
    cache.close()

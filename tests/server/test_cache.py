"""StatusCache on its own: one probe in flight, expiry, failures and hangs degrade."""

import asyncio
import json
import threading
import time

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
    release = threading.Event()

    def probe(timeout):
        release.wait(10)
        return _status(1)

    cache = StatusCache(cache_seconds=60, timeout=0.3, probe=probe)
    start = time.monotonic()
    status = await cache.get()
    elapsed = time.monotonic() - start
    assert 0.3 <= elapsed < 2.5
    assert status["mode"] == "cpu"
    assert status["reason"] == "npu-smi did not answer within 0.3 s"
    release.set()  # the probe finishes later; its result is used from then on
    for _ in range(50):
        await asyncio.sleep(0.02)
        if (await cache.get())["mode"] == "ascend":
            break
    assert (await cache.get())["mode"] == "ascend"
    cache.close()

"""One device-status snapshot shared by every client of the server.

Any number of open tabs polling ``/ascend-lab/api/status`` cause at most one probe run
(``npu-smi`` and friends) per ``cache_seconds``: while a probe runs, every request waits on
the same future; once it finishes, its result is served until it is older than
``cache_seconds``. The probe runs in a worker thread, never on the event loop, and a request
never waits longer than the probe's timeout (plus a small grace): a hanging ``npu-smi``
gives a CPU-mode answer that says so.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from ascend_lab.i18n import N_, msg

# Seconds a request waits beyond the probe's own timeout before giving up on it.
GRACE_SECONDS = 1.0

Probe = Callable[[float], Dict[str, Any]]


def probe_status(timeout: float) -> Dict[str, Any]:
    """Collect a fresh ``DeviceStatus`` (never imports MindSpore) and return its JSON dict."""
    from ascend_lab.probes.device import collect_status

    return collect_status(refresh=True, timeout=timeout).to_dict()


# Set by the hub's spawner hook (ascend_lab.hub.spawner; not imported: it is not needed
# outside a hub, and the server must not pay for it at import).
HUB_SERVICE_URL = "ASCEND_LAB_HUB_SERVICE_URL"
HUB_CHIP = "ASCEND_LAB_CHIP"

HubFetch = Callable[[float], Tuple[Optional[Dict[str, Any]], str]]


def _fields(cls: Any, row: Mapping[str, Any]) -> Dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in row.items() if k in names}


def status_from_hub(
    doc: Mapping[str, Any], local: Any, chip: Optional[str] = None
) -> Dict[str, Any]:
    """The status dict from the hub service's answer for this server's user (``doc``: a
    learner's own chip and processes; every chip for an instructor), ``chip`` (the machine
    chip this server was given, ``ASCEND_LAB_CHIP``) and ``local``, a ``DeviceStatus``
    collected here without ``npu-smi`` (versions, environment, warnings)."""
    from ascend_lab.model.device_status import Chip, Process

    status = copy.copy(local)  # the probe's cache holds ``local``: never change it
    rows = [r for r in doc.get("chips") or [] if isinstance(r, dict)]
    if chip or doc.get("admin"):  # an instructor's answer holds every chip: keep this one
        rows = [r for r in rows if chip and str(r.get("id")) == chip]
    status.chips = [Chip(**_fields(Chip, r)) for r in rows]
    status.processes = [
        Process(**_fields(Process, p))
        for r in rows
        for p in r.get("processes") or []
        if isinstance(p, dict)
    ]
    status.npu_smi_path = None
    if rows:
        _judge_with_a_chip(status)
        ids = ", ".join(str(r.get("id", "?")) for r in rows)
        status.mode = "ascend"
        status.reason = msg("chip {}, shared by the class through the hub", ids)
    elif status.mode != "cpu" or not status.reason:
        probe = doc.get("probe") or {}
        why = str(probe.get("reason") or N_("no chip is assigned to this server"))[:300]
        status.mode = "cpu"
        status.reason = msg("the hub service shows no NPU for this server: {}", why)
    data = status.to_dict()
    data["subject"] = {
        "kind": "server",
        "python": sys.executable,
        "set_env": None,
        "note": "chips from the hub's ascend-lab service; versions from the Jupyter "
        "server's own Python",
    }
    return data


def _judge_with_a_chip(status: Any) -> None:
    """The local probe saw no chip (it did not run npu-smi): where it judged the versions
    as on a machine without Ascend ("MindSpore runs on CPU"), judge them again with one."""
    from ascend_lab.analysis import compat
    from ascend_lab.model.device_status import cap_warnings, order_warnings

    v = status.versions
    without, _ = compat.check(v.mindspore, v.cann, v.driver, ascend_present=False)
    with_chip, warnings = compat.check(v.mindspore, v.cann, v.driver, ascend_present=True)
    if status.compatibility == without and with_chip != without:
        status.compatibility = with_chip
        status.warnings = cap_warnings(order_warnings(list(status.warnings) + warnings))


def hub_probe(
    local_probe: Probe,
    fetch: Optional[HubFetch] = None,
    environ: Optional[Mapping[str, str]] = None,
    collect: Optional[Callable[[float], Any]] = None,
) -> Probe:
    """``local_probe`` unless this server runs under the ascend-lab hub service: then the
    service's one snapshot for the class (no ``npu-smi`` here), and ``local_probe`` only
    when the service does not answer."""
    env = os.environ if environ is None else environ

    def from_service(timeout: float) -> Tuple[Optional[Dict[str, Any]], str]:
        if fetch is not None:
            return fetch(timeout)
        from ascend_lab.hub.client import fetch_hub_status

        return fetch_hub_status(timeout, env)

    def local_without_npu_smi(timeout: float) -> Any:
        if collect is not None:
            return collect(timeout)
        from ascend_lab.probes.device import collect_status

        return collect_status(refresh=True, timeout=timeout, query_npu_smi=False)

    def probe(timeout: float) -> Dict[str, Any]:
        doc, why = from_service(timeout) if env.get(HUB_SERVICE_URL) else (None, "")
        if doc is not None:
            data = status_from_hub(doc, local_without_npu_smi(timeout), env.get(HUB_CHIP))
        else:
            data = local_probe(timeout)
            if why:
                from ascend_lab.model.device_status import StatusWarning

                not_used = StatusWarning(
                    msg("the hub's status service was not used: {}", why[:360]),
                    "this server ran npu-smi itself; ask the hub admin to check the "
                    "ascend-lab service",
                    "info",
                    "npu",
                )
                data.setdefault("warnings", []).append(not_used.to_dict())
        chip = env.get(HUB_CHIP)
        if chip:  # a kernel's probe has its own subject; inside, the chip is device 0
            data["subject"] = dict(data.get("subject") or {}, hub_chip=chip)
        return data

    return probe


def fallback_status(reason: str, fix: str = "") -> Dict[str, Any]:
    """A CPU-mode status for when the probe failed or did not answer in time."""
    from ascend_lab.model.device_status import DeviceStatus, StatusWarning

    status = DeviceStatus(
        mode="cpu",
        reason=reason,
        warnings=[StatusWarning(message=reason, fix=fix, severity="warning", component="npu")],
        collected_at=time.time(),
    )
    return status.to_dict()


class StatusCache:
    """Serve one probe result to all callers; at most one probe in flight."""

    def __init__(
        self,
        cache_seconds: float,
        timeout: float,
        probe: Optional[Probe] = None,
        clock: Callable[[], float] = time.monotonic,
        extra_wait: float = 0.0,
    ) -> None:
        self.cache_seconds = cache_seconds
        self.timeout = timeout
        self.extra_wait = extra_wait  # a probe's own start-up time on top of npu-smi's timeout
        self._probe = probe or probe_status
        self.clock = clock  # replaceable, so tests can move time
        self._value: Optional[Dict[str, Any]] = None
        self._value_time = 0.0
        self._inflight: Optional[asyncio.Future[Dict[str, Any]]] = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ascend-lab-probe")
        self.probe_runs = 0  # for tests and benchmarks
        self._text_of: Optional[Tuple[Dict[str, Any], str]] = None

    def _fresh(self) -> bool:
        return self._value is not None and self.clock() - self._value_time < self.cache_seconds

    def _run_probe(self) -> Dict[str, Any]:
        self.probe_runs += 1
        try:
            return self._probe(self.timeout)
        except Exception as exc:  # the status endpoint degrades, it never fails
            return fallback_status(
                msg("device status probe failed: {}: {}", type(exc).__name__, str(exc)[:300]),
                N_("Run `ascend-lab status` in a terminal to see the full error."),
            )

    def _start_probe(self) -> asyncio.Future[Dict[str, Any]]:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self._run_probe)

        def store(done: asyncio.Future[Dict[str, Any]]) -> None:
            if self._inflight is done:
                self._inflight = None
            if not done.cancelled() and done.exception() is None:
                self._value = done.result()
                self._value_time = self.clock()

        future.add_done_callback(store)
        return future

    async def get(self, refresh: bool = False) -> Dict[str, Any]:
        """The current status dict; ``refresh`` ignores a fresh cached value (not a probe
        that is already running: joining it is just as fresh)."""
        if not refresh and self._fresh():
            assert self._value is not None
            return self._value
        if self._inflight is None:
            self._inflight = self._start_probe()
        future = self._inflight
        try:
            return await asyncio.wait_for(
                asyncio.shield(future), timeout=self.timeout + self.extra_wait + GRACE_SECONDS
            )
        except asyncio.TimeoutError:
            return fallback_status(
                msg("npu-smi did not answer within {} s", f"{self.timeout:g}"),
                N_(
                    "Check the driver with `npu-smi info` in a terminal; a hung driver "
                    "usually needs the NPU to be reset by an administrator."
                ),
            )

    async def get_json(self, refresh: bool = False) -> str:
        """``get()`` serialised; the text of a cached snapshot is made once, not per request."""
        value = await self.get(refresh=refresh)
        cached = self._text_of
        if cached is not None and cached[0] is value:
            return cached[1]
        text = json.dumps(value)
        self._text_of = (value, text)
        return text

    def close(self) -> None:
        self._executor.shutdown(wait=False)

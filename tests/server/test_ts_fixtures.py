"""The TypeScript tests' status fixtures are what the Python probe really produces."""

import json

from ascend_lab.probes import device as probe
from tests.server.ts_fixtures import FIXTURE_DIR, MACHINES, make_all


def test_ts_status_fixtures_are_current():
    probe.clear_cache()
    fresh = make_all()
    assert set(fresh) == set(MACHINES)
    for name, data in fresh.items():
        stored = json.loads((FIXTURE_DIR / name).read_text(encoding="utf-8"))
        assert stored == data, f"{name} is stale: python -m tests.server.ts_fixtures"
    assert fresh["status_910b3_xss.json"]["processes"][0]["name"] == "<img src=x onerror=alert(1)>"
    assert fresh["status_cpu.json"]["mode"] == "cpu"

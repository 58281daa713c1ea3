"""The DeviceStatus JSON fixtures the TypeScript unit tests read
(``labextension/src/__tests__/fixtures/status_*.json``), made by the real probe on the fake
machines. Regenerate after a status-schema change with
``python -m tests.server.ts_fixtures``; ``test_ts_fixtures.py`` fails when they are stale.
"""

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict

from benchmarks.support.fake_machine import (
    cpu_machine_env,
    info_with_process_name,
    make_fake_machine,
)

FIXTURE_DIR = (
    Path(__file__).resolve().parents[2] / "labextension" / "src" / "__tests__" / "fixtures"
)

MACHINES: Dict[str, Callable[[Path], Dict[str, str]]] = {
    "status_910b3_x8.json": lambda d: make_fake_machine(d),
    "status_910b3_xss.json": lambda d: make_fake_machine(
        d, info_with_process_name("<img src=x onerror=alert(1)>")
    ),
    "status_cpu.json": cpu_machine_env,
}


def probe_on(env: Dict[str, str]) -> Dict[str, Any]:
    """``collect_status().to_dict()`` with this machine's PATH and Ascend root, with the
    machine-specific parts (paths, environment, time) replaced by fixed values."""
    from ascend_lab.probes.device import collect_status

    saved, saved_path = dict(os.environ), list(sys.path)
    os.environ["PATH"] = env["PATH"]
    os.environ["ASCEND_LAB_ASCEND_ROOT"] = env["ASCEND_LAB_ASCEND_ROOT"]
    sys.path.insert(0, env["SITE"])  # the machine's pinned MindSpore version
    try:
        data = collect_status(refresh=True, timeout=5).to_dict()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        sys.path[:] = saved_path
    # the machine's temporary folder appears in paths and fixes: make it the usual root
    text = json.dumps(data).replace(env["ASCEND_LAB_ASCEND_ROOT"], "/usr/local/Ascend")
    data = json.loads(text)
    data["root"] = "/usr/local/Ascend"
    data["npu_smi_path"] = "/usr/local/bin/npu-smi" if data["npu_smi_path"] else None
    data["environment"] = {}
    data["subject"] = {"kind": "process", "python": "/usr/local/bin/python3", "set_env": None}
    data["collected_at"] = 1764400000.0
    data["seconds"] = 0.0
    return data


def make_all() -> Dict[str, Dict[str, Any]]:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, machine in MACHINES.items():
            out[name] = probe_on(machine(Path(tmp) / name))
    return out


def main() -> int:
    for name, data in make_all().items():
        (FIXTURE_DIR / name).write_text(
            json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print("wrote", FIXTURE_DIR / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

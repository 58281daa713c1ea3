"""scripts/import_graph.py: the package-level import graph of ascend_lab and its cycles.

The cycles found today are recorded here: a new cycle, or a package joining one, fails.
When a cycle is cut, shrink the record (issue #25 lists what each remaining edge needs).
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "import_graph.py"

# Strongly connected components of the package graph on 2026-12-01 (lazy imports counted,
# `if TYPE_CHECKING:` imports not). Edges behind it: see `python scripts/import_graph.py`.
# The edges that close it, and the cut each needs (for the folder move of issue #25):
# - profiling -> (root): profiling/magic.py calls the facade's profile(); call
#   profiling.api.profile_net as tracing/magic.py now calls trace_net.
# - report -> (root): report/trace_worker.py calls ascend_lab.trace(); call trace_net.
#   With these two, (root) and profiling leave the cycle.
# - device -> report, doctor -> report: the `--from-bundle` dispatch in device/cli.py and
#   doctor/cli.py calls report.replay; move the dispatch up to the CLI layer. Then device,
#   doctor, kernel and course_cmd leave it.
# - viewfile <-> report: `ascend-lab view bundle.tgz` (viewfile/cli.py -> report.view) and
#   the bundle's trace pages (report/view.py, report/npu.py -> viewfile.sources): the
#   bundle viewer belongs to report, with viewfile's source readers below both.
RECORDED_CYCLES = [
    {
        # (root) and profiling left with the first two cuts above (%ascend_profile calls
        # profiling.api.profile_net, the report's trace worker tracing.api.trace_net)
        "course_cmd",
        "device",
        "doctor",
        "kernel",
        "report",
        "viewfile",
    },
]


def run_script(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    return json.loads(out)


def test_no_new_import_cycles():
    found = [set(c) for c in run_script()["cycles"]]
    for comp in found:
        assert any(comp <= rec for rec in RECORDED_CYCLES), f"new or larger cycle: {sorted(comp)}"
    # every component is within one recorded component, and none is new
    assert len(found) <= len(RECORDED_CYCLES)


def test_the_graph_has_the_spine_edges():
    edges = run_script()["edges"]
    assert "memory -> graph" in edges and "payload -> graph" in edges
    assert "graph -> payload" not in edges  # parsers sit below the payload
    assert "tracing -> (root)" not in edges  # %ascend_trace calls tracing.api, not the facade


def _package(tmp_path: Path, files: dict) -> Path:
    pkg = tmp_path / "ascend_lab"
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pkg


def test_a_lazy_import_that_closes_a_loop_is_a_cycle(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "graph/__init__.py": "",
            "graph/model.py": "def f():\n    from ..payload import build\n",
            "payload/__init__.py": "",
            "payload/build.py": "from ..graph.model import f\n",
            "widgets/__init__.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ascend_lab.payload import build\n",
            "payload/view.py": "from ascend_lab import widgets\n",
        },
    )
    data = run_script("--package-dir", str(pkg))
    assert data["cycles"] == [["graph", "payload"]]
    assert "payload -> widgets" in data["edges"]
    assert "widgets -> payload" not in data["edges"]  # TYPE_CHECKING imports never run

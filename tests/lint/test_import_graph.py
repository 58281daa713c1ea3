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

# Strongly connected components of the package graph (lazy and `if TYPE_CHECKING:` imports
# counted, since issue #38's results/ stage): none since 2026-12-01 (issue #25). The last cycle,
# course_cmd <-> device <-> doctor <-> kernel <-> report <-> viewfile, was cut by wiring
# `status --from`, `doctor --from` and `view BUNDLE` in ascend_lab/cli.py (the device,
# doctor and viewer commands take report's replay and trace pages as arguments), by
# report/npu.py finding the course through course_files.py instead of course_cmd, and by
# `python -m ascend_lab.report` parsing its arguments without the CLI layer.
# .importlinter's "features-below-report" contract keeps it so.
RECORDED_CYCLES: list = []


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


def test_the_package_graph_has_no_cycle():
    assert RECORDED_CYCLES == []  # the record is empty: any cycle at all fails
    assert run_script()["cycles"] == []


def test_type_only_imports_count_and_the_results_sit_below_payload_and_render():
    """The results/ stage (issue #38): payload and render import the results, never the
    reverse, also counting type-only imports, which the script reads by default."""
    edges = run_script()["edges"]
    assert "payload -> results" in edges and "render -> results" in edges
    assert not [
        e
        for e in edges
        if e.startswith("results -> ")
        and e.split(" -> ")[1]
        in ("payload", "render", "tracing", "comparison", "numerics", "memory")
    ]


def test_the_cli_layer_wires_the_bundle_and_no_feature_reaches_up():
    edges = run_script()["edges"]
    assert "cli -> report" in edges  # status/doctor --from and view BUNDLE are wired there
    assert "report -> course" in edges  # the notebooks' folder (course.files, not the command)
    for feature in ("device", "doctor", "kernel", "viewfile", "course"):
        assert f"{feature} -> report" not in edges
        assert f"{feature} -> cli" not in edges
    assert "report -> cli" not in edges


STAGES = ("render", "payload", "capture", "probes", "analysis", "parsers", "model")


def test_the_graph_has_the_spine_edges_and_each_stage_imports_only_below_it():
    edges = run_script()["edges"]
    for edge in ("payload -> model", "parsers -> model", "analysis -> parsers"):
        assert edge in edges
    assert "render -> payload" in edges and "memory -> analysis" in edges
    # the order of the stages, top to bottom (capture, probes and payload are siblings)
    rank = {"render": 0, "payload": 1, "capture": 1, "probes": 1, "analysis": 2}
    rank.update({"parsers": 3, "model": 4})
    for a in STAGES:
        for b in STAGES:
            if a != b and rank[a] >= rank[b]:
                assert f"{a} -> {b}" not in edges, f"{a} reaches up (or across) to {b}"
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
    data = run_script("--package-dir", str(pkg), "--runtime-only")
    assert data["cycles"] == [["graph", "payload"]]
    assert "payload -> widgets" in data["edges"]
    assert "widgets -> payload" not in data["edges"]  # TYPE_CHECKING imports never run
    # by default a type-only import counts too: it closes the loop through widgets
    data = run_script("--package-dir", str(pkg))
    assert data["cycles"] == [["graph", "payload", "widgets"]]
    assert "widgets -> payload" in data["edges"]

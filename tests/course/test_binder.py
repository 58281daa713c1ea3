"""scripts/binder_check.sh: rebuild the Binder environment in a fresh venv, run notebook 0.

Slow (several minutes: a fresh venv, MindSpore from PyPI, the lab extension built by the
wheel's build hook). Everything goes into tmp_path; Jupyter's user folders point there too.
"""

import os
import subprocess
import sys

import pytest

from benchmarks.support.nbrun import ROOT


@pytest.mark.slow
@pytest.mark.mindspore
@pytest.mark.timeout(3600)
def test_binder_environment_runs_notebook_0(tmp_path):
    script = os.path.join(ROOT, "scripts", "binder_check.sh")
    # a base interpreter, not this venv's: the check makes its own venv from it
    env = dict(os.environ, PYTHON=getattr(sys, "_base_executable", None) or "python3")
    proc = subprocess.run(
        ["bash", script, str(tmp_path / "binder")],
        env=env,
        capture_output=True,
        text=True,
        timeout=3300,
    )
    tail = (proc.stdout[-4000:] + "\n--- stderr ---\n" + proc.stderr[-4000:]).strip()
    assert proc.returncode == 0, tail
    assert "notebook 0 ran on the mindspore kernel of" in proc.stdout, tail
    assert "binder check passed" in proc.stdout, tail
    executed = tmp_path / "binder" / "out" / "00_stack_and_machine.ipynb"
    assert executed.is_file()


def test_binder_installs_a_font_the_chinese_plots_find():
    """repo2docker installs binder/apt.txt's packages; the zh plots need a CJK font there."""
    from ascend_lab.i18n.plot_font import CJK_FONTS

    with open(os.path.join(ROOT, "binder", "apt.txt"), encoding="utf-8") as fh:
        packages = [ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")]
    # the Debian package -> the family name matplotlib's font manager reports for it
    families = {"fonts-wqy-microhei": "WenQuanYi Micro Hei", "fonts-noto-cjk": "Noto Sans CJK SC"}
    found = [families[p] for p in packages if p in families]
    assert found, packages
    assert all(f in CJK_FONTS for f in found)


def test_binder_start_sets_the_viewer_pool_for_a_2_gb_container():
    """repo2docker runs binder/start before the server: one viewer worker with a 512 MiB
    budget, values the settings registry reads (a typo would silently keep the defaults)."""
    from ascend_lab import settings

    script = os.path.join(ROOT, "binder", "start")
    assert os.access(script, os.X_OK)
    out = subprocess.run(
        ["bash", script, sys.executable, "-c", _PRINT_POOL_SETTINGS],
        env={k: v for k, v in os.environ.items() if k not in _POOL_SETTINGS},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert out == ["1", str(512 << 20)], out
    assert int(out[0]) < settings.SETTINGS["ASCEND_LAB_VIEW_WORKERS"].default


_POOL_SETTINGS = ("ASCEND_LAB_VIEW_WORKERS", "ASCEND_LAB_VIEW_WORKER_MEMORY")
_PRINT_POOL_SETTINGS = (
    "from ascend_lab import settings; "
    "print(settings.get('ASCEND_LAB_VIEW_WORKERS'), settings.get('ASCEND_LAB_VIEW_WORKER_MEMORY'))"
)

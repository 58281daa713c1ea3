"""tests/conftest.py's ASCEND_LAB_SWEEP_EVERY: the Python 3.8 leg keeps every N-th ``sweep``
test and every other test."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def _run(tmp_path, every):
    (tmp_path / "conftest.py").write_text(
        (Path(__file__).parent.parent / "conftest.py")
        .read_text(encoding="utf-8")
        .replace('pytest_plugins = ["tests.support.akg_watch"]', "")
    )
    (tmp_path / "test_rows.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.sweep
            @pytest.mark.parametrize("row", range(10))
            def test_row(row):
                pass

            def test_other():
                pass
            """
        )
    )
    env = dict(os.environ, ASCEND_LAB_SWEEP_EVERY=every)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", "-o", "markers=sweep: rows", str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    return done.stdout


def test_every_fifth_row_and_every_other_test_are_kept(tmp_path):
    out = _run(tmp_path, "5")
    assert "3 passed, 8 deselected" in out, out  # rows 0 and 5, and test_other


def test_without_the_variable_every_row_runs(tmp_path):
    out = _run(tmp_path, "")
    assert "11 passed" in out, out

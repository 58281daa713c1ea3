"""Fixtures for the kernel tests: private Jupyter folders and a fake Ascend install root."""

import os
import shutil
from pathlib import Path

import pytest

FIXTURE_TREE = Path(__file__).resolve().parent.parent / "fixtures" / "ascend_tree"
REPO_ROOT = Path(__file__).resolve().parents[2]

# A directory name that would run a command, split words and end a statement if it were
# ever pasted into a shell string.
WEIRD_NAME = "Ascend root $(touch pwned); x"


@pytest.fixture
def jupyter_dirs(tmp_path, monkeypatch):
    """Point every Jupyter folder (and HOME) into tmp_path; forget any real Ascend setup."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "jupyter-config"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "jupyter-runtime"))
    monkeypatch.delenv("JUPYTER_PATH", raising=False)
    for key in list(os.environ):
        if key == "ASCEND_LAB_QUIET":
            continue
        if key.startswith("ASCEND_") or key in ("DEVICE_ID", "RANK_ID"):
            monkeypatch.delenv(key, raising=False)
    # No Ascend install unless a test creates one.
    monkeypatch.setenv("ASCEND_LAB_ASCEND_ROOT", str(tmp_path / "no-ascend-here"))
    # The kernel subprocess must import this checkout even if it is not pip-installed.
    pythonpath = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in [str(REPO_ROOT), pythonpath] if p))
    return tmp_path


@pytest.fixture
def fake_root(tmp_path):
    """A copy of tests/fixtures/ascend_tree under a hostile directory name."""
    root = tmp_path / WEIRD_NAME
    shutil.copytree(str(FIXTURE_TREE), str(root), symlinks=True)
    return root


def kernels_dir(prefix: Path) -> Path:
    return prefix / "share" / "jupyter" / "kernels"

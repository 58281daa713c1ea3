"""Run a snippet in a fresh interpreter (this venv's), e.g. to see what an import pulls in."""

import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_python(code: str, **options: Any) -> "subprocess.CompletedProcess[str]":
    """``python -c code`` from the repo root; output captured as text; fails on a non-zero
    exit unless ``check=False``."""
    settings: dict = {
        "capture_output": True,
        "text": True,
        "timeout": 120,
        "cwd": str(REPO),
        "check": True,
    }
    settings.update(options)
    return subprocess.run([sys.executable, "-c", code], **settings)

"""Where the course's notebooks are: the repo's ``notebooks/`` in a source checkout, or
``<prefix>/share/ascend-lab/notebooks`` from a wheel.

A small module below both ``ascend-lab course`` (:mod:`ascend_lab.course.command`, which
registers the kernel and starts JupyterLab) and the support bundles' course cells
(:mod:`ascend_lab.report.npu`): it imports nothing of the package (issue #25).
"""

import os
import site
import sys
from typing import List, Optional, Tuple

SHARE_SUBDIR = os.path.join("share", "ascend-lab", "notebooks")


def package_parent() -> str:
    """The folder holding the ``ascend_lab`` package (a source checkout's root, or
    site-packages)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def share_prefixes() -> List[str]:
    """Install prefixes whose ``share/ascend-lab/notebooks`` may hold the course."""
    prefixes = [sys.prefix, getattr(sys, "base_prefix", sys.prefix)]
    try:
        prefixes.append(site.getuserbase())
    except Exception:  # noqa: BLE001 - site may be stubbed in embedded interpreters
        pass
    prefixes += ["/usr/local", "/usr"]
    unique = []  # type: List[str]
    for p in prefixes:
        if p and p not in unique:
            unique.append(p)
    return unique


def find_notebooks(
    package_parent_dir: Optional[str] = None, prefixes: Optional[List[str]] = None
) -> Optional[Tuple[str, str]]:
    """``(folder, "source" | "installed")`` for the course notebooks, or None if not found."""
    parent = package_parent() if package_parent_dir is None else package_parent_dir
    checkout = os.path.join(parent, "notebooks")
    if os.path.isdir(checkout) and os.path.isfile(os.path.join(parent, "pyproject.toml")):
        return checkout, "source"
    for prefix in share_prefixes() if prefixes is None else prefixes:
        folder = os.path.join(prefix, SHARE_SUBDIR)
        if os.path.isdir(folder):
            return folder, "installed"
    return None

"""Where is the course, and can the Jupyter server open it?

The front end opens notebooks by path relative to the server's root directory, so the
course is only openable when it lives under that root. Otherwise the answer says where it
is and how to bring it in, and the UI shows that instead of a broken link.
"""

import os
import shlex
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

KERNEL_NAME = "mindspore"


def candidate_dirs(configured: str, root_dir: str) -> List[Path]:
    """Folders that may hold the course, best first: the configured one, the server root
    (``ascend-lab course`` starts JupyterLab in the learner's copy), ``<root>/notebooks``,
    the default copy ``~/ascend-lab-course``, then the installed or source-checkout course."""
    from ascend_lab import course_cmd as course

    found: List[Path] = []
    if configured:
        found.append(Path(configured).expanduser())
    found.append(Path(root_dir))
    found.append(Path(root_dir) / "notebooks")
    found.append(Path(course.DEFAULT_COURSE_DIR).expanduser())
    shipped = course.find_notebooks()
    if shipped is not None:
        found.append(Path(shipped[0]))
    else:
        found.append(Path(sys.prefix) / course.SHARE_SUBDIR)
    return found


def first_notebook(folder: Path) -> Optional[Path]:
    """The course's first notebook in ``folder``: ``00_*.ipynb`` (first by name), or None.

    Only ``00_`` counts, so a server root full of the learner's own notebooks is not
    mistaken for the course."""
    try:
        names = sorted(
            p for p in folder.glob("00_*.ipynb") if p.is_file() and not p.name.startswith(".")
        )
    except OSError:
        return None
    return names[0] if names else None


def _relative_to(path: Path, root: Path) -> Optional[str]:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def locate_course(configured: str, root_dir: str, kernel_names: Iterable[str]) -> Dict[str, Any]:
    """JSON for ``GET ascend-lab/api/course``.

    ``path`` is the first notebook relative to the server root (``None`` when there is no
    course or it is outside the root); ``kernel`` is ``"mindspore"`` when that kernelspec
    is installed, else ``None``; ``message`` explains anything the user must do.
    """
    kernel = KERNEL_NAME if KERNEL_NAME in set(kernel_names) else None
    kernel_hint = (
        "" if kernel else " The MindSpore kernel is not installed: run `ascend-lab install-kernel`."
    )
    root = Path(root_dir)
    outside: Optional[Path] = None
    for folder in candidate_dirs(configured, root_dir):
        notebook = first_notebook(folder)
        if notebook is None:
            continue
        rel = _relative_to(notebook, root)
        if rel is not None:
            return {
                "path": rel,
                "absolute": str(notebook),
                "kernel": kernel,
                "message": kernel_hint.strip(),
            }
        if outside is None:
            outside = notebook
    if outside is not None:
        return {
            "path": None,
            "absolute": str(outside),
            "kernel": kernel,
            "message": (
                "The course is at {} which is outside the Jupyter server's root {}. Copy it "
                "in with `cp -r {} {}` (or start Jupyter from a folder above it).{}".format(
                    outside.parent,
                    root,
                    shlex.quote(str(outside.parent)),
                    shlex.quote(os.path.join(str(root), "notebooks")),
                    kernel_hint,
                )
            ),
        }
    return {
        "path": None,
        "absolute": None,
        "kernel": kernel,
        "message": "No course notebooks found (looked in {}).{}".format(
            ", ".join(str(p) for p in candidate_dirs(configured, root_dir)), kernel_hint
        ),
    }

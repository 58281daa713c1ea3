"""Where is the course, and can the Jupyter server open it?

The front end opens notebooks by path relative to the server's root directory, so the
course is only openable when it lives under that root. Otherwise the answer says where it
is and how to bring it in, and the UI shows that instead of a broken link.

``lang`` picks the edition: "zh" (any ``zh*`` tag, e.g. JupyterLab's ``zh-CN``) answers
the Chinese edition's first notebook (``<course>/zh/00_*.ipynb``) when it is there, and
the English one otherwise (saying so); the answer's ``lang`` is the edition found.
"""

import os
import shlex
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

KERNEL_NAME = "mindspore"
NO_CHINESE_EDITION = "The Chinese edition of the course was not found; showing the English one."


def edition_notebook(folder: Path, lang: str) -> Optional[Tuple[Path, str]]:
    """``(first notebook, CHINESE | ENGLISH)`` of the wanted edition in ``folder``, else the other
    edition's, else None. A folder named ``zh`` is the Chinese edition itself."""
    from ascend_lab.exercises import language

    if lang == language.CHINESE:
        notebook = first_notebook(folder / language.ZH_FOLDER)
        if notebook is not None:
            return notebook, language.CHINESE
    notebook = first_notebook(folder)
    if notebook is None:
        return None
    return notebook, language.CHINESE if folder.name == language.ZH_FOLDER else language.ENGLISH


def candidate_dirs(configured: str, root_dir: str) -> List[Path]:
    """Folders that may hold the course, best first: the configured one, the server root
    (``ascend-lab course`` starts JupyterLab in the learner's copy), ``<root>/notebooks``,
    the default copy ``~/ascend-lab-course``, then the installed or source-checkout course."""
    from ascend_lab.course import command as course

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


def locate_course(
    configured: str, root_dir: str, kernel_names: Iterable[str], lang: Optional[str] = None
) -> Dict[str, Any]:
    """JSON for ``GET ascend-lab/api/course?lang=``.

    ``path`` is the first notebook of the ``lang`` edition ("zh" / "en"; None or unknown:
    English) relative to the server root (``None`` when there is no course or it is
    outside the root); ``lang`` is the edition found; ``kernel`` is ``"mindspore"`` when
    that kernelspec is installed, else ``None``; ``message`` explains anything the user
    must do.
    """
    from ascend_lab.exercises import language
    from ascend_lab.i18n import edition_tag

    wanted = language.normalize(lang) or language.ENGLISH
    kernel = KERNEL_NAME if KERNEL_NAME in set(kernel_names) else None
    kernel_hint = (
        "" if kernel else " The MindSpore kernel is not installed: run `ascend-lab install-kernel`."
    )
    root = Path(root_dir)
    under_root: List[Tuple[Path, str, str]] = []
    outside: Optional[Tuple[Path, str]] = None
    for folder in candidate_dirs(configured, root_dir):
        found = edition_notebook(folder, wanted)
        if found is None:
            continue
        rel = _relative_to(found[0], root)
        if rel is not None:
            under_root.append((found[0], found[1], rel))
        elif outside is None:
            outside = found
    # the wanted edition anywhere under the root beats the other one in a better folder
    if under_root:
        notebook, edition, rel = min(under_root, key=lambda f: f[1] != wanted)  # first best
        missing = NO_CHINESE_EDITION if edition != wanted else ""
        return {
            "path": rel,
            "absolute": str(notebook),
            "lang": edition_tag(edition),
            "kernel": kernel,
            "message": (missing + kernel_hint).strip(),
        }
    if outside is not None:
        notebook, edition = outside
        return {
            "path": None,
            "absolute": str(notebook),
            "lang": edition_tag(edition),
            "kernel": kernel,
            "message": (
                "The course is at {} which is outside the Jupyter server's root {}. Copy it "
                "in with `cp -r {} {}` (or start Jupyter from a folder above it).{}".format(
                    notebook.parent,
                    root,
                    shlex.quote(str(notebook.parent)),
                    shlex.quote(os.path.join(str(root), "notebooks")),
                    kernel_hint,
                )
            ),
        }
    return {
        "path": None,
        "absolute": None,
        "lang": None,
        "kernel": kernel,
        "message": "No course notebooks found (looked in {}).{}".format(
            ", ".join(str(p) for p in candidate_dirs(configured, root_dir)), kernel_hint
        ),
    }

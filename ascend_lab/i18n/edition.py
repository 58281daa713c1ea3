"""Which edition of the course a kernel runs, from the notebook it serves: the clue that
comes before ``$ASCEND_LAB_LANG`` and the locale (:func:`ascend_lab.i18n.choose`).

The two editions' code cells are identical, so the language is read from the kernel's
context, most specific first:

1. the notebook path jupyter_server gives the kernel (``$JPY_SESSION_NAME``): a course
   notebook (``NN_name.ipynb``) in a ``zh`` folder is the Chinese edition, elsewhere the
   English one;
2. the folder the kernel started in (the notebook's folder), taken when this module is
   first imported because the course's first cell then moves into a scratch folder; then
   the current directory: a ``zh`` folder is the Chinese edition, the course folder that
   holds ``zh/`` the English one.

The exercises always use both clues; status, doctor and trace messages use the folders only
inside a Jupyter kernel (a terminal's folder says nothing about who reads the output).
"""

import os
import re
import sys
from typing import Iterable, Mapping, Optional

SESSION_ENV = "JPY_SESSION_NAME"
ZH_FOLDER = "zh"  # notebooks/zh holds the Chinese edition
CHINESE = "zh_CN"
ENGLISH = "en"
_COURSE_NOTEBOOK = re.compile(r"\d\d[a-z]?_[A-Za-z0-9_]+\.ipynb")  # 05b_host_and_device too
MAX_PATH = 4096


def cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the folder was removed under the kernel
        return ""


# The course's first cell imports ascend_lab (and this module), then scratch_folder() chdirs.
START_FOLDER = cwd()


def from_notebook_path(path: str) -> Optional[str]:
    """The language of a course notebook path (``zh_CN`` / ``en``), None for any other file."""
    parts = path[:MAX_PATH].replace("\\", "/").rstrip("/").split("/")
    if not _COURSE_NOTEBOOK.fullmatch(parts[-1]):
        return None
    return CHINESE if len(parts) > 1 and parts[-2] == ZH_FOLDER else ENGLISH


def _has_first_notebook(folder: str) -> bool:
    try:
        return any(n.startswith("00_") and n.endswith(".ipynb") for n in os.listdir(folder))
    except OSError:
        return False


def from_folder(folder: str) -> Optional[str]:
    """The language of the edition whose notebooks live in ``folder``, None for other folders."""
    if os.path.basename(os.path.normpath(folder)) == ZH_FOLDER:
        return CHINESE
    if _has_first_notebook(folder) and _has_first_notebook(os.path.join(folder, ZH_FOLDER)):
        return ENGLISH
    return None


def from_context(env: Mapping[str, str], folders: Iterable[str]) -> Optional[str]:
    """The notebook's language from the session path, then ``folders`` in order; None if
    neither says (the caller then asks ``$ASCEND_LAB_LANG`` and the locale)."""
    by_path = from_notebook_path(env.get(SESSION_ENV, ""))
    if by_path:
        return by_path
    for folder in folders:
        by_folder = from_folder(folder) if folder else None
        if by_folder:
            return by_folder
    return None


def in_kernel(env: Mapping[str, str]) -> bool:
    """Is this process a Jupyter kernel (a notebook's, not a terminal's IPython)?"""
    if env.get(SESSION_ENV):
        return True
    ipython = sys.modules.get("IPython")  # never imported here: a kernel has loaded it
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - a half-imported IPython is not a kernel
        return False
    return type(shell).__name__ == "ZMQInteractiveShell"


def kernel_folders(env: Mapping[str, str]) -> Iterable[str]:
    """The folders whose edition counts for messages: the kernel's start and current folder
    inside a kernel, none elsewhere."""
    return (START_FOLDER, cwd()) if in_kernel(env) else ()

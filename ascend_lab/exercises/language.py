"""Which edition of the course is this kernel running: Chinese ("zh") or English ("en")?

The two editions' code cells are identical, so the exercises decide from the kernel's
context, most specific first:

1. the notebook path jupyter_server gives the kernel (``$JPY_SESSION_NAME``): a course
   notebook (``NN_name.ipynb``) in a ``zh`` folder is the Chinese edition, elsewhere the
   English one;
2. the folder the kernel started in (the notebook's folder), taken when this module is
   first imported because the course's first cell then moves into a scratch folder; then
   the current directory: a ``zh`` folder is the Chinese edition, the course folder that
   holds ``zh/`` the English one;
3. ``$ASCEND_LAB_LANG`` (``zh`` / ``en``), then the locale: the first set of ``LC_ALL``,
   ``LC_MESSAGES``, ``LANG`` (``zh_*`` -> Chinese; any other language -> English), as
   :func:`ascend_lab.i18n.choose` decides for the status and doctor messages.
"""

import os
import re
from typing import Mapping, Optional

from .. import i18n

CHINESE = "zh"
ENGLISH = "en"
LANG_ENV = i18n.ENV_LANG
SESSION_ENV = "JPY_SESSION_NAME"
ZH_FOLDER = "zh"  # notebooks/zh holds the Chinese edition
_COURSE_NOTEBOOK = re.compile(r"\d\d_[A-Za-z0-9_]+\.ipynb")


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the folder was removed under the kernel
        return ""


# The course's first cell imports the exercises, then scratch_folder() chdirs away.
START_FOLDER = _cwd()


def normalize(tag: Optional[str]) -> Optional[str]:
    """``"zh"``, ``"zh-CN"``, ``"zh_CN.UTF-8"`` -> "zh"; ``"en_US"`` -> "en"; ``"C"``, ``""``
    and other languages -> None."""
    found = i18n.normalize(tag[:64] if tag else tag)
    return None if found is None else (CHINESE if found == i18n.CHINESE else ENGLISH)


def from_environment(env: Optional[Mapping[str, str]] = None) -> str:
    """``$ASCEND_LAB_LANG``, else the locale, else English: the same choice as the status and
    doctor messages (:func:`ascend_lab.i18n.choose`), as an edition name."""
    return CHINESE if i18n.choose(env=env) == i18n.CHINESE else ENGLISH


def from_notebook_path(path: str) -> Optional[str]:
    """The edition a course notebook path belongs to, or None for any other file."""
    parts = path.replace("\\", "/").rstrip("/").split("/")
    if not _COURSE_NOTEBOOK.fullmatch(parts[-1]):
        return None
    return CHINESE if len(parts) > 1 and parts[-2] == ZH_FOLDER else ENGLISH


def _has_first_notebook(folder: str) -> bool:
    try:
        return any(n.startswith("00_") and n.endswith(".ipynb") for n in os.listdir(folder))
    except OSError:
        return False


def from_folder(folder: str) -> Optional[str]:
    """The edition whose notebooks live in ``folder``, or None when it is not a course folder."""
    if os.path.basename(os.path.normpath(folder)) == ZH_FOLDER:
        return CHINESE
    zh = os.path.join(folder, ZH_FOLDER)
    if _has_first_notebook(folder) and _has_first_notebook(zh):
        return ENGLISH
    return None


def edition(env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None) -> str:
    """ "zh" or "en" for the notebook this kernel runs (see the module docstring)."""
    env = os.environ if env is None else env
    by_path = from_notebook_path(env.get(SESSION_ENV, "")[:4096])
    if by_path:
        return by_path
    folders = [cwd] if cwd is not None else [START_FOLDER, _cwd()]
    for folder in folders:
        by_folder = from_folder(folder) if folder else None
        if by_folder:
            return by_folder
    return from_environment(env)

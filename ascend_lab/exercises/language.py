"""Which edition of the course is this kernel running: Chinese ("zh") or English ("en")?

The two editions' code cells are identical, so the exercises decide from the kernel's
context, most specific first:

1. the notebook path jupyter_server gives the kernel (``$JPY_SESSION_NAME``): a course
   notebook (``NN_name.ipynb``) in a ``zh`` folder is the Chinese edition, elsewhere the
   English one;
2. the kernel's working directory (the kernel starts in the notebook's folder): a ``zh``
   folder is the Chinese edition; the course folder that holds ``zh/`` is the English one;
3. ``$ASCEND_LAB_LANG`` (``zh`` / ``en``), then the locale: the first set of ``LC_ALL``,
   ``LC_MESSAGES``, ``LANG`` (``zh_*`` -> Chinese; any other language -> English).
"""

import os
import re
from typing import Mapping, Optional

CHINESE = "zh"
ENGLISH = "en"
LANG_ENV = "ASCEND_LAB_LANG"
SESSION_ENV = "JPY_SESSION_NAME"
ZH_FOLDER = "zh"  # notebooks/zh holds the Chinese edition
_LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")
_COURSE_NOTEBOOK = re.compile(r"\d\d_[A-Za-z0-9_]+\.ipynb")


def normalize(tag: Optional[str]) -> Optional[str]:
    """``"zh"``, ``"zh-CN"``, ``"zh_CN.UTF-8"`` -> "zh"; ``"en_US"`` -> "en"; ``"C"``, ``""``
    and other languages -> None."""
    if not tag:
        return None
    base = tag.strip()[:64].split(".", 1)[0].split("@", 1)[0].replace("-", "_").lower()
    if base == "zh" or base.startswith("zh_"):
        return CHINESE
    if base == "en" or base.startswith("en_"):
        return ENGLISH
    return None


def from_environment(env: Optional[Mapping[str, str]] = None) -> str:
    """``$ASCEND_LAB_LANG``, else the locale, else English (what ``ascend-lab course`` uses)."""
    env = os.environ if env is None else env
    chosen = normalize(env.get(LANG_ENV, ""))
    if chosen:
        return chosen
    for name in _LOCALE_VARS:
        value = env.get(name, "")
        if value:  # the first one set decides, as for gettext (fr_FR -> English)
            return normalize(value) or ENGLISH
    return ENGLISH


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
    if cwd is None:
        try:
            cwd = os.getcwd()
        except OSError:  # the folder was removed under the kernel
            cwd = ""
    by_folder = from_folder(cwd) if cwd else None
    return by_folder or from_environment(env)

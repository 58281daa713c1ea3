"""Which edition of the course is this kernel running: Chinese or English?

The language codes are ascend-lab's one pair (:data:`ascend_lab.i18n.CHINESE` ``"zh_CN"``,
:data:`ascend_lab.i18n.ENGLISH` ``"en"``); this module maps nothing of its own. The two
editions' code cells are identical, so the exercises decide from the kernel's context, most
specific first, with the one detection status, doctor and trace messages use
(:func:`ascend_lab.i18n.choose`, :mod:`ascend_lab.i18n.edition`):

1. the notebook path jupyter_server gives the kernel (``$JPY_SESSION_NAME``): a course
   notebook (``NN_name.ipynb``) in a ``zh`` folder is the Chinese edition, elsewhere the
   English one;
2. the folder the kernel started in (the notebook's folder), taken when ascend_lab's i18n
   is first imported because the course's first cell then moves into a scratch folder; then
   the current directory: a ``zh`` folder is the Chinese edition, the course folder that
   holds ``zh/`` the English one;
3. ``$ASCEND_LAB_LANG`` (``zh`` / ``en``), then the locale: the first set of ``LC_ALL``,
   ``LC_MESSAGES``, ``LANG`` (``zh_*`` -> Chinese; any other language -> English).

The messages use the folders (2) only inside a Jupyter kernel; the exercises always do.
"""

import os
from typing import Mapping, Optional

from ascend_lab import i18n
from ascend_lab.i18n import CHINESE, ENGLISH, from_environment, normalize
from ascend_lab.i18n import edition as _context
from ascend_lab.i18n.edition import SESSION_ENV, ZH_FOLDER, from_folder, from_notebook_path

__all__ = [
    "CHINESE",
    "ENGLISH",
    "LANG_ENV",
    "SESSION_ENV",
    "START_FOLDER",
    "ZH_FOLDER",
    "edition",
    "from_environment",
    "from_folder",
    "from_notebook_path",
    "normalize",
    "tr",
]

LANG_ENV = i18n.ENV_LANG

# The kernel's first folder (see :mod:`ascend_lab.i18n.edition`); a name here so a test can
# stand in for the kernel's start.
START_FOLDER = _context.START_FOLDER


def edition(env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None) -> str:
    """:data:`CHINESE` or :data:`ENGLISH` for the notebook this kernel runs (see the module
    docstring)."""
    env = os.environ if env is None else env
    folders = [cwd] if cwd is not None else [START_FOLDER, _context.cwd()]
    return _context.from_context(env, folders) or from_environment(env)


def tr(english: str, chinese: str) -> str:
    """The text of this edition: ``tr("Memory over steps", "各步的内存")`` in a code cell.

    Both editions' code cells stay the same code (the Chinese one may only differ in its
    comments), so a plot title or a printed label that a learner reads goes through this."""
    return chinese if edition() == CHINESE else english

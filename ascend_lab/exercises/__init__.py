"""Exercises for the ascend-lab course: ``q.check(answer)``, ``q.hint()``, ``q.solution()``.

from ascend_lab.exercises import ____, exercises
q1, q2 = exercises("03")

Checks, hints and pointers print in the edition's language (``language.edition``): Chinese
for the notebooks under ``notebooks/zh``, English otherwise. A code cell picks a label or a
plot title by edition with ``tr("english", "中文")``.
"""

from ascend_lab.exercises.core import (
    NOT_ANSWERED,
    NOT_ANSWERED_ZH,
    RIGHT,
    WRONG,
    WRONG_ZH,
    Exercise,
    Text,
    ____,
    is_blank,
)
from ascend_lab.exercises.course import EXERCISES, exercises
from ascend_lab.exercises.language import tr

__all__ = [
    "EXERCISES",
    "NOT_ANSWERED",
    "NOT_ANSWERED_ZH",
    "RIGHT",
    "WRONG",
    "WRONG_ZH",
    "Exercise",
    "Text",
    "____",
    "exercises",
    "is_blank",
    "tr",
]

"""Exercises for the ascend-lab course: ``q.check(answer)``, ``q.hint()``, ``q.solution()``.

from ascend_lab.exercises import ____, exercises
q1, q2 = exercises("03")
"""

from .core import NOT_ANSWERED, RIGHT, WRONG, Exercise, ____, is_blank
from .course import EXERCISES, exercises

__all__ = [
    "EXERCISES",
    "NOT_ANSWERED",
    "RIGHT",
    "WRONG",
    "Exercise",
    "____",
    "exercises",
    "is_blank",
]

"""Put the solutions into a course notebook: the "with solutions" rendering the tests run.

Each cell tagged ``exercise`` is followed by a ``self-check`` cell calling ``qN.check(...)``;
the exercise cell's source is replaced by exercise N's ``solution_code`` from
``ascend_lab.exercises`` (the solutions live there, not in the learner's notebook).
"""

import copy
import re
from typing import Any, List

from ascend_lab.exercises import exercises

CHECK_CALL = re.compile(r"\bq(\d+)\.check\(")
NOT_ANSWERED = "not answered yet"
RIGHT = "\u2713"
WRONG = "\u2717 not yet"


def exercise_numbers(nb: Any) -> List[int]:
    """The exercise number checked after each exercise cell, in notebook order."""
    numbers = []
    for i, cell in enumerate(nb.cells):
        if "exercise" not in cell.get("metadata", {}).get("tags", []):
            continue
        following = nb.cells[i + 1].source if i + 1 < len(nb.cells) else ""
        match = CHECK_CALL.search(following)
        if match is None:
            raise ValueError(f"exercise cell {i} is not followed by a qN.check(...) cell")
        numbers.append(int(match.group(1)))
    return numbers


def with_solutions(nb: Any, notebook: str) -> Any:
    """A copy of ``nb`` whose exercise cells hold the solutions of ``notebook`` ("NN")."""
    solved = copy.deepcopy(nb)
    qs = exercises(notebook)
    numbers = iter(exercise_numbers(solved))
    for cell in solved.cells:
        if "exercise" in cell.get("metadata", {}).get("tags", []):
            cell.source = qs[next(numbers) - 1].solution_code
    return solved


def markers(text: str) -> dict:
    """How many right, wrong and unanswered verdicts a check cell's output holds."""
    return {
        "right": text.count(RIGHT),
        "wrong": text.count(WRONG),
        "open": text.count(NOT_ANSWERED),
    }

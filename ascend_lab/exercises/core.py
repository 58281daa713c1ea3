"""Self-checking exercises for the course, in the style of Kaggle Learn's learntools.

An exercise cell ships with a placeholder (``answer = ____``). ``q.check(answer, ...)``
prints one line, in colour, and never raises, so "Run All" goes on:

- ``not answered yet`` while the answer is (or contains) the placeholder;
- ``✗ not yet: <pointer>`` for a wrong answer (or one that fails to evaluate);
- ``✓ <why>`` only for a right one.

``q.hint()`` and ``q.solution()`` print the hint and the solution code. Solutions live here,
not in the learner's notebook; the course tests put ``q.solution_code`` into the exercise
cell to run a notebook "with solutions".
"""

import sys
from typing import Any, Callable, Optional, Tuple

NOT_ANSWERED = "not answered yet"
WRONG = "\u2717 not yet"
RIGHT = "\u2713"

_COLOURS = {"right": "\x1b[32m", "wrong": "\x1b[31m", "open": "\x1b[33m", "info": "\x1b[34m"}
_RESET = "\x1b[0m"


class _Placeholder:
    """The blank a learner replaces: ``____``. Any use of it in arithmetic stays a blank."""

    def __repr__(self) -> str:
        return "____"

    def __call__(self, *args: Any, **kwargs: Any) -> "_Placeholder":
        return self

    def __getattr__(self, name: str) -> "_Placeholder":
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key: Any) -> "_Placeholder":
        return self

    def _same(self, *_args: Any) -> "_Placeholder":
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __neg__ = _same


____ = _Placeholder()


def is_blank(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is the placeholder or holds one (in a list, tuple, dict or set)."""
    if isinstance(value, _Placeholder):
        return True
    if depth > 3:
        return False
    if isinstance(value, dict):
        return any(is_blank(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(is_blank(v, depth + 1) for v in value)
    return False


# A verifier gets the learner's answers and the context the check cell passes, and returns
# (True, why-it-is-right) or (False, pointer-to-the-mistake).
Verifier = Callable[..., Tuple[bool, str]]


class Exercise:
    """One exercise: a verifier, a hint, the solution code and a plausible wrong answer."""

    def __init__(
        self,
        notebook: str,
        number: int,
        verify: Verifier,
        hint: str,
        solution_code: str,
    ) -> None:
        self.notebook = notebook
        self.number = number
        self._verify = verify
        self._hint = hint
        self.solution_code = solution_code.strip("\n")

    def __repr__(self) -> str:
        return f"<Exercise {self.notebook}.{self.number}: q.check(...), q.hint(), q.solution()>"

    def verdict(self, *answers: Any, **context: Any) -> Tuple[str, str]:
        """``("open"|"wrong"|"right", message)`` without printing; never raises."""
        if not answers or any(is_blank(a) for a in answers):
            return "open", NOT_ANSWERED
        try:
            ok, message = self._verify(*answers, **context)
        except _NotWritten:  # a learner's function still returns the blank (or None)
            return "open", NOT_ANSWERED
        except Exception as exc:  # noqa: BLE001 - a learner's answer may fail in any way
            return "wrong", f"your answer raised {type(exc).__name__}: {exc}"[:400]
        return ("right", message) if ok else ("wrong", message)

    def check(self, *answers: Any, **context: Any) -> None:
        """Print whether the answer is right, in colour; never raises."""
        kind, message = self.verdict(*answers, **context)
        if kind == "right":
            line = f"{RIGHT} Exercise {self.number}: {message}"
        elif kind == "wrong":
            line = f"{WRONG}: {message}  (q{self.number}.hint() for a hint)"
        else:
            line = (
                f"Exercise {self.number}: {NOT_ANSWERED} - replace ____ above "
                f"(q{self.number}.hint(), q{self.number}.solution())"
            )
        _print(kind, line)

    def hint(self) -> None:
        _print("info", f"Hint {self.number}: {self._hint}")

    def solution(self) -> None:
        _print("info", f"Solution {self.number}:")
        print(self.solution_code)


class _NotWritten(Exception):
    """A learner's function returned None: the body is still the placeholder."""


def returned(value: Any) -> Any:
    """A learner's function result; None means the function was not written yet."""
    if value is None or is_blank(value):
        raise _NotWritten("the function returned None")
    return value


def _print(kind: str, line: str, stream: Optional[Any] = None) -> None:
    out = stream or sys.stdout
    out.write(f"{_COLOURS[kind]}{line}{_RESET}\n")
    out.flush()

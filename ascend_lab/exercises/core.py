"""Self-checking exercises for the course, in the style of Kaggle Learn's learntools.

An exercise cell ships with a placeholder (``answer = ____``). ``q.check(answer, ...)``
prints one line, in colour, and never raises, so "Run All" goes on:

- ``not answered yet`` while the answer is (or contains) the placeholder;
- ``✗ not yet: <pointer>`` for a wrong answer (or one that fails to evaluate);
- ``✓ <why>`` only for a right one.

Each line, hint and pointer exists in English and Chinese (:class:`Text`); the language is
the edition the kernel runs (:func:`.language.edition`: a notebook under ``zh/`` speaks
Chinese), so the two editions share identical code cells.

``q.hint()`` and ``q.solution()`` print the hint and the solution code. Solutions live here,
not in the learner's notebook; the course tests put ``q.solution_code`` into the exercise
cell to run a notebook "with solutions".
"""

import sys
from typing import Any, Callable, NamedTuple, Optional, Tuple, Union

from ascend_lab.errors import AscendLabError
from ascend_lab.exercises.language import CHINESE, edition, normalize

NOT_ANSWERED = "not answered yet"
WRONG = "\u2717 not yet"
RIGHT = "\u2713"
NOT_ANSWERED_ZH = "尚未作答"
WRONG_ZH = "\u2717 还不对"


class Text(NamedTuple):
    """One message in both editions' languages."""

    en: str
    zh: str

    def pick(self, lang: str) -> str:
        """The text for ``lang`` (any tag :func:`ascend_lab.i18n.normalize` reads)."""
        return self.zh if normalize(lang) == CHINESE else self.en


Message = Union[str, Text]
Result = Tuple[bool, Message]  # (right?, what to tell the learner, in one or both languages)


def in_language(message: Message, lang: str) -> str:
    """A verifier's message in ``lang`` (a plain str is the same in both)."""
    return message.pick(lang) if isinstance(message, Text) else str(message)


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
# (True, why-it-is-right) or (False, pointer-to-the-mistake), each a Text.
Verifier = Callable[..., Tuple[bool, Message]]


class Exercise:
    """One exercise: a verifier, a hint, the solution code and a plausible wrong answer."""

    def __init__(
        self,
        notebook: str,
        number: int,
        verify: Verifier,
        hint: Text,
        solution_code: str,
    ) -> None:
        self.notebook = notebook
        self.number = number
        self._verify = verify
        self._hint = hint
        self.solution_code = solution_code.strip("\n")

    def __repr__(self) -> str:
        return f"<Exercise {self.notebook}.{self.number}: q.check(...), q.hint(), q.solution()>"

    def verdict(self, *answers: Any, lang: Optional[str] = None, **context: Any) -> Tuple[str, str]:
        """``("open"|"wrong"|"right", message)`` without printing; never raises.

        ``lang`` (any tag: "en", "zh", "zh_CN") defaults to the edition this kernel runs."""
        lang = normalize(lang) or edition()
        zh = lang == CHINESE
        if not answers or any(is_blank(a) for a in answers):
            return "open", NOT_ANSWERED_ZH if zh else NOT_ANSWERED
        try:
            ok, message = self._verify(*answers, **context)
        except _NotWritten:  # a learner's function still returns the blank (or None)
            return "open", NOT_ANSWERED_ZH if zh else NOT_ANSWERED
        except Exception as exc:  # noqa: BLE001 - a learner's answer may fail in any way
            what = f"{type(exc).__name__}: {exc}"
            raised = f"你的答案引发了 {what}" if zh else f"your answer raised {what}"
            return "wrong", raised[:400]
        return ("right" if ok else "wrong"), in_language(message, lang)

    def check(self, *answers: Any, **context: Any) -> None:
        """Print whether the answer is right, in colour, in the edition's language; never raises."""
        lang = edition()
        kind, message = self.verdict(*answers, lang=lang, **context)
        n = self.number
        if lang == CHINESE:
            line = {
                "right": f"{RIGHT} 练习 {n}：{message}",
                "wrong": f"{WRONG_ZH}：{message}（提示：q{n}.hint()）",
                "open": f"练习 {n}：{NOT_ANSWERED_ZH}——请替换上面的 ____"
                f"（提示：q{n}.hint()，参考答案：q{n}.solution()）",
            }[kind]
        else:
            line = {
                "right": f"{RIGHT} Exercise {n}: {message}",
                "wrong": f"{WRONG}: {message}  (q{n}.hint() for a hint)",
                "open": f"Exercise {n}: {NOT_ANSWERED} - replace ____ above "
                f"(q{n}.hint(), q{n}.solution())",
            }[kind]
        _print(kind, line)

    def hint(self) -> None:
        lang = edition()
        label = "提示" if lang == CHINESE else "Hint"
        sep = "：" if lang == CHINESE else ": "
        _print("info", f"{label} {self.number}{sep}{self._hint.pick(lang)}")

    def solution(self) -> None:
        lang = edition()
        label = f"参考答案 {self.number}：" if lang == CHINESE else f"Solution {self.number}:"
        _print("info", label)
        print(self.solution_code)


class _NotWritten(AscendLabError):
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

"""What MindSpore prints to a course run's stderr, and where the course explains each line.

A learner on Binder (MindSpore 2.10, CPU) sees every line MindSpore's loggers write while a
cell runs: its Python logger (``[WARNING] ME(pid:...,MainProcess):... [mindspore/context.py:1582]
...``) and its C++ log (``[ERROR] CORE(pid,...):... [mindspore/core/utils/file_utils.cc:253]
...``), both captured into the cell's output by ipykernel, and Python's own warnings
(``file.py:12: DeprecationWarning: ...``). Each one must be explained in the notebook where it
appears, or avoided with the version's API (issue #39).

:data:`EXPLAINED` maps each line a course run prints to the notebook that prints it and the
words of that notebook (both editions) that explain it; ``test_execute`` fails on a printed
line no entry covers, and the fast test here fails when an explanation leaves a notebook.
:data:`REPORTED` holds the lines found in a run of 2026-12-07 that their notebook does not
explain yet (each reported to the integrator with its cell); an entry leaves it for
:data:`EXPLAINED` when the notebook explains it. Patterns are plain substrings.
"""

import re
from typing import Any, Iterator, List, NamedTuple, Tuple

# "[WARNING] ME(" / "[ERROR] CORE(": MindSpore's Python and C++ loggers (one line each)
MINDSPORE_LINE = re.compile(r"^\[(?:WARNING|ERROR|CRITICAL)\] [A-Z_]{1,40}\(")
# "/path/x.py:12: DeprecationWarning: text"
PYTHON_WARNING = re.compile(r"\.py:\d{1,7}: [A-Za-z]{0,60}Warning: ")


class Explained(NamedTuple):
    notebook: str  # "09b": the prefix of the notebook's file name
    printed: str  # a part of the printed line
    en: str  # words of the English notebook's Markdown that explain it
    zh: str  # the same in the Chinese edition


EXPLAINED: Tuple[Explained, ...] = (
    Explained(
        "03",
        "'enable_graph_kernel' parameter is deprecated",
        "'enable_graph_kernel' parameter is deprecated",
        "'enable_graph_kernel' parameter is deprecated",
    ),
    Explained(
        "05",
        "'mindspore.Profiler' will be deprecated",
        "'mindspore.Profiler' will be deprecated",
        "'mindspore.Profiler' will be deprecated",
    ),
    Explained(
        "09b", "GetRealPath] Get realpath failed", "Get realpath failed", "Get realpath failed"
    ),
    Explained(
        "09b",
        "ReadSectionDebugInfoFromFile] The file",
        "ReadSectionDebugInfoFromFile] The file ... may not exists.",
        "ReadSectionDebugInfoFromFile] The file ... may not exists.",
    ),
    Explained(
        "09b",
        "CommManager instance for CPU not found",
        "CommManager instance for CPU not found, return default instance.",
        "CommManager instance for CPU not found, return default instance.",
    ),
    Explained(
        "05",
        "Profiler won't be using warmup, this can skew profiler results",
        "Profiler won't be using warmup, this can skew profiler results",
        "Profiler won't be using warmup, this can skew profiler results",
    ),
    Explained(
        "06",
        "has been compiled again. Try to reuse the function object decorated by @jit",
        "has been compiled again. Try to reuse the function object decorated by @jit",
        "has been compiled again. Try to reuse the function object decorated by @jit",
    ),
    Explained(
        "09b",
        "Only tensor which shape is () or (1,) can be converted to bool",
        "[ERROR] ANALYZER ... infer failed, failed info: Only tensor which shape is () or (1,) can",
        "[ERROR] ANALYZER ... infer failed, failed info: Only tensor which shape is () or (1,) can",
    ),
)

# (notebook, a part of the line, the cell of the 2026-12-07 run that printed it)
REPORTED: Tuple[Tuple[str, str, str], ...] = ()


def printed_lines(nb: Any) -> Iterator[Tuple[int, str]]:
    """(cell index, line) for every MindSpore log line and Python warning in ``nb``'s outputs."""
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") != "stream":
                continue
            for line in str(out.get("text", "")).splitlines():
                if MINDSPORE_LINE.match(line) or PYTHON_WARNING.search(line):
                    yield index, line


def unexplained(notebook: str, nb: Any) -> List[Tuple[int, str]]:
    """The printed lines of notebook ``notebook`` ("09b") that no entry covers."""
    known = [e.printed for e in EXPLAINED if e.notebook == notebook]
    known += [printed for nb_, printed, _cell in REPORTED if nb_ == notebook]
    return [(i, line) for i, line in printed_lines(nb) if not any(k in line for k in known)]


def flat(text: str) -> str:
    """Markdown with every run of whitespace made one space (explanations wrap lines)."""
    return " ".join(text.split())

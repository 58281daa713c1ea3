"""Whether a text is only warnings: the log levels its lines print, read by grammar.

Users paste warnings as often as failures: a converter's "not find node" for every layer of a
model that converted, a scheduler's "failed to get node devices" each session, torch's
"[W ...] Warning: ... will fall back to run on the CPU". When no rule and no code names
anything, and every line that carries a log level is a warning (or information), and no line
reports an error in any form a tool prints one, the doctor says so instead of "nothing
recognised": nothing in the text says that the run failed.

Levels are read in the forms the stacks around an NPU print them:

- bracketed words: ``[WARNING] LITE(...)`` (MindSpore, CANN), ``[W OpCommand.cpp:88]`` and
  ``[W1207 10:00:00.000 file.cpp:12]`` (torch / c10), ``[ERROR]``, ``[E ...]``;
- glog / klog prefixes: ``W1210 02:55:05.548102  1 file.go:97]``, ``E1210 ...``, ``F1210 ...``;
- words after a time stamp or a logger's name: ``2025-06-13 10:11:38 WARNING``,
  ``WARNING 11-07 06:32:37 [file.py:12]`` (vLLM), ``level=warning`` (logrus),
  ``"level":"warn"`` (JSON loggers);
- Python's warnings: ``UserWarning: ...`` and other ``...Warning:`` lines.

A line reports an error when it carries an error level (ERROR, FATAL, CRITICAL, E / F glog
letters, ``level=error``), when it is an exception line or a traceback's header, when it says
the process died (a fatal signal, "core dumped"), or when it is a CANN error banner
(``EZ9999: Inner Error!``). A line with no level at all that says "error", "fail",
"exception", "abort", "fatal", "cannot" or the like counts as an error too: without a level,
the doctor cannot tell that it is harmless. A warning that says an action failed ("Failed to
run the execution", "could not load", an error code) reports a failure too; a warning that a
lookup failed, and information lines, are not read for such words.

Pure and linear: text in, counts out; one pass over the lines with anchored, bounded
patterns. Nothing here imports MindSpore.
"""

import re
from dataclasses import dataclass
from typing import Optional

WARNING, INFO, ERROR, NONE = "warning", "info", "error", "none"

# an optional process prefix vLLM / Ray print before a log line: "(EngineCore_DP0 pid=17833) "
_PREFIX = r"^(?:\([\w .=-]{1,80}\)\s{1,4})?\s{0,8}"
# "[WARNING]", "[W OpCommand.cpp:88]", "[W1207 10:00:00.000 x.cpp:1]", "[ERROR]", "[E x.cpp:1]"
_BRACKET = re.compile(
    _PREFIX + r"\+?\s{0,4}\[(?:(?P<word>[A-Za-z]{4,9})\]|(?P<letter>[WEIFD])(?:\d{4}\s|\s))"
)
# glog / klog: "W1210 02:55:05.548102" (letter, month, day, space, time)
_GLOG = re.compile(_PREFIX + r"(?P<letter>[WEIFD])\d{4}\s{1,2}\d{2}:\d{2}:\d{2}")
# a level word near the start of the line, after a time stamp or a logger's name:
# "2025-06-13 10:11:38 [ERROR] [911684] profiler.py", "WARNING 11-07 06:32:37 [x.py:1]",
# "2024-01-01 00:00:00,000 - name - WARNING - ...", "level=warning", '"level":"warn"'
_WORD = re.compile(
    r"^[^\n]{0,80}?(?<![\w-])(?P<word>WARNING|WARN|ERROR|FATAL|CRITICAL|INFO|DEBUG|TRACE|"
    r"EXCEPTION|EVENT)(?![\w-])"
)
_KEYVALUE = re.compile(r"""\blevel["']?\s{0,2}[=:]\s{0,2}["']?(?P<word>[A-Za-z]{4,8})""")
# Python's warnings: "UserWarning: ...", "/path/x.py:12: FutureWarning: ..."
_PY_WARNING = re.compile(r"^[^\n]{0,300}?\b[A-Z]\w{0,60}Warning:\s")
# an exception line or a traceback's header
_EXCEPTION = re.compile(
    _PREFIX + r"(?:\[rank\d{1,6}\]:\s{0,4}|E\s{1,8})?"
    r"(?:[A-Za-z_][\w.]{0,200}(?:Error|Exception|Exit|Interrupt|Failure|Fault))(?::|$)"
)
_DEATH = re.compile(
    r"Traceback \(most recent call last\)|Segmentation fault|core dumped|Aborted|"
    r"Fatal Python error|\bSIG(?:SEGV|ABRT|KILL|BUS|FPE|ILL)\b|\bKilled\b|terminate called"
)
# CANN's error banner: "EZ9999: Inner Error!", "EE1001: [PID: 1] ..."
_BANNER = re.compile(_PREFIX + r"E[A-Z0-9]\d{4}:")
# what an unlevelled line says when it reports a failure
_BAD_WORDS = re.compile(
    r"error|fail|exception|abort|fatal|cannot|can't|unable|timed? ?out|denied|not found|"
    r"invalid|refused|crash|panic",
    re.IGNORECASE,
)

# what a warning says when it reports a failure all the same (Paddle-Lite logs "Warning:
# Failed to run the execution(2)!" when inference fails): an action that did not happen, or
# an error code. A warning that a lookup failed ("Failed to get node devices") stays a warning.
_FAILED_ACTION = re.compile(
    r"(?:fail(?:ed|s|ure)?|unable|could ?n[o']t|cannot|can't) (?:to )?(?:run|execute|launch|"
    r"start|load|init|initiali[sz]e|allocate|alloc|malloc|compile|build|create|open|connect|"
    r"bind|register|set ?up|execution|launching|loading)\b|error ?code|\berrno\b|exception",
    re.IGNORECASE,
)

_LEVEL_OF_WORD = {
    "WARNING": WARNING,
    "WARN": WARNING,
    "ERROR": ERROR,
    "FATAL": ERROR,
    "CRITICAL": ERROR,
    "EXCEPTION": ERROR,
    "INFO": INFO,
    "DEBUG": INFO,
    "TRACE": INFO,
    "EVENT": INFO,
    "NOTICE": INFO,
}
_LEVEL_OF_LETTER = {"W": WARNING, "E": ERROR, "F": ERROR, "I": INFO, "D": INFO}
_MAX_LINE = 2000  # a line is read at its start: levels and exception names come first


def line_level(line: str) -> str:
    """The level ``line`` prints (:data:`WARNING`, :data:`INFO`, :data:`ERROR`), or
    :data:`NONE` when it prints none."""
    line = line[:_MAX_LINE]
    if _DEATH.search(line) or _EXCEPTION.match(line) or _BANNER.match(line):
        return ERROR
    found = _BRACKET.match(line) or _GLOG.match(line)
    if found is not None:
        word = found.groupdict().get("word")
        if word:
            level = _LEVEL_OF_WORD.get(word.upper())
            if level is not None:
                return level
        else:
            return _LEVEL_OF_LETTER[found.group("letter")]
    found = _KEYVALUE.search(line) or _WORD.match(line)
    if found is not None:
        level = _LEVEL_OF_WORD.get(found.group("word").upper())
        if level is not None:
            return level
    if _PY_WARNING.match(line):
        return WARNING
    return NONE


@dataclass(frozen=True)
class Levels:
    """How many lines of a text print each level; ``errors`` counts lines that report an
    error in any form (see the module's description)."""

    warnings: int
    infos: int
    errors: int
    first_warning: int  # line number (1-based) of the first warning, 0 if none
    first_warning_text: str

    @property
    def only_warnings(self) -> bool:
        return self.warnings > 0 and self.errors == 0


def read_levels(text: str) -> Levels:
    """Count the levels of ``text``'s lines (:func:`line_level`); a line with no level that
    says it failed counts as an error."""
    warnings = infos = errors = 0
    first, first_text = 0, ""
    for number, line in enumerate(text.split("\n"), 1):
        level = line_level(line)
        if level == WARNING and _FAILED_ACTION.search(line[:_MAX_LINE]):
            errors += 1
        elif level == WARNING:
            warnings += 1
            if not first:
                first, first_text = number, line.strip()[:300]
        elif level == INFO:
            infos += 1
        elif level == ERROR or _BAD_WORDS.search(line[:_MAX_LINE]):
            errors += 1
    return Levels(warnings, infos, errors, first, first_text)


def only_warnings(text: str) -> Optional[Levels]:
    """The text's levels when it is only warnings (and information), else None."""
    levels = read_levels(text)
    return levels if levels.only_warnings else None

"""Errors of ``ascend_lab.profile`` and of the profiler-file parsers."""

from typing import Optional

from ascend_lab.errors import AscendLabError


class ProfileError(AscendLabError, RuntimeError):
    """The net could not be run under MindSpore's profiler, or its output could not be read."""


class ProfileParseError(ProfileError):
    """A profiler file is not in the format its parser expects; ``path`` names it."""

    def __init__(self, message: str, path: Optional[str] = None, line: Optional[int] = None):
        where = path or "<text>"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line

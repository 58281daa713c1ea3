"""Errors raised while capturing or analysing a trace."""

from typing import Optional

from ascend_lab.errors import AscendLabError


class TraceError(AscendLabError, RuntimeError):
    """MindSpore could not compile (or run) the net being traced.

    ``ms_message`` is MindSpore's own message; ``file``/``line`` point at the user's Python
    line when MindSpore's error text or the traceback names one.
    """

    def __init__(
        self,
        message: str,
        ms_message: Optional[str] = None,
        file: Optional[str] = None,
        line: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.ms_message = ms_message
        self.file = file
        self.line = line

    @property
    def location(self) -> Optional[str]:
        if self.file is None:
            return None
        return f"{self.file}:{self.line}" if self.line is not None else self.file


class TraceBusyError(TraceError):
    """Another trace is running in this process (MindSpore's context is global)."""


class NoKernelGraphError(TraceError, ValueError):
    """MindSpore compiled the net but built no kernel graph: nothing in it runs an operator
    (it returns its inputs, or only constants). A ``ValueError`` too, as it was before."""

"""The one error the graph parsers raise for input they cannot read."""

from typing import Optional

from ascend_lab.errors import AscendLabError


class GraphParseError(AscendLabError, ValueError):
    """A ``.ir`` or ``.mindir`` input that is truncated, corrupt or not what it claims to be.

    ``path`` names the file (or None for text given directly), ``line`` is the 1-based line
    of a text file and ``offset`` the byte offset in a binary file, when known.
    """

    def __init__(
        self,
        message: str,
        path: Optional[str] = None,
        line: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> None:
        self.reason = message
        self.path = path
        self.line = line
        self.offset = offset
        where = path or "<text>"
        if line is not None:
            where += f":{line}"
        if offset is not None:
            where += f" (byte offset {offset})"
        super().__init__(f"{where}: {message}")

"""A graph-mode compile failure explained from its ``analyze_fail.ir`` / ``.dat``.

MindSpore's compile errors end with "The function call stack (See file
'/.../rank_0/om/analyze_fail.ir' for more details ...)" (1.x: ``analyze_fail.dat``). When
that file is on this machine (or given with ``--ir PATH``), the doctor reads it through the
IR reader (regular files only, within ``ASCEND_LAB_IR_MAX_BYTES``) and shows the node where
inference stopped, its operator, its source line, the user's own line that led there, and
the command that draws the graph. Nothing here imports MindSpore.
"""

import html
import os
import re
from dataclasses import dataclass, fields
from typing import Any, Dict, List, Optional

from ascend_lab.doctor.diagnosis import Diagnosis
from ascend_lab.i18n import _, localize, msg

__all__ = [
    "CompileDiagnosis",
    "CompileFailure",
    "attach_compile_failure",
    "compile_failure_from",
    "find_ir_paths",
    "read_compile_failure",
]

# The file name is found by a literal; its path is read backwards from there, over the
# characters a path token holds, never past the previous file name: every character of the
# text is looked at at most twice, whatever it holds (a regex with a long leading class
# would rescan up to its bound from every position).
_NAME_RE = re.compile(r"analyze_fail\.(?:ir|dat)\b")
_NOT_IN_PATH = frozenset(" \t\r\n\f\v'\"()<>`,;")
_MAX_PATH_CHARS = 4096
_MAX_PATHS = 4


def find_ir_paths(text: str) -> List[str]:
    """The ``analyze_fail`` files a traceback names, in order, each once (at most 4)."""
    out: List[str] = []
    floor = 0  # where the previous file name ended
    for m in _NAME_RE.finditer(text):
        start = m.start()
        stop = max(floor, start - _MAX_PATH_CHARS)
        while start > stop and text[start - 1] not in _NOT_IN_PATH:
            start -= 1
        floor = m.end()
        path = text[start : m.end()]
        # a path (not the bare name in "instructions about `analyze_fail.ir`", not a URL)
        if (
            ("/" in path or "\\" in path)
            and "://" not in path
            and "?" not in path
            and path not in out
        ):
            out.append(path)
            if len(out) >= _MAX_PATHS:
                break
    return out


@dataclass
class CompileFailure:
    """What the doctor read from one analyze_fail file (``problem``: why it could not)."""

    path: str
    point: Any = None  # ascend_lab.parsers.ir.analyze_fail.FailurePoint
    error: Optional[str] = None  # the exception 2.x prints at the top of the file
    unread: int = 0  # lines the IR reader did not understand
    problem: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {
            "path": self.path,
            "stop": self.point.stop.to_dict() if self.point else None,
            "user": self.point.user.to_dict() if self.point and self.point.user else None,
            "error": self.error,
            "unread_lines": self.unread,
            "problem": self.problem,
            "view": f"ascend-lab view {self.path}",
        }

    def lines(self) -> List[str]:
        """The section, in the current language."""
        out = [_("Compile failure ({}):").format(self.path)]
        if self.problem:
            out.append("  " + localize(self.problem))
            return out
        point = self.point
        if point is None:
            out.append("  " + _("no node is marked as where inference stopped"))
        else:
            stop = point.stop
            out.append(
                "  "
                + _("Inference stopped at {} ({}) in @{}").format(stop.node_id, stop.op, stop.graph)
            )
            if stop.source:
                out.append("  " + _("Source: {}").format(_at(stop.source, stop.code)))
            user = point.user
            if user is not None and user is not stop and user.source:
                out.append("  " + _("Your code: {}").format(_at(user.source, user.code)))
        if self.error:
            out.append("  " + _("Error: {}").format(self.error.split("\n", 1)[0][:300]))
        if self.unread:
            out.append("  " + _("{} lines of the file not read").format(self.unread))
        out.append("  " + _("See the graph: ascend-lab view {}").format(self.path))
        return out


def _at(source: str, code: str) -> str:
    return f"{source}: {code}" if code else source


def read_compile_failure(path: str) -> CompileFailure:
    """Read one analyze_fail file; a file that cannot be read says why in ``problem``."""
    from ascend_lab.parsers.errors import GraphParseError
    from ascend_lab.parsers.ir.analyze_fail import caught_exception, failure_point
    from ascend_lab.parsers.ir.ir_text import parse_ir_text, read_ir_regular, unread_lines

    try:
        text = read_ir_regular(path)
        graph = parse_ir_text(text, path)
    except GraphParseError as exc:
        return CompileFailure(path, problem=msg("cannot read it: {}", exc.reason))
    except OSError as exc:
        return CompileFailure(path, problem=msg("cannot read it: {}", exc.strerror or exc))
    return CompileFailure(
        path,
        point=failure_point(graph),
        error=caught_exception(text),
        unread=len(unread_lines(graph)),
    )


def compile_failure_from(text: Optional[str], ir: Optional[str] = None) -> Optional[CompileFailure]:
    """The compile failure for a traceback: the file given (``ir``), else the first
    analyze_fail file the text names that exists here; a named file that is not here gets
    a ``problem`` saying how to give it. None when neither is there."""
    if ir:
        return read_compile_failure(ir)
    named = find_ir_paths(text or "")
    for path in named:
        if os.path.isfile(path):
            return read_compile_failure(path)
    if named:
        return CompileFailure(
            named[0],
            problem=msg(
                "the error names this file but it is not on this machine: copy it here and "
                "pass it with --ir PATH"
            ),
        )
    return None


@dataclass
class CompileDiagnosis(Diagnosis):
    """A :class:`Diagnosis` with the compile-failure section after it."""

    compile_failure: Optional[CompileFailure] = None

    def to_dict(self) -> Dict[str, Any]:
        data = super().to_dict()
        cf = self.compile_failure
        data["compile_failure"] = cf.to_dict() if cf else None
        return data

    def to_text(self) -> str:
        text = super().to_text()
        if self.compile_failure is None:
            return text
        with self._language():
            section = "\n".join(self.compile_failure.lines())
        return text.rstrip("\n") + "\n\n" + section + "\n"

    def _repr_html_(self) -> str:
        page = super()._repr_html_()
        if self.compile_failure is None:
            return page
        with self._language():
            lines = self.compile_failure.lines()
        body = "".join(f"<li>{html.escape(line.strip())}</li>" for line in lines[1:])
        return (
            page
            + f'<div class="ascend-lab-compile-failure"><b>{html.escape(lines[0])}</b>'
            + f"<ul>{body}</ul></div>"
        )


def attach_compile_failure(diag: Diagnosis, failure: Optional[CompileFailure]) -> Diagnosis:
    """``diag`` with the compile-failure section (``diag`` itself when there is none)."""
    if failure is None:
        return diag
    values = {f.name: getattr(diag, f.name) for f in fields(diag) if f.init}
    return CompileDiagnosis(**values, compile_failure=failure)

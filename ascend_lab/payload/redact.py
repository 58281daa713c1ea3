"""Take the machine's paths out of a payload before it is shared (the standalone HTML).

A trace's payload names files: each graph's dump file (in a private temporary folder) and
each node's Python source lines (the user's files, MindSpore's in site-packages). Shared as
they are, they show the user's home, folder layout and environment. :func:`redact_paths`
rewrites every absolute path in every string of the payload:

- under the project folder (by default the current one, where the notebook runs): relative
  to it, e.g. ``nets/lenet.py:12``;
- inside a site-packages / dist-packages folder: ``<site-packages>/mindspore/nn/cell.py``;
- inside an ascend-lab temporary folder (dumps): ``<dump>/...``;
- anywhere else (the home folder, other temporary folders, /opt, ...): ``…/file.py``.

Pure: strings in, strings out; one linear regex pass per string that holds a ``/``.
:func:`redact_json_text` does the same on a JSON document's text (what the standalone HTML
embeds): a big trace's payload has millions of strings, and walking them in Python took
most of ``to_html``'s time.
"""

import json
import os
import re
import tempfile
from typing import Any, Callable, Dict, List, Optional

# Characters that end a path inside MindSpore's texts ("In file /a/b.py:12, 4~8", "(...)").
_PATH_CHARS = r"[^\s:'\",;()\[\]<>{}|*?]"
_SEGMENT = r"[^/\s:'\",;()\[\]<>{}|*?]+"
# An absolute path of at least two parts, not glued to what is before it:
# "Default/conv-Conv2d" is a scope and "</script>" a tag, not paths. Linear: every attempt
# starts at a "/" and a failed one stops at the next "/".
_GENERIC = r"(?<![\w.~<>/-])~?/" + _SEGMENT + "/" + _PATH_CHARS + "+"
_PACKAGE_DIRS = ("/site-packages/", "/dist-packages/")
ELLIPSIS = "\u2026"
# A JSON string value (not a key: nothing but blanks and ":" follows a key) with a "/".
# Linear: the part before the first "/" cannot cross a "/" or a quote, so each attempt
# ends at the next quote and a failed one is retried only from a quote.
_JSON_SLASH_STRING = re.compile(r'"[^"\\/]*(?:\\.[^"\\/]*)*/(?:[^"\\]|\\.)*"(?!\s*:)')


def _folder(path: Optional[str]) -> Optional[str]:
    """``path`` without a trailing slash, or None for nothing / the root (too broad)."""
    if not path:
        return None
    path = os.path.abspath(os.path.expanduser(path)).rstrip("/")
    return path or None


class PathRedactor:
    """Rewrites absolute paths in strings (see the module docstring)."""

    def __init__(self, project: Optional[str] = None) -> None:
        self.project = _folder(project if project is not None else _cwd())
        self.tmp = _folder(tempfile.gettempdir())
        self.home = _folder(os.path.expanduser("~"))
        # Known folders first (they may contain spaces), then any other absolute path.
        literals = sorted({p for p in (self.project, self.tmp, self.home) if p}, key=len)
        # Longest first: the project may sit inside the home or the temporary folder.
        branches = [
            re.escape(p) + r"(?![\w.-])(?:/" + _PATH_CHARS + "*)?" for p in reversed(literals)
        ]
        self._pattern = re.compile("|".join(branches + [_GENERIC]))

    def path(self, path: str) -> str:
        """The shareable form of one absolute path."""
        for marker in _PACKAGE_DIRS:
            if marker in path:
                return "<site-packages>/" + path.rsplit(marker, 1)[1]
        if self.project and (path == self.project or path.startswith(self.project + "/")):
            return path[len(self.project) + 1 :] or "."
        if self.tmp and path.startswith(self.tmp + "/"):
            first, _, rest = path[len(self.tmp) + 1 :].partition("/")
            if first.startswith("ascend-lab-"):
                return "<dump>/" + rest if rest else "<dump>"
        name = os.path.basename(path.rstrip("/"))
        return ELLIPSIS + "/" + name if name else ELLIPSIS

    def text(self, text: str) -> str:
        if "/" not in text:
            return text
        return self._pattern.sub(lambda m: self.path(m.group(0)), text)

    def json_text(self, document: str) -> str:
        """``document`` (JSON text) with :meth:`text` applied to every string value."""
        done: Dict[str, str] = {}  # scopes and source files repeat thousands of times

        def one(match: "re.Match[str]") -> str:
            literal = match.group(0)
            out = done.get(literal)
            if out is None:
                value = json.loads(literal)
                new = self.text(value)
                out = literal if new == value else json.dumps(new, ensure_ascii=False)
                done[literal] = out
            return out

        return _JSON_SLASH_STRING.sub(one, document)


def _cwd() -> Optional[str]:
    try:
        return os.getcwd()
    except OSError:
        return None


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """A copy of a JSON value with ``fn`` applied to every string value (keys kept)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        out: List[Any] = [_map_strings(v, fn) for v in value]
        return out
    return value


def redact_paths(payload: Any, project: Optional[str] = None) -> Any:
    """A copy of ``payload`` whose strings name no absolute path of this machine.

    ``project``: the folder paths are made relative to (default: the current folder).
    """
    return _map_strings(payload, PathRedactor(project).text)


def redact_json_text(document: str, project: Optional[str] = None) -> str:
    """:func:`redact_paths` for a JSON document's text: the same strings, rewritten the same
    way, without building the document as Python objects."""
    return PathRedactor(project).json_text(document)

"""Take the machine's paths out of a payload before it is shared (the standalone HTML).

A trace's payload names files: each graph's dump file (in a private temporary folder) and
each node's Python source lines (the user's files, MindSpore's in site-packages). Shared as
they are, they show the user's home, folder layout and environment. :func:`redact_paths`
rewrites every absolute path in every string of the payload:

- under the project folder (by default the current one, where the notebook runs): relative
  to it, e.g. ``nets/lenet.py:12``;
- inside a site-packages / dist-packages folder: ``<site-packages>/mindspore/nn/cell.py``;
- inside an ascend-lab temporary folder (dumps): ``<dump>/...``;
- anywhere else (the home folder, other temporary folders, /opt, ...): ``…/file.py``
  (a user's home folder itself, ``/home/<name>`` or ``/Users/<name>``: ``…``).

Every form a path takes is found (issue #37): ``file://`` URLs (``file:///…``,
``file://localhost/…``), Windows paths (``C:\\Users\\ann\\x.py`` -> ``…\\x.py``), UNC paths
(``\\\\server\\share\\x.py`` -> ``…\\x.py``), relative climbs (``../../secret/x.py`` ->
``…/x.py``), folders with spaces (``/home/Ann Lee/proj/x.py``), and dict keys as well as
values.

Pure: strings in, strings out; one linear regex pass per distinct string that holds a
``/``. Graph nodes' identifier fields (ids, op names, scopes, types) are compiler names,
not paths, and are not walked.
"""

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
# a folder may hold single spaces ("/home/Ann Lee/x.py") when a "/" follows it
_SPACED = _SEGMENT + r"(?: " + _SEGMENT + r"(?=/))*"
_GENERIC = r"(?<![\w.~<>/-])~?/" + _SPACED + "/(?:" + _SPACED + "/)*" + _PATH_CHARS + "+"
_FILE_URL = re.compile(r"(?i)\bfile://(?:localhost)?(/" + _PATH_CHARS + "*)")
_WIN_CHARS = r"[^\\/\s:'\",;()\[\]<>{}|*?]"
# C:\Users\ann\x.py, C:/Users/ann/x.py; \\server\share\x.py
_WINDOWS = re.compile(
    r"(?<![\w\\/])(?:[A-Za-z]:[\\/]|\\\\" + _WIN_CHARS + r"+\\)"
    r"(?:" + _WIN_CHARS + r"+(?: " + _WIN_CHARS + r"+)*[\\/])*" + _WIN_CHARS + r"*"
)
# ../../secret/x.py, ./../x.py
_CLIMB = re.compile(r"(?<![\w./-])(?:\./)?(?:\.\./)+(?:" + _SEGMENT + "/)*" + _SEGMENT + "?")
_HOMES = ("/home/", "/Users/")
_PACKAGE_DIRS = ("/site-packages/", "/dist-packages/")
ELLIPSIS = "\u2026"
# Fields of a graph node (a dict with "id" and "op") that hold compiler identifiers, never
# paths: ids, op names, cell scopes, dtypes and shapes. Not walked: a 32-layer LLM's
# payload has millions of them, and walking them was most of writing its HTML.
_IDENTIFIER_FIELDS = frozenset(
    ("id", "op", "kind", "name", "scope", "repaired_scope", "inputs", "outputs")
    + ("input_types", "subgraph", "step")
)
_CACHE_MAX = 500_000


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
        self._done = _Rewritten(self.text)  # string -> its redacted form

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
        trimmed = path.rstrip("/")
        for home in _HOMES:
            if trimmed.startswith(home) and "/" not in trimmed[len(home) :]:
                return ELLIPSIS  # /home/<name>: the name is the user's
        name = os.path.basename(trimmed)
        return ELLIPSIS + "/" + name if name else ELLIPSIS

    def text(self, text: str) -> str:
        if "\\" in text or ":/" in text:
            text = _WINDOWS.sub(_windows_path, text)
        if "/" not in text:
            return text
        if "file:" in text or "FILE:" in text:
            text = _FILE_URL.sub(lambda m: "file://" + self.path(m.group(1)), text)
        if "../" in text:
            text = _CLIMB.sub(_climb, text)
        return self._pattern.sub(lambda m: self.path(m.group(0)), text)

    def value(self, value: Any) -> Any:
        """A copy of a JSON value with :meth:`text` applied to every string value (keys
        kept), except the identifier fields of graph nodes (see ``_IDENTIFIER_FIELDS``).
        Each distinct string is rewritten once: source files repeat thousands of times."""
        # a C-level lookup per string (a Python function per string was a third of it)
        return _map_strings(value, self._done.__getitem__)


def _climb(m: "re.Match[str]") -> str:
    name = m.group(0).rstrip("/").rpartition("/")[2]
    return ELLIPSIS + "/" + name if name not in ("", "..", ".") else ELLIPSIS


def _windows_path(m: "re.Match[str]") -> str:
    name = re.split(r"[\\/]", m.group(0).rstrip("\\/"))[-1]
    whole = m.group(0)
    if name.endswith(":") or whole.rstrip("\\/") == whole[:2]:
        return ELLIPSIS  # a drive alone
    return ELLIPSIS + "\\" + name


class _Rewritten(Dict[str, str]):
    """string -> ``rewrite(string)``, computed when first asked (at most ``_CACHE_MAX``
    kept: strings past that are rewritten each time)."""

    def __init__(self, rewrite: Callable[[str], str]) -> None:
        super().__init__()
        self.rewrite = rewrite

    def __missing__(self, text: str) -> str:
        out = self.rewrite(text)
        if len(self) < _CACHE_MAX:
            self[text] = out
        return out


def _cwd() -> Optional[str]:
    try:
        return os.getcwd()
    except OSError:
        return None


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """A copy of a JSON value with ``fn`` applied to every string value (keys kept; the
    identifier fields of graph nodes kept as they are)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return _map_dict(value, fn)
    if isinstance(value, list):
        return _map_list(value, fn)
    return value


# Exact types a JSON value's leaves have: kept without a call (a 32-layer decoder's pages
# hold ~1M values; one call each was most of redacting them).
_LEAVES = frozenset((int, float, bool, type(None)))


def _map_dict(value: Dict[Any, Any], fn: Callable[[str], str]) -> Dict[Any, Any]:
    if "id" in value and "op" in value:
        return _map_node(value, fn)
    out = {}
    for key, item in value.items():
        if type(key) is str and ("/" in key or "\\" in key):
            key = fn(key)  # {"/home/ann/x.py": ...}: a key names a path too
        kind = type(item)
        if kind is str:
            out[key] = fn(item)
        elif kind in _LEAVES:
            out[key] = item
        else:
            out[key] = _map_strings(item, fn)
    return out


def _map_node(value: Dict[Any, Any], fn: Callable[[str], str]) -> Dict[Any, Any]:
    """A graph node: copied whole (keys in their order), then only the fields that are
    not identifiers and not leaves are mapped (its attributes and source lines)."""
    out = dict(value)
    for key, item in value.items():
        if key not in _IDENTIFIER_FIELDS and type(item) not in _LEAVES:
            out[key] = _map_strings(item, fn)
    return out


def _map_list(value: List[Any], fn: Callable[[str], str]) -> List[Any]:
    out: List[Any] = []
    append = out.append
    for item in value:
        kind = type(item)
        if kind is str:
            append(fn(item))
        elif kind in _LEAVES:
            append(item)
        else:
            append(_map_strings(item, fn))
    return out


def redact_paths(payload: Any, project: Optional[str] = None) -> Any:
    """A copy of ``payload`` whose strings name no absolute path of this machine.

    ``project``: the folder paths are made relative to (default: the current folder).
    """
    return PathRedactor(project).value(payload)

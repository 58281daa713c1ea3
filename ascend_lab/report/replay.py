"""Replay a bundle: the recorded machine's status and doctor checks, as if it were this one.

The status is rebuilt from the recorded texts with the device code's own parsers
(:func:`ascend_lab.probes.device.collect_from`): npu-smi's answers come from the bundle, the
version files and folders the probe looks at are mirrored into a private temporary
"sandbox" folder (recorded absolute path ``/p`` -> ``<sandbox>/p``), and the recorded
environment is pointed there. Output paths are mapped back, so nothing of the sandbox shows.

A bundle is untrusted input (issue #24). Every JSON file the replay reads is checked for
its shape first (a wrong one is a :class:`BundleError`: exit 2, never a traceback), and
every string in it has lost its control characters when loaded. The sandbox is built
without following anything out of it: recorded paths and link targets are normalised as
paths of the recorded machine (where ``/..`` is ``/``) and mapped under the sandbox, links
are created with absolute targets inside it, every created path is checked with
``realpath``/``commonpath``, and files are written with ``O_CREAT | O_EXCL | O_NOFOLLOW``.
"""

import math
import os
import posixpath
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ascend_lab.i18n import Msg, text_of
from ascend_lab.probes.npu_smi_runner import RunResult
from ascend_lab.report.bundle import BundleError, clean_bytes, load_json, read_bundle

CALLS = "machine/npu-smi/calls.json"
PATHS = "machine/paths.json"
ENVIRONMENT = "machine/environment.json"
VERSIONS = "versions.json"
FACTS = "doctor_facts.json"
STATUS = "status.json"
_KINDS = ("dir", "file", "symlink")
_PATH_MAX = 4096
_PATHS_MAX = 5000  # the recorder keeps about 2000: more would only fill the disk
# "0 | ...": vermin takes "os.A | os.B" for a type union (Python 3.10)
_WRITE_FLAGS = 0 | os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _shape(ok: bool, name: str, what: str) -> None:
    if not ok:
        raise BundleError(f"{name} in the bundle has the wrong shape: {what}")


def _obj(value: Any, name: str, what: str = "a JSON object") -> Dict[str, Any]:
    _shape(isinstance(value, dict), name, f"expected {what}, got {type(value).__name__}")
    return value


def _opt(value: Any, kinds: Any, name: str, key: str) -> Any:
    ok = value is None or (isinstance(value, kinds) and not isinstance(value, bool))
    if kinds is bool:
        ok = value is None or isinstance(value, bool)
    _shape(ok, name, f"{key} has the wrong type ({type(value).__name__})")
    return value


def _str_map(value: Any, name: str, key: str, none_ok: bool = False) -> Dict[str, Any]:
    _obj(value, name, f"{key} as an object")
    for k, v in value.items():
        _shape(isinstance(v, str) or (none_ok and v is None), name, f"{key}[{k!r}] is no string")
    return value


def recorded_path(path: Any, name: str, key: str) -> str:
    """A recorded absolute path, checked: ``/``-rooted, no ``..`` part, bounded."""
    ok = (
        isinstance(path, str)
        and path.startswith("/")
        and len(path) <= _PATH_MAX
        and ".." not in path.split("/")
    )
    if not ok:
        raise BundleError(
            f"{name} in the bundle: {key} must be an absolute path without '..' (got {path!r:.80})"
        )
    return _normal(path)


def _normal(path: str) -> str:
    """A path of the recorded machine, normalised there: absolute, ``/..`` is ``/``."""
    return "/" + posixpath.normpath("/" + path).lstrip("/")


def _calls(value: Any) -> Dict[Tuple[str, ...], Dict[str, Any]]:
    out = {}
    calls = _or_empty(value.get("calls"), [])
    _shape(isinstance(calls, list), CALLS, "calls is no list")
    for c in calls:
        _obj(c, CALLS, "each call as an object")
        argv = c.get("argv")
        ok = isinstance(argv, list) and all(isinstance(a, str) for a in argv)
        _shape(ok, CALLS, "argv is no list of strings")
        for key, kinds in (("stdout", str), ("reason", str), ("returncode", int)):
            _opt(c.get(key), kinds, CALLS, key)
        for key in ("ok", "timed_out"):
            _opt(c.get(key), bool, CALLS, key)
        out[tuple(argv)] = c
    return out


def _paths(value: Any) -> Dict[str, Dict[str, Any]]:
    entries = _obj(_or_empty(value.get("paths")), PATHS, "paths as an object")
    _shape(len(entries) <= _PATHS_MAX, PATHS, f"more than {_PATHS_MAX} paths")
    for path, e in entries.items():
        _obj(e, PATHS, f"the entry of {path!r:.80} as an object")
        kind = e.get("kind")
        _shape(isinstance(kind, str), PATHS, f"the kind of {path!r:.80} is no string")
        _opt(e.get("text"), str, PATHS, "text")
        if kind == "symlink":
            target = e.get("target")
            ok = isinstance(target, str) and 0 < len(target) <= _PATH_MAX
            _shape(ok, PATHS, f"the link {path!r:.80} has no target")
    return entries


def _timeout(value: Any) -> float:
    t = value.get("timeout")
    if t is None:
        return 5.0
    ok = isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0
    _shape(ok, CALLS, "timeout is no positive number")
    return min(float(t), 600.0)


class Recording:
    """The parts of a bundle the replay needs, read once and checked for shape."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.files = read_bundle(path)
        calls = load_json(self.files, CALLS)
        paths = load_json(self.files, PATHS)
        if calls is None or paths is None:
            raise BundleError(f"{path}: the bundle has no npu-smi record or paths.json")
        _obj(calls, CALLS)
        _obj(paths, PATHS)
        self.npu_smi_path: Optional[str] = _opt(calls.get("npu_smi_path"), str, CALLS, "path")
        self.timeout = _timeout(calls)
        self.calls = _calls(calls)
        self.root: str = recorded_path(paths.get("root"), PATHS, "root")
        self.entries = _paths(paths)
        environ = load_json(self.files, ENVIRONMENT)
        self.environ: Dict[str, str] = _str_map(
            {} if environ is None else environ, ENVIRONMENT, "the environment"
        )
        self.versions = _obj(_or_empty(load_json(self.files, VERSIONS)), VERSIONS)
        for key in ("mindspore", "mindspore_distribution"):
            _opt(self.versions.get(key), str, VERSIONS, key)
        self.facts = self._facts(_obj(_or_empty(load_json(self.files, FACTS)), FACTS))
        status = load_json(self.files, STATUS)
        self.status: Dict[str, Any] = _obj(_or_empty(status), STATUS)
        if "subject" in self.status:
            _str_map(self.status["subject"], STATUS, "subject", none_ok=True)

    @staticmethod
    def _facts(f: Dict[str, Any]) -> Dict[str, Any]:
        _str_map(f.get("packages") or {}, FACTS, "packages", none_ok=True)
        groups = f.get("groups")
        ok = groups is None or (
            isinstance(groups, list) and all(isinstance(g, str) for g in groups)
        )
        _shape(ok, FACTS, "groups is no list of strings")
        _opt(f.get("user"), str, FACTS, "user")
        for key in ("is_root", "hwhiaiuser_group_exists"):
            _opt(f.get(key), bool, FACTS, key)
        if f.get("root") is not None:
            f = dict(f, root=recorded_path(f["root"], FACTS, "root"))
        return f

    def run(self, exe: str, argv: List[str], timeout: float) -> RunResult:
        """npu-smi as recorded: the same text and the same failure for the same argv."""
        c = self.calls.get(tuple(argv))
        if c is None:
            return RunResult(False, reason="not recorded in the bundle: npu-smi " + " ".join(argv))
        return RunResult(
            bool(c.get("ok")),
            c.get("stdout") or "",
            text_of(c, "reason"),  # its template when the bundle carries one
            c.get("returncode"),
            timed_out=bool(c.get("timed_out")),
        )


def _or_empty(value: Any, empty: Any = None) -> Any:
    """``value``, or ``empty`` (default: a new dict) when it is None (absent or null)."""
    if value is not None:
        return value
    return {} if empty is None else empty


def _inside(sandbox: str, value: str) -> str:
    """Every absolute path in a path-list value moved under ``sandbox`` (normalised first,
    so no ``..`` climbs out)."""
    parts = value.split(os.pathsep)
    return os.pathsep.join(sandbox + _normal(p) if p.startswith("/") else p for p in parts)


def _within(sandbox: str, path: str) -> bool:
    """Does ``path``, with every link in it followed, stay in ``sandbox`` (a real path)?"""
    return os.path.commonpath([sandbox, os.path.realpath(path)]) == sandbox


def _write_new(sandbox: str, target: str, data: bytes, replace: bool = False) -> None:
    """Write ``data`` to a new file at ``target``, never through a link (an existing file
    or link there is removed first when ``replace``, else left as it is)."""
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    if not _within(sandbox, parent):
        return
    if os.path.lexists(target):
        if not replace or (os.path.isdir(target) and not os.path.islink(target)):
            return
        os.unlink(target)
    fd = os.open(target, _WRITE_FLAGS, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _link(sandbox: str, path: str, link: str, target: str) -> None:
    """The recorded link ``path -> link``, as a link to the same place in the sandbox."""
    where = _normal(link) if link.startswith("/") else _normal(posixpath.dirname(path) + "/" + link)
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    if not _within(sandbox, parent) or os.path.lexists(target):
        return
    os.symlink(sandbox + where, target)
    if not _within(sandbox, target):  # cannot happen with the links made here: checked anyway
        os.unlink(target)


def build_sandbox(rec: Recording, sandbox: str) -> None:
    """Create the recorded folders, files (with their recorded text) and symlinks, all
    inside ``sandbox``; then the recorded version files over what the paths left there."""
    sandbox = os.path.realpath(sandbox)
    ordered = sorted(
        rec.entries.items(), key=lambda kv: ({"dir": 0, "file": 1}.get(kv[1]["kind"], 2), kv[0])
    )
    for path, e in ordered:
        if not path.startswith("/") or ".." in path.split("/") or len(path) > _PATH_MAX:
            continue
        target = sandbox + _normal(path)
        kind = e.get("kind")
        try:
            if kind == "dir":
                if _within(sandbox, os.path.dirname(target)):
                    os.makedirs(target, exist_ok=True)
            elif kind == "file":
                _write_new(sandbox, target, (e.get("text") or "").encode("utf-8"))
            elif kind == "symlink":
                _link(sandbox, _normal(path), e["target"], target)
        except (OSError, ValueError):
            continue  # a path this machine cannot mirror (e.g. a file over a recorded folder)
    for name, dest in (("driver", "driver/version.info"), ("firmware", "firmware/version.info")):
        data = rec.files.get(f"machine/ascend/{name}_version.info")
        if data is not None:
            try:
                _write_new(sandbox, sandbox + rec.root + "/" + dest, clean_bytes(data), True)
            except (OSError, ValueError):
                continue


def _unmap(obj: Any, sandbox: str) -> Any:
    """``obj`` with the sandbox prefix taken out of every string (dataclasses in place)."""
    if isinstance(obj, Msg):  # a message keeps its template: unmap its arguments
        return Msg(obj.template, *(_unmap(a, sandbox) for a in obj.args))
    if isinstance(obj, str):
        return obj.replace(sandbox, "")
    if isinstance(obj, list):
        return [_unmap(v, sandbox) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_unmap(v, sandbox) for v in obj)
    if isinstance(obj, dict):
        return {_unmap(k, sandbox): _unmap(v, sandbox) for k, v in obj.items()}
    frozen = getattr(getattr(obj, "__dataclass_params__", None), "frozen", False)
    if is_dataclass(obj) and not isinstance(obj, type) and not frozen:  # frozen: knowledge
        for f in fields(obj):
            setattr(obj, f.name, _unmap(getattr(obj, f.name), sandbox))
        return obj
    return obj


@contextmanager
def sandbox_for(rec: Recording) -> Iterator[Tuple[str, Dict[str, str]]]:
    """``(sandbox, environment pointed into it)``; the folder is removed afterwards."""
    sandbox = os.path.realpath(tempfile.mkdtemp(prefix="ascend-lab-replay-"))
    try:
        build_sandbox(rec, sandbox)
        env = {k: _inside(sandbox, v) for k, v in rec.environ.items() if k != "PATH"}
        yield sandbox, env
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)


def _status_in(rec: Recording, sandbox: str, env: Dict[str, str]) -> Any:
    from ascend_lab.probes.device import collect_from

    ms = (rec.versions.get("mindspore"), rec.versions.get("mindspore_distribution"))
    return collect_from(
        sandbox + rec.root,
        _inside(sandbox, rec.npu_smi_path) if rec.npu_smi_path else None,
        rec.run,
        ms,
        env,
        timeout=rec.timeout,
        details=True,
    )


def status_from_bundle(path: str) -> Any:
    """The recorded machine's :class:`DeviceStatus`, rebuilt from the bundle's texts."""
    rec = Recording(path)
    with sandbox_for(rec) as (sandbox, env):
        status = _status_in(rec, sandbox, env)
        status.environment = {k: rec.environ.get(k) for k in status.environment}
        recorded = rec.status or {}
        if "subject" in recorded and hasattr(status, "subject"):  # whose view it was
            status.subject = recorded["subject"]
        return _unmap(status, sandbox)


def doctor_from_bundle(
    path: str, text: Optional[str] = None, source: str = "text", notes: Optional[List[str]] = None
) -> Any:
    """The doctor's diagnosis of ``text`` (None: the environment only) on the recorded machine."""
    from ascend_lab.doctor.checks import Environment
    from ascend_lab.doctor.diagnosis import diagnose

    rec = Recording(path)
    with sandbox_for(rec) as (sandbox, env):
        status = _status_in(rec, sandbox, env)
        f = rec.facts
        facts = Environment(
            env=env,
            status=status.to_dict(),
            packages=dict(f.get("packages") or {}),
            root=sandbox + (f.get("root") or rec.root),
            groups=f.get("groups"),
            user=f.get("user") or "",
            is_root=bool(f.get("is_root")),
            hwhiaiuser_group_exists=f.get("hwhiaiuser_group_exists"),
        )
        diag = diagnose(text, source=source, facts=facts, notes=notes)
        diag.checked.append(f"Machine: recorded in {os.path.basename(path)} (replayed)")
        return _unmap(diag, sandbox)


_SHAPE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError)


def _unexpected(bundle: str, exc: BaseException) -> str:
    return f"{bundle}: the bundle has an unexpected shape ({type(exc).__name__}: {exc!s:.200})"


def status_cli(bundle: str, as_json: bool) -> int:
    """``ascend-lab status --from BUNDLE``."""
    import sys

    try:
        status = status_from_bundle(bundle)
    except BundleError as exc:
        print(f"ascend-lab status: {exc}", file=sys.stderr)
        return 2
    except _SHAPE_ERRORS as exc:  # a shape the checks above did not foresee: still no traceback
        print(f"ascend-lab status: {_unexpected(bundle, exc)}", file=sys.stderr)
        return 2
    print(status.to_json() if as_json else status.to_text())
    return 0


def doctor_cli(
    bundle: str, text: Optional[str], source: str, notes: List[str], as_json: bool, out: Any
) -> int:
    """``ascend-lab doctor [FILE] --from BUNDLE``: exit 0/1 as the doctor, 2 bad bundle."""
    import sys

    try:
        diag = doctor_from_bundle(bundle, text, source=source, notes=notes)
    except BundleError as exc:
        print(f"ascend-lab doctor: {exc}", file=sys.stderr)
        return 2
    except _SHAPE_ERRORS as exc:  # a shape the checks above did not foresee: still no traceback
        print(f"ascend-lab doctor: {_unexpected(bundle, exc)}", file=sys.stderr)
        return 2
    out.write(diag.to_json() + "\n" if as_json else diag.to_text())
    return 1 if diag.findings else 0

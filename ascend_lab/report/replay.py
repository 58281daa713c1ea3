"""Replay a bundle: the recorded machine's status and doctor checks, as if it were this one.

The status is rebuilt from the recorded texts with the device code's own parsers
(:func:`ascend_lab.device.probe.collect_from`): npu-smi's answers come from the bundle, the
version files and folders the probe looks at are mirrored into a private temporary
"sandbox" folder (recorded absolute path ``/p`` -> ``<sandbox>/p``), and the recorded
environment is pointed there. Output paths are mapped back, so nothing of the sandbox shows.
"""

import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..device.npu_smi_runner import RunResult
from .bundle import BundleError, load_json, read_bundle


class Recording:
    """The parts of a bundle the replay needs, read once."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.files = read_bundle(path)
        calls = load_json(self.files, "machine/npu-smi/calls.json")
        self.paths = load_json(self.files, "machine/paths.json")
        self.environ: Dict[str, str] = load_json(self.files, "machine/environment.json") or {}
        self.versions = load_json(self.files, "versions.json") or {}
        self.facts = load_json(self.files, "doctor_facts.json") or {}
        self.status = load_json(self.files, "status.json")
        if calls is None or self.paths is None:
            raise BundleError(f"{path}: the bundle has no npu-smi record or paths.json")
        self.npu_smi_path: Optional[str] = calls.get("npu_smi_path")
        self.timeout = float(calls.get("timeout") or 5.0)
        self.calls = {tuple(c["argv"]): c for c in calls.get("calls", [])}
        self.root: str = self.paths["root"]

    def run(self, exe: str, argv: List[str], timeout: float) -> RunResult:
        """npu-smi as recorded: the same text and the same failure for the same argv."""
        c = self.calls.get(tuple(argv))
        if c is None:
            return RunResult(False, reason="not recorded in the bundle: npu-smi " + " ".join(argv))
        return RunResult(
            bool(c["ok"]),
            c.get("stdout") or "",
            c.get("reason") or "",
            c.get("returncode"),
            timed_out=bool(c.get("timed_out")),
        )


def _inside(sandbox: str, value: str) -> str:
    """Every absolute path in a path-list value moved under ``sandbox``."""
    parts = value.split(os.pathsep)
    return os.pathsep.join(sandbox + p if p.startswith("/") else p for p in parts)


def build_sandbox(rec: Recording, sandbox: str) -> None:
    """Create the recorded folders, files (with their recorded text) and symlinks."""
    entries = rec.paths.get("paths") or {}
    ordered = sorted(
        entries.items(), key=lambda kv: ({"dir": 0, "file": 1}.get(kv[1]["kind"], 2), kv[0])
    )
    for path, e in ordered:
        if not path.startswith("/") or ".." in path.split("/"):
            continue
        target = sandbox + path
        kind = e.get("kind")
        try:
            if kind == "dir":
                os.makedirs(target, exist_ok=True)
            elif kind == "file":
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w", encoding="utf-8") as f:
                    f.write(e.get("text") or "")
            elif kind == "symlink":
                os.makedirs(os.path.dirname(target), exist_ok=True)
                link = str(e.get("target") or "")
                if not os.path.lexists(target):
                    os.symlink(_inside(sandbox, link) if link.startswith("/") else link, target)
        except OSError:
            continue  # a path this machine cannot mirror (e.g. a file over a recorded folder)
    for name, dest in (("driver", "driver/version.info"), ("firmware", "firmware/version.info")):
        data = rec.files.get(f"machine/ascend/{name}_version.info")
        if data is not None:
            target = os.path.join(sandbox + rec.root, dest)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)


def _unmap(obj: Any, sandbox: str) -> Any:
    """``obj`` with the sandbox prefix taken out of every string (dataclasses in place)."""
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
    sandbox = tempfile.mkdtemp(prefix="ascend-lab-replay-")
    try:
        build_sandbox(rec, sandbox)
        env = {k: _inside(sandbox, v) for k, v in rec.environ.items() if k != "PATH"}
        yield sandbox, env
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)


def _status_in(rec: Recording, sandbox: str, env: Dict[str, str]) -> Any:
    from ..device.probe import collect_from

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
    from ..doctor.checks import Environment
    from ..doctor.diagnosis import diagnose

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


def status_cli(bundle: str, as_json: bool) -> int:
    """``ascend-lab status --from BUNDLE``."""
    import sys

    try:
        status = status_from_bundle(bundle)
    except BundleError as exc:
        print(f"ascend-lab status: {exc}", file=sys.stderr)
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
    out.write(diag.to_json() + "\n" if as_json else diag.to_text())
    return 1 if diag.findings else 0

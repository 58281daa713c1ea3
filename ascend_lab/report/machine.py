"""Collect the machine part of a report: npu-smi views, version files, set_env.sh's effect,
platform, environment, versions, the status and the doctor's checks. The I/O edge.

Read-only and without root: it runs ``npu-smi info`` views and sources ``set_env.sh`` in a
child bash (as the ascend-lab kernel does), each with a timeout cut to the time left.
"""

import os
import platform
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.model.device_status import with_structured
from ascend_lab.probes import ascend_install, npu_smi_runner
from ascend_lab.probes import device as probe
from ascend_lab.probes.npu_smi_runner import RunResult
from ascend_lab.report.bundle import Bundle

PACKAGES = ("mindspore", "mindspore-ascend", "numpy", "jupyterlab", "ascend-lab")
# Environment variables worth recording (prefixes and names); nothing else is read.
ENV_PREFIXES = ("ASCEND_", "MS_", "HCCL_", "GLOG_", "RANK_", "HCCN_", "ACL_", "TE_", "ASCEND_LAB_")
ENV_NAMES = (
    "LD_LIBRARY_PATH",
    "PATH",
    "PYTHONPATH",
    "DEVICE_ID",
    "RANK_ID",
    "RANK_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "TOOLCHAIN_HOME",
    "OPTION_EXEC_EXTERN_PLUGIN_PATH",
)
_SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH")
# name parts that mean a credential: OBS_AK, HUAWEICLOUD_SDK_SK, PROXY_PASS, DB_PW
_SECRET_PARTS = frozenset(["AK", "SK", "PASS", "PW"])
OS_RELEASE_MAX = 8 * 1024


@dataclass
class Budget:
    """The whole run's time budget: each step's timeout is cut to what is left."""

    seconds: float
    started: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.started or time.monotonic()

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def timeout(self, wanted: float) -> float:
        return max(0.0, min(wanted, self.left()))


def is_secret_name(name: str) -> bool:
    """Does a variable's name say it holds a credential?"""
    upper = name.upper()
    return any(w in upper for w in _SECRET_WORDS) or bool(
        _SECRET_PARTS.intersection(upper.replace("-", "_").split("_"))
    )


def recorded_environment(environ: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The variables a helper needs (Ascend, MindSpore, HCCL, paths), never secrets."""
    env = os.environ if environ is None else environ
    out = {}
    for k, v in env.items():
        if is_secret_name(k):
            continue
        if k in ENV_NAMES or k.startswith(ENV_PREFIXES):
            out[k] = v
    return dict(sorted(out.items()))


class NpuSmiRecorder:
    """A runner for the probe that runs npu-smi for real and keeps every answer by argv."""

    def __init__(self, bundle: Bundle, budget: Budget) -> None:
        self.bundle = bundle
        self.budget = budget
        self.calls: Dict[Tuple[str, ...], RunResult] = {}
        self.hung = False

    def __call__(self, exe: str, argv: List[str], timeout: float) -> RunResult:
        key = tuple(argv)
        if key in self.calls:
            return self.calls[key]
        view = "npu-smi " + " ".join(argv)
        if self.hung:
            res = RunResult(False, reason="not run: npu-smi timed out earlier in this report")
            self.bundle.record(view, "skipped", detail=res.reason)
        elif self.budget.left() <= 0:
            res = RunResult(False, reason="not run: the report's time budget is spent")
            self.bundle.record(view, "skipped", detail=res.reason)
        else:
            res = npu_smi_runner.run_npu_smi(exe, argv, self.budget.timeout(timeout))
            path = "machine/npu-smi/" + "_".join(a.lstrip("-") for a in argv) + ".txt"
            self.bundle.add_text(path, res.stdout)
            status = "ok" if res.ok else ("timed out" if res.timed_out else "failed")
            self.bundle.record(view, status, path=path, detail=res.reason, seconds=res.seconds)
            self.hung = self.hung or res.timed_out
        self.calls[key] = res
        return res

    def to_json(self) -> List[Dict[str, Any]]:
        """Every call, for the replay: argv -> what npu-smi printed and how it ended (the
        reason also as its template and arguments, so the replayed status translates it)."""
        return [
            with_structured(
                {
                    "argv": list(argv),
                    "ok": r.ok,
                    "stdout": r.stdout,
                    "reason": r.reason,
                    "returncode": r.returncode,
                    "timed_out": r.timed_out,
                },
                reason=r.reason,
            )
            for argv, r in self.calls.items()
        ]


def _platform_facts() -> Dict[str, Any]:
    facts: Dict[str, Any] = {
        "system": platform.system(),
        "release": platform.release(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "python": sys.version,
        "python_executable": sys.executable,
        "cpu_count": os.cpu_count(),
        "hostname": platform.node(),
    }
    try:
        with open("/etc/os-release", "rb") as f:
            facts["os_release"] = f.read(OS_RELEASE_MAX).decode("utf-8", "replace")
    except OSError as exc:
        facts["os_release"] = f"unreadable: {exc.strerror or exc}"
    return facts


def package_versions() -> Dict[str, Optional[str]]:
    from ascend_lab.doctor.checks import package_version

    return {name: package_version(name) for name in PACKAGES}


def _record_file(bundle: Bundle, item: str, path: Optional[str], dest: str) -> Optional[str]:
    if not path:
        bundle.record(item, "missing", detail="not found")
        return None
    text, why = ascend_install.read_small_text(path)
    if text is None:
        bundle.record(item, "missing" if why == "missing" else "failed", detail=f"{path}: {why}")
        return None
    bundle.add_text(dest, text)
    bundle.record(item, "ok", path=dest, detail=path)
    return text


def _kind(path: str) -> Optional[Dict[str, Any]]:
    if os.path.islink(path):
        return {"kind": "symlink", "target": os.readlink(path)}
    if os.path.isdir(path):
        return {"kind": "dir"}
    if os.path.isfile(path):
        return {"kind": "file"}
    return None


def install_paths(root: str, environ: Dict[str, str]) -> Dict[str, Dict[str, Any]]:
    """What exists among the paths status and doctor look at, for the replay to mirror.

    The install root's product folders one level down (version folders, ``latest``,
    set_env.sh), the toolkit's ``<arch>-linux`` folders, and every path named by a recorded
    environment variable. Small files (``latest`` as text, set_env.sh) keep their content.
    """
    out: Dict[str, Dict[str, Any]] = {}

    def note(p: str, keep: bool = False) -> None:
        if p in out or len(out) > 2000:
            return
        k = _kind(p)
        if k is None:
            return
        # set_env.sh is recorded as a path only: its text can hold access keys and passwords
        if keep and k["kind"] == "file" and os.path.basename(p) != "set_env.sh":
            text, _ = ascend_install.read_small_text(p)
            k["text"] = text or ""
        out[p] = k

    note(root)
    try:  # CANN >= 8.5 installs into cann-<version> folders
        versioned = sorted(n for n in os.listdir(root) if n.startswith("cann-"))[:20]
    except OSError:
        versioned = []
    for sub in ["driver", "firmware", "ascend-toolkit", "nnae", "nnrt", "cann"] + versioned:
        base = os.path.join(root, sub)
        note(base)
        try:
            names = sorted(os.listdir(base))[:200]
        except OSError:
            continue
        for name in names:
            note(os.path.join(base, name), keep=name in ("latest", "set_env.sh", "version.info"))
    toolkit = ascend_install.find_toolkit(root) if os.path.isdir(root) else None
    hint = environ.get("ASCEND_HOME_PATH") or environ.get("ASCEND_TOOLKIT_HOME")
    for tk in (toolkit, hint):
        if tk and os.path.isdir(tk):
            note(tk)
            for name in sorted(os.listdir(tk))[:200]:
                p = os.path.join(tk, name)
                note(p)
                if name.endswith("-linux") and os.path.isdir(p):
                    for info in ascend_install.INFO_FILES + (ascend_install.OPS_INFO,):
                        note(os.path.join(p, info), keep=True)
            for set_env in (
                os.path.join(tk, "set_env.sh"),
                os.path.join(os.path.dirname(tk.rstrip(os.sep)), "set_env.sh"),
            ):
                note(set_env, keep=True)
    for value in environ.values():
        for part in value.split(os.pathsep):
            if part.startswith("/") and len(part) < 4096:
                note(part)
                note(os.path.dirname(part))
    return out


def collect_machine(bundle: Bundle, budget: Budget, npu_smi_timeout: float) -> Dict[str, Any]:
    """Fill ``bundle`` with the machine part; return the status dict (for the summary)."""
    from ascend_lab.doctor.checks import gather
    from ascend_lab.doctor.diagnosis import diagnose
    from ascend_lab.kernel import setenv

    plat = _platform_facts()
    bundle.add_json("machine/platform.json", plat)
    bundle.record("OS, CPU architecture, Python", "ok", path="machine/platform.json")

    environ = recorded_environment()
    bundle.add_json("machine/environment.json", environ)
    bundle.record(
        "environment variables (Ascend/MindSpore/HCCL/paths only; never *TOKEN*, *KEY*, ...)",
        "ok",
        path="machine/environment.json",
    )

    # npu-smi: the probe's own calls (info, then board/usages/health per chip), recorded
    named = os.environ.get(ascend_install.ROOT_ENV) or None  # None: discover, as status does
    inst = ascend_install.read_install(named, environ=os.environ)
    root = inst.root
    exe = npu_smi_runner.find_npu_smi()
    recorder = NpuSmiRecorder(bundle, budget)
    ms = probe.mindspore_version()
    if exe is None:
        bundle.record("npu-smi", "missing", detail="npu-smi not found on PATH or /usr/local/sbin")
    status = probe.collect_from(
        named, exe, recorder, ms, dict(os.environ), timeout=npu_smi_timeout, details=True
    )
    if exe is not None:
        npus = sorted({c.npu for c in status.chips})
        for n in npus:
            for kind in ("board", "usages", "memory"):
                recorder(exe, ["info", "-t", kind, "-i", str(n)], npu_smi_timeout)
            for c in status.chips:
                if c.npu == n:
                    recorder(exe, ["info", "-t", "health", "-i", str(n), "-c", str(c.chip)], 5)
    bundle.add_json(
        "machine/npu-smi/calls.json",
        {"npu_smi_path": exe, "timeout": npu_smi_timeout, "calls": recorder.to_json()},
    )

    # version files and the toolkit's install info
    for name in ("driver", "firmware"):
        path = os.path.join(root, name, "version.info")
        _record_file(
            bundle,
            f"{name} version.info",
            path if os.path.exists(path) else None,
            f"machine/ascend/{name}_version.info",
        )
    info_file = (
        ascend_install.find_install_info_file(inst.toolkit_home) if inst.toolkit_home else None
    )
    _record_file(
        bundle, "CANN toolkit install info", info_file, "machine/ascend/toolkit_install.info"
    )
    bundle.add_json(
        "machine/paths.json",
        {"root": root, "paths": install_paths(root, environ)},
    )

    # set_env.sh's effect
    set_env = inst.set_env
    if set_env is None:
        bundle.record("set_env.sh's effect", "missing", detail=f"no set_env.sh under {root}")
    elif budget.left() <= 1:
        bundle.record("set_env.sh's effect", "skipped", detail="time budget spent")
    else:
        t0 = time.monotonic()
        changed, error = setenv.source_set_env(set_env, timeout=budget.timeout(30.0))
        kept = recorded_environment(changed)  # the Ascend/MindSpore/path ones, no secrets
        others = sorted(set(changed) - set(kept))
        bundle.add_json(
            "machine/set_env.json",
            {"script": set_env, "sets": kept, "not_recorded": others, "error": error},
        )
        state = "ok" if not error else ("timed out" if "timed out" in error else "failed")
        bundle.record(
            "set_env.sh's effect (the variables it sets)",
            state,
            path="machine/set_env.json",
            detail=error or "",
            seconds=time.monotonic() - t0,
        )

    # versions, status, doctor
    packages = package_versions()
    status_dict = status.to_dict()
    bundle.add_json(
        "versions.json",
        {
            "mindspore": ms[0],
            "mindspore_distribution": ms[1],
            "cann": status.versions.cann,
            "driver": status.versions.driver,
            "firmware": status.versions.firmware,
            "npu_smi": status.versions.npu_smi,
            "compatibility": status.compatibility.to_dict(),
            "packages": packages,
        },
    )
    bundle.record("versions and compatibility verdict", "ok", path="versions.json")
    bundle.add_json("status.json", status_dict)
    bundle.add_text("status.txt", status.to_text())
    bundle.record(f"device status ({status.mode} mode: {status.reason})", "ok", path="status.json")
    facts = gather(status=status_dict, root=root)
    bundle.add_json(
        "doctor_facts.json",
        {
            "packages": facts.packages,
            "root": facts.root,
            "groups": facts.groups,
            "user": facts.user,
            "is_root": facts.is_root,
            "hwhiaiuser_group_exists": facts.hwhiaiuser_group_exists,
        },
    )
    diag = diagnose(None, facts=facts)
    bundle.add_json("doctor.json", diag.to_dict())
    bundle.add_text("doctor.txt", diag.to_text())
    bundle.record("doctor's environment checks", "ok", path="doctor.json")
    return status_dict

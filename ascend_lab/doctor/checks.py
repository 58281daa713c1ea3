"""Machine confirmations: does this machine's state support a finding?

Each check reads cheap facts (environment variables, files, package metadata, user groups)
and, when available, one :func:`ascend_lab.probes.device.collect_status` snapshot. A missing
or failing device probe never breaks the doctor: the check then says what it could not see.
Nothing here imports MindSpore.
"""

import os
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ascend_lab import settings
from ascend_lab.i18n import msg, text_of
from ascend_lab.probes import ascend_install, envcheck

DEFAULT_ROOT = ascend_install.DEFAULT_ROOT
HCCL_VARS = ("HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "RANK_TABLE_FILE", "RANK_SIZE")
CANN_VARS = ("ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_TOOLKIT_HOME")
DEVICE_VARS = ("ASCEND_RT_VISIBLE_DEVICES", "DEVICE_ID", "RANK_ID")

# verdicts
CONFIRMED = "confirmed"  # the machine shows the cause
CONTRADICTED = "not confirmed"  # the machine looks fine for this cause
INFO = "info"  # facts worth seeing, no verdict
UNKNOWN = "could not check"


@dataclass
class Confirmation:
    """What a machine check says about one finding."""

    check: str
    verdict: str
    lines: List[str] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"check": self.check, "verdict": self.verdict, "lines": list(self.lines)}


@dataclass
class Environment:
    """The facts the checks look at; built once per diagnosis (injectable in tests)."""

    env: Mapping[str, str]
    status: Optional[Dict[str, Any]] = None  # DeviceStatus.to_dict(), or None
    status_error: str = ""
    packages: Dict[str, Optional[str]] = field(default_factory=dict)
    root: str = DEFAULT_ROOT
    groups: Optional[List[str]] = None  # names of this user's groups
    user: str = ""
    is_root: bool = False
    hwhiaiuser_group_exists: Optional[bool] = None


def package_version(name: str) -> Optional[str]:
    """Installed version of a distribution, from its metadata (no import)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return None
    try:
        return version(name)
    except PackageNotFoundError:
        return None
    except Exception:  # broken metadata: treat as unknown
        return None


def device_status(timeout: float = 5.0, refresh: bool = True) -> Any:
    """``(status_dict, error)`` from the device probe (fresh by default); never raises."""
    try:
        from ascend_lab.probes.device import collect_status
    except Exception as exc:  # the device package is missing or broken
        return None, msg("device status unavailable ({}: {})", type(exc).__name__, exc)
    try:
        status = collect_status(refresh=refresh, timeout=timeout)
        data = status.to_dict() if hasattr(status, "to_dict") else dict(vars(status))
        return data, ""
    except Exception as exc:
        return None, msg("device status failed ({}: {})", type(exc).__name__, exc)


def _user_groups() -> Any:
    try:
        import grp
        import pwd
    except ImportError:  # not POSIX
        return None, "", False, None
    uid = os.getuid()
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    names = []
    for gid in set(os.getgroups()) | {os.getgid()}:
        try:
            names.append(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.append(str(gid))
    try:
        grp.getgrnam("HwHiAiUser")
        exists: Optional[bool] = True
    except KeyError:
        exists = False
    return sorted(names), user, uid == 0, exists


def gather(
    env: Optional[Mapping[str, str]] = None,
    with_status: bool = True,
    status: Optional[Dict[str, Any]] = None,
    root: Optional[str] = None,
    timeout: float = 5.0,
) -> Environment:
    """Collect the facts once. ``status`` (a status dict) overrides the device probe."""
    env = dict(os.environ if env is None else env)
    error = ""
    if status is None and with_status:
        status, error = device_status(timeout=timeout)
    elif status is None:
        error = msg("device status not collected")
    groups, user, is_root, exists = _user_groups()
    if root is None:
        root = (
            settings.get(ascend_install.ROOT_ENV, env) or (status or {}).get("root") or DEFAULT_ROOT
        )
    return Environment(
        env=env,
        status=status,
        status_error=error,
        packages={name: package_version(name) for name in ("mindspore", "numpy")},
        root=root,
        groups=groups,
        user=user,
        is_root=is_root,
        hwhiaiuser_group_exists=exists,
    )


# --- individual checks -------------------------------------------------------------


def _major(version: Optional[str]) -> Optional[int]:
    if not version:
        return None
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else None


def check_versions(facts: Environment, entry_id: str = "") -> Confirmation:
    numpy = facts.packages.get("numpy")
    mindspore = facts.packages.get("mindspore")
    lines = [
        msg(
            "MindSpore {}, NumPy {} (package metadata)",
            mindspore or msg("not installed"),
            numpy or msg("not installed"),
        )
    ]
    if entry_id == "numpy2-abi":
        major = _major(numpy)
        if major is None:
            return Confirmation("versions", UNKNOWN, lines)
        if major >= 2:
            lines.append(
                msg('NumPy {} is 2.x: matches this finding (`pip install "numpy<2"`)', numpy)
            )
            return Confirmation("versions", CONFIRMED, lines)
        lines.append(
            msg("NumPy {} is 1.x here: the failing module may come from another environment", numpy)
        )
        return Confirmation("versions", CONTRADICTED, lines)
    status = facts.status
    if not status:
        lines.append(facts.status_error or msg("device status not available"))
        return Confirmation("versions", UNKNOWN, lines)
    versions = status.get("versions") or {}
    shown = ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    if shown:
        lines.append(msg("Installed: {}", shown))
    else:
        lines.append(msg("Installed: no driver/CANN version files found under {}", facts.root))
    compat = status.get("compatibility") or {}
    verdict = compat.get("verdict", "unknown")
    message = text_of(compat, "message")
    if verdict == "mismatch":
        lines.append(msg("Compatibility table: MISMATCH. {}", message))
        for cmd in compat.get("install") or []:
            lines.append(msg("Suggested: {}", cmd))
        return Confirmation("versions", CONFIRMED, lines)
    if verdict == "match":
        lines.append(msg("Compatibility table: these versions belong together. {}", message))
        return Confirmation("versions", CONTRADICTED, lines)
    lines.append(msg("Compatibility table: cannot tell. {}", message))
    return Confirmation("versions", UNKNOWN, lines)


def cann_env_problems(facts: Environment) -> List[str]:
    """What is missing for CANN to be usable from this process (empty = looks set up).

    The check is :func:`ascend_lab.probes.envcheck.cann_variables` (status uses it too);
    the doctor only asks whether the variables are there at all."""
    problems = []
    for kind, name, value in envcheck.cann_variables(facts.env):
        if kind == "unset":
            problems.append(msg("{} is not set", name))
        elif kind == "missing":
            problems.append(msg("{}={} does not exist", name, value))
        elif kind == "no-ascend-ld":
            problems.append(msg("LD_LIBRARY_PATH has no Ascend/CANN directory"))
    return problems


def find_set_env(root: str, env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The set_env.sh of the CANN at ``root`` (or named by ``env``'s ASCEND_HOME_PATH), as
    ``ascend-lab status`` finds it."""
    info = ascend_install.read_install(root, environ=os.environ if env is None else env)
    return info.set_env


def _install(facts: Environment) -> Tuple[Optional[str], List[str]]:
    """``(set_env.sh, the places CANN was looked for)``: the status's when it has them."""
    inst = (facts.status or {}).get("install")
    if isinstance(inst, dict) and ("set_env" in inst or "looked" in inst):
        places = [
            str(x.get("path"))
            for x in inst.get("looked") or []
            if isinstance(x, dict) and x.get("what") == "CANN"
        ]
        set_env = inst.get("set_env")
        if isinstance(set_env, str) and set_env:
            return set_env, places
    info = ascend_install.read_install(facts.root, environ=facts.env)
    return info.set_env, info.cann_places()


def check_env(facts: Environment, entry_id: str = "") -> Confirmation:
    env = facts.env
    if entry_id.startswith("hccl-"):
        lines = []
        for name in HCCL_VARS:
            lines.append(msg("{}={}", name, env.get(name) or msg("(not set)")))
        table = env.get("RANK_TABLE_FILE")
        if entry_id == "hccl-ranktable-invalid" and table:
            if os.path.isfile(table) and os.access(table, os.R_OK):
                lines.append(msg("RANK_TABLE_FILE exists and is readable: check its fields"))
                return Confirmation("env", INFO, lines)
            lines.append(msg("RANK_TABLE_FILE {} does not exist or is not readable", table))
            return Confirmation("env", CONFIRMED, lines)
        return Confirmation("env", INFO, lines)
    problems = cann_env_problems(facts)
    set_env, places = _install(facts)
    lines = []
    if set_env:
        lines.append(msg("CANN's set_env.sh found: {}", set_env))
    else:
        lines.append(
            msg(
                "No CANN install found (looked in {}): "
                'on a machine without an NPU, run on CPU (`ms.set_device("CPU")`)',
                ", ".join(places[:8]) or facts.root,
            )
        )
    if problems:
        lines.extend(problems)
        if set_env:
            lines.append(msg("Run: {}", "source " + shlex.quote(set_env)))  # copy-pastes
        return Confirmation("env", CONFIRMED, lines)
    lines.append(msg("ASCEND_HOME_PATH, ASCEND_OPP_PATH and LD_LIBRARY_PATH point to CANN"))
    return Confirmation("env", CONTRADICTED, lines)


def _chips(status: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [c for c in (status.get("chips") or []) if isinstance(c, dict)]


def check_devices(facts: Environment, entry_id: str = "") -> Confirmation:
    env = facts.env
    lines = [msg("{}={}", name, env.get(name) or msg("(not set)")) for name in DEVICE_VARS]
    status = facts.status
    if not status:
        lines.append(facts.status_error or msg("device status not available"))
        return Confirmation("devices", UNKNOWN, lines)
    chips = _chips(status)
    mode = status.get("mode", "?")
    reason = text_of(status, "reason")
    if reason:
        lines.insert(0, msg("Mode: {} ({}); {} NPU chip(s)", mode, reason, len(chips)))
    else:
        lines.insert(0, msg("Mode: {}; {} NPU chip(s)", mode, len(chips)))
    processes = [p for p in (status.get("processes") or []) if isinstance(p, dict)]
    for p in processes[:8]:
        where = (p.get("npu"), p.get("chip"), p.get("pid"))
        if p.get("name"):
            line = msg(
                "NPU {} chip {} is used by pid {} {} ({} MB)",
                *where,
                p.get("name"),
                p.get("memory_mb"),
            )
        else:
            line = msg("NPU {} chip {} is used by pid {} ({} MB)", *where, p.get("memory_mb"))
        lines.append(line)
    if entry_id == "device-busy":
        return Confirmation(
            "devices", CONFIRMED if processes else (UNKNOWN if not chips else CONTRADICTED), lines
        )
    if entry_id == "device-not-visible":
        return Confirmation("devices", CONTRADICTED if chips else CONFIRMED, lines)
    if entry_id == "ascend-runtime-init-failed":
        # no chip visible, or a chip held by another process: either confirms a cause the entry
        # names; free chips leave the cause to the lines printed before the error
        return Confirmation("devices", CONFIRMED if processes or not chips else INFO, lines)
    if entry_id == "device-id-out-of-range":
        wanted = env.get("DEVICE_ID", "")
        if chips and wanted.isdigit():
            if int(wanted) >= len(chips):
                lines.append(
                    msg("DEVICE_ID={} but only {} chip(s) are present", wanted, len(chips))
                )
                return Confirmation("devices", CONFIRMED, lines)
            return Confirmation("devices", CONTRADICTED, lines)
        return Confirmation("devices", INFO if chips else UNKNOWN, lines)
    if entry_id == "device-oom":
        full = False
        for c in chips:
            used, total = c.get("hbm_used_mb"), c.get("hbm_total_mb")
            if used is not None and total:
                lines.append(
                    msg("NPU {} chip {} HBM {} / {} MB", c.get("npu"), c.get("chip"), used, total)
                )
                full = full or used >= 0.8 * total
        if full:
            return Confirmation("devices", CONFIRMED, lines)
    return Confirmation("devices", INFO if chips else UNKNOWN, lines)


def check_group(facts: Environment, entry_id: str = "") -> Confirmation:
    if facts.groups is None:
        return Confirmation("group", UNKNOWN, [msg("user groups are not available on this system")])
    lines = [msg("User {}, groups: {}", facts.user, ", ".join(facts.groups))]
    if facts.is_root:
        lines.append(msg("Running as root: group membership is not the cause"))
        return Confirmation("group", CONTRADICTED, lines)
    if not facts.hwhiaiuser_group_exists:
        lines.append(
            msg("No HwHiAiUser group on this machine (the NPU driver is not installed here)")
        )
        return Confirmation("group", UNKNOWN, lines)
    if "HwHiAiUser" in facts.groups:
        lines.append(msg("User is in HwHiAiUser"))
        return Confirmation("group", CONTRADICTED, lines)
    lines.append(
        msg(
            "User is NOT in HwHiAiUser: {} (then log in again)",
            "sudo usermod -aG HwHiAiUser " + facts.user,
        )
    )
    return Confirmation("group", CONFIRMED, lines)


CHECKS: Dict[str, Callable[[Environment, str], Confirmation]] = {
    "versions": check_versions,
    "env": check_env,
    "devices": check_devices,
    "group": check_group,
}


def confirm(check: str, facts: Environment, entry_id: str = "") -> Confirmation:
    """Run the named check for a finding; a failing check reports itself, never raises."""
    func = CHECKS.get(check)
    if func is None:
        return Confirmation(check, UNKNOWN, [msg("unknown check {!r}", check)])
    try:
        return func(facts, entry_id)
    except Exception as exc:  # a check must never hide the diagnosis
        return Confirmation(check, UNKNOWN, [msg("check failed: {}: {}", type(exc).__name__, exc)])


def environment_summary(facts: Environment) -> List[str]:
    """Facts shown when there is no error text (``ascend-lab doctor`` with no input)."""
    lines = []
    status = facts.status
    if status:
        lines.append(msg("Device status: {}", status.get("summary") or str(status.get("mode"))))
    else:
        lines.append(facts.status_error or msg("device status not available"))
    mindspore, numpy = facts.packages.get("mindspore"), facts.packages.get("numpy")
    lines.append(
        msg(
            "MindSpore {}, NumPy {}",
            mindspore or msg("not installed"),
            numpy or msg("not installed"),
        )
    )
    return lines


def environment_problems(facts: Environment) -> List[Confirmation]:
    """Environment-only diagnosis: the checks that find something wrong on their own."""
    found = []
    status = facts.status or {}
    mode = status.get("mode")
    set_env, _places = _install(facts)
    if set_env and cann_env_problems(facts):
        found.append(check_env(facts, "set-env-not-sourced"))
    versions = check_versions(facts, "version-mismatch")
    if versions.verdict == CONFIRMED:
        found.append(versions)
    if _major(facts.packages.get("numpy")) is not None and facts.packages.get("mindspore"):
        numpy_major = _major(facts.packages.get("numpy")) or 0
        if numpy_major >= 2:
            found.append(
                Confirmation(
                    "versions",
                    INFO,
                    [
                        msg(
                            "NumPy {} with MindSpore {}: graph-mode code that calls NumPy inside "
                            "construct fails with 'numpy.core.multiarray failed to import' "
                            '(seen with MindSpore 2.10); `pip install "numpy<2"` avoids it',
                            facts.packages.get("numpy"),
                            facts.packages.get("mindspore"),
                        )
                    ],
                )
            )
    if mode == "ascend" and facts.groups is not None:
        group = check_group(facts, "device-permission")
        if group.verdict == CONFIRMED:
            found.append(group)
    for w in status.get("warnings") or []:
        if isinstance(w, dict) and w.get("severity") in ("error", "warning"):
            text = text_of(w, "message")  # its template, so it is shown translated
            if w.get("fix"):
                text = msg("{} Fix: {}", text, text_of(w, "fix"))
            found.append(Confirmation("status", INFO, [text]))
    return found

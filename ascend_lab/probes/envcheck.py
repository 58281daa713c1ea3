"""Check the Ascend environment variables that CANN's ``set_env.sh`` sets.

Each problem is a :class:`StatusWarning` with the command that fixes it. Only called when
an Ascend install or an NPU is present: on a plain CPU machine none of this matters.
"""

import os
import shlex
from typing import Dict, List, Mapping, Optional, Tuple

from ascend_lab.i18n import msg
from ascend_lab.model.device_status import Chip, StatusWarning
from ascend_lab.probes.ascend_install import InstallInfo

ENV_VARS = (
    "ASCEND_HOME_PATH",
    "ASCEND_TOOLKIT_HOME",
    "ASCEND_OPP_PATH",
    "ASCEND_CUSTOM_OPP_PATH",
    "ASCEND_RT_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
)


def snapshot(environ: Optional[Mapping[str, str]] = None) -> Dict[str, Optional[str]]:
    env = os.environ if environ is None else environ
    return {k: env.get(k) for k in ENV_VARS}


def cann_variables(env: Mapping[str, str]) -> List[Tuple[str, str, str]]:
    """What is wrong with the variables CANN's set_env.sh sets, as ``(kind, name, value)``.

    The one check of the CANN environment; status (:func:`check_environment`) and the
    doctor (:func:`ascend_lab.doctor.checks.cann_env_problems`) word and weigh it each in
    their way. Kinds: ``unset`` (``name`` is not set), ``missing`` (``name=value`` is not a
    folder), ``lib64`` (``LD_LIBRARY_PATH`` lacks the CANN home's ``value``/lib64),
    ``no-ascend-ld`` (``LD_LIBRARY_PATH`` names no Ascend folder at all).
    """
    out: List[Tuple[str, str, str]] = []
    home_var = "ASCEND_HOME_PATH" if env.get("ASCEND_HOME_PATH") else "ASCEND_TOOLKIT_HOME"
    home = env.get(home_var)
    if not home:
        out.append(("unset", "ASCEND_HOME_PATH", ""))
    elif not os.path.isdir(home):
        out.append(("missing", home_var, home))
    opp = env.get("ASCEND_OPP_PATH")
    if not opp:
        out.append(("unset", "ASCEND_OPP_PATH", ""))
    elif not os.path.isdir(opp):
        out.append(("missing", "ASCEND_OPP_PATH", opp))
    ld = [p for p in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
    if home:
        lib64 = os.path.normpath(os.path.join(home, "lib64"))
        if lib64 not in [os.path.normpath(p) for p in ld]:
            out.append(("lib64", "LD_LIBRARY_PATH", lib64))
    if not any("ascend" in p.lower() for p in ld):
        out.append(("no-ascend-ld", "LD_LIBRARY_PATH", ""))
    return out


def _source_fix(install: InstallInfo) -> str:
    script = install.set_env or os.path.join(install.root, "ascend-toolkit", "set_env.sh")
    # quoted: the command must copy-paste into a shell even when the path has spaces
    return msg(
        "source {}   (or use the ascend-lab MindSpore kernel, which does it)", shlex.quote(script)
    )


def check_environment(
    install: InstallInfo,
    chips: List[Chip],
    environ: Optional[Mapping[str, str]] = None,
) -> List[StatusWarning]:
    env = os.environ if environ is None else environ
    out: List[StatusWarning] = []
    fix = _source_fix(install)
    home = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")

    # Set by the ascend-lab kernel's launcher when sourcing set_env.sh failed.
    set_env_error = env.get("ASCEND_LAB_SET_ENV_ERROR")
    if set_env_error:
        out.append(
            StatusWarning(
                msg(
                    "this kernel could not source {}: {}",
                    env.get("ASCEND_LAB_SET_ENV") or "set_env.sh",
                    set_env_error,
                ),
                "check the script in a terminal (bash -c 'source <set_env.sh>'), then "
                "re-register the kernel: ascend-lab install-kernel --set-env <set_env.sh> --force",
                "error",
                "environment",
            )
        )
    if install.toolkit_home and not home:
        out.append(
            StatusWarning(
                "CANN's set_env.sh has not been sourced (ASCEND_HOME_PATH is not set)",
                fix,
                "warning",
                "environment",
            )
        )
    else:
        for kind, name, value in cann_variables(env):
            if kind == "missing" and name != "ASCEND_OPP_PATH":
                out.append(
                    StatusWarning(
                        msg("ASCEND_HOME_PATH={} does not exist", value),
                        fix,
                        "error",
                        "environment",
                    )
                )
            elif kind == "unset" and name == "ASCEND_OPP_PATH" and home:
                out.append(
                    StatusWarning("ASCEND_OPP_PATH is not set", fix, "warning", "environment")
                )
            elif kind == "missing":
                out.append(
                    StatusWarning(
                        msg("ASCEND_OPP_PATH={} does not exist", value), fix, "error", "environment"
                    )
                )
            elif kind == "lib64":
                out.append(
                    StatusWarning(
                        msg("LD_LIBRARY_PATH does not contain {}", value),
                        msg(
                            "export LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH   (or {})",
                            shlex.quote(value),
                            fix,
                        ),
                        "warning",
                        "environment",
                    )
                )
    custom = env.get("ASCEND_CUSTOM_OPP_PATH")
    if custom:
        for p in custom.split(os.pathsep):
            if p and not os.path.isdir(p):
                out.append(
                    StatusWarning(
                        msg("ASCEND_CUSTOM_OPP_PATH entry {} does not exist", p),
                        "Remove it from ASCEND_CUSTOM_OPP_PATH or install the custom operators",
                        "warning",
                        "environment",
                    )
                )
    out.extend(
        _visible_devices(
            env.get("ASCEND_RT_VISIBLE_DEVICES"), chips, bool(env.get("ASCEND_LAB_CPU_REASON"))
        )
    )
    return out


def _visible_devices(
    value: Optional[str], chips: List[Chip], hub_cpu_mode: bool = False
) -> List[StatusWarning]:
    if value is None:
        return []
    if hub_cpu_mode and not value.strip():
        return []  # the hub hid every chip on purpose; the status's reason says why
    ids = [p.strip() for p in value.split(",")]
    if not value.strip() or not all(i.isdigit() for i in ids):
        return [
            StatusWarning(
                msg(
                    "ASCEND_RT_VISIBLE_DEVICES={} is not a comma-separated list of NPU ids",
                    repr(value),
                ),
                "export ASCEND_RT_VISIBLE_DEVICES=0,1   (ids from npu-smi info), or unset it",
                "error",
                "npu",
            )
        ]
    if chips:
        count = len(chips)
        bad = [i for i in ids if int(i) >= count]
        if bad:
            return [
                StatusWarning(
                    msg(
                        "ASCEND_RT_VISIBLE_DEVICES names device(s) {} but only {} chip(s) exist",
                        ",".join(bad),
                        count,
                    ),
                    msg("Use ids 0..{} or unset ASCEND_RT_VISIBLE_DEVICES", count - 1),
                    "error",
                    "npu",
                )
            ]
    return [
        StatusWarning(
            msg("Only devices {} are visible to MindSpore (ASCEND_RT_VISIBLE_DEVICES)", value),
            "unset ASCEND_RT_VISIBLE_DEVICES to use every NPU",
            "info",
            "npu",
        )
    ]

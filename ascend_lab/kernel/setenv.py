"""Find and source the CANN ``set_env.sh`` without ever pasting its path into shell code.

Where it is comes from :mod:`ascend_lab.probes.ascend_install` (every CANN layout, the same
answer ``ascend-lab status`` gives).

``source_set_env(path)`` runs ``bash -c 'source "$p" ... && env -0' ascend-lab PATH``: the
path reaches bash as a positional argument, so spaces, ``$`` or ``;`` in it are just
characters. The result is the environment the script produced, ready to merge.
"""

import os
import signal
import subprocess
from typing import Dict, List, Optional, Tuple

from ascend_lab.probes import ascend_install

# One list of install places, kept in ascend_lab.probes.ascend_install (the names stay here).
DEFAULT_ASCEND_ROOT = ascend_install.DEFAULT_ROOT
ROOT_ENV_VAR = ascend_install.ROOT_ENV
SET_ENV_CANDIDATES = ascend_install.SET_ENV_CANDIDATES

# Variables bash sets for itself; they say nothing about the Ascend environment.
_BASH_OWN = frozenset(["_", "SHLVL", "PWD", "OLDPWD", "BASH_EXECUTION_STRING"])

# Sourcing runs with the positional parameters cleared (``shift``), so a set_env.sh that
# looks at "$1" for its own options sees none. The script's own output goes to stderr so
# stdout carries only the NUL-separated environment. Like a terminal, a non-zero status from
# the script does not undo what it exported; a script that calls ``exit`` prints nothing.
_SOURCE_SCRIPT = 'p="$1"; shift; source "$p" 1>&2; rc=$?; env -0; exit "$rc"'

SET_ENV_TIMEOUT = 60.0


def ascend_root() -> str:
    """The Ascend install root: ``$ASCEND_LAB_ASCEND_ROOT`` or ``/usr/local/Ascend``."""
    return ascend_install.default_root()


def candidate_paths(root: Optional[str] = None) -> List[str]:
    """Every place a loose ``set_env.sh`` is looked for under ``root``, in order."""
    return ascend_install.set_env_candidates(ascend_root() if root is None else root)


def find_set_env(
    root: Optional[str] = None, locations: ascend_install.Locations = ascend_install.SYSTEM
) -> Optional[str]:
    """The ``set_env.sh`` of the CANN that ``ascend-lab status`` reports (absolute), or None.

    ``root`` (default: ``$ASCEND_LAB_ASCEND_ROOT``, else every place CANN installs to) is
    searched by :func:`ascend_lab.probes.ascend_install.discover`.
    """
    return ascend_install.find_set_env(root, locations)


def looked_in(
    root: Optional[str] = None, locations: ascend_install.Locations = ascend_install.SYSTEM
) -> List[str]:
    """Where :func:`find_set_env` looked for CANN (for "CPU mode: no set_env.sh in ...")."""
    return ascend_install.discover(root, locations=locations).cann_places()


def _parse_env0(data: bytes) -> Dict[str, str]:
    env = {}  # type: Dict[str, str]
    for item in data.split(b"\0"):
        if not item or b"=" not in item:
            continue
        key, _, value = item.partition(b"=")
        env[key.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
    return env


def _last_lines(text: bytes, count: int = 5) -> str:
    lines = text.decode("utf-8", "replace").strip().splitlines()
    return "\n".join(lines[-count:])


def _kill_group(proc: "subprocess.Popen[bytes]") -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # already gone, or no process groups (Windows)
        proc.kill()
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, OSError):
        pass


def source_set_env(
    path: str,
    base_env: Optional[Dict[str, str]] = None,
    timeout: float = SET_ENV_TIMEOUT,
) -> Tuple[Dict[str, str], Optional[str]]:
    """Source ``path`` in bash; return ``(changed_variables, error_message_or_None)``.

    ``changed_variables`` holds every variable the script added or changed relative to
    ``base_env`` (default: this process's environment). On failure the message says what went
    wrong (the variables exported before a failing command are still returned, as a terminal
    would keep them; a script that calls ``exit`` returns none). Nothing raises.
    """
    env = dict(os.environ if base_env is None else base_env)
    if not os.path.isfile(path):
        return {}, f"set_env.sh not found: {path}"
    argv = ["bash", "-c", _SOURCE_SCRIPT, "ascend-lab", path]
    try:
        proc = subprocess.Popen(  # noqa: S603 - fixed argv, path passed as an argument
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # so a timeout can stop the script's children too
        )
    except FileNotFoundError:
        return {}, f"bash not found: cannot source {path}"
    except OSError as exc:
        return {}, f"cannot run bash to source {path}: {exc}"
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return {}, f"sourcing {path} timed out after {timeout:g} s"
    produced = _parse_env0(stdout)
    changed = {
        key: value
        for key, value in produced.items()
        if key not in _BASH_OWN and env.get(key) != value
    }
    if proc.returncode == 0:
        return changed, None
    message = f"sourcing {path} failed (exit status {proc.returncode})"
    if changed:
        message += "; the variables it set before failing were kept"
    detail = _last_lines(stderr)
    if detail:
        message += ": " + detail
    return changed, message

"""Write, find and remove the "MindSpore" kernelspec.

A kernelspec is a folder with ``kernel.json`` and two logos. Ours runs
``python -m ascend_lab.kernel.launcher [--set-env PATH] [--device-id N] -f {connection_file}``
with the Python that installed it, and marks itself in ``metadata.ascend_lab`` so that
``uninstall-kernel`` only ever removes what ascend-lab wrote.
"""

import json
import os
import re
import shutil
import sys
import tempfile
from typing import Any, Dict, List, Optional

from ascend_lab._version import __version__
from ascend_lab.errors import AscendLabError

DEFAULT_NAME = "mindspore"
DISPLAY_NAME_ASCEND = "MindSpore (Ascend)"
DISPLAY_NAME_CPU = "MindSpore (CPU)"
METADATA_KEY = "ascend_lab"
LAUNCHER_MODULE = "ascend_lab.kernel.launcher"
LOGO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "logos")
LOGO_FILES = ("logo-32x32.png", "logo-64x64.png")

# \A...\Z, not ^...$: "$" also matches before a trailing newline. The first character is a
# letter or digit, so "." and ".." (which would name the kernels folder or its parent) fail.
_NAME_RE = re.compile(r"\A[a-z0-9][a-z0-9._-]*\Z")


class KernelSpecError(AscendLabError):
    """A kernelspec could not be written or removed; the message says why and what to do."""


def check_name(name: str) -> str:
    """Return ``name`` lower-cased (Jupyter's kernel names are), or raise if it is not a
    plain folder name: a letter or digit, then letters, digits, '.', '_' or '-'."""
    lowered = name.lower() if isinstance(name, str) else ""
    if not _NAME_RE.match(lowered):
        raise KernelSpecError(
            f"invalid kernel name {name!r}: start with a letter or digit, then use letters, "
            "digits, '.', '_' or '-' only"
        )
    return lowered


def build_kernel_json(
    set_env: Optional[str],
    device_id: Optional[int] = None,
    display_name: Optional[str] = None,
    python: Optional[str] = None,
) -> Dict[str, Any]:
    """The ``kernel.json`` document for our kernel. ``set_env=None`` means CPU mode."""
    argv = [python or sys.executable, "-m", LAUNCHER_MODULE]
    if set_env:
        argv += ["--set-env", set_env]
    if device_id is not None:
        argv += ["--device-id", str(device_id)]
    argv += ["-f", "{connection_file}"]
    mode = "ascend" if set_env else "cpu"
    if display_name is None:
        display_name = DISPLAY_NAME_ASCEND if set_env else DISPLAY_NAME_CPU
    return {
        "argv": argv,
        "display_name": display_name,
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {
            "debugger": True,
            METADATA_KEY: {
                "version": __version__,
                "mode": mode,
                "set_env": set_env,
                "device_id": device_id,
            },
        },
    }


def read_kernel_json(resource_dir: str) -> Optional[Dict[str, Any]]:
    """The parsed ``kernel.json`` in ``resource_dir``, or None if missing or unreadable."""
    try:
        with open(os.path.join(resource_dir, "kernel.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ours(spec: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """Our metadata block if ``spec`` (a kernel.json dict) was written by ascend-lab."""
    if not spec:
        return None
    meta = spec.get("metadata")
    if not isinstance(meta, dict):
        return None
    block = meta.get(METADATA_KEY)
    return block if isinstance(block, dict) else None


def kernels_dir(user: bool = False, prefix: Optional[str] = None) -> str:
    """The ``kernels`` folder Jupyter's ``install_kernel_spec`` writes to for these options."""
    if prefix:
        return os.path.join(os.path.abspath(prefix), "share", "jupyter", "kernels")
    from jupyter_core.paths import SYSTEM_JUPYTER_PATH, jupyter_data_dir

    if user:
        return os.path.join(jupyter_data_dir(), "kernels")
    return os.path.join(SYSTEM_JUPYTER_PATH[0], "kernels")


def in_virtualenv() -> bool:
    """True inside a venv or a conda env (where ``--sys-prefix`` is the natural place)."""
    base = getattr(sys, "base_prefix", sys.prefix)
    return sys.prefix != base or os.path.isdir(os.path.join(sys.prefix, "conda-meta"))


def default_location() -> Dict[str, Any]:
    """``{"user": ..., "prefix": ...}``: ``sys.prefix`` in a venv/conda env, else user level."""
    if in_virtualenv():
        return {"user": False, "prefix": sys.prefix}
    return {"user": True, "prefix": None}


def install(
    name: str = DEFAULT_NAME,
    set_env: Optional[str] = None,
    device_id: Optional[int] = None,
    display_name: Optional[str] = None,
    user: bool = False,
    prefix: Optional[str] = None,
    force: bool = False,
) -> str:
    """Install the kernelspec; return its folder. Raises :class:`KernelSpecError`."""
    from jupyter_client.kernelspec import KernelSpecManager

    name = check_name(name)
    if user and prefix:
        raise KernelSpecError("choose one of --user, --sys-prefix or --prefix")
    if device_id is not None and device_id < 0:
        raise KernelSpecError(f"--device-id must be 0 or more, got {device_id}")
    if set_env is not None:
        set_env = os.path.abspath(set_env)
        if not os.path.isfile(set_env):
            raise KernelSpecError(f"set_env.sh not found: {set_env}")
    destination = os.path.join(kernels_dir(user=user, prefix=prefix), name)
    existing = read_kernel_json(destination) if os.path.isdir(destination) else None
    if os.path.isdir(destination) and ours(existing) is None and not force:
        raise KernelSpecError(
            f"a kernel named {name!r} that ascend-lab did not install already exists in "
            f"{destination}; "
            "choose another --name, or pass --force to replace it"
        )
    spec = build_kernel_json(set_env, device_id=device_id, display_name=display_name)
    with tempfile.TemporaryDirectory(prefix="ascend-lab-kernel-") as tmp:
        source = os.path.join(tmp, name)
        os.mkdir(source)
        with open(os.path.join(source, "kernel.json"), "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")
        for logo in LOGO_FILES:
            shutil.copyfile(os.path.join(LOGO_DIR, logo), os.path.join(source, logo))
        try:
            return str(
                KernelSpecManager().install_kernel_spec(
                    source, kernel_name=name, user=user, prefix=prefix
                )
            )
        except OSError as exc:
            hint = "" if user or prefix else " (try --user or --sys-prefix)"
            raise KernelSpecError(
                f"cannot write the kernelspec to {destination}: {exc}{hint}"
            ) from exc


def all_specs(kernel_dirs: Optional[List[str]] = None) -> Dict[str, Dict[str, Any]]:
    """``{name: {"resource_dir": ..., "spec": kernel.json dict}}`` as Jupyter resolves them."""
    from jupyter_client.kernelspec import KernelSpecManager

    manager = KernelSpecManager()
    if kernel_dirs is not None:
        manager.kernel_dirs = list(kernel_dirs)
    found = {}  # type: Dict[str, Dict[str, Any]]
    for name, resource_dir in sorted(manager.find_kernel_specs().items()):
        spec = read_kernel_json(resource_dir)
        if spec is None:
            # e.g. the built-in python3 kernel that has no folder of its own
            try:
                spec = manager.get_kernel_spec(name).to_dict()
            except Exception:  # noqa: BLE001 - a broken spec must not break the listing
                spec = {}
        found[name] = {"resource_dir": resource_dir, "spec": spec}
    return found


def describe(name: str, resource_dir: str, spec: Dict[str, Any]) -> Dict[str, Any]:
    """One row of ``ascend-lab kernels --json``."""
    block = ours(spec)
    argv = spec.get("argv") if isinstance(spec.get("argv"), list) else []
    return {
        "name": name,
        "display_name": spec.get("display_name", ""),
        "language": spec.get("language", ""),
        "resource_dir": resource_dir,
        "python": argv[0] if argv else None,
        "ascend_lab": block is not None,
        "mode": block.get("mode") if block else None,
        "set_env": block.get("set_env") if block else None,
        "device_id": block.get("device_id") if block else None,
        "version": block.get("version") if block else None,
    }


def find_installed(
    name: str, user: bool = False, prefix: Optional[str] = None, anywhere: bool = True
) -> Optional[str]:
    """Folder of the kernelspec ``name``: in the given place, or the one Jupyter would use."""
    name = check_name(name)
    if not anywhere:
        path = os.path.join(kernels_dir(user=user, prefix=prefix), name)
        return path if os.path.isdir(path) else None
    from jupyter_client.kernelspec import KernelSpecManager

    found = KernelSpecManager().find_kernel_specs().get(name)
    return str(found) if found else None


def search_dirs() -> List[str]:
    """The ``kernels`` folders Jupyter searches, in its order."""
    from jupyter_client.kernelspec import KernelSpecManager

    return [str(d) for d in KernelSpecManager().kernel_dirs]


def uninstall(resource_dir: str, name: str, kernel_dirs: List[str]) -> None:
    """Remove the kernelspec folder ``resource_dir`` if, and only if, ascend-lab wrote it and
    its real path is ``<one of kernel_dirs>/<name>`` (not a symlink out of it, not the
    ``kernels`` folder itself or its parent)."""
    name = check_name(name)
    real = os.path.realpath(resource_dir)
    allowed = {os.path.join(os.path.realpath(d), name) for d in kernel_dirs}
    if os.path.islink(resource_dir) or real not in allowed:
        raise KernelSpecError(
            f"{resource_dir} is not a kernel folder named {name!r} directly inside a Jupyter "
            "kernels folder; not removing it"
        )
    spec = read_kernel_json(resource_dir)
    if ours(spec) is None:
        raise KernelSpecError(
            f"the kernel in {resource_dir} was not installed by ascend-lab; not removing it "
            "(use `jupyter kernelspec remove` if you really mean to)"
        )
    try:
        shutil.rmtree(real)
    except OSError as exc:
        raise KernelSpecError(f"cannot remove {resource_dir}: {exc}") from exc

"""Find what is installed under an Ascend install root (default ``/usr/local/Ascend``).

Reads small files only; every problem (missing, unreadable, empty, malformed) becomes a
message in ``InstallInfo.problems``, never an exception.
"""

import os
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from . import versions

DEFAULT_ROOT = "/usr/local/Ascend"
ROOT_ENV = "ASCEND_LAB_ASCEND_ROOT"
_MAX_BYTES = 64 * 1024


@dataclass
class InstallInfo:
    root: str
    root_exists: bool = False
    driver: Optional[str] = None
    firmware: Optional[str] = None
    firmware_ranges: List[Tuple[str, str]] = field(default_factory=list)  # from the driver
    cann: Optional[str] = None
    toolkit_home: Optional[str] = None  # <root>/ascend-toolkit/<version> (or latest)
    set_env: Optional[str] = None  # <root>/ascend-toolkit/set_env.sh if present
    problems: List[Tuple[str, str, str]] = field(default_factory=list)  # (component, msg, fix)

    @property
    def anything_installed(self) -> bool:
        return bool(self.driver or self.firmware or self.cann or self.toolkit_home)


def default_root() -> str:
    return os.environ.get(ROOT_ENV) or DEFAULT_ROOT


def read_small_text(path: str) -> Tuple[Optional[str], Optional[str]]:
    """(text, None) or (None, why not). Never raises."""
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_BYTES)
    except FileNotFoundError:
        return None, "missing"
    except IsADirectoryError:
        return None, "a directory, not a file"
    except OSError as e:
        return None, f"unreadable ({e.strerror or e.__class__.__name__})"
    return data.decode("utf-8", errors="replace"), None


def find_toolkit(root: str) -> Optional[str]:
    """The CANN toolkit version directory under ``root``, or ``None``.

    ``ascend-toolkit/latest`` is a symlink on real machines; a checkout without symlinks
    has a text file naming the version instead. Both work; without ``latest`` the
    highest version directory is used. ``nnae`` (inference-only CANN) is the fallback.
    """
    for product in ("ascend-toolkit", "nnae"):
        base = os.path.join(root, product)
        if not os.path.isdir(base):
            continue
        latest = os.path.join(base, "latest")
        if os.path.isdir(latest):
            return latest
        if os.path.isfile(latest):
            text, _ = read_small_text(latest)
            name = (text or "").strip()
            if name and "\n" not in name:
                target = os.path.normpath(os.path.join(base, name))
                if os.path.isdir(target) and target.startswith(os.path.normpath(base) + os.sep):
                    return target
        try:
            names = [
                n
                for n in os.listdir(base)
                if n[:1].isdigit() and os.path.isdir(os.path.join(base, n))
            ]
        except OSError:
            names = []
        if names:
            return os.path.join(base, max(names, key=versions.version_key))
    return None


def find_install_info_file(toolkit: str) -> Optional[str]:
    """``<toolkit>/<arch>-linux/ascend_toolkit_install.info`` (or directly in ``toolkit``)."""
    candidates = [os.path.join(toolkit, "ascend_toolkit_install.info")]
    try:
        for name in sorted(os.listdir(toolkit)):
            if name.endswith("-linux"):
                candidates.append(os.path.join(toolkit, name, "ascend_toolkit_install.info"))
                candidates.append(os.path.join(toolkit, name, "ascend_nnae_install.info"))
    except OSError:
        pass
    for c in candidates:
        if os.path.isfile(c):
            return c
    return None


def read_install(root: Optional[str] = None, toolkit_hint: Optional[str] = None) -> InstallInfo:
    """Driver, firmware and CANN versions under ``root``.

    ``toolkit_hint`` (``$ASCEND_HOME_PATH``) is where CANN is read from when ``root`` has
    no toolkit, e.g. a CANN installed in the user's home.
    """
    root = root or default_root()
    info = InstallInfo(root=root)
    if not os.path.exists(root):
        _read_toolkit(info, toolkit_hint if toolkit_hint and os.path.isdir(toolkit_hint) else None)
        return info
    if not os.path.isdir(root):
        info.problems.append(
            (
                "driver",
                f"The Ascend install root {root} is not a directory",
                "Point ASCEND_LAB_ASCEND_ROOT (or --root) at the folder holding driver/ and "
                "ascend-toolkit/, usually /usr/local/Ascend",
            )
        )
        return info
    info.root_exists = True

    text = _read_version_file(info, root, "driver", "NPU driver", "npu-driver")
    if text is not None:
        info.driver = versions.parse_version_info(text)
        info.firmware_ranges = versions.firmware_range(text)
    text = _read_version_file(info, root, "firmware", "NPU firmware", "npu-firmware")
    if text is not None:
        info.firmware = versions.parse_version_info(text)

    toolkit = find_toolkit(root)
    if toolkit is None and toolkit_hint and os.path.isdir(toolkit_hint):
        toolkit = toolkit_hint
    _read_toolkit(info, toolkit)
    set_env = os.path.join(root, "ascend-toolkit", "set_env.sh")
    if os.path.isfile(set_env):
        info.set_env = set_env
    return info


def _read_version_file(
    info: InstallInfo, root: str, component: str, title: str, package: str
) -> Optional[str]:
    """The text of ``<root>/<component>/version.info`` if it has a ``Version=`` line; else
    ``None``, with a problem when the component looks installed but its file is bad."""
    path = os.path.join(root, component, "version.info")
    fix = f"Reinstall the {title} (Ascend-hdk-*-{package}_*.run --full)"
    text, why = read_small_text(path)
    if text is None:
        if os.path.isdir(os.path.join(root, component)) or why != "missing":
            info.problems.append(
                (component, f"{title.split()[-1].capitalize()} version file {path} is {why}", fix)
            )
        return None
    if versions.parse_version_info(text) is None:
        info.problems.append((component, f"{path} has no readable Version= line", fix))
    return text


def _read_toolkit(info: InstallInfo, toolkit: Optional[str]) -> None:
    if toolkit:
        info.toolkit_home = toolkit
        info_file = find_install_info_file(toolkit)
        if info_file:
            text, why = read_small_text(info_file)
            info.cann = versions.parse_toolkit_install_info(text or "")
            if info.cann is None:
                info.problems.append(
                    (
                        "cann",
                        "{} is {}".format(
                            info_file, why or "empty or has no readable version= line"
                        ),
                        "Reinstall the CANN toolkit (Ascend-cann-toolkit_*.run --install)",
                    )
                )
        else:
            info.problems.append(
                (
                    "cann",
                    f"No ascend_toolkit_install.info under {toolkit}",
                    "Reinstall the CANN toolkit (Ascend-cann-toolkit_*.run --install)",
                )
            )
        set_env = os.path.join(os.path.dirname(toolkit.rstrip(os.sep)), "set_env.sh")
        if info.set_env is None and os.path.isfile(set_env):
            info.set_env = set_env

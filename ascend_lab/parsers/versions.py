"""Parse Ascend version files and compare Ascend-style version strings. Pure functions.

- ``<root>/driver/version.info`` and ``<root>/firmware/version.info``: ``Key=Value`` lines
  (``Version=24.1.rc1``, ``compatible_version_fw=[7.0.0,7.2.99]``).
- ``<toolkit>/<arch>-linux/ascend_toolkit_install.info``: ``version=8.3.RC2`` … (and the
  ``ascend_ops_install.info`` / ``ascend_nnae_install.info`` / ``ascend_nnrt_install.info``
  siblings, same format).
- ``/etc/Ascend/ascend_cann_install.info``: ``Install_Path=/usr/local/Ascend`` and (written by
  the toolkit's installer, read by CANN's own build scripts) ``Toolkit_InstallPath=<home>``;
  ``/etc/ascend_install.info``: ``Driver_Install_Path_Param=/usr/local/Ascend`` (the driver's).
- ``<toolkit>/version.cfg``: ``toolkit_running_version=[<inner>:<CANN version>]`` and its
  siblings (``runtime_``, ``compiler_``, ``opp_``; ``*_installed_version`` keeps the history,
  several brackets in a row).
- a component's ``version.info`` (``runtime/``, ``compiler/``, ``opp/``, ``toolkit/``):
  ``Version=`` is the inner version before CANN 8.5 (``8.2.0.0.201``, with
  ``version_dir=8.2.RC1``) and the CANN version from 8.5 on (``version_dir=cann``).
- NNAL's ``nnal/atb/<version>/version.info``: ``Ascend-cann-atb : 8.2.RC2`` lines, indented
  by four spaces as ATB's build script writes them, or not.

Version strings mix numbers and release-candidate tags: ``8.0.RC2`` < ``8.0.0``,
``2.3.0rc1`` < ``2.3.0``; :func:`version_key` orders them that way.
"""

import json
import re
from typing import Dict, List, Optional, Tuple

_VERSION_TEXT = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.\-_+]*$")


def parse_key_value_file(text: str) -> Dict[str, str]:
    """``Key=Value`` lines -> dict (keys lower-cased); comments, blanks and junk skipped."""
    out: Dict[str, str] = {}
    if not isinstance(text, str):
        return out
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip().lower()
        if sep and key and " " not in key:
            out[key] = value.strip().strip("\"'")
    return out


def _clean_version(value: Optional[str]) -> Optional[str]:
    if value is None:
        return None
    value = value.strip()
    if not value or len(value) > 64 or not _VERSION_TEXT.match(value):
        return None
    if not any(ch.isdigit() for ch in value):
        return None
    return value


def parse_version_info(text: str) -> Optional[str]:
    """The ``Version=`` of a driver or firmware ``version.info``; ``None`` if absent/odd."""
    return _clean_version(parse_key_value_file(text).get("version"))


def parse_toolkit_install_info(text: str) -> Optional[str]:
    """The CANN version in ``ascend_toolkit_install.info`` (``version=8.3.RC2``)."""
    return _clean_version(parse_key_value_file(text).get("version"))


_ARCHES = {"aarch64": "aarch64", "arm64": "aarch64", "x86_64": "x86_64", "x86-64": "x86_64"}


def normal_arch(name: Optional[str]) -> Optional[str]:
    """``aarch64`` / ``x86_64`` from an ``arch=`` value or an ``<arch>-linux`` folder name
    (CANN 5.x named its aarch64 folder ``arm64-linux``); ``None`` for anything else."""
    if not isinstance(name, str):
        return None
    name = name.strip().lower()
    if name.endswith("-linux"):
        name = name[: -len("-linux")]
    return _ARCHES.get(name)


def parse_install_info_arch(text: str) -> Optional[str]:
    """The ``arch=`` of an install-info file, as ``aarch64`` / ``x86_64``."""
    return normal_arch(parse_key_value_file(text).get("arch"))


_FOLDER_VERSION = re.compile(r"\d{1,4}\.\d{1,4}(?:[.\-][0-9A-Za-z]{1,16}){0,5}")

# version.cfg: the CANN version is after the colon of a [<inner>:<version>] bracket
_CFG_BRACKET = re.compile(r"\[([^\[\]:\n]{1,64}):([^\[\]:\n]{1,64})\]")
_CFG_KEYS = (
    "toolkit_running_version",
    "runtime_running_version",
    "compiler_running_version",
    "opp_running_version",
)


def parse_version_cfg(text: str) -> Optional[str]:
    """The CANN version of a toolkit's ``version.cfg``: the last bracket of its
    ``toolkit_running_version=`` (else ``runtime_``, ``compiler_``, ``opp_``, else any
    ``*_running_version``), ``[7.7.T20.0.B210:8.1.RC1]`` -> ``8.1.RC1``."""
    kv = parse_key_value_file(text)
    keys = list(_CFG_KEYS) + sorted(k for k in kv if k.endswith("_running_version"))
    for key in keys:
        found = _CFG_BRACKET.findall(kv.get(key) or "")
        if found:
            version = _clean_version(found[-1][1])
            if version:
                return version
    return None


def parse_component_version_info(text: str) -> Optional[str]:
    """The CANN version a component's ``version.info`` gives: its ``version_dir`` when that
    names a version (``8.2.RC1``; before 8.5 ``Version=`` is the inner one, ``8.2.0.0.201``),
    else its ``Version=`` (from 8.5 on, ``version_dir=cann``)."""
    kv = parse_key_value_file(text)
    folder = _clean_version(kv.get("version_dir"))
    if folder and _FOLDER_VERSION.fullmatch(folder):
        return folder
    if "version_dir" not in kv:
        # no version_dir: only a CANN-style version, never an inner one (four numbers)
        version = _clean_version(kv.get("version"))
        if version and not re.fullmatch(r"\d+\.\d+\.\d+\.\d+(?:\.\d+)?", version):
            return version
        return None
    return _clean_version(kv.get("version"))


def parse_atb_version_info(text: str) -> Optional[str]:
    """NNAL/ATB's version from its ``version.info`` (``Ascend-cann-atb : 8.2.RC2``, lines
    indented or not), or a ``version=`` line (an install-info file)."""
    if not isinstance(text, str):
        return None
    for raw in text.splitlines()[:200]:
        key, sep, value = raw.strip().partition(":")
        if sep and key.strip().lower() == "ascend-cann-atb":
            return _clean_version(value)
    return _clean_version(parse_key_value_file(text).get("version"))


def version_from_folder_name(name: str) -> Optional[str]:
    """The CANN version a folder's name carries: ``cann-9.0.0`` (CANN >= 8.5),
    ``8.1.RC1`` (``ascend-toolkit/<version>``, ``nnae/<version>``), ``cann-9.2.0-beta.2``
    (pre-releases), else ``None``
    (``latest``, ``cann``, ``set_env.sh``, junk)."""
    if not isinstance(name, str):
        return None
    name = name.strip().rstrip("/")
    if name.startswith("cann-"):
        name = name[len("cann-") :]
    if not _FOLDER_VERSION.fullmatch(name):
        return None
    return _clean_version(name)


def parse_conda_meta(text: str) -> Optional[Tuple[str, str]]:
    """``(name, version)`` of one ``<env>/conda-meta/<name>-<version>-<build>.json`` record
    (what ``conda list`` reads), or ``None`` when the text is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    name, version = data.get("name"), data.get("version")
    if not isinstance(name, str) or not isinstance(version, str):
        return None
    clean = _clean_version(version)
    return (name[:80], clean) if clean else None


_MAX_PATH = 4096


def _clean_path(value: Optional[str]) -> Optional[str]:
    """An absolute path from an install-info file, or ``None`` (relative, empty, odd)."""
    if not value:
        return None
    value = value.strip()
    if not value.startswith("/") or len(value) > _MAX_PATH or "\0" in value:
        return None
    return value


def parse_install_path(text: str) -> Optional[str]:
    """``Install_Path=`` of ``ascend_cann_install.info``: where CANN was installed."""
    return _clean_path(parse_key_value_file(text).get("install_path"))


def parse_toolkit_install_path(text: str) -> Optional[str]:
    """``Toolkit_InstallPath=`` of an install-info file: the toolkit's own folder
    (``.../cann-9.0.0``, ``.../ascend-toolkit``), written by the toolkit's installer and
    read by CANN's build scripts to source its set_env.sh."""
    return _clean_path(parse_key_value_file(text).get("toolkit_installpath"))


def parse_driver_install_paths(text: str) -> Tuple[Optional[str], Optional[str]]:
    """``(Driver_Install_Path_Param, Firmware_Install_Path_Param)`` of the driver's
    ``/etc/ascend_install.info``."""
    kv = parse_key_value_file(text)
    return (
        _clean_path(kv.get("driver_install_path_param")),
        _clean_path(kv.get("firmware_install_path_param")),
    )


def parse_version_ranges(text: Optional[str]) -> List[Tuple[str, str]]:
    """``"[7.0.0,7.2.99]"`` or ``"[a,b],[c,d]"`` -> ``[("7.0.0", "7.2.99"), ...]``."""
    if not text:
        return []
    out = []
    for m in re.finditer(r"\[([^\[\],]+),([^\[\],]+)\]", text):
        lo, hi = m.group(1).strip(), m.group(2).strip()
        if lo and hi:
            out.append((lo, hi))
    return out


def firmware_range(driver_info_text: str) -> List[Tuple[str, str]]:
    """The firmware versions a driver accepts (its ``compatible_version_fw``)."""
    return parse_version_ranges(parse_key_value_file(driver_info_text).get("compatible_version_fw"))


_PART = re.compile(r"(\d+)|([A-Za-z]+)")


def version_key(version: str) -> Tuple[Tuple[int, int, str], ...]:
    """Sort key for versions such as ``8.0.RC2``, ``24.1.rc1``, ``2.3.0rc1``, ``7.1.0.11.220``.

    Numbers compare as numbers; a letter tag (``rc``, ``alpha``, ``beta``, ``T``) sorts
    before a plain number at the same place, so ``8.0.RC2 < 8.0.0`` and
    ``2.3.0rc1 < 2.3.0``. ``.post``/local suffixes (``+cpu``) are ignored.
    """
    v = (version or "").strip().lower().split("+", 1)[0]
    v = re.sub(r"\.?post\d*$", "", v)
    parts: List[Tuple[int, int, str]] = []
    for m in _PART.finditer(v):
        if m.group(1) is not None:
            parts.append((1, int(m.group(1)), ""))
        else:
            parts.append((0, 0, m.group(2)))
    # "2.3.0" vs "2.3.0rc1": pad with a marker that sorts after any tag
    parts.append((0, 1 << 30, "~"))
    return tuple(parts)


def same_release(a: str, b: str) -> bool:
    """``8.0.RC2`` == ``8.0.rc2``; ``2.4.1`` == ``2.4.1.post1``."""
    return version_key(a) == version_key(b)


def in_range(version: str, low: str, high: str) -> bool:
    """``low <= version <= high``; a high bound ending in ``.`` or ``.99`` means "and below".

    ``[23.0.rc3,23.0.rc3.]`` (as firmware files write it) means every build of 23.0.rc3.
    """
    key = version_key(version)

    def extends(bound: str) -> bool:  # "23.0.rc3.b070" is a build of "23.0.rc3"
        stem = version_key(bound.rstrip("."))[:-1]
        return key[: len(stem)] == stem

    above_low = version_key(low) <= key or extends(low)
    if high.endswith("."):
        return above_low and extends(high)
    return above_low and key <= version_key(high)

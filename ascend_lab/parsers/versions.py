"""Parse Ascend version files and compare Ascend-style version strings. Pure functions.

- ``<root>/driver/version.info`` and ``<root>/firmware/version.info``: ``Key=Value`` lines
  (``Version=24.1.rc1``, ``compatible_version_fw=[7.0.0,7.2.99]``).
- ``<toolkit>/<arch>-linux/ascend_toolkit_install.info``: ``version=8.3.RC2`` … (and the
  ``ascend_ops_install.info`` / ``ascend_nnae_install.info`` / ``ascend_nnrt_install.info``
  siblings, same format).
- ``/etc/Ascend/ascend_cann_install.info``: ``Install_Path=/usr/local/Ascend``;
  ``/etc/ascend_install.info``: ``Driver_Install_Path_Param=/usr/local/Ascend`` (the driver's).

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


_FOLDER_VERSION = re.compile(r"\d{1,4}\.\d{1,4}(?:\.[0-9A-Za-z]{1,16}){0,4}")


def version_from_folder_name(name: str) -> Optional[str]:
    """The CANN version a folder's name carries: ``cann-9.0.0`` (CANN >= 8.5),
    ``8.1.RC1`` (``ascend-toolkit/<version>``, ``nnae/<version>``), else ``None``
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

"""Find the Ascend install: driver, firmware and CANN, in every layout CANN has used.

The one place that knows where Ascend software lives. Status (:mod:`.probe`), the kernel
installer (:mod:`ascend_lab.kernel.setenv`), the doctor's checks and the support report all
ask :func:`discover` (or :func:`read_install`, its older name).

Where CANN is looked for, in this order (the first place holding a CANN install wins):

1. the root the user named: ``--root`` / ``$ASCEND_LAB_ASCEND_ROOT`` (when given, only it
   and the environment below are looked at, so a named root is never mixed with another);
2. the environment set_env.sh left: ``$ASCEND_HOME_PATH``, ``$ASCEND_TOOLKIT_HOME``;
3. the install-info files: ``/etc/Ascend/ascend_cann_install.info`` (root installs) and
   ``$HOME/Ascend/ascend_cann_install.info`` (non-root installs), ``Install_Path=``;
4. the defaults: ``/usr/local/Ascend``, ``$HOME/Ascend`` (non-root), ``$CONDA_PREFIX/Ascend``
   (``conda install ascend::cann-toolkit``).

Under a root, the layouts tried are (newest first): ``cann`` (CANN >= 8.5: a link to
``cann-<version>``, with ``cann/set_env.sh``), ``cann-<version>`` folders without the link,
``ascend-toolkit/latest`` (or its highest version folder), then ``nnae`` and ``nnrt``
(inference-only CANN, before 8.5). A CANN home's version is read from
``<home>/<arch>-linux/ascend_toolkit_install.info`` (``ascend_nnae_install.info``,
``ascend_nnrt_install.info``), 8.5's ops package from ``ascend_ops_install.info`` beside it.

A home with no install-info file gets its version from the toolkit's ``version.cfg``
(``toolkit_running_version=[<inner>:<version>]``), then a component's ``version.info``
(``runtime/``, ``compiler/``, ``opp/``, ``toolkit/``), then the folder's name (a
``latest`` that is a real folder, as CANN 6-8.3 make it, is named by what its links point
into: ``runtime -> ../8.2.RC2/runtime``), then (a conda env) conda's record. NNAL/ATB is read
from ``$ATB_HOME_PATH`` and ``<root>/nnal/atb/{latest,<version>}/version.info`` and checked
against the toolkit: ATB must be the toolkit's version.

The driver and firmware are read from the named root, else from the path the driver's
``/etc/ascend_install.info`` records (``Driver_Install_Path_Param=``), else from
``/usr/local/Ascend``. Every place looked at is recorded in ``InstallInfo.looked``, so the
status can say where it looked when nothing is found. The system paths are fields of
:class:`Locations` so tests give a fake tree and take the same code path a real machine
takes. Reads are small and capped; every problem becomes a message in
``InstallInfo.problems``, never an exception.
"""

import os
import platform
import re
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ascend_lab import settings
from ascend_lab.i18n import msg
from ascend_lab.parsers import versions

DEFAULT_ROOT = "/usr/local/Ascend"
ROOT_ENV = "ASCEND_LAB_ASCEND_ROOT"  # registered in ascend_lab.settings
CANN_INSTALL_INFO = "/etc/Ascend/ascend_cann_install.info"
DRIVER_INSTALL_INFO = "/etc/ascend_install.info"
HOME_ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
_MAX_BYTES = 64 * 1024
_MAX_LISTED = 500  # entries of one folder looked at (a root is a handful)

# The install-info file of each product, and the ops package's (CANN >= 8.5).
TOOLKIT_INFO = "ascend_toolkit_install.info"
NNAE_INFO = "ascend_nnae_install.info"
NNRT_INFO = "ascend_nnrt_install.info"
OPS_INFO = "ascend_ops_install.info"
INFO_FILES = (TOOLKIT_INFO, NNAE_INFO, NNRT_INFO)
VERSION_CFG = "version.cfg"
# components whose version.info names the CANN version (opp_kernel/ is the kernels package's)
COMPONENTS = ("toolkit", "runtime", "compiler", "opp")
NNAL_INFO = "ascend_nnal_install.info"
ATB_HOME_ENV = "ATB_HOME_PATH"

# Product folders under a root that hold ``latest`` or ``<version>`` folders, oldest layout
# last. (``cann`` / ``cann-<version>`` are tried before these.)
VERSIONED_PRODUCTS = ("ascend-toolkit", "nnae", "nnrt")

# Where a set_env.sh sits under a root, when no version file says which install it belongs
# to: the order the kernel installer has always used.
SET_ENV_CANDIDATES = (
    ("ascend-toolkit", "set_env.sh"),
    ("ascend-toolkit", "latest", "set_env.sh"),
    ("nnae", "set_env.sh"),
    ("nnae", "latest", "set_env.sh"),
    ("nnrt", "set_env.sh"),
    ("nnrt", "latest", "set_env.sh"),
    ("cann", "set_env.sh"),
    ("cann", "latest", "set_env.sh"),
)

# where a candidate came from (values of Looked.source; shown, and translated, by the views)
FROM_ROOT = "--root / ASCEND_LAB_ASCEND_ROOT"
FROM_DEFAULT = "default"
FROM_HOME = "non-root install ($HOME/Ascend)"
FROM_CONDA = "conda ($CONDA_PREFIX/Ascend)"


@dataclass(frozen=True)
class Locations:
    """The system paths discovery reads; tests point them into a fake tree."""

    cann_install_info: str = CANN_INSTALL_INFO
    driver_install_info: str = DRIVER_INSTALL_INFO
    default_root: str = DEFAULT_ROOT
    # the prefix of the Python that runs (sys.prefix): a conda env used without activating it
    # leaves no $CONDA_PREFIX; None (tests) looks only at the environment's
    python_prefix: Optional[str] = None


SYSTEM = Locations(python_prefix=sys.prefix)


@dataclass
class Looked:
    """One place discovery looked at: what for, why there, and whether it was there."""

    path: str
    what: str  # "CANN" | "set_env.sh" | "install-info file" | "driver"
    source: str  # FROM_* or an environment variable / install-info file name
    found: bool

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "what": self.what, "source": self.source, "found": self.found}


@dataclass
class CannInstall:
    """One CANN version installed under a root (several can sit side by side)."""

    path: str  # the version's folder: <root>/cann-9.0.0, <root>/ascend-toolkit/8.1.RC1
    version: Optional[str]
    version_from: Optional[str]  # VERSION_FROM_* (None: no version found)
    product: str  # "cann", "ascend-toolkit", "nnae", "nnrt"
    latest: bool = False  # what <root>/cann or <product>/latest points at
    environment: bool = False  # what $ASCEND_HOME_PATH / $ASCEND_TOOLKIT_HOME point at
    used: bool = False  # the one the status reports

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


# how a CANN version was learnt (InstallInfo.cann_version_from, CannInstall.version_from)
VERSION_FROM_INFO = "install-info file"
VERSION_FROM_FOLDER = "folder name"
VERSION_FROM_CONDA = "conda-meta"
VERSION_FROM_CFG = "version.cfg"
VERSION_FROM_COMPONENT = "component version.info"


@dataclass
class InstallInfo:
    root: str  # where the driver and firmware are read (the status's "root")
    root_exists: bool = False
    driver: Optional[str] = None
    firmware: Optional[str] = None
    firmware_ranges: List[Tuple[str, str]] = field(default_factory=list)  # from the driver
    cann: Optional[str] = None
    toolkit_home: Optional[str] = None  # the CANN home: <root>/cann, .../ascend-toolkit/latest
    set_env: Optional[str] = None  # the set_env.sh that belongs to that CANN
    problems: List[Tuple[str, str, str]] = field(default_factory=list)  # (component, msg, fix)
    cann_real_home: Optional[str] = None  # toolkit_home with links resolved (cann-8.5.0)
    cann_layout: Optional[str] = None  # "cann" | "cann-<version>" | "ascend-toolkit" | ...
    cann_source: Optional[str] = None  # where the winning candidate came from
    cann_info_file: Optional[str] = None  # the file the version was read from
    ops: Optional[str] = None  # CANN >= 8.5: the ops package's version
    ops_package: Optional[str] = None  # e.g. "Ascend-cann-910b-ops"
    looked: List[Looked] = field(default_factory=list)
    cann_version_from: Optional[str] = None  # VERSION_FROM_*
    cann_installs: List[CannInstall] = field(default_factory=list)  # every version found
    cann_arch: Optional[str] = None  # "aarch64" | "x86_64": arch= of the info file, or <arch>-linux
    atb: Optional[str] = None  # NNAL/ATB's version (Ascend-cann-atb : <version>)
    atb_home: Optional[str] = None  # the nnal/atb/<version> folder it was read from
    atb_version_from: Optional[str] = None  # VERSION_FROM_INFO | VERSION_FROM_FOLDER
    atb_matches: Optional[bool] = None  # ATB is the toolkit's version (None: not both known)

    @property
    def anything_installed(self) -> bool:
        return bool(self.driver or self.firmware or self.cann or self.toolkit_home)

    def cann_places(self) -> List[str]:
        """The CANN places looked at, in order (for "CANN not found; looked in ...")."""
        return _unique(x.path for x in self.looked if x.what == "CANN")

    def to_dict(self) -> Dict[str, Any]:
        """The status JSON's ``install`` block."""
        return {
            "cann_home": self.toolkit_home,
            "cann_real_home": self.cann_real_home,
            "cann_layout": self.cann_layout,
            "cann_source": self.cann_source,
            "cann_info_file": self.cann_info_file,
            "ops": self.ops,
            "ops_package": self.ops_package,
            "set_env": self.set_env,
            "looked": [x.to_dict() for x in self.looked],
            "cann_version_from": self.cann_version_from,
            "cann_installs": [x.to_dict() for x in self.cann_installs],
            "cann_arch": self.cann_arch,
            "atb": self.atb,
            "atb_home": self.atb_home,
            "atb_version_from": self.atb_version_from,
            "atb_matches": self.atb_matches,
        }

    def side_by_side(self) -> List[CannInstall]:
        """The CANN versions found when there are several (empty with one or none)."""
        return list(self.cann_installs) if len(self.cann_installs) > 1 else []


def default_root() -> str:
    return settings.get(ROOT_ENV) or DEFAULT_ROOT


def read_small_text(path: str) -> Tuple[Optional[str], Optional[str]]:
    """(text, None) or (None, why not). Never raises. Read through the one gate
    (:func:`~ascend_lab.parsers.regular_file.read_gated`): a FIFO or device named
    version.info is refused, not waited on; a file over 64 KiB is refused, not read."""
    from ascend_lab.parsers.regular_file import FileRefused, read_gated

    try:
        if os.path.isdir(path):
            raise IsADirectoryError(path)
        data = read_gated(os.path.realpath(path), _MAX_BYTES, timeout=5.0)
    except FileNotFoundError:
        return None, "missing"
    except IsADirectoryError:
        return None, "a directory, not a file"
    except FileRefused as e:
        if e.reason == "too large":
            return None, msg("{} bytes, too large for a version file (at most {})", e.size, e.cap)
        return None, msg("unreadable ({})", e.reason)
    except OSError as e:
        return None, msg("unreadable ({})", e.strerror or e.__class__.__name__)
    if b"\0" in data:
        return None, "binary, not a text file"
    return data.decode("utf-8", errors="replace"), None


def _unique(items: Iterable[str]) -> List[str]:
    seen = set()
    out = []
    for item in items:
        key = os.path.normpath(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _listdir(path: str) -> List[str]:
    try:
        return sorted(os.listdir(path))[:_MAX_LISTED]
    except OSError:
        return []


def _inside(base: str, target: str) -> bool:
    return os.path.normpath(target).startswith(os.path.normpath(base) + os.sep)


def _highest(base: str, names: List[str], prefix: str = "") -> Optional[str]:
    """The folder ``base/<prefix><version>`` with the highest version, or ``None``."""
    found = [
        n
        for n in names
        if n.startswith(prefix)
        and n[len(prefix) : len(prefix) + 1].isdigit()
        and os.path.isdir(os.path.join(base, n))
    ]
    if not found:
        return None
    return os.path.join(base, max(found, key=lambda n: versions.version_key(n[len(prefix) :])))


def _latest(base: str) -> Optional[str]:
    """``base/latest``: a link (real machines) or a text file naming the version (a checkout
    without symlinks)."""
    latest = os.path.join(base, "latest")
    if os.path.isdir(latest):
        return latest
    if os.path.isfile(latest):
        text, _ = read_small_text(latest)
        name = (text or "").strip()
        if name and "\n" not in name:
            target = os.path.normpath(os.path.join(base, name))
            if os.path.isdir(target) and _inside(base, target):
                return target
    return None


def _latest_link_target(latest: str) -> Optional[str]:
    """The version folder a ``latest`` that is a real folder points into: CANN 6-8.3 make
    ``<product>/latest`` a folder of links (``runtime -> ../8.2.RC2/runtime``); the folder
    most of them point into, when it exists. ``None`` for anything else."""
    if os.path.islink(latest) or not os.path.isdir(latest):
        return None
    base = os.path.dirname(os.path.normpath(latest))
    seen: Dict[str, int] = {}
    for name in _listdir(latest):
        path = os.path.join(latest, name)
        if not os.path.islink(path):
            continue
        try:
            target = os.readlink(path)
        except OSError:
            continue
        parts = os.path.normpath(target).split(os.sep)
        if len(parts) >= 2 and parts[0] == os.pardir and parts[1] not in ("", "latest"):
            seen[parts[1]] = seen.get(parts[1], 0) + 1
    for name in sorted(seen, key=lambda n: (-seen[n], n)):
        folder = os.path.join(base, name)
        if os.path.isdir(folder):
            return folder
    return None


def find_toolkit(root: str) -> Optional[str]:
    """The CANN home under ``root`` (see the module's layouts), or ``None``."""
    for _layout, home, _product in _homes_under(root):
        return home
    return None


def _homes_under(root: str) -> List[Tuple[str, str, str]]:
    """``(layout, home, product folder)`` for each CANN home under ``root``, in order."""
    out: List[Tuple[str, str, str]] = []
    names = _listdir(root)
    cann = os.path.join(root, "cann")
    if os.path.isdir(cann):
        # CANN >= 8.5: cann -> cann-<version>. (A cann/latest from older layouts is honoured.)
        latest = None if _has_info(cann) else _latest(cann)
        out.append(("cann", latest or cann, cann))
    versioned = _highest(root, names, "cann-")
    if versioned:
        out.append(("cann-<version>", versioned, versioned))
    for product in VERSIONED_PRODUCTS:
        base = os.path.join(root, product)
        if not os.path.isdir(base):
            continue
        home = _latest(base) or _highest(base, _listdir(base))
        if home:
            out.append((product, home, base))
    if not out and os.path.lexists(os.path.join(root, "latest")):
        # the root is itself a product folder (Toolkit_InstallPath=.../ascend-toolkit)
        home = _latest(root)
        if home:
            out.append((os.path.basename(os.path.normpath(root)), home, root))
    return out


def _arch_dirs(home: str) -> List[str]:
    """``<arch>-linux`` folders of a CANN home, this machine's architecture first."""
    mine = platform.machine() + "-linux"
    found = [n for n in _listdir(home) if n.endswith("-linux")]
    found.sort(key=lambda n: (n != mine, n))
    return [os.path.join(home, n) for n in found]


def _arch_of(home: str, info_file: Optional[str], text: Optional[str]) -> Optional[str]:
    """The CANN's architecture: ``arch=`` of its install-info file, else the ``<arch>-linux``
    folder holding that file, else the home's one ``<arch>-linux`` folder (this machine's
    when there are several)."""
    arch = versions.parse_install_info_arch(text or "")
    if arch:
        return arch
    if info_file:
        arch = versions.normal_arch(os.path.basename(os.path.dirname(info_file)))
        if arch:
            return arch
    found = []
    for folder in _arch_dirs(home):
        arch = versions.normal_arch(os.path.basename(folder))
        if arch and arch not in found:
            found.append(arch)
    return found[0] if found else None


def _info_candidates(home: str, names: Tuple[str, ...] = INFO_FILES) -> List[str]:
    out = []
    for folder in [home] + _arch_dirs(home):
        for name in names:
            out.append(os.path.join(folder, name))
    return out


def _has_info(home: str) -> bool:
    return any(os.path.isfile(p) for p in _info_candidates(home))


def find_install_info_file(toolkit: str) -> Optional[str]:
    """The install-info file of a CANN home: ``<home>/<arch>-linux/ascend_toolkit_install.info``
    (or ``ascend_nnae_install.info`` / ``ascend_nnrt_install.info``, or directly in it)."""
    for c in _info_candidates(toolkit):
        if os.path.isfile(c):
            return c
    return None


def _set_env_for(home: str, product: str) -> List[str]:
    """Where the set_env.sh of a CANN home is, most specific first."""
    return _unique(
        [
            os.path.join(product, "set_env.sh"),
            os.path.join(home, "set_env.sh"),
            os.path.join(os.path.dirname(home.rstrip(os.sep)), "set_env.sh"),
        ]
    )


def find_set_env(root: Optional[str] = None, locations: Locations = SYSTEM) -> Optional[str]:
    """The set_env.sh a kernel should source: that of the CANN :func:`discover` finds, else
    the first of :data:`SET_ENV_CANDIDATES` under the root. An absolute path, or ``None``."""
    info = discover(root, locations=locations)
    return os.path.abspath(info.set_env) if info.set_env else None


def set_env_candidates(root: str) -> List[str]:
    """Every place a loose set_env.sh is looked for under ``root``, in order."""
    return [os.path.join(root, *parts) for parts in SET_ENV_CANDIDATES]


# -- discovery ------------------------------------------------------------------------------


def _candidates(
    info: InstallInfo, explicit: Optional[str], env: Mapping[str, str], loc: Locations
) -> List[Tuple[str, str, bool]]:
    """``(path, source, is_home)`` in the order CANN is looked for."""
    out: List[Tuple[str, str, bool]] = []
    if explicit:
        out.append((explicit, FROM_ROOT, False))
    for var in HOME_ENV_VARS:
        value = env.get(var)
        if value and value.startswith("/"):
            out.append((value, var, True))
    if explicit:
        return out
    home = env.get("HOME")
    user_root = os.path.join(home, "Ascend") if home and home.startswith("/") else None
    for path in (
        [loc.cann_install_info]
        + ([os.path.join(user_root, "ascend_cann_install.info")] if user_root else [])
        + [loc.driver_install_info]
    ):
        text, _why = read_small_text(path)
        toolkit = versions.parse_toolkit_install_path(text or "")
        recorded = versions.parse_install_path(text or "")
        if path != loc.driver_install_info or toolkit or recorded:
            info.looked.append(
                Looked(path, "install-info file", "system", bool(toolkit or recorded))
            )
        if toolkit:  # the toolkit's own folder, or the product folder holding latest/
            is_home = os.path.isdir(toolkit) and (_has_info(toolkit) or _has_version(toolkit))
            out.append((toolkit, os.path.basename(path), is_home))
        if recorded:
            out.append((recorded, os.path.basename(path), False))
    out.append((loc.default_root, FROM_DEFAULT, False))
    if user_root:
        out.append((user_root, FROM_HOME, False))
    for conda in (env.get("CONDA_PREFIX"), _conda_env(loc.python_prefix)):
        if conda and conda.startswith("/"):
            out.append((os.path.join(conda, "Ascend"), FROM_CONDA, False))
    seen = set()
    unique = []
    for path, source, is_home in out:
        key = os.path.normpath(path)
        if key not in seen:
            seen.add(key)
            unique.append((path, source, is_home))
    return unique


def _conda_env(prefix: Optional[str]) -> Optional[str]:
    """``prefix`` when it is a conda environment (it has ``conda-meta/``)."""
    if prefix and os.path.isdir(os.path.join(prefix, "conda-meta")):
        return prefix
    return None


CONDA_TOOLKIT_PACKAGE = "cann-toolkit"  # conda install ascend::cann-toolkit (CANN docs)


def conda_cann_version(ascend_dir: str) -> Tuple[Optional[str], str]:
    """``(version, where)`` of the ``cann-toolkit`` conda package of the env holding
    ``ascend_dir`` (``<env>/Ascend``), read from ``<env>/conda-meta/`` as ``conda list``
    reads it; ``(None, why not)`` otherwise."""
    env_dir = os.path.dirname(os.path.normpath(ascend_dir))
    meta = os.path.join(env_dir, "conda-meta")
    if not os.path.isdir(meta):
        return None, msg("{} is not a conda environment (no conda-meta/)", env_dir)
    prefix = CONDA_TOOLKIT_PACKAGE + "-"
    for name in _listdir(meta):
        if not (name.startswith(prefix) and name.endswith(".json")):
            continue
        text, _why = read_small_text(os.path.join(meta, name))
        record = versions.parse_conda_meta(text or "")
        if record and record[0] == CONDA_TOOLKIT_PACKAGE:
            return record[1], os.path.join(meta, name)
    return None, msg("no {} package in {} (conda list shows none)", CONDA_TOOLKIT_PACKAGE, meta)


@dataclass
class _Found:
    layout: str
    home: str
    product: str
    source: str
    info_file: Optional[str]


def _found_at(info: InstallInfo, path: str, source: str, is_home: bool) -> List[_Found]:
    """The CANN homes at one candidate: under it as a root, or it as a home (the order
    depends on which it is said to be), each recorded in ``info.looked``."""
    as_home = []
    # a root counts as a CANN home only with a version file in it (e.g. Install_Path naming
    # cann-<version>); a home from the environment counts as it is, as set_env.sh said
    if os.path.isdir(path) and (is_home or _has_info(path)):
        as_home = [("home", path, path)]
    homes = _homes_under(path) if os.path.isdir(path) else []
    order = as_home + homes if is_home else homes + as_home
    out = []
    for layout, home, product in order:
        info_file = find_install_info_file(home)
        out.append(_Found(layout, home, product, source, info_file))
        info.looked.append(Looked(info_file or home, "CANN", source, info_file is not None))
    if not order:
        info.looked.append(Looked(path, "CANN", source, False))
    return out


def discover(
    root: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    locations: Locations = SYSTEM,
) -> InstallInfo:
    """Driver, firmware and CANN of this machine (see the module docstring for the order).

    ``root``: the root the user named (``None``: ``$ASCEND_LAB_ASCEND_ROOT`` if set, else
    discover). ``environ``: the environment to read (default: this process's).
    """
    env = os.environ if environ is None else environ
    explicit = root or settings.get(ROOT_ENV, env) or None
    info = InstallInfo(root=explicit or locations.default_root)
    candidates = _candidates(info, explicit, env, locations)

    # driver and firmware
    firmware_root = None
    if not explicit:
        drv, fw = (None, None)
        text, _why = read_small_text(locations.driver_install_info)
        if text is not None:
            drv, fw = versions.parse_driver_install_paths(text)
        info.looked.append(
            Looked(locations.driver_install_info, "install-info file", "system", bool(drv))
        )
        if drv:
            info.root = drv
        firmware_root = fw
    _read_hdk(info, info.root, firmware_root)
    if info.problems and not info.root_exists:
        return info  # a named root that is not a folder

    # CANN
    found: List[_Found] = []
    for path, source, is_home in candidates:
        found.extend(_found_at(info, path, source, is_home))
        if any(f.info_file or _has_version(f.home) for f in found):
            break
    best = next((f for f in found if f.info_file), None)
    if best is None:  # no install-info file: a version.cfg or a named folder, else the first
        best = next((f for f in found if _has_version(f.home)), found[0] if found else None)
    if best is not None:
        _read_cann(info, best)
    else:
        _conda_without_cann(info, candidates)
    info.cann_installs = _installs_side_by_side(info, candidates, env)
    _read_nnal(info, candidates, env)
    if best is None or best.info_file is None:
        # no version file anywhere: a set_env.sh in the order the kernel always used
        loose = _loose_set_env(info, [p for p, _s, is_home in candidates if not is_home])
        if loose:
            info.set_env = loose
    return info


def _loose_set_env(info: InstallInfo, roots: List[str]) -> Optional[str]:
    """A set_env.sh under a root with no CANN version file beside it (the old order)."""
    for root in roots:
        for path in set_env_candidates(root):
            if os.path.isfile(path):
                info.looked.append(Looked(path, "set_env.sh", root, True))
                return path
    return None


def _read_hdk(info: InstallInfo, root: str, firmware_root: Optional[str]) -> None:
    if not os.path.exists(root):
        info.looked.append(Looked(os.path.join(root, "driver"), "driver", root, False))
        return
    if not os.path.isdir(root):
        info.problems.append(
            (
                "driver",
                msg("The Ascend install root {} is not a directory", root),
                "Point ASCEND_LAB_ASCEND_ROOT (or --root) at the folder holding driver/ and "
                "ascend-toolkit/, usually /usr/local/Ascend",
            )
        )
        return
    info.root_exists = True
    text = _read_version_file(info, root, "driver", "NPU driver", "npu-driver")
    info.looked.append(Looked(os.path.join(root, "driver"), "driver", root, text is not None))
    if text is not None:
        info.driver = versions.parse_version_info(text)
        info.firmware_ranges = versions.firmware_range(text)
    fw_root = firmware_root if firmware_root and os.path.isdir(firmware_root) else root
    text = _read_version_file(info, fw_root, "firmware", "NPU firmware", "npu-firmware")
    if text is not None:
        info.firmware = versions.parse_version_info(text)


def _read_version_file(
    info: InstallInfo, root: str, component: str, title: str, package: str
) -> Optional[str]:
    """The text of ``<root>/<component>/version.info`` if it has a ``Version=`` line; else
    ``None``, with a problem when the component looks installed but its file is bad."""
    path = os.path.join(root, component, "version.info")
    fix = msg("Reinstall the {} (Ascend-hdk-*-{}_*.run --full)", title, package)
    text, why = read_small_text(path)
    if text is None:
        if os.path.isdir(os.path.join(root, component)) or why != "missing":
            info.problems.append(
                (
                    component,
                    msg("{} version file {} is {}", title.split()[-1].capitalize(), path, why),
                    fix,
                )
            )
        return None
    if versions.parse_version_info(text) is None:
        info.problems.append((component, msg("{} has no readable Version= line", path), fix))
    return text


def _read_cann(info: InstallInfo, found: _Found) -> None:
    info.toolkit_home = found.home
    info.cann_real_home = os.path.realpath(found.home)
    info.cann_layout = found.layout
    info.cann_source = found.source
    info.cann_info_file = found.info_file
    fix = "Reinstall the CANN toolkit (Ascend-cann-toolkit_*.run --install)"
    text = None
    if found.info_file:
        text, why = read_small_text(found.info_file)
        info.cann = versions.parse_toolkit_install_info(text or "")
        if info.cann is None:
            info.problems.append(
                (
                    "cann",
                    msg(
                        "{} is {}", found.info_file, why or "empty or has no readable version= line"
                    ),
                    fix,
                )
            )
            # the version the toolkit's other files keep, or its folder's name, said as such
            version, source, where = _file_version(found.home)
            if not version and _folder_version(found.home):
                version, source = _folder_version(found.home), VERSION_FROM_FOLDER
                where = os.path.realpath(found.home)
            if version:
                info.cann, info.cann_version_from = version, source
                info.problems.append(
                    ("cann", msg("CANN version {} read from {} instead", version, where), fix)
                )
        ops_file = os.path.join(os.path.dirname(found.info_file), OPS_INFO)
        ops_text, _ = read_small_text(ops_file)
        if ops_text is not None:
            kv = versions.parse_key_value_file(ops_text)
            info.ops = versions.parse_toolkit_install_info(ops_text)
            info.ops_package = (kv.get("package_name") or "")[:80] or None
    else:
        _version_without_info_file(info, found, fix)
    if info.cann and not info.cann_version_from:
        info.cann_version_from = VERSION_FROM_INFO
    info.cann_arch = _arch_of(found.home, found.info_file, text)
    for path in _set_env_for(found.home, found.product):
        exists = os.path.isfile(path)
        info.looked.append(Looked(path, "set_env.sh", found.source, exists))
        if exists:
            info.set_env = path
            break


def _conda_without_cann(info: InstallInfo, candidates: List[Tuple[str, str, bool]]) -> None:
    """A conda env looked at and no CANN home in it: say what conda itself records."""
    for path, source, _is_home in candidates:
        if source != FROM_CONDA:
            continue
        version, where = conda_cann_version(path)
        if version:
            message = msg(
                "conda lists {} {} ({}), but {} holds no CANN folder (cann/, ascend-toolkit/)",
                CONDA_TOOLKIT_PACKAGE,
                version,
                where,
                path,
            )
        else:
            message = msg("No CANN in the conda environment: {}", where)
        info.problems.append(
            (
                "cann",
                message,
                "conda install ascend::cann-toolkit (and the ops package of your chip) in this "
                "environment, then source <env>/Ascend/cann/set_env.sh",
            )
        )
        return


def _folder_version(home: str) -> Optional[str]:
    """The version a CANN home's folder is named by, links resolved (``cann`` ->
    ``cann-9.0.0``, ``ascend-toolkit/latest`` -> ``8.1.RC1``; a ``latest`` folder of links
    by the folder they point into)."""
    real = os.path.realpath(home)
    version = versions.version_from_folder_name(os.path.basename(real))
    if version:
        return version
    target = _latest_link_target(real)
    return versions.version_from_folder_name(os.path.basename(target)) if target else None


def _file_version(home: str) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """``(version, VERSION_FROM_*, file)`` from the files a CANN home keeps besides its
    install-info file: ``version.cfg``, then a component's ``version.info``."""
    text, _why = read_small_text(os.path.join(home, VERSION_CFG))
    version = versions.parse_version_cfg(text) if text else None
    if version:
        return version, VERSION_FROM_CFG, os.path.join(home, VERSION_CFG)
    for component in COMPONENTS:
        path = os.path.join(home, component, "version.info")
        text, _why = read_small_text(path)
        version = versions.parse_component_version_info(text) if text else None
        if version:
            return version, VERSION_FROM_COMPONENT, path
    return None, None, None


def _has_version(home: str) -> bool:
    """A version can be read for this home without an install-info file."""
    return bool(_folder_version(home) or _file_version(home)[0])


def _version_without_info_file(info: InstallInfo, found: _Found, fix: str) -> None:
    """No install-info file: the version from the folder's name, else (a conda env) from
    conda's own record of the package, else a problem that says why there is none."""
    home, real = found.home, os.path.realpath(found.home)
    version, source, where = _file_version(home)
    if version:
        info.cann, info.cann_version_from = version, source
        message = msg(
            "No ascend_toolkit_install.info under {}: version {} read from {}", home, version, where
        )
        info.problems.append(("cann", message, fix))
        return
    version = _folder_version(home)
    if version:
        info.cann, info.cann_version_from = version, VERSION_FROM_FOLDER
        message = msg(
            "No ascend_toolkit_install.info under {}: version {} read from the folder name {}",
            home,
            version,
            real,
        )
        info.problems.append(("cann", message, fix))
        return
    ascend_dir = _conda_ascend_dir(found)
    if found.source == FROM_CONDA or os.path.isdir(
        os.path.join(os.path.dirname(ascend_dir), "conda-meta")
    ):
        version, where = conda_cann_version(ascend_dir)
        if version:
            info.cann, info.cann_version_from = version, VERSION_FROM_CONDA
            message = msg(
                "No ascend_toolkit_install.info under {}: version {} read from {}",
                home,
                version,
                where,
            )
        else:
            message = msg(
                "No ascend_toolkit_install.info under {}, and no version: {}", home, where
            )
        info.problems.append(("cann", message, fix))
        return
    message = msg(
        "No ascend_toolkit_install.info under {}, and its folder name {} names no version",
        home,
        real,
    )
    info.problems.append(("cann", message, fix))


def _conda_ascend_dir(found: _Found) -> str:
    """The ``<env>/Ascend`` folder a conda candidate's home sits in."""
    path = os.path.normpath(found.product)
    while path and os.path.basename(path) != "Ascend" and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path if os.path.basename(path) == "Ascend" else os.path.normpath(found.product)


def _versions_under(root: str) -> List[Tuple[str, str]]:
    """``(product, folder)`` of every CANN version folder directly under ``root``:
    ``cann-<version>`` (CANN >= 8.5) and ``<product>/<version>`` (before 8.5)."""
    out: List[Tuple[str, str]] = []
    for name in _listdir(root):
        path = os.path.join(root, name)
        if name.startswith("cann-") and versions.version_from_folder_name(name):
            if os.path.isdir(path) and not os.path.islink(path):
                out.append(("cann", path))
    for product in VERSIONED_PRODUCTS:
        base = os.path.join(root, product)
        for name in _listdir(base) if os.path.isdir(base) else []:
            path = os.path.join(base, name)
            if name != "latest" and name[:1].isdigit() and os.path.isdir(path):
                if not os.path.islink(path):
                    out.append((product, path))
    return out


def _latest_targets(root: str) -> List[str]:
    """Where ``<root>/cann`` and ``<root>/<product>/latest`` point (links resolved; a
    ``latest`` folder of links, where its links point into)."""
    out = []
    cann = os.path.join(root, "cann")
    if os.path.islink(cann):
        out.append(os.path.realpath(cann))
    for product in VERSIONED_PRODUCTS:
        latest = _latest(os.path.join(root, product))
        if latest:
            out.append(os.path.realpath(_latest_link_target(latest) or latest))
    return out


def _installs_side_by_side(
    info: InstallInfo, candidates: List[Tuple[str, str, bool]], env: Mapping[str, str]
) -> List[CannInstall]:
    """Every CANN version under the roots looked at (and the root of the one used), with
    which one ``latest`` and the sourced set_env.sh (the environment) choose."""
    roots = [p for p, _s, is_home in candidates if not is_home and os.path.isdir(p)]
    used = os.path.realpath(info.toolkit_home) if info.toolkit_home else None
    if used:
        used = os.path.realpath(_latest_link_target(used) or used)
    if used:
        parent = os.path.dirname(used)
        roots.append(
            os.path.dirname(parent) if os.path.basename(parent) in VERSIONED_PRODUCTS else parent
        )
    chosen_by_env = {
        os.path.realpath(_latest_link_target(v) or v)
        for v in (env.get(k) for k in HOME_ENV_VARS)
        if v and v.startswith("/")
    }
    out: List[CannInstall] = []
    seen = set()
    for root in _unique(roots):
        latest = set(_latest_targets(root))
        for product, path in _versions_under(root):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            info_file = find_install_info_file(path)
            version, source = None, None
            if info_file:
                text, _why = read_small_text(info_file)
                version = versions.parse_toolkit_install_info(text or "")
                source = VERSION_FROM_INFO if version else None
            if not version:
                version = versions.version_from_folder_name(os.path.basename(real))
                source = VERSION_FROM_FOLDER if version else None
            out.append(
                CannInstall(
                    path=path,
                    version=version,
                    version_from=source,
                    product=product,
                    latest=real in latest,
                    environment=real in chosen_by_env,
                    used=real == used,
                )
            )
    out.sort(key=lambda x: (versions.version_key(x.version or ""), x.path))
    return out


def read_install(
    root: Optional[str] = None,
    toolkit_hint: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    locations: Locations = SYSTEM,
) -> InstallInfo:
    """:func:`discover`. Without ``environ``, the environment's CANN homes are not read and
    ``toolkit_hint`` stands for ``$ASCEND_HOME_PATH`` (a CANN installed outside the root, e.g.
    in the user's home); with it, ``environ`` is read as :func:`discover` reads it."""
    env: Dict[str, str] = dict(os.environ if environ is None else environ)
    if environ is None:
        for var in HOME_ENV_VARS:
            env.pop(var, None)
    if toolkit_hint:
        env[HOME_ENV_VARS[0]] = toolkit_hint
    return discover(root, env, locations)


# -- NNAL / ATB ------------------------------------------------------------------------------

NNAL_FIX = "Reinstall NNAL (Ascend-cann-nnal_<version>_linux-<arch>.run --install)"


def _atb_folders(
    info: InstallInfo, candidates: List[Tuple[str, str, bool]], env: Mapping[str, str]
) -> List[Tuple[str, str]]:
    """``(folder, source)`` where an NNAL/ATB version may be read, in order: what
    ``$ATB_HOME_PATH`` (NNAL's set_env.sh) names, up to its ``nnal/atb/<version>`` folder,
    then ``nnal/atb/latest`` (else its highest version folder) under the root of the CANN
    used and the roots looked at."""
    out: List[Tuple[str, str]] = []
    atb_home = env.get(ATB_HOME_ENV)
    if atb_home and atb_home.startswith("/"):
        path = os.path.normpath(atb_home)
        for _ in range(3):  # <atb>/<version>/atb/cxx_abi_1 -> <atb>/<version>
            out.append((path, ATB_HOME_ENV))
            path = os.path.dirname(path)
    roots = []
    if info.cann_real_home:
        parent = os.path.dirname(info.cann_real_home)
        roots.append(
            os.path.dirname(parent) if os.path.basename(parent) in VERSIONED_PRODUCTS else parent
        )
    roots += [p for p, _s, is_home in candidates if not is_home]
    for root in _unique(roots):
        base = os.path.join(root, "nnal", "atb")
        if not os.path.isdir(base):
            continue
        folder = _latest(base) or _highest(base, _listdir(base))
        if folder:
            out.append((folder, root))
    return out


def _read_nnal(
    info: InstallInfo, candidates: List[Tuple[str, str, bool]], env: Mapping[str, str]
) -> None:
    """NNAL/ATB's version (its ``version.info``, else its folder's name) and whether it is
    the toolkit's: ATB is built against one CANN release and must match it."""
    for folder, source in _atb_folders(info, candidates, env):
        if not os.path.isdir(folder):
            continue
        version, came_from = None, None
        for name in ("version.info", NNAL_INFO):
            path = os.path.join(folder, name)
            if not os.path.lexists(path):
                continue
            text, why = read_small_text(path)
            version = versions.parse_atb_version_info(text or "")
            if version:
                came_from = VERSION_FROM_INFO
                break
            info.problems.append(
                (
                    "cann",
                    msg(
                        "{} is {}",
                        path,
                        why or "without a readable 'Ascend-cann-atb : <version>' line",
                    ),
                    NNAL_FIX,
                )
            )
        if not version:
            real = os.path.realpath(folder)
            version = versions.version_from_folder_name(os.path.basename(real))
            came_from = VERSION_FROM_FOLDER if version else None
        if not version:
            continue
        info.atb, info.atb_home, info.atb_version_from = version, folder, came_from
        info.looked.append(Looked(folder, "NNAL", source, True))
        break
    if info.atb and info.cann:
        info.atb_matches = versions.same_release(_release(info.atb), _release(info.cann))
        if not info.atb_matches:
            info.problems.append(
                (
                    "cann",
                    msg(
                        "NNAL/ATB {} ({}) is not the CANN toolkit's version {}: ATB must match "
                        "the toolkit",
                        info.atb,
                        info.atb_home,
                        info.cann,
                    ),
                    msg(
                        "Install NNAL {} (Ascend-cann-nnal_{}_linux-<arch>.run --install), then "
                        "source <root>/nnal/atb/set_env.sh",
                        info.cann,
                        info.cann,
                    ),
                )
            )


def _release(version: str) -> str:
    """``8.0.RC2.beta1`` -> ``8.0.RC2``: the release a pre-release build belongs to."""
    return re.sub(r"[.\-](?:alpha|beta)\.?\d{0,4}$", "", version.strip(), flags=re.I)

"""Do the installed MindSpore, CANN and driver belong together?

The table is data (``compat.json`` next to this file); this module only reads it and
compares versions.
"""

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.i18n import N_, msg
from ascend_lab.model.device_status import Compatibility, StatusWarning
from ascend_lab.parsers.versions import same_release, version_key

_TABLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat.json")
_cache: Optional[List["CompatRow"]] = None


@dataclass(frozen=True)
class CompatRow:
    mindspore_min: str
    mindspore_max: str
    cann: str
    driver: Optional[str] = None

    def has_mindspore(self, version: str) -> bool:
        key = version_key(version)
        return version_key(self.mindspore_min) <= key <= version_key(self.mindspore_max)

    def mindspore_text(self) -> str:
        if self.mindspore_min == self.mindspore_max:
            return self.mindspore_min
        return f"{self.mindspore_min}–{self.mindspore_max}"


def rows_from_data(data: Dict[str, Any]) -> List[CompatRow]:
    """The rows that pair a MindSpore release with a CANN release (``cann`` not null)."""
    return [
        CompatRow(
            mindspore_min=str(r["mindspore_min"]),
            mindspore_max=str(r["mindspore_max"]),
            cann=str(r["cann"]),
            driver=None if r.get("driver") is None else str(r["driver"]),
        )
        for r in data["rows"]
        if r.get("cann") is not None
    ]


def unpaired_from_data(data: Dict[str, Any]) -> List[CompatRow]:
    """The rows of releases no public page pairs with a CANN release (``cann`` null): the
    status says where to check them instead of "not in the table". ``cann`` is ""."""
    return [
        CompatRow(str(r["mindspore_min"]), str(r["mindspore_max"]), "")
        for r in data["rows"]
        if r.get("cann") is None
    ]


@dataclass(frozen=True)
class HdkRow:
    """CANN <-> Ascend HDK (driver/firmware) from CANN's release notes."""

    cann: str  # a release ("8.5.0") or a series ("9.1.X": any 9.1 release)
    hdk: str  # the HDK release paired with it
    hdk_min: Optional[str] = None  # the oldest HDK line (major.minor) it supports, if stated

    def has_cann(self, version: str) -> bool:
        if self.cann.upper().endswith(".X"):
            return _line(version) == _line(self.cann[:-2])
        return same_release(self.cann, version)


def _line(version: str) -> Tuple[Any, ...]:
    """The release line of a version: its first two parts (``25.5.1`` -> 25.5)."""
    return version_key(version)[:2]


def hdk_rows_from_data(data: Dict[str, Any]) -> List[HdkRow]:
    return [
        HdkRow(
            cann=str(r["cann"]),
            hdk=str(r["hdk"]),
            hdk_min=None if r.get("hdk_min") is None else str(r["hdk_min"]),
        )
        for r in data.get("cann_hdk", [])
    ]


def _load() -> Dict[str, Any]:
    global _data
    if _data is None:
        with open(_TABLE_PATH, encoding="utf-8") as f:
            _data = json.load(f)
    return _data


_data: Optional[Dict[str, Any]] = None


def where_to_check(mindspore: Optional[str]) -> str:
    """The page to check a MindSpore version's CANN and driver on: its release notes (the
    address form of ``compat.json``'s ``where_to_check``), else the list of releases."""
    places = _load().get("where_to_check", {})
    versions = str(places.get("versions", "https://www.mindspore.cn/versions"))
    notes = places.get("release_notes")
    match = _RELEASE.fullmatch((mindspore or "").split("+", 1)[0])
    if not notes or not match:
        return versions
    return str(notes).format(match.group(0))


_RELEASE = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}")  # a final release (no rc pages)


def load_table() -> List[CompatRow]:
    """The rows of ``compat.json`` (read once)."""
    global _cache
    if _cache is None:
        _cache = rows_from_data(_load())
    return list(_cache)


def load_unpaired() -> List[CompatRow]:
    """The releases ``compat.json`` lists with no public CANN pairing (``cann`` null)."""
    return unpaired_from_data(_load())


def load_hdk_table() -> List[HdkRow]:
    """The CANN <-> HDK rows of ``compat.json``."""
    return hdk_rows_from_data(_load())


def hdk_for(cann: Optional[str], table: Optional[List[HdkRow]] = None) -> Optional[HdkRow]:
    """The CANN <-> HDK row of a CANN version, or None."""
    if not cann:
        return None
    rows = load_hdk_table() if table is None else table
    return next((r for r in rows if r.has_cann(cann)), None)


def check_hdk(
    cann: Optional[str], driver: Optional[str], table: Optional[List[HdkRow]] = None
) -> Optional[StatusWarning]:
    """A warning when the driver is older than the oldest HDK line CANN's notes support."""
    row = hdk_for(cann, table)
    if row is None or not row.hdk_min or not driver or _line(driver) >= _line(row.hdk_min):
        return None
    return StatusWarning(
        msg(
            "CANN {} needs Ascend HDK {} or newer; driver {} is installed",
            cann,
            row.hdk_min,
            driver,
        ),
        msg(
            "Upgrade the firmware and then the driver to Ascend HDK {} (the release CANN {} is "
            "paired with)",
            row.hdk,
            cann,
        ),
        "error",
        "driver",
    )


def check(
    mindspore: Optional[str],
    cann: Optional[str],
    driver: Optional[str],
    ascend_present: bool = True,
    table: Optional[List[CompatRow]] = None,
) -> Tuple[Compatibility, List[StatusWarning]]:
    """Verdict (match / mismatch / unknown), what to install, and warnings.

    ``ascend_present``: an NPU or an Ascend install was found. Without one (a plain CPU
    machine) a missing CANN is expected and gives no warning. Besides the MindSpore rows,
    CANN's own HDK pairing (``cann_hdk``) is checked whatever MindSpore is installed.
    """
    comp, warnings = _check_mindspore(mindspore, cann, driver, ascend_present, table)
    if not any(w.component == "driver" for w in warnings):
        hdk = check_hdk(cann, driver)
        row = hdk_for(cann)
        if hdk is not None and row is not None:
            warnings.append(hdk)
            install = list(comp.install) + [f"NPU driver and firmware Ascend HDK {row.hdk}"]
            if comp.verdict != "mismatch":
                comp = Compatibility("mismatch", hdk.message, comp.expected, install)
            else:
                comp.install = install
    return comp, warnings


KEEP_CANN_FIX = N_("Install CANN {}, or keep CANN {} and pip install mindspore=={}")


def _check_mindspore(
    mindspore: Optional[str],
    cann: Optional[str],
    driver: Optional[str],
    ascend_present: bool = True,
    table: Optional[List[CompatRow]] = None,
) -> Tuple[Compatibility, List[StatusWarning]]:
    """:func:`check` against the MindSpore rows only."""
    rows = load_table() if table is None else table
    warnings: List[StatusWarning] = []
    ms_rows = [r for r in rows if mindspore and r.has_mindspore(mindspore)]
    cann_rows = [r for r in rows if cann and same_release(r.cann, cann)]

    def ms_for_cann() -> Optional[str]:
        return cann_rows[-1].mindspore_max if cann_rows else None

    if not ascend_present and not cann:
        message = "No Ascend software found: MindSpore runs on CPU."
        if mindspore is None:
            message = "No Ascend software and no MindSpore found."
        return Compatibility("unknown", message), warnings

    if mindspore is None:
        comp = Compatibility("unknown", "MindSpore is not installed.")
        target = ms_for_cann()
        fix = "pip install mindspore"
        if target:
            fix = msg("pip install mindspore=={}  (matches CANN {})", target, cann)
            comp.expected = {"mindspore": target}
            comp.install = [f"mindspore=={target}"]
        warnings.append(StatusWarning("MindSpore is not installed", fix, "warning", "mindspore"))
        return comp, warnings

    if not ms_rows:
        where = where_to_check(mindspore)
        if table is None and any(r.has_mindspore(mindspore) for r in load_unpaired()):
            message = msg(
                "No public page pairs MindSpore {} with a CANN release yet (check the CANN and "
                "driver it needs at {}).",
                mindspore,
                where,
            )
        else:
            message = msg(
                "MindSpore {} is not in the compatibility table (check the CANN and driver it "
                "needs at {}).",
                mindspore,
                where,
            )
        comp = Compatibility("unknown", message)
        target = ms_for_cann()
        if target and cann:
            pairs = msg(" CANN {} pairs with MindSpore {}.", cann, cann_rows[-1].mindspore_text())
            comp.message = msg("{}{}", comp.message, pairs)  # two sentences, each translated
            comp.expected = {"mindspore": target}
            comp.install = [f"mindspore=={target}"]
            warnings.append(
                StatusWarning(
                    msg("MindSpore {} is not known to work with CANN {}", mindspore, cann),
                    msg("pip install mindspore=={}  (the release built for CANN {})", target, cann),
                    "info",
                    "mindspore",
                )
            )
        return comp, warnings

    row = ms_rows[-1]
    expected: Dict[str, Any] = {"cann": row.cann, "driver": row.driver}
    if not cann:
        comp = Compatibility(
            "unknown",
            msg("CANN not found; MindSpore {} needs CANN {}.", mindspore, row.cann),
            expected,
            [f"CANN {row.cann}"],
        )
        warnings.append(
            StatusWarning(
                msg("CANN toolkit not found (MindSpore {} needs CANN {})", mindspore, row.cann),
                msg("Install Ascend-cann-toolkit {} and source its set_env.sh", row.cann),
                "error",
                "cann",
            )
        )
        return comp, warnings

    if row not in cann_rows:
        install = [f"CANN {row.cann}"]
        fix = msg("Install CANN {}", row.cann)
        target = ms_for_cann()
        if target:
            install.append(f"mindspore=={target}")
            # one catalogue template, never a fix built from two messages: that comes out
            # half translated
            fix = msg(KEEP_CANN_FIX, row.cann, cann, target)
        comp = Compatibility(
            "mismatch",
            msg(
                "MindSpore {} is built for CANN {}, but CANN {} is installed.",
                mindspore,
                row.cann,
                cann,
            ),
            expected,
            install,
        )
        warnings.append(StatusWarning(comp.message, fix, "error", "cann"))
        return comp, warnings

    if row.driver and driver and version_key(driver) < version_key(row.driver):
        comp = Compatibility(
            "mismatch",
            msg(
                "CANN {} needs NPU driver {} or newer; driver {} is installed.",
                cann,
                row.driver,
                driver,
            ),
            expected,
            [f"NPU driver and firmware {row.driver} or newer"],
        )
        warnings.append(
            StatusWarning(
                comp.message,
                msg(
                    "Upgrade the firmware and then the driver to {} or newer "
                    "(Ascend-hdk-*-npu-firmware / -npu-driver .run packages)",
                    row.driver,
                ),
                "error",
                "driver",
            )
        )
        return comp, warnings

    return (
        Compatibility(
            "match",
            msg(
                "MindSpore {} and CANN {} match{}.",
                mindspore,
                cann,
                "" if not (row.driver and driver) else msg(", driver {}", driver),
            ),
            expected,
        ),
        warnings,
    )


@dataclass(frozen=True)
class Pairing:
    """One release and the releases of another package its notes pair it with:
    ``ops_toolkit`` (an ops package release -> toolkit releases, CANN >= 8.5) and
    ``torch_npu`` (a CANN release -> torch_npu builds) in ``compat.json``."""

    release: str
    pairs: Tuple[str, ...]


def pairings_from_data(data: Dict[str, Any], key: str, one: str, many: str) -> List[Pairing]:
    return [
        Pairing(release=str(r[one]), pairs=tuple(str(t) for t in r[many]))
        for r in data.get(key, [])
    ]


def load_ops_table() -> List[Pairing]:
    """The ops <-> toolkit rows of ``compat.json`` (release: ops; pairs: toolkits)."""
    return pairings_from_data(_load(), "ops_toolkit", "ops", "toolkits")


def load_torch_npu_table() -> List[Pairing]:
    """The CANN <-> torch_npu rows of ``compat.json`` (release: CANN; pairs: builds)."""
    return pairings_from_data(_load(), "torch_npu", "cann", "torch_npu")


# the first release whose toolkit and ops packages are installed (and upgraded) separately;
# CANN's install guide: independent upgrade is supported from CANN 8.5.0 on
SPLIT_OPS_FROM = "8.5.0"


def check_packages(
    toolkit: Optional[str],
    ops: Optional[str],
    ops_package: Optional[str] = None,
    table: Optional[List[Pairing]] = None,
) -> List[StatusWarning]:
    """Warnings when the ops package and the toolkit of one install do not belong together,
    as far as CANN's release notes and install guide say: an ops package (CANN >= 8.5) on
    a toolkit older than 8.5.0, or an ops release whose notes pair it with other toolkits."""
    if not toolkit or not ops or same_release(toolkit, ops):
        return []
    package = ops_package or "Ascend-cann-<chip>-ops"
    if version_key(toolkit) < version_key(SPLIT_OPS_FROM):
        return [
            StatusWarning(
                msg(
                    "The ops package {} {} is installed on CANN toolkit {}; ops and toolkit are "
                    "only upgraded separately from CANN {} on",
                    package,
                    ops,
                    toolkit,
                    SPLIT_OPS_FROM,
                ),
                msg(
                    "Install CANN toolkit {} (Ascend-cann-toolkit_{}_linux-<arch>.run), or "
                    "remove the ops package and reinstall the kernels package of toolkit {}",
                    ops,
                    ops,
                    toolkit,
                ),
                "error",
                "cann",
            )
        ]
    rows = load_ops_table() if table is None else table
    row = next((r for r in rows if same_release(r.release, ops)), None)
    if row is None or any(same_release(t, toolkit) for t in row.pairs):
        return []
    # a toolkit newer than every release whose notes were read: those notes cannot name it
    newest = max((t for r in rows for t in r.pairs), key=version_key)
    if version_key(toolkit) > version_key(newest):
        return []
    return [
        StatusWarning(
            msg(
                "The ops package {} {} is installed on CANN toolkit {}; CANN's release notes "
                "pair ops {} with toolkit {}",
                package,
                ops,
                toolkit,
                ops,
                ", ".join(row.pairs),
            ),
            msg(
                "Install {} {} (the ops release of toolkit {}), or a toolkit the notes pair "
                "with ops {}; upgrading the toolkit removes the ops package, so install ops "
                "after it",
                package,
                toolkit,
                toolkit,
                ops,
            ),
            "warning",
            "cann",
        )
    ]


def check_ops_installed(
    toolkit: Optional[str], ops: Optional[str], from_info_file: bool
) -> Optional[StatusWarning]:
    """From CANN 8.5.0 the ops package is a required install beside the toolkit (CANN
    8.5.0's release notes). Only when the toolkit's version came from its install-info file,
    so that the ops package's ``ascend_ops_install.info`` would sit beside it."""
    if not toolkit or ops or not from_info_file:
        return None
    if version_key(toolkit) < version_key(SPLIT_OPS_FROM):
        return None
    return StatusWarning(
        msg(
            "CANN toolkit {} is installed without its ops package (no ascend_ops_install.info "
            "beside ascend_toolkit_install.info); from CANN {} the ops package is required",
            toolkit,
            SPLIT_OPS_FROM,
        ),
        msg(
            "Install the ops package of toolkit {} for this NPU "
            "(Ascend-cann-<chip>-ops_{}_linux-<arch>.run --install), then restart the kernel",
            toolkit,
            toolkit,
        ),
        "error",
        "cann",
    )


def _build(version: str) -> str:
    """A torch_npu build compared whole (``2.1.0.post12`` is not ``2.1.0.post13``)."""
    return version.strip().lower().split("+", 1)[0]


def _torch(version: str) -> str:
    """The PyTorch release a torch_npu build is for: ``2.1.0.post12`` -> ``2.1.0``."""
    return ".".join(_build(version).split(".")[:3])


def check_torch_npu(
    cann: Optional[str], torch_npu: Optional[str], table: Optional[List[Pairing]] = None
) -> Optional[StatusWarning]:
    """A warning when the installed torch_npu is the build Ascend Extension for PyTorch pairs
    with another CANN release than the one installed."""
    if not cann or not torch_npu:
        return None
    rows = load_torch_npu_table() if table is None else table
    built_for = next(
        (r for r in rows if any(_build(t) == _build(torch_npu) for t in r.pairs)), None
    )
    if built_for is None or same_release(built_for.release, cann):
        return None
    here = next((r for r in rows if same_release(r.release, cann)), None)
    same_torch = [t for t in (here.pairs if here else ()) if _torch(t) == _torch(torch_npu)]
    if same_torch:
        fix = msg(
            "pip install torch_npu=={}  (the build for CANN {}), or install CANN {}",
            same_torch[-1],
            cann,
            built_for.release,
        )
    else:
        fix = msg(
            "Install CANN {}, or the torch_npu build Ascend Extension for PyTorch pairs with "
            "CANN {}",
            built_for.release,
            cann,
        )
    return StatusWarning(
        msg(
            "torch_npu {} is the build for CANN {}, but CANN {} is installed",
            torch_npu,
            built_for.release,
            cann,
        ),
        fix,
        "warning",
        "cann",
    )

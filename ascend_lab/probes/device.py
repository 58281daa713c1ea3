"""Build one :class:`DeviceStatus` snapshot from the machine. The I/O edge of ``device``.

``collect_status()`` never raises for bad machine state (missing, hanging or failing
``npu-smi``, odd version files, a wrong install root): every problem becomes the CPU-mode
reason or a warning. It is thread-safe and caches its result for a few seconds.
"""

import os
import re
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Match, Optional, Pattern, Tuple

from ascend_lab import settings
from ascend_lab.analysis import compat
from ascend_lab.i18n import msg
from ascend_lab.model.device_status import (
    Chip,
    DeviceStatus,
    StatusWarning,
    Versions,
    cap_warnings,
    order_warnings,
)
from ascend_lab.parsers import npu_smi
from ascend_lab.probes import ascend_install, envcheck, npu_smi_runner
from ascend_lab.probes.smi_reading import Runner, SmiReading, add_details, read_npu_smi

CACHE_SECONDS = 3.0
_lock = threading.Lock()
_cache: Dict[Tuple[Any, ...], Tuple[float, DeviceStatus]] = {}

_MINDSPORE_DISTS = ("mindspore", "mindspore-ascend", "mindspore-gpu", "mindspore-cpu")


_DIST_INFO = re.compile(
    r"^(mindspore(?:[-_](?:ascend|gpu|cpu))?)-([^-]+?)\.(?:dist-info|egg-info)$", re.IGNORECASE
)


def mindspore_version(paths: Optional[List[str]] = None) -> Tuple[Optional[str], Optional[str]]:
    """(version, distribution name) from installed metadata; never imports MindSpore.

    Looks for ``mindspore-<version>.dist-info`` on ``sys.path`` directly: the same answer
    as ``importlib.metadata.version("mindspore")`` (which the tests check) without its
    ~20 ms import, so ``ascend-lab status`` stays fast.
    """

    found: Dict[str, str] = {}
    for entry in sys.path if paths is None else paths:
        for m in _dist_infos(entry, _DIST_INFO):
            found.setdefault(m.group(1).lower().replace("_", "-"), m.group(2))
        if found:
            break  # the first sys.path entry holding MindSpore wins, as for imports
    for dist in _MINDSPORE_DISTS:
        if dist in found:
            return found[dist], dist
    return None, None


_TORCH_NPU_DIST_INFO = re.compile(r"^torch_npu-([^-]+?)\.(?:dist-info|egg-info)$", re.IGNORECASE)


def torch_npu_version(paths: Optional[List[str]] = None) -> Optional[str]:
    """The installed torch_npu (Ascend Extension for PyTorch) version, from its
    ``torch_npu-<version>.dist-info`` on ``sys.path`` (never imported), else None."""
    for entry in sys.path if paths is None else paths:
        for m in _dist_infos(entry, _TORCH_NPU_DIST_INFO):
            return m.group(1)
    return None


def _dist_infos(entry: str, pattern: Pattern[str]) -> List[Match[str]]:
    """The ``<name>-<version>.dist-info`` folders in one ``sys.path`` entry that match."""
    try:
        names = os.listdir(entry or ".")
    except OSError:
        return []
    return [m for m in (pattern.match(n) for n in names) if m]


def _gpu_available(ms_dist: Optional[str]) -> bool:
    """A GPU build of MindSpore and an NVIDIA device: report ``gpu`` mode."""
    if ms_dist is None or not os.path.exists("/dev/nvidiactl"):
        return False
    if ms_dist == "mindspore-gpu":
        return True
    try:
        from importlib.util import find_spec

        spec = find_spec("mindspore")
    except (ImportError, ValueError):
        return False
    locations = list(getattr(spec, "submodule_search_locations", None) or [])
    for loc in locations:
        plugin = os.path.join(loc, "lib", "plugin")
        try:
            if any(n.startswith("libmindspore_gpu") for n in os.listdir(plugin)):
                return True
        except OSError:
            continue
    return False


def collect_status(
    refresh: bool = False,
    root: Optional[str] = None,
    npu_smi: Optional[str] = None,
    timeout: float = 5.0,
    details: bool = False,
    run_check: bool = False,
    query_npu_smi: bool = True,
    locations: ascend_install.Locations = ascend_install.SYSTEM,
) -> DeviceStatus:
    """One snapshot of this machine's NPUs and Ascend/MindSpore software.

    - ``refresh``: ignore the short (``CACHE_SECONDS``) in-process cache.
    - ``root``: Ascend install root (default: env ``ASCEND_LAB_ASCEND_ROOT``, else found by
      :func:`.ascend_install.discover`: set_env.sh's variables, the install-info files,
      ``/usr/local/Ascend``, ``~/Ascend``, ``$CONDA_PREFIX/Ascend``).
    - ``locations``: the system paths discovery reads (tests give a fake tree).
    - ``npu_smi``: path to ``npu-smi`` (default: found on ``PATH``).
    - ``timeout``: seconds allowed for each ``npu-smi`` call.
    - ``details``: also run ``npu-smi info -t board|usages|health`` for each chip.
    - ``run_check``: also run ``mindspore.run_check()`` in a subprocess (slow).
    - ``query_npu_smi``: False leaves the chips out and never runs ``npu-smi`` (under the
      hub, its service probes the chips once for the whole class).
    """
    root = root or settings.get(ascend_install.ROOT_ENV) or None  # None: discover
    env = envcheck.snapshot()
    key = (
        root,
        os.environ.get("HOME", ""),
        os.environ.get("CONDA_PREFIX", ""),
        npu_smi,
        float(timeout),
        bool(details),
        bool(run_check),
        bool(query_npu_smi),
        locations,
        os.environ.get("PATH", ""),
        tuple(sorted((k, v or "") for k, v in env.items())),
    )
    with _lock:
        now = time.monotonic()
        hit = _cache.get(key)
        if hit is not None and not refresh and now - hit[0] < CACHE_SECONDS:
            return hit[1]
        try:
            status = _collect(
                root,
                npu_smi,
                timeout,
                details,
                run_check,
                env,
                query_npu_smi=query_npu_smi,
                locations=locations,
            )
        except Exception as e:  # a bug here must not break a notebook or the status bar
            status = DeviceStatus(
                mode="cpu",
                reason=msg("status collection failed: {}: {}", type(e).__name__, str(e)),
                root=root or ascend_install.DEFAULT_ROOT,
                collected_at=time.time(),
            )
            status.warnings.append(
                StatusWarning(
                    msg("ascend-lab could not read the device status ({})", type(e).__name__),
                    "Please report this with the output of `ascend-lab status --json`",
                    "error",
                    "npu",
                )
            )
        if len(_cache) > 32:
            _cache.clear()
        _cache[key] = (time.monotonic(), status)
        return status


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def collect_from(
    root: Optional[str],
    npu_smi_path: Optional[str],
    run: Runner,
    mindspore: Tuple[Optional[str], Optional[str]],
    environ: Mapping[str, str],
    timeout: float = 5.0,
    details: bool = False,
) -> DeviceStatus:
    """A status from given sources (no cache, no PATH lookup): the replay of a recording.

    ``root=None`` discovers the install as :func:`collect_status` does (the live report)."""
    return _collect(
        root, npu_smi_path, timeout, details, False, envcheck.snapshot(environ),
        run=run, mindspore=mindspore, environ=environ, find=lambda: None,
    )  # fmt: skip


def _collect(
    root: Optional[str],
    npu_smi_path: Optional[str],
    timeout: float,
    details: bool,
    do_run_check: bool,
    env: Dict[str, Optional[str]],
    run: Runner = npu_smi_runner.run_npu_smi,
    mindspore: Optional[Tuple[Optional[str], Optional[str]]] = None,
    environ: Optional[Mapping[str, str]] = None,
    find: Callable[[], Optional[str]] = npu_smi_runner.find_npu_smi,
    query_npu_smi: bool = True,
    locations: ascend_install.Locations = ascend_install.SYSTEM,
) -> DeviceStatus:
    """Read the machine in the order one fixes it: chips, install, versions, mode, warnings."""
    start = time.monotonic()
    source = os.environ if environ is None else environ
    status = _new_status(root, env, locations, source)

    exe = (npu_smi_path or find()) if query_npu_smi else None
    status.npu_smi_path = exe
    smi = read_npu_smi(exe, query_npu_smi, run, timeout)
    if smi.parsed is not None:
        status.chips = smi.parsed.chips
        status.processes = smi.parsed.processes
        status.versions.npu_smi = smi.parsed.npu_smi_version
    if details and exe and status.chips:
        add_details(status, exe, timeout, start, run)

    inst = ascend_install.read_install(root, environ=source, locations=locations)
    ms_version, ms_dist = mindspore if mindspore is not None else mindspore_version()
    _set_versions(status, inst, smi.parsed, ms_version)
    ascend_present = bool(status.chips) or inst.anything_installed or smi.failed
    _choose_mode(status, source.get("ASCEND_LAB_CPU_REASON"), smi.reason, ms_dist)

    # the warnings, in the order one fixes things
    warnings = smi.warnings + _npu_warnings(status.chips, smi, exe, query_npu_smi, inst.driver)
    warnings += _problem_warnings(inst)
    if ascend_present:
        warnings += _install_warnings(inst, status.chips, environ)
    status.compatibility, comp_warnings = compat.check(
        ms_version, inst.cann, status.versions.driver, ascend_present=ascend_present
    )
    status.warnings = cap_warnings(order_warnings(warnings + comp_warnings))

    if do_run_check:
        _add_run_check(status)
    status.seconds = time.monotonic() - start
    return status


def _new_status(
    root: Optional[str],
    env: Dict[str, Optional[str]],
    locations: ascend_install.Locations,
    source: Mapping[str, str],
) -> DeviceStatus:
    """An empty status that says whose it is: this Python, its kernel, its hub chip."""
    status = DeviceStatus(
        root=root or locations.default_root, collected_at=time.time(), environment=env
    )
    status.subject = {
        "kind": "process",
        "python": sys.executable,
        "set_env": os.environ.get("ASCEND_LAB_SET_ENV"),  # set by the ascend-lab kernel
    }
    # Set by the hub's spawner hook (ascend_lab.hub.spawner): the machine's id of the one
    # chip this server sees (as device 0), or why this server has no chip.
    hub_chip = source.get("ASCEND_LAB_CHIP")
    if hub_chip:
        status.subject["hub_chip"] = hub_chip
    return status


def _set_versions(
    status: DeviceStatus,
    inst: ascend_install.InstallInfo,
    parsed: Optional[npu_smi.NpuSmiInfo],
    ms_version: Optional[str],
) -> None:
    """The install's root and versions; the driver's from npu-smi when no file names it."""
    status.root = inst.root
    status.install = inst.to_dict()
    status.versions = Versions(
        driver=inst.driver or (parsed.driver_version if parsed else None),
        firmware=inst.firmware,
        cann=inst.cann,
        mindspore=ms_version,
        npu_smi=status.versions.npu_smi,
    )


def _choose_mode(
    status: DeviceStatus, cpu_reason: Optional[str], smi_reason: str, ms_dist: Optional[str]
) -> None:
    """Ascend, GPU or CPU, and why: the hub's word first, then the chips, then a GPU build."""
    if cpu_reason:  # the hub gave this server no chip, and says why
        status.mode = "cpu"
        status.reason = cpu_reason
    elif status.chips:
        status.mode = "ascend"
        status.reason = msg(
            "{} NPU chip{} found by npu-smi",
            len(status.chips),
            "" if len(status.chips) == 1 else "s",
        )
    elif _gpu_available(ms_dist):
        status.mode = "gpu"
        status.reason = msg(
            "no NPU ({}); NVIDIA GPU and a GPU build of MindSpore found", smi_reason
        )
    else:
        status.mode = "cpu"
        status.reason = smi_reason or "no NPU found"


def _npu_warnings(
    chips: List[Chip],
    smi: SmiReading,
    exe: Optional[str],
    query_npu_smi: bool,
    driver: Optional[str],
) -> List[StatusWarning]:
    """The NPU side first: npu-smi failed, or is missing beside a driver, or a chip is ill."""
    warnings = []
    if smi.failed:
        warnings.append(
            StatusWarning(
                smi.reason,
                smi.fix
                or "Run `npu-smi info` in a terminal; if it fails, reinstall the NPU driver "
                "and firmware (or restart the machine/container with the NPU attached)",
                "error",
                "npu",
            )
        )
    if exe is None and query_npu_smi and driver:
        warnings.append(
            StatusWarning(
                msg("NPU driver {} is installed but npu-smi is not on PATH", driver),
                "export PATH=/usr/local/sbin:$PATH; in a container, also mount /dev/davinci* "
                "and npu-smi from the host",
                "warning",
                "npu",
            )
        )
    for c in chips:
        if c.health and c.health.upper() != "OK":
            warnings.append(
                StatusWarning(
                    msg("NPU {} chip {} health is {}", c.npu, c.chip, c.health),
                    msg(
                        "npu-smi info -t health -i {} -c {}   (shows the error code)", c.npu, c.chip
                    ),
                    "error" if c.health.lower() in ("critical", "alarm") else "warning",
                    "npu",
                )
            )
    return warnings


def _problem_warnings(inst: ascend_install.InstallInfo) -> List[StatusWarning]:
    """What install discovery found wrong: shown with Ascend here, or for an unusable root."""
    return [
        StatusWarning(message, fix, "warning", component)
        for component, message, fix in inst.problems
    ]


def _install_warnings(
    inst: ascend_install.InstallInfo, chips: List[Chip], environ: Optional[Mapping[str, str]]
) -> List[StatusWarning]:
    """Where Ascend is here: firmware, root, CANN and its packages, then the environment."""
    found: List[Optional[StatusWarning]] = [
        _firmware_warning(inst),
        _missing_root_warning(inst, chips),
        None if inst.cann else cann_not_found(inst),
    ]
    found += compat.check_packages(inst.cann, inst.ops, inst.ops_package)
    found.append(
        compat.check_ops_installed(
            inst.cann, inst.ops, inst.cann_version_from == ascend_install.VERSION_FROM_INFO
        )
    )
    found.append(compat.check_torch_npu(inst.cann, torch_npu_version()))
    found.append(environment_not_latest(inst))
    found += envcheck.check_environment(inst, chips, environ)
    return [w for w in found if w is not None]


def _firmware_warning(inst: ascend_install.InstallInfo) -> Optional[StatusWarning]:
    """Firmware outside the driver's supported range: the chips misbehave, not the software."""
    if not inst.firmware or not inst.firmware_ranges:
        return None
    from ascend_lab.parsers.versions import in_range

    if any(in_range(inst.firmware, lo, hi) for lo, hi in inst.firmware_ranges):
        return None
    ranges = ", ".join(f"{lo}–{hi}" for lo, hi in inst.firmware_ranges)
    return StatusWarning(
        msg(
            "Firmware {} is outside what driver {} supports ({})",
            inst.firmware,
            inst.driver,
            ranges,
        ),
        msg("Install the firmware package released with driver {}", inst.driver),
        "error",
        "firmware",
    )


def _missing_root_warning(
    inst: ascend_install.InstallInfo, chips: List[Chip]
) -> Optional[StatusWarning]:
    """Chips but no install where we looked: the root setting points at the wrong place."""
    if not chips or os.path.exists(inst.root):
        return None
    return StatusWarning(
        msg("NPUs found but no Ascend install at {}", inst.root),
        "Set ASCEND_LAB_ASCEND_ROOT (or --root) to where the driver and CANN are installed",
        "warning",
        "driver",
    )


def _add_run_check(status: DeviceStatus) -> None:
    """``mindspore.run_check()`` on request: the slow proof that the versions work together."""
    from ascend_lab.probes.runcheck import run_check

    status.run_check = run_check()
    if not status.run_check.ok:
        status.warnings.append(
            StatusWarning(
                "mindspore.run_check() failed",
                "Read the run_check output; compare versions with the compatibility line",
                "error",
                "mindspore",
            )
        )


def environment_not_latest(inst: ascend_install.InstallInfo) -> Optional[StatusWarning]:
    """Several CANN versions side by side, and the set_env.sh that was sourced chose
    another one than the ``latest`` link: say which is which (often a stale shell)."""
    side = inst.side_by_side()
    env = [x for x in side if x.environment]
    latest = [x for x in side if x.latest]
    if not env or not latest or env[0].path == latest[0].path:
        return None
    chosen, newest = env[0].version or env[0].path, latest[0].version or latest[0].path
    return StatusWarning(
        msg(
            "CANN {} is the one the environment (ASCEND_HOME_PATH, set by a set_env.sh) uses; "
            "the latest link points at CANN {}",
            chosen,
            newest,
        ),
        msg(
            "To use CANN {}, source the set_env.sh beside it in a new shell (and restart the "
            "kernel); to keep this one, nothing to do",
            newest,
        ),
        "info",
        "cann",
    )


def cann_not_found(inst: ascend_install.InstallInfo) -> StatusWarning:
    """Where discovery looked for CANN, as a warning (an NPU or driver is here, CANN not)."""
    places = inst.cann_places()
    shown = ", ".join(places[:8]) + (" …" if len(places) > 8 else "")
    return StatusWarning(
        msg("CANN not found; looked in: {}", shown),
        "Install the CANN toolkit and ops packages (Ascend-cann-toolkit_*.run, "
        "Ascend-cann-*-ops_*.run), or point ASCEND_HOME_PATH or ASCEND_LAB_ASCEND_ROOT at "
        "the CANN that is installed",
        "warning",
        "cann",
    )

"""Why ``npu-smi`` printed a failure instead of a table, and what to do next.

The DCMI return codes (``ret is -8005``) are explained by the doctor's code tables
(``ascend_lab/doctor/error_codes.json``, its ``dcmi`` section: the same meaning and next
step ``ascend-lab doctor`` gives for the code), read here as data so the status and the
doctor cannot disagree. The other failures npu-smi prints (a driver library that does
not load, a missing /dev/davinci node, no npu-smi at all, npu-smi's own "... failed. ret is
N" lines, a query the device does not offer, a bad option or id, DCMI failing to start
without a code, permission denied, no answer in time) have their cause and next step
below. English here; the status is translated where it is shown (the catalogue holds these
sentences and the table's).
"""

import json
import os
from typing import Any, Dict, Optional, Tuple

from ascend_lab.i18n import msg
from ascend_lab.parsers.npu_smi import SmiFailure

CODES_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "doctor", "error_codes.json"
)
_dcmi: Optional[Dict[str, Any]] = None


def dcmi_codes() -> Dict[str, Any]:
    """The DCMI section of the code tables: "-8020" -> name, meaning, next steps (cached)."""
    global _dcmi
    if _dcmi is None:
        try:
            with open(CODES_PATH, encoding="utf-8") as f:
                _dcmi = dict(json.load(f).get("dcmi", {}))
        except (OSError, ValueError):
            _dcmi = {}
    return _dcmi


def driver_fix() -> str:
    return (
        "Check that the driver is loaded (`lsmod | grep drv_davinci`, `ls /dev/davinci*`) "
        "and `dmesg | tail`; reinstall or restart the driver if needed"
    )


def explain_failure(failure: SmiFailure) -> Tuple[str, str]:
    """(cause, next step) of a recognised npu-smi failure, in English."""
    if failure.kind == "dcmi" and failure.detail == "access":
        return access_reason(failure.code), access_fix()
    if failure.kind == "dcmi":
        item = dcmi_codes().get(failure.code)
        if item:
            return dcmi_reason(failure.code, item["name"], item["meaning"]), item["next"][0]
        return unknown_dcmi_reason(failure.code), driver_fix()
    if failure.kind == "library":
        return library_reason(failure.library), library_fix()
    if failure.kind == "device-node":
        return device_node_reason(), device_node_fix()
    if failure.kind == "permission":
        return permission_reason(), permission_fix()
    if failure.kind == "not-found":
        return not_found_reason(), not_found_fix()
    if failure.kind == "board-type":
        return board_type_reason(failure.code), board_type_fix()
    if failure.kind == "execute":
        item = dcmi_codes().get(failure.code)
        if item:
            meaning = dcmi_reason(failure.code, item["name"], item["meaning"])
            return execute_reason(failure.detail, meaning), item["next"][0]
        return execute_reason(failure.detail, failure.code), driver_fix()
    if failure.kind == "unsupported":
        return unsupported_reason(failure.detail), unsupported_fix()
    if failure.kind == "bad-option":
        return bad_option_reason(), bad_option_fix()
    if failure.kind == "bad-id":
        return bad_id_reason(), bad_id_fix()
    return dcmi_init_reason(), driver_fix()


def dcmi_reason(code: str, name: str, meaning: str) -> str:
    return msg("DCMI error {} ({}): {}", code, name, meaning)


def access_reason(code: str) -> str:
    return msg(
        "DCMI error {} after 'DrvMngGetConsoleLogLevel failed. (ret=4)': this user cannot open "
        "the NPU's device nodes (not in the HwHiAiUser group, or a sandbox or container hides "
        "/dev/davinci*)",
        code,
    )


def access_fix() -> str:
    return (
        "Check `id` and `ls -l /dev/davinci*`: add the user to HwHiAiUser (`sudo usermod -aG "
        "HwHiAiUser $USER`, then log in again), or run outside the sandbox; `sudo npu-smi info` "
        "shows whether the NPU itself is fine"
    )


def unknown_dcmi_reason(code: str) -> str:
    return msg("DCMI error {}, a code the tables do not list", code)


def library_reason(library: str) -> str:
    return msg("the library {} did not load (it ships with the NPU driver)", library)


def library_fix() -> str:
    return (
        "Put the driver's libraries on the loader path: `export LD_LIBRARY_PATH="
        "/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common:"
        "$LD_LIBRARY_PATH`; in a container, mount /usr/local/Ascend/driver from the host"
    )


def device_node_reason() -> str:
    return (
        "a device node (/dev/davinci*) is missing: the driver is not loaded, or the "
        "container was started without the NPU devices"
    )


def device_node_fix() -> str:
    return (
        "Check `ls /dev/davinci*` and `lsmod | grep drv_davinci`; in a container, pass "
        "`--device /dev/davinci0 --device /dev/davinci_manager --device /dev/devmm_svm "
        "--device /dev/hisi_hdc`"
    )


def permission_reason() -> str:
    return "permission denied: this user may not use the NPU's device nodes or npu-smi"


def permission_fix() -> str:
    return (
        "Check `id` and `ls -l /dev/davinci*`; ask the administrator to add you to the "
        "HwHiAiUser group"
    )


def not_found_reason() -> str:
    return (
        "there is no npu-smi to run: the NPU driver is not installed here, or this container "
        "was started without the host's npu-smi and driver mounted"
    )


def not_found_fix() -> str:
    return (
        "On the host, install the NPU driver (it puts npu-smi in /usr/local/sbin) or `export "
        "PATH=/usr/local/sbin:$PATH`; in a container, mount the host's "
        "/usr/local/sbin/npu-smi and /usr/local/Ascend/driver"
    )


def board_type_reason(code: str) -> str:
    return msg(
        "npu-smi started but could not read the board type (ret {}): the driver's board "
        "information is not readable here (in a container, /usr/local/dcmi or "
        "/etc/ascend_install.info is often not mounted)",
        code,
    )


def board_type_fix() -> str:
    return (
        "Run `npu-smi info` on the host; in a container, mount /usr/local/dcmi, "
        "/etc/ascend_install.info and /usr/local/Ascend/driver/version.info as a working "
        "container does"
    )


def execute_reason(command: str, why: str) -> str:
    return msg("npu-smi {} failed after start-up: {}", command, why)


def unsupported_reason(what: str) -> str:
    return msg(
        "this device does not support {}: the query does not exist on this board or driver "
        "(an answer, not a fault)",
        what,
    )


def unsupported_fix() -> str:
    return (
        "Use a query this board offers (`npu-smi info -h` lists them; the npu-smi command "
        "reference of your board says which queries it supports)"
    )


def bad_option_reason() -> str:
    return "npu-smi did not accept the command or an option (this version spells it differently)"


def bad_option_fix() -> str:
    return "Run `npu-smi info -h` to see the commands and options this npu-smi takes"


def bad_id_reason() -> str:
    return "the NPU or chip id asked for is not on this machine (or not visible in this container)"


def bad_id_fix() -> str:
    return (
        "Take the NPU ID from `npu-smi info -l` and the Chip ID from `npu-smi info -m`; a "
        "container sees only the NPUs it was started with"
    )


def timeout_fix() -> str:
    """The next step when npu-smi did not answer in time, with the likely cause (the status's
    reason stays "npu-smi timed out after N s")."""
    return (
        "npu-smi hangs when the driver is busy or stuck (another npu-smi, a device reset, a hung "
        "device): run `npu-smi info` in a terminal and see whether it returns, check `dmesg | "
        "tail` for driver errors, and stop other loops that call npu-smi (it does not support "
        "several runs at once)"
    )


def dcmi_init_reason() -> str:
    return (
        "DCMI, the driver's management library, failed to start: the driver is not loaded "
        "or does not answer"
    )


def smi_failure_reason(smi_reason: str, cause: str, fix: str) -> str:
    """The status reason: what npu-smi printed, why, and the next step."""
    return msg("{} (cause: {}; next step: {})", smi_reason, cause, fix)

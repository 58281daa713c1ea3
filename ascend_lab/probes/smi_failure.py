"""Why ``npu-smi`` printed a failure instead of a table, and what to do next.

The DCMI return codes (``ret is -8005``) are explained by the doctor's code tables
(``ascend_lab/doctor/error_codes.json``, its ``dcmi`` section: the same meaning and next
step ``ascend-lab doctor`` gives for the code), read here as data so the status and the
doctor cannot disagree. The other failures npu-smi prints (a driver library that does
not load, a missing /dev/davinci node, DCMI failing to start without a code, permission
denied) have their cause and next step below. English here; the status is translated where
it is shown (the catalogue holds these sentences and the table's).
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


def dcmi_init_reason() -> str:
    return (
        "DCMI, the driver's management library, failed to start: the driver is not loaded "
        "or does not answer"
    )


def smi_failure_reason(smi_reason: str, cause: str, fix: str) -> str:
    """The status reason: what npu-smi printed, why, and the next step."""
    return msg("{} (cause: {}; next step: {})", smi_reason, cause, fix)

"""The chips a class can share: from ``npu-smi info`` (once, when the hub starts) or configured.

A chip's id is its logical device id, the number ``ASCEND_RT_VISIBLE_DEVICES`` takes: the
chips are numbered 0, 1, … in the order ``npu-smi info`` lists them (one per NPU on
910B boards; two per NPU on 310P Duo and A3 boards).
"""

from typing import List, Optional, Tuple

from ascend_lab.parsers import npu_smi
from ascend_lab.probes import npu_smi_runner


def discover_chips(
    executable: Optional[str] = None, timeout: float = 10.0
) -> Tuple[List[int], str]:
    """``(device ids, "")``, or ``([], why not)`` when npu-smi is missing or says nothing."""
    exe = executable or npu_smi_runner.find_npu_smi()
    if exe is None:
        return [], "npu-smi not found"
    result = npu_smi_runner.run_npu_smi(exe, ["info"], timeout)
    if not result.ok:
        return [], result.reason
    info = npu_smi.parse_info(result.stdout)
    if not info.chips:
        return [], "npu-smi info listed no chips"
    return list(range(len(info.chips))), ""

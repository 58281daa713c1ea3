"""Probes: what this machine says, asked safely (the device family's I/O edge).

``npu_smi_runner`` runs ``npu-smi`` (argv list, timeout, byte cap, process-group kill),
``ascend_install`` finds the driver, firmware and CANN in every layout CANN has used,
``envcheck`` checks what ``set_env.sh`` sets, ``runcheck`` runs ``mindspore.run_check()``
in a subprocess, and ``device`` puts it all into one :class:`DeviceStatus` snapshot. The
text they read is parsed by :mod:`ascend_lab.parsers`.
"""

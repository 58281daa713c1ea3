"""Device status: what NPUs, drivers, CANN and MindSpore this machine has.

Data flow: probes (``npu-smi``, version files, environment, package metadata) feed pure
parsers (:mod:`.npu_smi`, :mod:`.versions`), which build one
:class:`~ascend_lab.model.device_status.DeviceStatus` snapshot (:func:`.probe.collect_status`)
that renders as text, HTML or JSON. Nothing here imports MindSpore.
"""

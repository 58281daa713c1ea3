"""Configuration of the server extension: traitlets whose defaults come from the environment.

Set in ``jupyter_server_config.py`` (``c.AscendLabServerConfig.cache_seconds = 5``), on the
command line (``--AscendLabServerConfig.timeout=10``) or by environment variable.
"""

from typing import Any

from traitlets import Float, Unicode, default, validate
from traitlets.config import Configurable

from ascend_lab import settings


def _env_float(name: str) -> float:
    """Seconds (>= 0) set by ``name``; its registered default when unset or not a number
    (:mod:`ascend_lab.settings`)."""
    return float(settings.get(name))


class AscendLabServerConfig(Configurable):
    """Settings of the ``ascend-lab`` server extension."""

    cache_seconds = Float(
        help=(
            "How long one device-status snapshot is served to every client before npu-smi "
            "runs again (env ASCEND_LAB_CACHE_SECONDS, default 2)."
        )
    ).tag(config=True)

    timeout = Float(
        help=(
            "Seconds npu-smi may take before the status falls back to CPU mode "
            "(env ASCEND_LAB_NPU_SMI_TIMEOUT, default 5)."
        )
    ).tag(config=True)

    course_dir = Unicode(
        help=(
            "Folder holding the course notebooks (env ASCEND_LAB_COURSE_DIR). Empty: the "
            "installed course (<prefix>/share/ascend-lab/notebooks) or the source checkout's."
        )
    ).tag(config=True)

    kernel_name = Unicode(
        help=(
            "The kernel whose environment (its Python, its set_env.sh) the status describes "
            "(env ASCEND_LAB_STATUS_KERNEL, default mindspore). Empty, or no such kernel: "
            "the server's own Python."
        )
    ).tag(config=True)

    @default("kernel_name")
    def _default_kernel_name(self) -> str:
        return str(settings.get("ASCEND_LAB_STATUS_KERNEL"))  # empty stays empty

    @default("cache_seconds")
    def _default_cache_seconds(self) -> float:
        return _env_float("ASCEND_LAB_CACHE_SECONDS")

    @default("timeout")
    def _default_timeout(self) -> float:
        return _env_float("ASCEND_LAB_NPU_SMI_TIMEOUT")

    @default("course_dir")
    def _default_course_dir(self) -> str:
        return settings.get("ASCEND_LAB_COURSE_DIR") or ""

    @validate("cache_seconds", "timeout")
    def _non_negative(self, proposal: Any) -> float:
        value = float(proposal["value"])
        if value < 0:
            raise ValueError("{} must be >= 0, got {}".format(proposal["trait"].name, value))
        return value

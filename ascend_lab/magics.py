"""IPython magics: ``%ascend_status``, ``%ascend_trace``, ``%ascend_profile``, ``%ascend_doctor``.

Registering them must stay cheap (no MindSpore import): each magic imports the module that
implements it on first call. Each implementation takes the shell and the magic's text.
"""

import importlib
from typing import Any, Optional

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class


def _call(module_name: str, func: str, *args: Any) -> Any:
    module = importlib.import_module(module_name)
    return getattr(module, func)(*args)


@magics_class
class AscendMagics(Magics):
    @line_magic
    def ascend_status(self, line: str) -> Any:
        """Show this machine's NPUs, versions and warnings. Options: --json --refresh --check"""
        return _call("ascend_lab.device.magic", "status_magic", self.shell, line)

    @line_magic
    def ascend_trace(self, line: str) -> Any:
        """Trace a net from the namespace: %ascend_trace net x [--fusion] [--level N]"""
        return _call("ascend_lab.tracing.magic", "trace_magic", self.shell, line)

    @line_magic
    def ascend_profile(self, line: str) -> Any:
        """Profile a net from the namespace: %ascend_profile net x [--steps N] [--warmup N]"""
        return _call("ascend_lab.profiling.magic", "profile_magic", self.shell, line)

    @line_cell_magic
    def ascend_doctor(self, line: str, cell: Optional[str] = None) -> Any:
        """Diagnose the last error (no argument), quoted text, or the cell's text."""
        return _call("ascend_lab.doctor.magic", "doctor_magic", self.shell, line, cell)

    @line_magic
    def ascend_report(self, line: str) -> Any:
        """Write a redacted report archive: %ascend_report [--out FILE] [--with-trace]"""
        return _call("ascend_lab.report.magic", "report_magic", self.shell, line)


def register(ipython: Any) -> None:
    ipython.register_magics(AscendMagics)

"""IPython magics: ``%ascend_status``, ``%ascend_trace``, ``%ascend_compare``, ``%ascend_profile``,
``%ascend_doctor``.

Registering them must stay cheap (no MindSpore import): each magic imports the module that
implements it on first call. Each implementation takes the shell and the magic's text.
Their help (``%ascend_trace?``) is in the reader's language, set when they are registered.
"""

import importlib
import sys
from typing import Any, Callable, Dict, Optional

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class

from ascend_lab.i18n import N_, _

# What `%magic?` shows: each magic's docstring, translated when the magics are registered.
HELP: Dict[str, str] = {
    "ascend_status": N_(
        "Show this machine's NPUs, versions and warnings. Options: --json --refresh --check"
    ),
    "ascend_trace": N_(
        "Trace a net from the namespace: %ascend_trace net x [--fusion] [--level N]"
    ),
    "ascend_compare": N_(
        "Compare two traces side by side: %ascend_compare a b [--html FILE] [--no-view] [-o var]"
    ),
    "ascend_profile": N_(
        "Profile a net from the namespace: %ascend_profile net x [--steps N] [--warmup N]"
    ),
    "ascend_doctor": N_(
        "Diagnose the last error (no argument), quoted text, or the text of the cell. "
        "Options: --env (the environment of this machine, also for a pasted text) --lang zh"
    ),
    "ascend_report": N_(
        "Write a redacted report archive: %ascend_report [--out FILE] [--with-trace] [--course]"
    ),
}


def _call(module_name: str, func: str, *args: Any) -> Any:
    module = importlib.import_module(module_name)
    return getattr(module, func)(*args)


@magics_class
class AscendMagics(Magics):
    @line_magic
    def ascend_status(self, line: str) -> Any:
        return _call("ascend_lab.device.magic", "status_magic", self.shell, line)

    @line_magic
    def ascend_trace(self, line: str) -> Any:
        return _call("ascend_lab.tracing.magic", "trace_magic", self.shell, line)

    @line_magic
    def ascend_compare(self, line: str) -> Any:
        if "--numerics" in line.split():  # Cell-by-Cell numbers (#30), not two graphs
            return _call("ascend_lab.numerics.magic", "numerics_magic", self.shell, line)
        return _call("ascend_lab.comparison.magic", "compare_magic", self.shell, line)

    @line_magic
    def ascend_profile(self, line: str) -> Any:
        return _call("ascend_lab.profiling.magic", "profile_magic", self.shell, line)

    @line_cell_magic
    def ascend_doctor(self, line: str, cell: Optional[str] = None) -> Any:
        return _call("ascend_lab.doctor.magic", "doctor_magic", self.shell, line, cell)

    @line_magic
    def ascend_report(self, line: str) -> Any:
        return _call("ascend_lab.report.magic", "report_magic", self.shell, line)


def _set_help(translate: Callable[[str], str]) -> None:
    for name, text in HELP.items():
        getattr(AscendMagics, name).__doc__ = translate(text)


_set_help(str)  # English in the code; register() translates


def after_cell(*_args: Any) -> None:
    """After each cell: once MindSpore is imported, a broken pipe must not end its AKG build
    server (MindSpore's SIGPIPE handler does; see :mod:`ascend_lab.capture.akg_server`), or
    the learner's next fusion compile waits forever."""
    if "mindspore" in sys.modules:
        from ascend_lab.capture.akg_server import ignore_broken_pipes

        ignore_broken_pipes()


def register(ipython: Any) -> None:
    _set_help(_)
    ipython.register_magics(AscendMagics)
    events = getattr(ipython, "events", None)
    if events is not None and after_cell not in events.callbacks.get("post_run_cell", []):
        events.register("post_run_cell", after_cell)

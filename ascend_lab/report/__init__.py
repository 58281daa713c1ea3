"""``ascend-lab report`` / ``%ascend_report``: one archive with what a helper needs to see of
an Ascend (or CPU) machine, redacted by default, that replays as status, doctor and traces.

Modules: :mod:`.machine` (npu-smi views, version files, set_env.sh, status, doctor),
:mod:`.logs` (plog tails), :mod:`.trace_part` + :mod:`.trace_worker` (``--with-trace``),
:mod:`.redact`, :mod:`.bundle` (manifest, archive), :mod:`.replay` (status/doctor from a
bundle), :mod:`.view` (its traces as standalone HTML), :mod:`.npu` (bundles recorded on a
real NPU), :mod:`.course` (``--course``'s label and the course notebooks' bundle cells).
Nothing here imports MindSpore except the trace worker, in its own process.
"""

from typing import Any, List, Optional

__all__ = [
    "make_report",
    "status_from_bundle",
    "doctor_from_bundle",
    "traces_html",
    "npu_bundles",
    "bundle_kernel_graphs",
    "course_bundle_text",
]


def make_report(**options: Any) -> Any:
    """Write a report archive; ``(path, summary)``. Options: see :class:`.make.ReportOptions`."""
    from ascend_lab.report.make import ReportOptions
    from ascend_lab.report.make import make_report as _make

    return _make(ReportOptions(**options))


def status_from_bundle(path: str) -> Any:
    from ascend_lab.report.replay import status_from_bundle as _status

    return _status(path)


def doctor_from_bundle(path: str, text: Optional[str] = None, **kw: Any) -> Any:
    from ascend_lab.report.replay import doctor_from_bundle as _doctor

    return _doctor(path, text, **kw)


def traces_html(bundle: str, folder: str) -> List[str]:
    from ascend_lab.report.view import traces_html as _html

    return _html(bundle, folder)


def npu_bundles(folder: Optional[str] = None) -> List[str]:
    """Bundles in ``folder`` (default: the course's ``bundles/``) recorded on a real NPU."""
    from ascend_lab.report.npu import npu_bundles as _found

    return _found(folder)


def bundle_kernel_graphs(path: str) -> Any:
    """``{jit_level: final kernel graph}`` of the traces kept in a bundle."""
    from ascend_lab.report.npu import bundle_kernel_graphs as _graphs

    return _graphs(path)


def course_bundle_text(
    notebook: str, folder: Optional[str] = None, here: Any = None, device: str = "CPU"
) -> str:
    """What notebook 03, 05 or 10 prints of the course's recorded bundle beside ``here``."""
    from ascend_lab.report.course import course_bundle_text as _text

    return _text(notebook, folder, here, device)

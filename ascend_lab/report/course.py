"""The course's recordings: ``ascend-lab report --course`` and the notebooks' bundle cells.

``--course`` is ``--with-trace`` (the course's Conv2d+BatchNorm2d+ReLU at each ``jit_level``
the device has, its profile, its MindIR) with a label in the manifest: ``recorded_on``
(``"ascend"`` only when MindSpore really compiled on the Ascend backend, else ``"cpu"``),
and under ``course`` the device kind, chip, versions and date. With no ``--out`` it writes
into the course's ``notebooks/bundles/`` (a source checkout), else the current folder.

Notebooks 03, 05 and 10 print :func:`course_bundle_text` for the newest bundle there (an
NPU one first), beside their own CPU or NPU run. Whatever a bundle's file name or label
says, it reads as an NPU run only when :func:`~ascend_lab.report.npu.recorded_on_npu` holds
(the trace ran on the Ascend backend and its O0 dumps were kept); a CPU recording says, in
the rendering, that it is not an NPU run.
"""

import os
import re
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.i18n import N_, _
from ascend_lab.report import trace_worker  # its SHAPE (MindSpore is imported in main only)
from ascend_lab.report.bundle import BundleError, load_json, read_bundle
from ascend_lab.report.npu import bundle_manifests, recorded_on_npu, traced

RECORD_COMMAND = "ascend-lab report --course"
SHAPE = "x".join(str(n) for n in trace_worker.SHAPE)
NET = f"ConvBNReLU: Conv2d(3->16, 3x3, same, no bias) + BatchNorm2d + ReLU, input {SHAPE}"
NOTEBOOKS = ("03", "05", "10")
_LEVELS = ("O0", "O1", "O2")
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_KERNELS = re.compile(r"(\d{1,9}) kernels")

# progress lines of `ascend-lab report` (stderr), in the reader's language
COLLECTING = N_("collecting the machine: npu-smi, version files, status and doctor checks ...")
TRACING = N_(
    "tracing the course's ConvBNReLU in a child process (imports MindSpore; about 15-60 s) ..."
)
STEP_DONE = N_("  {}: {} ({:.1f} s)")
PACKING = N_("redacting and writing the archive ...")
WROTE_COURSE = N_(
    "Recorded on {}: {}. Notebooks 03, 05 and 10 render it when it is in notebooks/bundles/."
)
NOT_NPU = N_("CPU (not an NPU run: MindSpore did not compile on the Ascend backend)")


def course_label(
    status: Dict[str, Any], versions: Dict[str, Any], trace_device: Optional[str]
) -> Dict[str, Any]:
    """The manifest's label of a ``--course`` recording: ``recorded_on`` and ``course``."""
    chips = [c for c in status.get("chips") or [] if isinstance(c, dict)]
    on = "ascend" if trace_device == "Ascend" else "cpu"
    packages = versions.get("packages") or {}
    return {
        "recorded_on": on,
        "course": {
            "device": "Ascend" if on == "ascend" else "CPU",
            "chip": chips[0].get("name") if chips else None,
            "chips": len(chips),
            "machine_mode": status.get("mode"),
            "versions": {
                "mindspore": versions.get("mindspore"),
                "cann": versions.get("cann"),
                "driver": versions.get("driver"),
                "firmware": versions.get("firmware"),
                "ascend-lab": packages.get("ascend-lab"),
                "python": _python(),
            },
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "net": NET,
        },
    }


def _python() -> str:
    import platform

    return platform.python_version()


def default_course_out(label: Dict[str, Any]) -> str:
    """``<course>/bundles/<recorded_on>-<chip>-ms<version>-<date>.tar.gz`` in a source
    checkout (the current folder otherwise, or when that folder cannot be written)."""
    from ascend_lab.course.files import find_notebooks

    course = label.get("course") or {}
    parts = [label.get("recorded_on") or "cpu"]
    if course.get("chip") and label.get("recorded_on") == "ascend":
        parts.append(str(course["chip"]))
    parts.append("ms" + str((course.get("versions") or {}).get("mindspore") or "unknown"))
    parts.append(str(course.get("date") or "").replace("-", ""))
    name = _NAME_UNSAFE.sub("_", "-".join(p for p in parts if p)) + ".tar.gz"
    found = find_notebooks()
    if found is not None and found[1] == "source":
        folder = os.path.join(found[0], "bundles")
        if os.path.isdir(folder) and os.access(folder, os.W_OK):
            return os.path.join(folder, name)
    return name


def recorded_on(manifest: Dict[str, Any]) -> str:
    """``"ascend"`` or ``"cpu"``: the label is believed only where the manifest's trace says
    so (a bundle labelled ``ascend`` whose trace ran on CPU reads as ``cpu``)."""
    return "ascend" if recorded_on_npu(manifest) else "cpu"


def course_bundles(folder: Optional[str] = None) -> List[Tuple[str, Dict[str, Any]]]:
    """``[(path, manifest)]`` of the traced bundles in ``folder`` (default: the course's
    ``bundles/``): NPU recordings first, then the newest. Unreadable archives are left out."""
    found = [(path, m) for path, m in bundle_manifests(folder) if traced(m)]
    found.sort(key=lambda pm: str(pm[1].get("created") or ""), reverse=True)
    found.sort(key=lambda pm: recorded_on(pm[1]) != "ascend")  # stable: NPU ones first
    return found


def _course(manifest: Dict[str, Any]) -> Dict[str, Any]:
    course = manifest.get("course")
    return course if isinstance(course, dict) else {}


def _versions(files: Dict[str, bytes], manifest: Dict[str, Any]) -> Dict[str, Any]:
    course = _course(manifest)
    out = dict(course.get("versions") or {})
    try:
        recorded = load_json(files, "versions.json") or {}
    except BundleError:
        recorded = {}
    for key in ("mindspore", "cann", "driver", "firmware"):
        if not out.get(key) and isinstance(recorded, dict):
            out[key] = recorded.get(key)
    if isinstance(recorded, dict) and isinstance(recorded.get("compatibility"), dict):
        out["compatibility"] = recorded["compatibility"].get("verdict")
    return out


def provenance(path: str, manifest: Dict[str, Any], versions: Dict[str, Any]) -> str:
    """One line: which bundle, where it was recorded, with what, when."""
    course = _course(manifest)
    date = course.get("date") or str(manifest.get("created") or "?")[:10]
    name = os.path.basename(path)
    ms = versions.get("mindspore") or "?"
    if recorded_on(manifest) == "ascend":
        return _("Bundle {}: recorded on an NPU ({}), MindSpore {}, CANN {}, {}.").format(
            name, course.get("chip") or "Ascend", ms, versions.get("cann") or "?", date
        )
    line = _("Bundle {}: recorded on CPU: this is not an NPU run (MindSpore {}, {}).").format(
        name, ms, date
    )
    if course.get("chip"):
        line += "\n" + _(
            "  (npu-smi listed {}, but MindSpore compiled on CPU: no Ascend backend.)"
        ).format(course["chip"])
    return line


def _kernel_line(graph: Any) -> str:
    kernels = list(getattr(graph, "graph", graph).kernels)
    return "{}: {}".format(len(kernels), ", ".join(k.op for k in kernels))


def _fusion_part(files_path: str, here: Any, device: str, npu: bool) -> List[str]:
    from ascend_lab.report.npu import bundle_kernel_graphs

    lines = []
    if here is not None:
        lines.append(_("this run ({}), kernels {}").format(device, _kernel_line(here)))
    graphs = bundle_kernel_graphs(files_path)
    if not graphs:
        return lines + [_("the bundle kept no kernel graph")]
    for level, graph in graphs.items():
        if level == "O0":
            stage = _("before fusion")
        else:
            stage = _("after fusion") if npu else _("O1 does not fuse on CPU")
        lines.append(
            _("bundle, jit_level {} ({}), kernels {}").format(level, stage, _kernel_line(graph))
        )
        for k in graph.kernels:
            ins = ", ".join(f"{t.device_dtype}/{t.format}" for t in k.input_types[:2])
            lines.append(f"    {k.op:14} {ins}")
    return lines


def _bundle_profile(files: Dict[str, bytes]) -> Any:
    """The bundle's profile (None when it kept none)."""
    from ascend_lab.profiling.api import load_profile
    from ascend_lab.report.view import _extract

    with tempfile.TemporaryDirectory(prefix="ascend-lab-bundle-") as tmp:
        if not _extract(files, "trace/profile/", tmp):
            return None
        return load_profile(tmp, net_name="ConvBNReLU")


def _shares(op_types: Any) -> Dict[str, float]:
    """``{op type: share of the kernel time}`` of a profile's rows (cores summed)."""
    rows = list(op_types or [])
    total = sum(r.total_us for r in rows) or 1.0
    shares: Dict[str, float] = {}
    for r in rows:
        shares[r.op_type] = shares.get(r.op_type, 0.0) + r.total_us / total
    return shares


def _profile_part(files: Dict[str, bytes], here: Any, device: str, top: int = 8) -> List[str]:
    profile = _bundle_profile(files)
    if profile is None:
        return [_("the bundle kept no profile")]
    theirs = _shares(profile.op_types)
    mine = _shares(getattr(here, "op_types", None))
    head = "{:24} {:>5} {:>14} {:>7}".format(_("op type"), _("core"), _("bundle mean us"), "%")
    if mine:
        head += "   " + _("this run ({}) %").format(device)
    lines = [
        _("bundle profile ({} profiler files, input {}):").format(profile.source, SHAPE),
        head,
    ]
    for r in sorted(profile.op_types, key=lambda r: -r.total_us)[:top]:
        row = "{:24} {:>5} {:14.2f} {:7.1f}".format(
            r.op_type[:24], (r.core or "-")[:5], r.mean_us, 100 * theirs[r.op_type]
        )
        if mine:
            share = mine.get(r.op_type)
            row += "   " + ("-" if share is None else f"{100 * share:.1f}")
        lines.append(row)
    return lines


def _day_one_part(
    files: Dict[str, bytes], manifest: Dict[str, Any], versions: Dict[str, Any], here: Any
) -> List[str]:
    lines = [
        _("versions: MindSpore {}, CANN {}, driver {}, firmware {}; compatibility: {}").format(
            *(versions.get(k) or "-" for k in ("mindspore", "cann", "driver", "firmware")),
            versions.get("compatibility") or "-",
        )
    ]
    try:
        status = load_json(files, "status.json") or {}
    except BundleError:
        status = {}
    if isinstance(status, dict):
        lines.append(
            _("status: {} mode, {} NPU chip(s)").format(
                status.get("mode") or "?", len(status.get("chips") or [])
            )
        )
    mine = here if isinstance(here, dict) else {}
    for e in manifest.get("entries") or []:
        item = str(e.get("item") or "")
        if not item.startswith("trace jit_level="):
            continue
        level = item.split("=", 1)[1]
        found = _KERNELS.search(str(e.get("detail") or ""))
        line = _("jit_level {}: bundle {} ({}, {} s)").format(
            level, found.group(1) if found else "?", e.get("status"), e.get("seconds", "?")
        )
        if level in mine:
            line += _("; this run {} kernels").format(len(mine[level]))
        lines.append(line)
    return lines + _profile_part(files, None, "", top=5)


def course_bundle_text(
    notebook: str, folder: Optional[str] = None, here: Any = None, device: str = "CPU"
) -> str:
    """What notebook ``notebook`` (``"03"``, ``"05"`` or ``"10"``) prints of the course's
    recorded bundle, beside ``here`` (this run: a trace or graph for 03, a profile for 05,
    ``{jit_level: kernels}`` for 10); one line naming the command when there is none."""
    if notebook not in NOTEBOOKS:
        raise ValueError(f"notebook must be one of {', '.join(NOTEBOOKS)}, not {notebook!r}")
    found = course_bundles(folder)
    if not found:
        return _(
            "No recorded bundle in the course's bundles/ folder: on an NPU, `{}` records one "
            "(see bundles/README.md)."
        ).format(RECORD_COMMAND)
    path, manifest = found[0]
    try:
        files = read_bundle(path)
    except BundleError as exc:
        return str(exc)
    versions = _versions(files, manifest)
    lines = [provenance(path, manifest, versions)]
    try:
        if notebook == "03":
            lines += _fusion_part(path, here, device, recorded_on(manifest) == "ascend")
        elif notebook == "05":
            lines += _profile_part(files, here, device)
        else:
            lines += _day_one_part(files, manifest, versions, here)
    except Exception as exc:  # noqa: BLE001 - files from another machine and version: say
        # what failed in the cell's output rather than stop the learner's notebook
        lines.append(_("could not read this bundle: {}: {}").format(type(exc).__name__, exc))
    if len(found) > 1:
        lines.append(_("({} more bundle(s) in {})").format(len(found) - 1, os.path.dirname(path)))
    return "\n".join(lines)

"""Bundles recorded on a real NPU, for the course's "what this looks like on an NPU" cells.

A bundle counts as recorded on a real NPU when its manifest says so: ``trace_device`` is
``"Ascend"`` (the trace worker keeps that only when MindSpore's Ascend backend loaded) and
the ``jit_level=O0`` IR dumps were kept. The file name is never looked at: a bundle from the
fake Ascend machine of the tests names a 910B3 but traced on CPU.
"""

import json
import os
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.report.bundle import MANIFEST, TOP, BundleError, open_tar, read_bundle

BUNDLES_SUBDIR = "bundles"
_MANIFEST_MAX_BYTES = 4 * 1024 * 1024


def read_manifest(path: str) -> Dict[str, Any]:
    """The manifest of a ``.tar.gz`` bundle, without reading the rest of the archive."""
    try:
        with open_tar(path) as tar:  # within the bundle reader's byte and header caps
            for member in tar:
                if member.isfile() and member.name == f"{TOP}/{MANIFEST}":
                    if member.size > _MANIFEST_MAX_BYTES:
                        raise BundleError(f"{path}: {MANIFEST} is too large to read")
                    data = tar.extractfile(member)
                    if data is None:
                        break
                    return json.loads(data.read().decode("utf-8"))
    except (OSError, EOFError, ValueError) as exc:
        raise BundleError(f"{path}: not a readable ascend-lab report archive ({exc})") from None
    raise BundleError(f"{path}: no {MANIFEST}: not an ascend-lab report")


def recorded_on_npu(manifest: Dict[str, Any]) -> bool:
    """Did this manifest's machine trace the course's net on a real NPU?"""
    return manifest.get("trace_device") == "Ascend" and traced(manifest)


def traced(manifest: Dict[str, Any]) -> bool:
    """Did this manifest's machine keep the course net's ``jit_level=O0`` IR dumps?"""
    return any(
        e.get("item") == "IR dumps, jit_level=O0" and e.get("status") == "ok"
        for e in manifest.get("entries") or []
        if isinstance(e, dict)
    )


def course_bundle_folder() -> Optional[str]:
    """The course's ``bundles/`` folder: next to the notebook being run (the English edition's
    when run from ``zh/``), else the installed or checked-out course's; None if there is none."""
    here = os.getcwd()
    candidates = [os.path.join(here, BUNDLES_SUBDIR), os.path.join(here, "..", BUNDLES_SUBDIR)]
    from ascend_lab.course.files import find_notebooks  # below course_cmd: no kernel, no device

    found = find_notebooks()
    if found is not None:
        candidates.append(os.path.join(found[0], BUNDLES_SUBDIR))
    for folder in candidates:
        if os.path.isdir(folder):
            return os.path.normpath(folder)
    return None


def bundle_manifests(folder: Optional[str] = None) -> List[Tuple[str, Dict[str, Any]]]:
    """``[(path, manifest)]`` of the readable ``.tar.gz`` bundles in ``folder`` (default: the
    course's ``bundles/``), sorted by name. Unreadable archives are left out."""
    folder = course_bundle_folder() if folder is None else folder
    if folder is None or not os.path.isdir(folder):
        return []
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.endswith(".tar.gz") or not os.path.isfile(path):
            continue
        try:
            manifest = read_manifest(path)
        except BundleError:
            continue
        if isinstance(manifest, dict):
            out.append((path, manifest))
    return out


def npu_bundles(folder: Optional[str] = None) -> List[str]:
    """Paths of the ``.tar.gz`` bundles in ``folder`` (default: the course's ``bundles/``)
    whose manifest says they were recorded on a real NPU, sorted by name. Unreadable
    archives are left out."""
    return [path for path, manifest in bundle_manifests(folder) if recorded_on_npu(manifest)]


def bundle_kernel_graphs(path: str) -> Dict[str, Any]:
    """``{jit_level: final kernel Graph}`` of each trace kept in a bundle (O0, O1, O2)."""
    from ascend_lab.parsers.ir.timeline import PassTimeline
    from ascend_lab.report.view import _extract
    from ascend_lab.results.trace import final_index
    from ascend_lab.viewfile.sources import dump_folder

    files = read_bundle(path)
    graphs: Dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ascend-lab-bundle-") as tmp:
        for level in ("O0", "O1", "O2"):
            folder = os.path.join(tmp, level)
            if not _extract(files, f"trace/{level}/dump/", folder):
                continue
            timeline = PassTimeline(dump_folder(folder), keep_text=True)
            try:
                graphs[level] = timeline.snapshot(final_index(timeline))
            except ValueError:  # no kernel graph among the kept dumps
                continue
    return graphs

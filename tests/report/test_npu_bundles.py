"""``npu_bundles``: the course finds bundles recorded on a real NPU by their manifest only."""

import io
import json
import os
import shutil
import tarfile

from ascend_lab.report import bundle_kernel_graphs, npu_bundles
from ascend_lab.report.npu import read_manifest

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "bundles")
FAKE = os.path.join(FIXTURES, "fake-910b3-x8.tar.gz")
MEMBER = "ascend-lab-report/manifest.json"


def _rewrite_manifest(source: str, target: str, **changes: object) -> None:
    """A copy of ``source`` whose manifest has ``changes`` (the rest byte for byte)."""
    with tarfile.open(source, "r:gz") as src, tarfile.open(target, "w:gz") as dst:
        for member in src:
            data = src.extractfile(member).read() if member.isfile() else b""
            if member.name == MEMBER:
                manifest = json.loads(data.decode("utf-8"))
                manifest.update(changes)
                data = json.dumps(manifest, indent=2).encode("utf-8")
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))


def test_fake_bundle_is_not_a_real_npu_one():
    manifest = read_manifest(FAKE)
    assert manifest.get("trace_device") != "Ascend"
    assert npu_bundles(FIXTURES) == []


def test_a_bundle_whose_manifest_says_real_npu_is_found_and_the_fake_is_not(tmp_path):
    # Named like the fake one and the fake one named like a real one: names are not read.
    real = tmp_path / "fake-looking-name.tar.gz"
    _rewrite_manifest(FAKE, str(real), trace_device="Ascend")
    shutil.copy(FAKE, tmp_path / "910b3-8.0.RC2-2.3.1.tar.gz")
    (tmp_path / "broken.tar.gz").write_bytes(b"not an archive")
    (tmp_path / "notes.txt").write_text("not a bundle")
    assert npu_bundles(str(tmp_path)) == [str(real)]
    graphs = bundle_kernel_graphs(str(real))
    assert sorted(graphs) == ["O0", "O1"]
    assert [k.op for k in graphs["O0"].kernels] == ["Conv2D", "BatchNorm", "ReLU"]
    assert all(t.format for k in graphs["O0"].kernels for t in k.input_types)


def test_trace_device_ascend_without_kept_dumps_is_not_enough(tmp_path):
    manifest = read_manifest(FAKE)
    entries = [e for e in manifest["entries"] if e["item"] != "IR dumps, jit_level=O0"]
    _rewrite_manifest(FAKE, str(tmp_path / "a.tar.gz"), trace_device="Ascend", entries=entries)
    assert npu_bundles(str(tmp_path)) == []


def test_missing_folder_gives_nothing(tmp_path):
    assert npu_bundles(str(tmp_path / "absent")) == []


def test_default_folder_is_the_course_bundles_folder(monkeypatch, tmp_path):
    (tmp_path / "bundles").mkdir()
    _rewrite_manifest(FAKE, str(tmp_path / "bundles" / "x.tar.gz"), trace_device="Ascend")
    (tmp_path / "zh").mkdir()
    monkeypatch.chdir(tmp_path / "zh")  # the Chinese edition reads the English one's folder
    assert [os.path.basename(p) for p in npu_bundles()] == ["x.tar.gz"]


def test_the_manifest_of_a_new_bundle_says_where_the_trace_ran(tmp_path):
    import time

    from ascend_lab.report.bundle import Bundle, write_archive
    from ascend_lab.report.redact import Redactor

    for device, found in (("Ascend", True), ("CPU", False), (None, False)):
        bundle = Bundle(trace_device=device)
        bundle.record("IR dumps, jit_level=O0", "ok", path="trace/O0/dump")
        files = bundle.finish(Redactor(), True, 1 << 20, time.monotonic(), 60.0)
        path = write_archive(files, str(tmp_path / f"{device}.tar.gz"))
        assert read_manifest(path)["trace_device"] == device
        assert (path in npu_bundles(str(tmp_path))) is found

"""The table of source kinds (``viewfile.sources.SOURCES``): one row per kind, the first
match wins, and every opener (CLI, server, report, Model Explorer) goes through it."""

import json
import shutil

import pytest

from ascend_lab.cli import main
from ascend_lab.payload import validate_payload
from ascend_lab.viewfile import ViewFileError, payload_for_path, sources
from tests.support.ir_fixtures import FIXTURES

LENET = FIXTURES / "lenet"
PASTED = FIXTURES.parent / "real" / "ir_pasted"
BUNDLE = FIXTURES.parent / "bundles" / "fake-910b3-x8.tar.gz"
PROFILE = FIXTURES.parent / "profile"


def _kind(path) -> str:
    return sources.find_kind(str(path)).name


def test_each_kind_is_one_row_and_names_are_unique():
    names = [kind.name for kind in sources.SOURCES]
    assert len(set(names)) == len(names) == 8
    assert (
        names.index("report-bundle") < names.index("profile-folder") < names.index("ir-dump-folder")
    )


def test_the_first_matching_row_wins_for_each_fixture(tmp_path):
    assert _kind(LENET) == "ir-dump-folder"
    assert _kind(LENET / "lenet.mindir") == "mindir"
    assert _kind(LENET / "graph_build_0_0094.ir") == "ir-file"
    assert _kind(BUNDLE) == "report-bundle"
    pasted = tmp_path / "from_the_tutorial.txt"
    shutil.copy(PASTED / "mindir_md_execute_vi_numbered.ir", pasted)
    assert _kind(pasted) == "pasted-ir"
    saved = tmp_path / "saved.json"
    saved.write_text("{}", encoding="utf-8")
    assert _kind(saved) == "saved-payload"
    prose = tmp_path / "notes.txt"
    prose.write_text("hello, no IR here\n", encoding="utf-8")
    with pytest.raises(ViewFileError, match="not a .mindir file"):
        sources.find_kind(str(prose))


def test_a_profiler_folder_is_taken_before_the_dump_folder_row():
    assert _kind(PROFILE / "cpu-2.10-lenet") == "profile-folder"
    assert _kind(PROFILE / "ascend-doc-lenet") == "profile-folder"


def test_pasted_text_opens_as_a_partial_graph(tmp_path):
    pasted = tmp_path / "paste.txt"
    shutil.copy(PASTED / "mindir_md_execute_vi_numbered.ir", pasted)
    payload = payload_for_path(str(pasted))
    validate_payload(payload)
    assert payload["meta"]["source"] == "pasted-ir"
    assert payload["graphs"]["main"]["nodes"]
    assert payload["meta"].get("notes")  # the banner: the text was pasted, so partial


def test_a_saved_payload_round_trips_and_a_foreign_json_is_refused(tmp_path):
    payload = payload_for_path(str(LENET / "graph_build_0_0094.ir"))
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(payload), encoding="utf-8")
    assert payload_for_path(str(saved)) == payload
    other = tmp_path / "package.json"
    other.write_text('{"name": "x"}', encoding="utf-8")
    with pytest.raises(ViewFileError, match="not a saved payload"):
        payload_for_path(str(other))
    broken = tmp_path / "cut.json"
    broken.write_text('{"schema": ', encoding="utf-8")
    with pytest.raises(ViewFileError, match="not a saved payload"):
        payload_for_path(str(broken))


def test_cli_shows_a_saved_payload(tmp_path):
    payload = payload_for_path(str(LENET / "graph_build_0_0094.ir"))
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(payload), encoding="utf-8")
    out = tmp_path / "saved.html"
    assert main(["view", str(saved), "-o", str(out)]) == 0
    assert "graph_build_0_0094" in out.read_text(encoding="utf-8")


def test_a_bundle_is_not_a_payload():
    with pytest.raises(ViewFileError, match="report bundle"):
        payload_for_path(str(BUNDLE))
    assert isinstance(sources.view_source(str(BUNDLE)), sources.ReportBundleRef)


def test_a_new_kind_is_one_class_and_one_row(tmp_path, monkeypatch):
    class Onnx(sources.SourceKind):
        name = "onnx"

        def match(self, path):
            return path.endswith(".onnx")

        def load(self, path):
            return {"schema": "x", "loaded": path}

    monkeypatch.setattr(sources, "SOURCES", sources.SOURCES + (Onnx(),))
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    assert sources.view_source(str(model)) == {"schema": "x", "loaded": str(model)}

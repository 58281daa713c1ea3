"""``ascend-lab view``: .mindir, .ir and dump folders -> payload / HTML; bad input -> a message."""

import os
import shutil
import urllib.request

import pytest

from ascend_lab.cli import main
from ascend_lab.payload import validate_payload
from ascend_lab.viewfile import ViewFileError, payload_for_path
from tests.support.ir_fixtures import FIXTURES
from tests.viewfile.serving import cli_serving

LENET = FIXTURES / "lenet"
MINDIR = LENET / "lenet.mindir"
KERNEL_IR = LENET / "graph_build_0_0094.ir"


def test_mindir_payload_shows_weights_with_shape_and_dtype():
    payload = payload_for_path(str(MINDIR))
    validate_payload(payload)
    nodes = payload["graphs"][payload["views"]["main"]]["nodes"]
    weight = next(n for n in nodes if n["id"] == "conv1.weight")
    assert weight["kind"] == "parameter"
    assert weight["outputs"][0]["shape"] == [6, 1, 5, 5]
    assert weight["outputs"][0]["dtype"] == "Float32"
    assert payload["meta"]["source"] == "mindir"


def test_ir_file_payload_has_the_graph_and_a_memory_plan():
    payload = payload_for_path(str(KERNEL_IR))
    validate_payload(payload)
    nodes = payload["graphs"]["main"]["nodes"]
    assert sum(1 for n in nodes if n["op"] == "Conv2D") == 2
    assert payload["memory"] is not None
    # the reused ReLU cell's four calls are drawn in the net, beside their neighbours
    relus = [n for n in nodes if n["op"] == "ReLU"]
    assert len(relus) == 4 and {n.get("repaired_scope") for n in relus} == {"Default"}


def test_dump_folder_payload_has_the_pipeline(tmp_path):
    payload = payload_for_path(str(LENET))
    validate_payload(payload)
    names = [p["name"] for p in payload["passes"]]
    assert any(n.startswith("graph_build") for n in names) and len(names) >= 4
    # a folder written by a distributed run holds the dumps in rank_0/
    nested = tmp_path / "saved"
    shutil.copytree(LENET, nested / "rank_0")
    assert [p["name"] for p in payload_for_path(str(nested))["passes"]] == names


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("broken.mindir", MINDIR.read_bytes()[:300], "corrupt or truncated MindIR"),
        ("empty.mindir", b"", "empty file"),
        ("notes.txt", b"hello", "not a .mindir file, a .ir file or a folder"),
    ],
)
def test_unreadable_files_give_a_clear_message(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ViewFileError, match=reason):
        payload_for_path(str(path))


def test_folder_without_dumps_and_missing_path(tmp_path):
    with pytest.raises(ViewFileError, match="no MindSpore IR dumps"):
        payload_for_path(str(tmp_path))
    with pytest.raises(ViewFileError, match="no such file or folder"):
        payload_for_path(str(tmp_path / "gone.ir"))


def test_cli_writes_html_for_each_kind(tmp_path, capsys):
    for source in (MINDIR, KERNEL_IR, LENET):
        out = tmp_path / (source.name + ".html")
        assert main(["view", str(source), "-o", str(out)]) == 0
        page = out.read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") and "ascend-lab.graph/1" in page
    assert "Wrote" in capsys.readouterr().out


def test_cli_corrupt_file_exit_code_message_and_error_page(tmp_path, capsys):
    bad = tmp_path / "<img src=x onerror=alert(1)>.mindir"
    bad.write_bytes(MINDIR.read_bytes()[:300])
    out = tmp_path / "bad.html"
    assert main(["view", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "corrupt or truncated MindIR" in err
    page = out.read_text(encoding="utf-8")
    assert "corrupt or truncated MindIR" in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<script" not in page
    # without -o nothing is left behind
    os.chdir(tmp_path)
    assert main(["view", "missing.ir"]) == 2
    assert not (tmp_path / "missing.html").exists()


def test_cli_serve_prints_a_local_url_and_serves_the_page():
    with cli_serving(str(KERNEL_IR)) as url:
        with urllib.request.urlopen(url, timeout=60) as response:
            page = response.read().decode("utf-8")
    assert "ascend-lab.graph/1" in page and "graph_build_0_0094" in page


@pytest.mark.parametrize("name", ["lenet/lenet.mindir", "control_flow/control_flow.mindir"])
def test_mindir_opens_without_its_weight_bytes_and_shows_the_same_graph(name):
    from ascend_lab.parsers.mindir.mindir import parse_mindir_file
    from ascend_lab.parsers.mindir.mindir_skeleton import read_mindir_skeleton
    from ascend_lab.payload import add_graph

    path = FIXTURES / name
    model, weights, skipped = read_mindir_skeleton(str(path))
    size = path.stat().st_size
    assert weights >= 2 and skipped > 0
    # what is kept is the file minus the weights' data (and their shorter length prefixes)
    assert size - skipped - 16 * weights < len(model) <= size - skipped
    full: dict = {}
    add_graph(full, "main", parse_mindir_file(path))
    assert payload_for_path(str(path))["graphs"] == full


def test_lenet_mindir_keeps_under_a_twentieth_of_the_file():
    from ascend_lab.parsers.mindir.mindir_skeleton import read_mindir_skeleton

    model, weights, skipped = read_mindir_skeleton(str(MINDIR))
    assert weights == 8 and len(model) * 20 < MINDIR.stat().st_size

"""Hostile files for the viewer (issue #24, findings 4, 6, 7, 12, 13): a ``.mindir`` whose
external data names other files, FIFOs, symlinks out of the root, hidden files, answers
with the server's own paths, ``view --serve`` without its token, ``view -o`` through a
planted ``.part`` symlink.

The server cases run a real jupyter_server (``jp_fetch``); the ``.mindir`` files are built
with the test writer (``benchmarks/support/mindir_writer.py``). A request that could hang is
made with a client-side timeout (no timing assertion: the answer is checked).
"""

import json
import os
import shutil
import urllib.error
import urllib.request

import numpy as np
import pytest
from tornado.httpclient import HTTPClientError

from ascend_lab.cli import main
from ascend_lab.viewfile.weight_stats import WeightStatsError, weight_stats
from benchmarks.support import mindir_writer as mw
from tests.server.conftest import *  # noqa: F401,F403 (jp_fetch and friends)
from tests.support.ir_fixtures import FIXTURES
from tests.viewfile.serving import at, cli_serving
from tests.viewfile.test_weight_page import embedded

LENET = FIXTURES / "lenet"
CLIENT_TIMEOUT = 30  # seconds the client waits: a hung request fails the test, not the run
SECRET = np.arange(50, dtype="<f4") * 1000 + 7  # "secret" bytes that must not be described
HEADER = b"\x01" + bytes(63)  # MindSpore's data_N header, little-endian writer


@pytest.fixture
def allow_hidden():
    return False


@pytest.fixture
def jp_server_config(ascend_lab_config, allow_hidden):
    return {
        "ServerApp": {"jpserver_extensions": {"ascend_lab.server": True}},
        "ContentsManager": {"allow_hidden": allow_hidden},
        "AscendLabServerConfig": dict(ascend_lab_config),
    }


def model_pointing_at(folder, location, offset=64, length=None, name="m_graph.mindir"):
    """A split model (graph file + external data) whose one weight is ``location``."""
    length = SECRET.nbytes if length is None else length
    path = folder / name
    mw.write_mindir(
        str(path), [mw.Weight("w", mw.FLOAT, [length // 4], external=(location, offset, length))]
    )
    return path


def unblock(fifo):
    """Open ``fifo`` for writing (and close it): a reader stuck in open() gets EOF."""
    try:
        os.close(os.open(str(fifo), os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass  # no reader waiting: nothing to release


# ---------------------------------------------------------------------------- finding 4


def test_external_data_in_a_hidden_file_is_not_read(tmp_path):
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_rsa").write_bytes(SECRET.tobytes())
    for location in (".ssh/id_rsa", "m_variables/../.ssh/id_rsa"):
        path = model_pointing_at(tmp_path, location, offset=0)
        with pytest.raises(WeightStatsError, match="not read"):
            weight_stats(str(path), "w")


def test_view_o_weight_stats_writes_no_bytes_of_a_hidden_file(tmp_path, capsys):
    # the reviewer's case: the page meant for sharing described ~/.ssh/id_rsa
    (tmp_path / ".id_rsa").write_bytes(HEADER + SECRET.tobytes())
    path = model_pointing_at(tmp_path, ".id_rsa")
    out = tmp_path / "page.html"
    assert main(["view", str(path), "-o", str(out), "--weight-stats"]) == 0
    stats = embedded(out.read_text(encoding="utf-8"))["stats"]
    assert list(stats) == ["w"] and "not read" in stats["w"]["error"]
    assert "max" not in stats["w"] and "histogram" not in stats["w"]


@pytest.mark.parametrize("form", ["parent", "absolute"])
def test_external_data_by_a_path_leaving_mindspores_layout_is_not_read(tmp_path, form):
    # a plain file beside the model, named through ../<folder>/ or by its absolute path:
    # both stay "inside the folder", neither is MindSpore's <name>_variables/data_N
    (tmp_path / "notes.bin").write_bytes(HEADER + SECRET.tobytes())
    location = f"../{tmp_path.name}/notes.bin" if form == "parent" else str(tmp_path / "notes.bin")
    path = model_pointing_at(tmp_path, location)
    with pytest.raises(WeightStatsError, match="outside the model's folder; not read"):
        weight_stats(str(path), "w")


def test_external_data_must_start_with_mindspores_header(tmp_path):
    (tmp_path / "m_variables").mkdir()
    not_a_header = b"-----BEGIN OPENSSH PRIVATE KEY-----\n".ljust(64, b"A")
    (tmp_path / "m_variables" / "data_0").write_bytes(not_a_header + SECRET.tobytes())
    with pytest.raises(WeightStatsError, match="64-byte header"):
        weight_stats(str(model_pointing_at(tmp_path, "m_variables/data_0")), "w")
    # a range that starts inside the header is not MindSpore's either
    (tmp_path / "m_variables" / "data_0").write_bytes(HEADER + SECRET.tobytes())
    with pytest.raises(WeightStatsError, match="inside its 64-byte header"):
        weight_stats(str(model_pointing_at(tmp_path, "m_variables/data_0", offset=8)), "w")


def test_external_data_range_beyond_the_file(tmp_path):
    (tmp_path / "m_variables").mkdir()
    (tmp_path / "m_variables" / "data_0").write_bytes(HEADER + SECRET.tobytes())
    for offset in (64 + SECRET.nbytes, 1 << 62):
        path = model_pointing_at(tmp_path, "m_variables/data_0", offset=offset)
        with pytest.raises(WeightStatsError, match="runs past the end of the file"):
            weight_stats(str(path), "w")


def test_external_data_in_a_fifo_or_through_a_symlink_is_not_read(tmp_path, tmp_path_factory):
    (tmp_path / "m_variables").mkdir()
    os.mkfifo(tmp_path / "m_variables" / "data_0")
    try:
        with pytest.raises(WeightStatsError, match="a FIFO, not a regular file"):
            weight_stats(str(model_pointing_at(tmp_path, "m_variables/data_0")), "w")
    finally:
        unblock(tmp_path / "m_variables" / "data_0")
    # MindSpore's names, but a link to a file elsewhere (inside the folder or not)
    outside = tmp_path_factory.mktemp("outside") / "data_0"
    outside.write_bytes(HEADER + SECRET.tobytes())
    (tmp_path / "m_variables" / "data_0").unlink()
    (tmp_path / "m_variables" / "data_0").symlink_to(outside)
    with pytest.raises(WeightStatsError, match="symbolic link"):
        weight_stats(str(model_pointing_at(tmp_path, "m_variables/data_0")), "w")
    shutil.rmtree(tmp_path / "m_variables")
    (tmp_path / "m_variables").symlink_to(outside.parent)
    with pytest.raises(WeightStatsError, match="symbolic link"):
        weight_stats(str(model_pointing_at(tmp_path, "m_variables/data_0")), "w")


def test_mindspores_own_layout_is_still_read(tmp_path):
    (tmp_path / "m_variables").mkdir()
    (tmp_path / "m_variables" / "data_0").write_bytes(HEADER + SECRET.tobytes())
    stats = weight_stats(str(model_pointing_at(tmp_path, "m_variables/data_0")), "w")
    assert (stats["min"], stats["max"], stats["count"]) == (7.0, 49007.0, 50)


# ---------------------------------------------------------------------------- findings 6, 7


async def _get(jp_fetch, *route, **params):
    response = await jp_fetch(
        "ascend-lab", "api", "graph", *route, params=params, request_timeout=CLIENT_TIMEOUT
    )
    return response.code, response.body.decode("utf-8")


async def _refused(jp_fetch, *route, **params):
    with pytest.raises(HTTPClientError) as info:
        await _get(jp_fetch, *route, **params)
    assert info.value.response is not None, f"no answer: {info.value}"  # 599: timed out
    return info.value.code, json.loads(info.value.response.body)["message"]


def dump_folder(root, name="dumps"):
    folder = root / name
    shutil.copytree(LENET, folder)
    (folder / "lenet.mindir").unlink()
    return folder


async def test_a_fifo_named_x_ir_is_answered_not_waited_on(jp_fetch, jp_root_dir):
    os.mkfifo(jp_root_dir / "x.ir")
    folder = dump_folder(jp_root_dir)
    os.mkfifo(folder / "opt_pass_9_hang_0050.ir")
    try:
        code, message = await _refused(jp_fetch, path="x.ir")
        assert code == 400 and "not a regular file" in message
        code, message = await _refused(jp_fetch, path="dumps")
        assert code == 400 and "not a regular file" in message
        code, message = await _refused(jp_fetch, "pass", path="dumps", index="0")
        assert code == 400 and "not a regular file" in message
    finally:
        unblock(jp_root_dir / "x.ir")
        unblock(folder / "opt_pass_9_hang_0050.ir")


async def test_ir_files_in_subfolders_count_towards_the_size_limit(
    jp_fetch, jp_root_dir, monkeypatch
):
    folder = dump_folder(jp_root_dir)
    top = sum(p.stat().st_size for p in folder.glob("*.ir"))
    (folder / "verbose_ir_files").mkdir()
    (folder / "verbose_ir_files" / "big.ir").write_bytes(b"#" * 20_000)
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_BYTES", str(top + 10_000))
    code, message = await _refused(jp_fetch, path="dumps")
    assert code == 413 and f"{top + 20_000:,} bytes" in message


async def test_symlinked_ir_in_a_dump_folder_leaving_the_root_is_refused(
    jp_fetch, jp_root_dir, tmp_path_factory
):
    outside = tmp_path_factory.mktemp("outside") / "secret.ir"
    shutil.copy(LENET / "opt_pass_2_opt_a_0016.ir", outside)
    folder = dump_folder(jp_root_dir)
    (folder / "a_0017.ir").symlink_to(outside)
    code, message = await _refused(jp_fetch, path="dumps")
    assert code == 403 and "outside the server's root" in message
    code, message = await _refused(jp_fetch, "pass", path="dumps", index="1")
    assert code == 403
    (jp_root_dir / "a.ir").symlink_to(outside)
    code, _ = await _refused(jp_fetch, path="a.ir")
    assert code == 403


async def test_hidden_files_are_refused(jp_fetch, jp_root_dir):
    (jp_root_dir / ".private").mkdir()
    shutil.copy(LENET / "lenet.mindir", jp_root_dir / ".private" / "lenet.mindir")
    shutil.copy(LENET / "lenet.mindir", jp_root_dir / ".lenet.mindir")
    (jp_root_dir / "link.mindir").symlink_to(jp_root_dir / ".lenet.mindir")
    folder = dump_folder(jp_root_dir)
    shutil.copy(LENET / "graph_build_0_0094.ir", folder / ".graph_build_0_0095.ir")
    for path in (".private/lenet.mindir", ".lenet.mindir", "link.mindir"):
        code, message = await _refused(jp_fetch, path=path)
        assert code == 404 and "allow_hidden" in message, path
    code, message = await _refused(jp_fetch, "weight", path=".lenet.mindir", name="fc1.bias")
    assert code == 404
    code, message = await _refused(jp_fetch, path="dumps")
    assert code == 403 and "hidden" in message


@pytest.mark.parametrize("allow_hidden", [True])
async def test_hidden_files_are_shown_when_the_server_allows_them(jp_fetch, jp_root_dir):
    (jp_root_dir / ".private").mkdir()
    shutil.copy(LENET / "lenet.mindir", jp_root_dir / ".private" / "lenet.mindir")
    code, body = await _get(jp_fetch, path=".private/lenet.mindir")
    assert code == 200 and json.loads(body)["schema"] == "ascend-lab.graph/1"


async def test_answers_carry_no_absolute_server_path(jp_fetch, jp_root_dir):
    dump_folder(jp_root_dir)
    roots = {str(jp_root_dir), os.path.realpath(jp_root_dir)}
    code, body = await _get(jp_fetch, path="dumps")
    assert code == 200 and not any(r in body for r in roots)
    assert json.loads(body)["graphs"]["final"]["file"] == "dumps/graph_build_0_0094.ir"
    for index in range(len(json.loads(body)["passes"])):
        code, body = await _get(jp_fetch, "pass", path="dumps", index=str(index))
        assert code == 200 and not any(r in body for r in roots), index


async def test_weight_statistics_have_a_byte_limit(jp_fetch, jp_root_dir, monkeypatch):
    shutil.copy(LENET / "lenet.mindir", jp_root_dir / "lenet.mindir")
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_STATS_BYTES", "100000")
    code, body = await _get(jp_fetch, "weight", path="lenet.mindir", name="fc3.weight")  # 3.4 kB
    assert code == 200 and json.loads(body)["count"] == 840
    code, message = await _refused(jp_fetch, "weight", path="lenet.mindir", name="fc1.weight")
    assert code == 413 and "192,000 bytes" in message and "MAX_STATS_BYTES" in message


async def test_graph_and_node_limits(jp_fetch, jp_root_dir, monkeypatch):
    shutil.copy(LENET / "lenet.mindir", jp_root_dir / "lenet.mindir")
    dump_folder(jp_root_dir)
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_GRAPH_BYTES", "1000")
    code, message = await _refused(jp_fetch, path="lenet.mindir")
    assert code == 413 and "without its weights" in message
    monkeypatch.delenv("ASCEND_LAB_VIEW_MAX_GRAPH_BYTES")
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_NODES", "5")
    for path in ("lenet.mindir", "dumps"):
        code, message = await _refused(jp_fetch, path=path)
        assert code == 413 and "ASCEND_LAB_VIEW_MAX_NODES" in message, path
    code, message = await _refused(jp_fetch, "pass", path="dumps", index="0")
    assert code == 413


# ---------------------------------------------------------------------------- finding 12


def _status(url):
    try:
        with urllib.request.urlopen(url, timeout=CLIENT_TIMEOUT) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_serve_needs_its_token():
    with cli_serving(str(LENET / "lenet.mindir")) as url:
        assert "?token=" in url
        base, token = url.split("?token=")
        assert len(token) >= 40  # secrets.token_urlsafe(32)
        for path in ("", "weight-stats?name=fc1.bias"):
            status, body = _status(base + path)
            assert status == 403 and b"fc1.bias" not in body, path
            status, body = _status(at(base + "?token=" + token[:-1] + "x", path))
            assert status == 403, path
        status, body = _status(url)
        assert status == 200 and b"ascend-lab.graph/1" in body
        status, body = _status(at(url, "weight-stats?name=fc1.bias"))
        assert status == 200 and json.loads(body)["count"] == 120


# ---------------------------------------------------------------------------- finding 13


def test_view_o_does_not_write_through_a_planted_part_symlink(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    out = tmp_path / "page.html"
    (tmp_path / "page.html.part").symlink_to(victim)
    assert main(["view", str(LENET / "graph_build_0_0094.ir"), "-o", str(out)]) == 0
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert "ascend-lab.graph/1" in out.read_text(encoding="utf-8") and not out.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "page.html",
        "page.html.part",
        "victim.txt",
    ]

"""``GET ascend-lab/api/graph?path=…`` in a real jupyter_server: authenticated, confined to
the root, size-limited, with a message for every refusal."""

import json
import shutil

import pytest
from tornado.httpclient import HTTPClientError

from tests.support.ir_fixtures import FIXTURES

LENET = FIXTURES / "lenet"


async def _get(jp_fetch, path, **kw):
    response = await jp_fetch("ascend-lab", "api", "graph", params={"path": path}, **kw)
    return json.loads(response.body)


async def _refused(jp_fetch, path):
    with pytest.raises(HTTPClientError) as info:
        await _get(jp_fetch, path)
    return info.value.code, json.loads(info.value.response.body)["message"]


@pytest.fixture
def files(jp_root_dir):
    shutil.copy(LENET / "lenet.mindir", jp_root_dir / "lenet.mindir")
    shutil.copy(LENET / "graph_build_0_0094.ir", jp_root_dir / "graph_build_0_0094.ir")
    shutil.copytree(LENET, jp_root_dir / "dumps" / "lenet")
    (jp_root_dir / "broken.mindir").write_bytes((LENET / "lenet.mindir").read_bytes()[:300])
    return jp_root_dir


async def test_each_kind_answers_its_payload(jp_fetch, files):
    mindir = await _get(jp_fetch, "lenet.mindir")
    assert mindir["schema"] == "ascend-lab.graph/1" and mindir["meta"]["source"] == "mindir"
    ir = await _get(jp_fetch, "graph_build_0_0094.ir")
    assert any(n["op"] == "Conv2D" for n in ir["graphs"]["main"]["nodes"])
    folder = await _get(jp_fetch, "dumps/lenet")
    assert len(folder["passes"]) >= 4


async def test_a_profiler_folder_is_opened_by_its_row_of_the_source_table(jp_fetch, jp_root_dir):
    shutil.copytree(FIXTURES.parent / "profile" / "cpu-2.10-lenet", jp_root_dir / "prof")
    payload = await _get(jp_fetch, "prof")
    assert payload["meta"]["source"] == "profile-folder" and payload["profile"]["kernels"]


async def test_refusals_say_why(jp_fetch, files, monkeypatch):
    code, message = await _refused(jp_fetch, "broken.mindir")
    assert code == 400 and "corrupt or truncated MindIR" in message
    assert str(files) not in message  # the server's own folder is not shown
    code, message = await _refused(jp_fetch, "../outside.mindir")
    assert code == 403 and "outside the server's root" in message
    code, message = await _refused(jp_fetch, "nope.ir")
    assert code == 404 and "no such file" in message
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_BYTES", "1000")
    code, message = await _refused(jp_fetch, "lenet.mindir")
    assert (
        code == 413
        and "ASCEND_LAB_VIEW_MAX_BYTES" in message
        and "over the viewer's limit" in message
    )


async def test_symlink_out_of_the_root_is_refused(jp_fetch, files, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.mindir"
    shutil.copy(LENET / "lenet.mindir", outside)
    (files / "link.mindir").symlink_to(outside)
    code, message = await _refused(jp_fetch, "link.mindir")
    assert code == 403


async def test_needs_authentication(jp_fetch, files):
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch(
            "ascend-lab",
            "api",
            "graph",
            params={"path": "lenet.mindir"},
            headers={"Authorization": "token wrong"},
        )
    assert info.value.code == 403


async def _pass(jp_fetch, path, index, **kw):
    response = await jp_fetch(
        "ascend-lab", "api", "graph", "pass", params={"path": path, "index": index}, **kw
    )
    return json.loads(response.body)


async def test_a_folder_sends_its_passes_when_the_slider_reaches_them(jp_fetch, files):
    from ascend_lab.viewfile import payload_for_path

    folder = await _get(jp_fetch, "dumps/lenet")
    views = {v for v in folder["views"].values() if v}
    assert all(k.split("/")[0] in views for k in folder["graphs"])  # only the main views
    whole = payload_for_path(str(files / "dumps" / "lenet"))
    shown = [p for p in whole["passes"] if p["graph"] and p["graph"] not in views]
    assert shown, "the fixture has passes with graphs of their own"
    for entry in shown:
        got = await _pass(jp_fetch, "dumps/lenet", entry["index"])
        expected = whole["graphs"][entry["graph"]]
        assert [n["id"] for n in got["nodes"]] == [n["id"] for n in expected["nodes"]]
        assert got["diff"] == {k: entry[k] for k in ("added", "removed", "modified")}


async def test_pass_requests_that_cannot_be_answered_say_why(jp_fetch, files):
    for index, code, text in (
        ("x", 400, "must be a pass number"),
        ("999", 404, "no pass 999"),
    ):
        with pytest.raises(HTTPClientError) as info:
            await _pass(jp_fetch, "dumps/lenet", index)
        assert info.value.code == code and text in json.loads(info.value.response.body)["message"]
    with pytest.raises(HTTPClientError) as info:
        await _pass(jp_fetch, "lenet.mindir", "0")
    assert info.value.code == 400
    with pytest.raises(HTTPClientError) as info:
        await _pass(jp_fetch, "dumps/lenet", "0", headers={"Authorization": "token wrong"})
    assert info.value.code == 403


async def test_a_folder_whose_dumps_changed_is_read_again(jp_fetch, files):
    folder = files / "dumps" / "lenet"
    first = await _get(jp_fetch, "dumps/lenet")
    # a dump removed from the folder: the pass list follows
    victim = sorted(folder.glob("opt_pass_*.ir"))[0]
    victim.unlink()
    second = await _get(jp_fetch, "dumps/lenet")
    assert len(second["passes"]) == len(first["passes"]) - 1

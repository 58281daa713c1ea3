"""``GET ascend-lab/api/graph/weight?path=…&name=…`` in a real jupyter_server: one weight's
statistics, authenticated, confined to the root, size-limited, a message for each refusal."""

import json
import shutil

import numpy as np
import pytest
from tornado.httpclient import HTTPClientError

from ascend_lab.viewfile.weight_stats import weight_stats
from tests.support.ir_fixtures import FIXTURES

LENET = FIXTURES / "lenet" / "lenet.mindir"


async def _get(jp_fetch, path, name, **kw):
    params = {"path": path, "name": name}
    response = await jp_fetch("ascend-lab", "api", "graph", "weight", params=params, **kw)
    return response.code, json.loads(response.body)


async def _refused(jp_fetch, path, name, **kw):
    with pytest.raises(HTTPClientError) as info:
        await _get(jp_fetch, path, name, **kw)
    return info.value.code, info.value.response.body


@pytest.fixture
def files(jp_root_dir):
    (jp_root_dir / "models").mkdir()
    shutil.copy(LENET, jp_root_dir / "models" / "lenet.mindir")
    (jp_root_dir / "cut.mindir").write_bytes(LENET.read_bytes()[:100_000])
    return jp_root_dir


async def test_answers_the_statistics(jp_fetch, files):
    code, body = await _get(jp_fetch, "models/lenet.mindir", "fc1.weight")
    assert code == 200
    assert body == weight_stats(str(files / "models" / "lenet.mindir"), "fc1.weight")
    assert body["shape"] == [120, 400] and body["dtype"] == "Float32"
    assert len(body["histogram"]["counts"]) == 32 and np.isfinite(body["std"])


async def test_refusals_say_why(jp_fetch, files, monkeypatch):
    code, raw = await _refused(jp_fetch, "models/lenet.mindir", "nope")
    message = json.loads(raw)["message"]
    assert code == 400 and "no weight named 'nope'" in message and "conv1.weight" in message
    assert str(files) not in message  # the server's own folder is not shown
    code, raw = await _refused(jp_fetch, "models/lenet.mindir", "")
    assert code == 400 and "name parameter is missing" in json.loads(raw)["message"]
    code, raw = await _refused(jp_fetch, "cut.mindir", "fc3.bias")
    assert code == 400 and "corrupt or truncated MindIR" in json.loads(raw)["message"]
    code, raw = await _refused(jp_fetch, "../lenet.mindir", "fc1.weight")
    assert code == 403 and "outside the server's root" in json.loads(raw)["message"]
    code, raw = await _refused(jp_fetch, "gone.mindir", "fc1.weight")
    assert code == 404
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_BYTES", "1000")
    code, raw = await _refused(jp_fetch, "models/lenet.mindir", "fc1.weight")
    assert code == 413 and "ASCEND_LAB_VIEW_MAX_BYTES" in json.loads(raw)["message"]


async def test_symlink_out_of_the_root_is_refused(jp_fetch, files, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.mindir"
    shutil.copy(LENET, outside)
    (files / "link.mindir").symlink_to(outside)
    code, raw = await _refused(jp_fetch, "link.mindir", "fc1.weight")
    assert code == 403 and b"histogram" not in raw


@pytest.mark.parametrize("authorization", ["", "token wrong"])
async def test_needs_authentication(jp_fetch, files, authorization):
    code, raw = await _refused(
        jp_fetch,
        "models/lenet.mindir",
        "fc1.weight",
        headers={"Authorization": authorization},
        follow_redirects=False,
    )
    assert code == 403 and b"histogram" not in raw

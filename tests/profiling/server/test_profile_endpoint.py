"""``GET ascend-lab/api/profile?path=…`` in a real jupyter_server: a profiler folder under
the root -> its profile payload (no graph), confined and size-limited like the graph files,
with the analyse command for raw data. The kernel files are the real ones of
tests/fixtures/real/profiler/ copied into the profiler's folder layout."""

import json
import os
import shutil

import pytest
from tornado.httpclient import HTTPClientError

REAL = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "real", "profiler")
KERNELS = os.path.join(REAL, "msprof-analyze", "compute_advice", "kernel_details.csv")


async def _get(jp_fetch, path):
    response = await jp_fetch("ascend-lab", "api", "profile", params={"path": path})
    return json.loads(response.body)


async def _refused(jp_fetch, path):
    with pytest.raises(HTTPClientError) as info:
        await _get(jp_fetch, path)
    return info.value.code, json.loads(info.value.response.body)["message"]


def _rank(parent, name, rank, analysed=True):
    folder = parent / name
    (folder / "PROF_000001_20250109_ABCDEF").mkdir(parents=True)
    (folder / f"profiler_info_{rank}.json").write_text("{}")
    if analysed:
        (folder / "ASCEND_PROFILER_OUTPUT").mkdir()
        shutil.copy(KERNELS, folder / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    return folder


async def test_a_profiler_folder_answers_its_profile_with_paths_relative(jp_fetch, jp_root_dir):
    job = jp_root_dir / "runs" / "job"
    _rank(job, "h_1_20250109_ascend_ms", 0)
    _rank(job, "h_2_20250109_ascend_ms", 1, analysed=False)
    body = await _get(jp_fetch, "runs/job")
    assert body["meta"]["source"] == "profile-folder"
    assert body["graphs"][body["views"]["main"]]["nodes"] == []
    assert body["profile"]["rank"] == 0
    assert [r["analysed"] for r in body["profile"]["ranks"]] == [True, False]
    assert len(body["profile"]["kernels"]) > 0
    assert str(jp_root_dir) not in json.dumps(body)  # the server's own folder is not shown


async def test_refusals_say_why(jp_fetch, jp_root_dir, monkeypatch):
    _rank(jp_root_dir / "raw", "h_1_ascend_pt", 0, analysed=False)
    code, message = await _refused(jp_fetch, "raw")
    assert code == 400 and "torch_npu.profiler.profiler import analyse" in message
    code, message = await _refused(jp_fetch, "../elsewhere")
    assert code == 403 and "outside the server's root" in message
    code, message = await _refused(jp_fetch, "missing")
    assert code == 404
    (jp_root_dir / "a.txt").write_text("x")
    code, message = await _refused(jp_fetch, "a.txt")
    assert code == 400 and "not a folder" in message
    _rank(jp_root_dir / "big", "h_1_ascend_ms", 0)
    monkeypatch.setenv("ASCEND_LAB_VIEW_MAX_BYTES", "1000")
    code, message = await _refused(jp_fetch, "big")
    assert code == 413 and "ASCEND_LAB_VIEW_MAX_BYTES" in message


async def test_a_link_to_a_file_outside_the_root_is_refused(jp_fetch, jp_root_dir, tmp_path):
    outside = tmp_path / "outside.csv"
    shutil.copy(KERNELS, outside)
    folder = jp_root_dir / "linked" / "h_1_ascend_ms"
    (folder / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    os.symlink(outside, folder / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    code, message = await _refused(jp_fetch, "linked")
    assert code == 403 and "outside the server's root" in message

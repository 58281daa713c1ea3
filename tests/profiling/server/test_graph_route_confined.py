"""The graph route reads a profiler folder only through the one gate (issue #37): before,
``GET ascend-lab/api/graph?path=<profiler folder>`` ran none of the checks, a link in the
folder to a file outside the root was read, and the answer quoted its first line; a FIFO
held a worker thread for good. Every read of a request is now confined to the root and
its deadline, and an error no reader foresaw answers 400 naming its kind."""

import json
import os

import pytest
from tornado.httpclient import HTTPClientError

SECRET_LINE = "root:$6$planted-hash-of-the-first-line:19000:0:99999:7:::"


async def _refused(jp_fetch, path):
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch("ascend-lab", "api", "graph", params={"path": path})
    return info.value.code, json.loads(info.value.response.body)["message"]


def _profiler_folder(root):
    out = root / "job" / "h_1_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    return out


async def test_a_link_out_of_the_root_is_neither_read_nor_quoted(jp_fetch, jp_root_dir, tmp_path):
    outside = tmp_path / "outside-shadow"
    outside.write_text(SECRET_LINE + "\nmore\n")
    os.symlink(outside, _profiler_folder(jp_root_dir) / "kernel_details.csv")
    code, message = await _refused(jp_fetch, "job")
    assert 400 <= code < 500
    assert "planted-hash" not in message and "root:$6$" not in message


async def test_a_fifo_in_a_profiler_folder_is_refused_at_once(jp_fetch, jp_root_dir):
    os.mkfifo(_profiler_folder(jp_root_dir) / "kernel_details.csv")
    code, _message = await _refused(jp_fetch, "job")
    assert 400 <= code < 500


def test_an_unforeseen_error_is_a_400_naming_its_kind(tmp_path, monkeypatch):
    # what a worker process runs for the route (run in this process, so the reader can be
    # replaced by a broken one)
    import ascend_lab.viewfile as viewfile
    from ascend_lab.server.view_jobs import Where, run_job

    def broken(path):
        raise KeyError("a reader's bug, with text from the file")

    monkeypatch.setattr(viewfile, "payload_for_path", broken)
    (tmp_path / "x.ir").write_text("# IR entry: @g\n")
    code, body = run_job("graph", Where(str(tmp_path / "x.ir"), str(tmp_path), False))
    message = body["message"]
    assert code == 400 and "KeyError" in message and "text from the file" not in message

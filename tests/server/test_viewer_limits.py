"""The viewer endpoints' guards, without a server: which paths and folders are read
(regular files, inside the root, hidden ones only when allowed), how sizes are counted,
the worker pool's 503 when full, the 504 of a refusal after the deadline, and
root-relative answer text."""

import json
import os
import shutil
import time

import psutil
import pytest

from ascend_lab.parsers.regular_file import check_deadline
from ascend_lab.server import file_handlers as fh
from ascend_lab.server import view_jobs, worker_pool
from ascend_lab.server.view_jobs import Refused, Where, input_size, resolve_under_root
from tests.support.ir_fixtures import FIXTURES


@pytest.fixture
def root(tmp_path):
    (tmp_path / "root" / "dumps" / "verbose_ir_files").mkdir(parents=True)
    (tmp_path / "root" / "dumps" / "a_0001.ir").write_bytes(b"x" * 100)
    (tmp_path / "root" / "dumps" / "verbose_ir_files" / "b_0002.ir").write_bytes(b"y" * 1000)
    (tmp_path / "root" / "dumps" / "actor_set").mkdir()
    (tmp_path / "root" / "dumps" / "actor_set" / "c.ir").write_bytes(b"z" * 10)
    (tmp_path / "root" / "dumps" / "notes.txt").write_bytes(b"n" * 5000)  # not read
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.ir").write_bytes(b"s" * 7)
    return tmp_path / "root"


def test_a_folder_counts_every_ir_file_below_it(root):
    assert input_size(str(root / "dumps"), str(root)) == 1110
    assert input_size(str(root / "dumps" / "a_0001.ir")) == 100


def test_a_folder_with_a_link_out_of_the_root_or_a_fifo_is_refused(root):
    link = root / "dumps" / "d_0003.ir"
    link.symlink_to(root.parent / "outside" / "secret.ir")
    with pytest.raises(Refused) as info:
        input_size(str(root / "dumps"), str(root))
    assert info.value.status == 403 and "d_0003.ir" in str(info.value)
    link.unlink()
    link.symlink_to(root / "dumps" / "a_0001.ir")  # a link inside the root is read
    assert input_size(str(root / "dumps"), str(root)) == 1210
    link.unlink()
    os.mkfifo(link)
    with pytest.raises(Refused, match="not a regular file") as info:
        input_size(str(root / "dumps"), str(root))
    assert info.value.status == 400
    with pytest.raises(Refused, match="not a regular file"):
        input_size(str(link))


def test_hidden_ir_files_of_a_folder_need_allow_hidden(root):
    (root / "dumps" / ".cache").mkdir()
    (root / "dumps" / ".cache" / "e_0004.ir").write_bytes(b"h" * 3)
    (root / "dumps" / ".ipynb_checkpoints").mkdir()  # hidden, but holds no .ir: no matter
    (root / "dumps" / ".ipynb_checkpoints" / "x.txt").write_bytes(b"")
    with pytest.raises(Refused, match="hidden") as info:
        input_size(str(root / "dumps"), str(root), allow_hidden=False)
    assert info.value.status == 403
    assert input_size(str(root / "dumps"), str(root), allow_hidden=True) == 1113
    (root / "dumps" / ".cache" / "e_0004.ir").unlink()
    assert input_size(str(root / "dumps"), str(root), allow_hidden=False) == 1110


def test_hidden_paths_are_refused_unless_allowed(root):
    (root / ".hidden").mkdir()
    (root / ".hidden" / "m.mindir").write_bytes(b"m")
    (root / "shown.mindir").symlink_to(root / ".hidden" / "m.mindir")
    for relative in (".hidden/m.mindir", "shown.mindir", "dumps/../.hidden/m.mindir"):
        with pytest.raises(Refused, match="allow_hidden") as info:
            resolve_under_root(str(root), relative, allow_hidden=False)
        assert info.value.status == 404
        assert resolve_under_root(str(root), relative, allow_hidden=True) == os.path.realpath(
            root / ".hidden" / "m.mindir"
        )
    assert resolve_under_root(str(root), "dumps", allow_hidden=False) == os.path.realpath(
        root / "dumps"
    )
    with pytest.raises(ValueError, match="outside the server's root"):
        resolve_under_root(str(root), "../outside/secret.ir", allow_hidden=True)


def test_answers_name_files_relative_to_the_root(root):
    real = os.path.realpath(root)
    body = {
        "file": os.path.join(real, "dumps", "a_0001.ir"),
        "root": real,
        "message": f"{real}/x: no",
        "other": "/usr/lib/x",
    }
    text = fh._relative_text(json.dumps(body), real)
    assert json.loads(text) == {
        "file": "dumps/a_0001.ir",
        "root": ".",
        "message": "x: no",
        "other": "/usr/lib/x",
    }


def test_a_full_pool_answers_503_at_once_and_serves_again_once_free(root, monkeypatch):
    monkeypatch.setenv(worker_pool.WORKERS_ENV, "1")
    shutil.copy(FIXTURES / "lenet" / "graph_build_0_0094.ir", root / "lenet.ir")
    where = Where(str(root / "lenet.ir"), str(root), False)
    pool = worker_pool.WorkerPool()
    try:
        # one job runs (its worker is still starting), two wait: the fourth is refused
        held = [pool.submit("graph", where) for _ in range(1 + worker_pool.QUEUED_PER_WORKER)]
        status, body = pool.submit("graph", where).result(timeout=5)
        assert status == 503 and json.loads(body) == {
            "message": "the viewer is busy with other files; try again shortly",
            "reason": "busy",
        }
        assert [f.result(timeout=120)[0] for f in held] == [200] * len(held)
        assert pool.submit("graph", where).result(timeout=120)[0] == 200
        assert len(pool.pids()) == 1  # one worker served them all
    finally:
        pool.close()


def test_an_idle_worker_exits(root, monkeypatch):
    monkeypatch.setenv(worker_pool.WORKERS_ENV, "1")
    monkeypatch.setenv(worker_pool.IDLE_ENV, "0.2")
    shutil.copy(FIXTURES / "lenet" / "graph_build_0_0094.ir", root / "lenet.ir")
    pool = worker_pool.WorkerPool()
    try:
        where = Where(str(root / "lenet.ir"), str(root), False)
        assert pool.submit("graph", where).result(timeout=120)[0] == 200
        (pid,) = pool.pids()
        for _ in range(200):  # up to 20 s on a busy machine
            if not psutil.pid_exists(pid):
                break
            time.sleep(0.1)
        assert pool.pids() == [] and not psutil.pid_exists(pid)
        assert pool.submit("graph", where).result(timeout=120)[0] == 200  # started again
    finally:
        pool.close()


def test_a_refusal_after_the_deadline_is_the_timeouts_504(root, monkeypatch):
    # a reader that stopped at the request's deadline says why in its own words; the
    # answer is the time limit's, as when the worker is ended
    def stopped(where):
        check_deadline(where.path)
        time.sleep(0.05)
        check_deadline(where.path)
        return 200, {}

    monkeypatch.setitem(view_jobs.JOBS, "slow", stopped)
    where = Where(str(root / "dumps" / "a_0001.ir"), str(root), False)
    status, body = view_jobs.run_job("slow", where, seconds=0.01)
    assert status == 504 and body["reason"] == "timeout"
    assert body["message"].startswith("a_0001.ir: reading it took longer than 0.01 s")


def test_workers_of_an_installed_package_keep_the_path_as_it_is():
    import site

    # an installed ascend_lab is found by the worker anyway: its site-packages ahead of
    # the standard library would shadow it with any backport installed there
    assert worker_pool._in_site_packages(site.getsitepackages()[0])
    assert not worker_pool._in_site_packages(str(FIXTURES))

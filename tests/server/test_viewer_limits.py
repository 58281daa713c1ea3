"""The viewer endpoints' guards, without a server: which paths and folders are read
(regular files, inside the root, hidden ones only when allowed), how sizes are counted,
the bounded executor's 503 and 504 answers, and root-relative answer text."""

import asyncio
import json
import os
import threading

import pytest

from ascend_lab.server import file_handlers as fh
from ascend_lab.server.file_handlers import Refused, input_size, resolve_under_root


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


def test_the_viewer_pool_answers_503_when_full_and_504_when_too_slow(monkeypatch):
    release = threading.Event()

    def blocked(value):
        release.wait(60)
        return 200, {"value": value}

    async def scenario():
        monkeypatch.setenv(fh.TIMEOUT_ENV, "600")
        held = [
            asyncio.ensure_future(fh.run_bounded(blocked, i))
            for i in range(fh._WORKERS + fh._QUEUED)
        ]
        await asyncio.sleep(0)  # each has taken its place
        busy = await fh.run_bounded(blocked, "one too many")
        release.set()
        answers = await asyncio.gather(*held)
        release.clear()
        monkeypatch.setenv(fh.TIMEOUT_ENV, "0.01")
        slow = await fh.run_bounded(blocked, "slow")
        release.set()
        return busy, answers, slow

    try:
        busy, answers, slow = asyncio.run(scenario())
    finally:
        release.set()
    assert busy[0] == 503 and "busy" in busy[1]["message"]
    assert answers == [(200, {"value": i}) for i in range(fh._WORKERS + fh._QUEUED)]
    assert slow[0] == 504 and fh.TIMEOUT_ENV in slow[1]["message"]

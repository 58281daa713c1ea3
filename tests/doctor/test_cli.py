"""``ascend-lab doctor``: log files, stdin, large and binary logs, bad input."""

import json
import os
import subprocess
import sys

import pytest

MATMUL = "ValueError: For 'MatMul' the input dimensions must be equal, but got 'x1_col': 5 and 'x2_row': 4.\n"  # noqa: E501
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUSY = "dcmi model initialized failed, because the device is used. ret is -8020\n"


def _run(args, input_bytes=None, cwd=None):
    path = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONPATH=path)
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", *args],
        input=input_bytes,
        capture_output=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def test_log_file_with_binary_garbage(tmp_path):
    log = tmp_path / "train.log"
    log.write_bytes(b"\x00\xff\xfe garbage \x89PNG\r\n" + MATMUL.encode() + b"\xc3\x28 more\n")
    r = _run([str(log)])
    out = r.stdout.decode("utf-8")
    assert r.returncode == 1, r.stderr.decode()
    assert "Matrix multiply with mismatched inner dimensions: MatMul" in out
    assert "Evidence: line 2: ValueError: For 'MatMul'" in out
    assert "Traceback" not in r.stderr.decode()


def test_stdin_json(tmp_path):
    r = _run(["-", "--json"], input_bytes=("noise\n" + BUSY).encode())
    assert r.returncode == 1, r.stderr.decode()
    d = json.loads(r.stdout.decode("utf-8"))
    assert d["source"] == "stdin"
    assert d["findings"][0]["id"] == "device-busy"
    assert d["findings"][0]["evidence"][0]["line"] == 2
    assert d["findings"][0]["confirmation"]["check"] == "devices"


def test_nothing_recognised_exit_zero(tmp_path):
    log = tmp_path / "ok.log"
    log.write_text("epoch: 1 step: 1, loss is 0.5\n", encoding="utf-8")
    r = _run([str(log), "--no-env"])
    assert r.returncode == 0
    out = r.stdout.decode("utf-8")
    assert "Nothing recognised" in out and "npu-smi info" in out


def test_large_log_keeps_only_the_tail(tmp_path):
    from ascend_lab.doctor.intake import read_tail_file

    log = tmp_path / "big.log"
    filler = (b"[INFO] step ok " + b"." * 80 + b"\n") * 30000  # ~2.9 MB
    log.write_bytes(BUSY.encode() + filler + MATMUL.encode())
    text, total, truncated = read_tail_file(str(log), 1_000_000)
    assert truncated and total == log.stat().st_size
    assert text.startswith("[INFO] step ok") and text.endswith(MATMUL)
    r = _run([str(log), "--max-mb", "1", "--json", "--no-env"])
    d = json.loads(r.stdout.decode("utf-8"))
    ids = [f["id"] for f in d["findings"]]
    assert ids[0] == "shape-matmul" and "device-busy" not in ids  # the -8020 line was cut off
    assert any("examined only its last 1.0 MB" in n for n in d["notes"])


def test_stream_tail_matches_file_tail(tmp_path):
    import io

    from ascend_lab.doctor.intake import read_tail_stream

    data = b"".join(b"line %d\n" % i for i in range(200000))
    text, total, truncated = read_tail_stream(io.BytesIO(data), 50_000)
    assert total == len(data) and truncated
    assert text.endswith("line 199999\n")
    assert len(text) <= 50_000 and text.startswith("line ")
    small, total, truncated = read_tail_stream(io.BytesIO(b"abc\n"), 50_000)
    assert (small, total, truncated) == ("abc\n", 4, False)


@pytest.mark.parametrize("bad", ["does-not-exist.log", "."])
def test_bad_input_is_a_clear_message(tmp_path, bad):
    r = _run([bad], cwd=str(tmp_path))
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.startswith("ascend-lab doctor: cannot read " + bad)
    assert "Traceback" not in err


def test_bad_max_mb(tmp_path):
    r = _run(["-", "--max-mb", "0"], input_bytes=b"x")
    assert r.returncode == 2 and "--max-mb" in r.stderr.decode()


def test_no_input_checks_environment_only():
    r = _run([])
    out = r.stdout.decode("utf-8")
    assert r.returncode == 0, r.stderr.decode()
    assert out.startswith("ascend doctor: examined environment")
    assert "Device status:" in out and "Checked:" in out

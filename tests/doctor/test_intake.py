"""Input caps: the tail cap shared by CLI and magic, the line cap, their settings and notes."""

import os
import subprocess
import sys

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.intake import (
    ENV_MAX_LINE_CHARS,
    ENV_MAX_MB,
    Limits,
    cut_long_lines,
    limits_from_env,
    tail_of_text,
)
from ascend_lab.doctor.magic import doctor_magic

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUSY = "dcmi model initialized failed, because the device is used. ret is -8020\n"
MATMUL = "ValueError: For 'MatMul' the input dimensions must be equal, but got 'x1_col': 5\n"


class NoShell:
    _last_traceback = None


def test_defaults_and_settings():
    assert limits_from_env({}) == (Limits(20_000_000, 100_000), [])
    env = {ENV_MAX_MB: "1.5", ENV_MAX_LINE_CHARS: "5000"}
    assert limits_from_env(env) == (Limits(1_500_000, 5000), [])


def test_unusable_settings_fall_back_and_say_so():
    limits, notes = limits_from_env({ENV_MAX_MB: "lots", ENV_MAX_LINE_CHARS: "10"})
    assert limits == Limits(20_000_000, 100_000)
    assert notes[0].startswith("ASCEND_LAB_DOCTOR_MAX_MB='lots' is not a number")
    assert notes[1].startswith("ASCEND_LAB_DOCTOR_MAX_LINE_CHARS='10' is not a number >= 1000")
    for bad in ("nan", "inf", "-3", "0"):
        assert limits_from_env({ENV_MAX_MB: bad})[0].max_bytes == 20_000_000


def test_tail_of_text_cuts_utf8_bytes_at_a_line():
    text = "é" * 100 + "\n" + "line two\n"
    assert tail_of_text(text, 1000) == (text, 210, False)
    kept, total, truncated = tail_of_text(text, 20)
    assert (kept, total, truncated) == ("line two\n", 210, True)


def test_long_lines_keep_their_ends_and_line_numbers():
    text = "a" * 3000 + "MIDDLE" + "b" * 3000 + "\nshort\n" + "c" * 1500
    cut, count = cut_long_lines(text, 2000)
    assert count == 1
    lines = cut.split("\n")
    assert lines[0].startswith("a" * 1000) and lines[0].endswith("b" * 1000)
    assert "MIDDLE" not in cut and "characters not examined" in lines[0]
    assert lines[1:] == ["short", "c" * 1500]
    assert cut_long_lines("short\n" * 1000, 2000) == ("short\n" * 1000, 0)


def test_diagnosis_names_the_line_limit():
    long_line = "x" * 200_000 + " Malloc device memory failed"
    diag = diagnose(long_line + "\n" + BUSY, check_environment=False, max_line_chars=10_000)
    found = {f.id: f for f in diag.findings}
    assert set(found) == {"device-oom", "device-busy"}  # the end of the long line is examined
    assert found["device-busy"].evidence[0][0] == 2  # line numbers are the original ones
    assert diag.notes == [
        "1 line longer than 10,000 characters (ASCEND_LAB_DOCTOR_MAX_LINE_CHARS): "
        "examined only the first and last 5,000 characters of it"
    ]


def test_line_limit_from_the_environment(monkeypatch):
    monkeypatch.setenv(ENV_MAX_LINE_CHARS, "1000")
    diag = diagnose("y" * 5000 + "\n", check_environment=False)
    assert "longer than 1,000 characters" in diag.notes[0]


def test_magic_takes_the_same_tail_cap_as_the_cli(monkeypatch):
    monkeypatch.setenv(ENV_MAX_MB, "0.5")
    filler = "[INFO] step ok " + "." * 80 + "\n"
    cell = BUSY + filler * 20_000 + MATMUL  # ~1.9 MB; the -8020 line is in the cut part
    diag = doctor_magic(NoShell(), "", cell)
    ids = [f.id for f in diag.findings]
    assert ids[0] == "shape-matmul" and "device-busy" not in ids
    assert "cell is 1.9 MB: examined only its last 0.5 MB (ASCEND_LAB_DOCTOR_MAX_MB)" in diag.notes
    path = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path, PYTHONIOENCODING="utf-8", **{ENV_MAX_MB: "0.5"})
    r = subprocess.run(
        [sys.executable, "-m", "ascend_lab", "doctor", "-", "--json", "--no-env"],
        input=cell.encode(),
        capture_output=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 1, r.stderr.decode()
    out = r.stdout.decode()
    assert '"id": "shape-matmul"' in out and '"id": "device-busy"' not in out
    assert "examined only its last 0.5 MB (ASCEND_LAB_DOCTOR_MAX_MB)" in out


def test_magic_under_the_cap_is_untouched(monkeypatch):
    monkeypatch.delenv(ENV_MAX_MB, raising=False)
    diag = doctor_magic(NoShell(), "", BUSY + MATMUL)
    assert {"device-busy", "shape-matmul"} <= {f.id for f in diag.findings}
    assert not any("examined only" in n for n in diag.notes)

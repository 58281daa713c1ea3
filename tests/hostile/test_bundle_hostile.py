"""Hostile support bundles (issue #24): a bundle someone sent you is untrusted input.

Every hostile bundle here is built from the committed fake-machine bundle
(``tests/fixtures/bundles/fake-910b3-x8.tar.gz``, recorded by ``ascend-lab report``) with one
part changed, or from raw tar bytes. Writes that must not escape are aimed at a canary
file or folder inside ``tmp_path``, and the test checks that it is untouched.
"""

import io
import json
import os
import tarfile
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest

from ascend_lab.report import bundle as bundle_mod
from ascend_lab.report import replay
from ascend_lab.report.bundle import BundleError, read_bundle, write_archive

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "fixtures", "bundles", "fake-910b3-x8.tar.gz")
TOP = "ascend-lab-report"
CANARY_TEXT = b"canary: must stay as it is\n"
ESCAPES = "\x1b[2J\x1b]52;c;SGVsbG8=\x07\x9b31m"  # clear screen, OSC 52 clipboard, C1 CSI
UP = "../" * 40  # more than any temp folder is deep: reaches "/" from anywhere


def fixture_files() -> Dict[str, bytes]:
    """The committed bundle's members, read with tarfile alone (not the code under test)."""
    out = {}
    with tarfile.open(FIXTURE) as tar:
        for m in tar:
            data = tar.extractfile(m) if m.isfile() else None
            if data is not None:
                out[m.name.split("/", 1)[1]] = data.read()
    return out


def write_bundle(path: str, files: Dict[str, bytes]) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(f"{TOP}/{name}")
            info.size = len(files[name])
            tar.addfile(info, io.BytesIO(files[name]))
    return path


def edited(tmp_path: Any, name: str, edit: Callable[[Any], Any]) -> str:
    """The fixture bundle with the JSON member ``name`` replaced by ``edit(its data)``."""
    files = fixture_files()
    files[name] = json.dumps(edit(json.loads(files[name]))).encode()
    return write_bundle(str(tmp_path / "hostile.tar.gz"), files)


def canary(tmp_path: Any) -> str:
    path = tmp_path / "home" / "you" / ".bashrc"
    path.parent.mkdir(parents=True)
    path.write_bytes(CANARY_TEXT)
    return str(path)


def tree(folder: str) -> List[str]:
    return sorted(
        os.path.relpath(os.path.join(d, n), folder)
        for d, dirs, names in os.walk(folder)
        for n in dirs + names
    )


def run_status(bundle: str, capsys: Any) -> Tuple[int, str, str]:
    rc = replay.status_cli(bundle, as_json=False)
    out, err = capsys.readouterr()
    return rc, out, err


def run_doctor(bundle: str, capsys: Any) -> Tuple[int, str, str]:
    buf = io.StringIO()
    rc = replay.doctor_cli(bundle, None, "text", [], False, buf)
    out, err = capsys.readouterr()
    return rc, buf.getvalue() + out, err


def with_path_entry(rel: str, entry: Dict[str, Any]) -> Callable[[Any], Any]:
    """Edit for paths.json: ``<root><rel>`` becomes ``entry``, recorded paths under it go."""

    def edit(paths: Any) -> Any:
        where = paths["root"] + rel
        for p in [k for k in paths["paths"] if k == where or k.startswith(where + "/")]:
            del paths["paths"][p]
        paths["paths"][where] = entry
        return paths

    return edit


# -- 1. replay writes outside its sandbox ------------------------------------------------


@pytest.mark.parametrize("cli", [run_status, run_doctor], ids=["status", "doctor"])
@pytest.mark.parametrize(
    "form",
    ["relative", "absolute with ..", "relative through a name"],
)
def test_planted_link_at_the_version_file_writes_nothing_outside(tmp_path, capsys, cli, form):
    target_file = canary(tmp_path)
    link = {
        "relative": UP + target_file.lstrip("/"),
        "absolute with ..": "/" + UP + ".." + target_file,
        "relative through a name": "x/" + UP + target_file.lstrip("/"),
    }[form]
    bundle = edited(
        tmp_path,
        "machine/paths.json",
        with_path_entry("/driver/version.info", {"kind": "symlink", "target": link}),
    )
    rc, out, err = cli(bundle, capsys)
    with open(target_file, "rb") as f:
        assert f.read() == CANARY_TEXT
    assert rc in (0, 1, 2) and "Traceback" not in err


@pytest.mark.parametrize(
    "root",
    ["/../../../../../../../../../../../../../../../../../../../../{out}", "relative/root", ""],
)
def test_root_outside_the_sandbox_is_refused(tmp_path, capsys, root):
    outside = tmp_path / "outside"
    outside.mkdir()
    bundle = edited(
        tmp_path,
        "machine/paths.json",
        lambda p: dict(p, root=root.format(out=str(outside).lstrip("/"))),
    )
    for cli in (run_status, run_doctor):
        rc, out, err = cli(bundle, capsys)
        assert rc == 2 and "root" in err, (out, err)
    assert tree(str(outside)) == []


def test_doctor_facts_root_outside_the_sandbox_is_refused(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    bundle = edited(
        tmp_path, "doctor_facts.json", lambda f: dict(f, root="/" + UP + str(outside).lstrip("/"))
    )
    rc, out, err = run_doctor(bundle, capsys)
    assert rc == 2 and "root" in err
    assert tree(str(outside)) == []


@pytest.mark.parametrize(
    "entry",
    [
        {"kind": "symlink", "target": UP + "{out}"},
        {"kind": "symlink", "target": "/" + UP + "{out}"},
        {"kind": "symlink", "target": "{abs_out}"},
        {"kind": "symlink", "target": "a/b/" + UP + "{out}"},
    ],
    ids=["relative", "absolute ..", "absolute", "deep relative"],
)
@pytest.mark.parametrize("where", ["/driver", "/ascend-toolkit/latest", "/x/new"])
def test_no_link_in_the_sandbox_leads_out_of_it(tmp_path, entry, where):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "version.info").write_bytes(CANARY_TEXT)
    target = entry["target"].format(out=str(outside).lstrip("/"), abs_out=str(outside))
    bundle = edited(
        tmp_path,
        "machine/paths.json",
        with_path_entry(where, {"kind": "symlink", "target": target}),
    )
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    replay.build_sandbox(replay.Recording(bundle), str(sandbox))
    real = os.path.realpath(str(sandbox))
    for dirpath, dirs, names in os.walk(str(sandbox)):
        for n in dirs + names:
            p = os.path.join(dirpath, n)
            assert os.path.commonpath([real, os.path.realpath(p)]) == real, (p, os.readlink(p))
    assert tree(str(outside)) == ["version.info"]
    assert (outside / "version.info").read_bytes() == CANARY_TEXT


# -- 5. bundle bombs --------------------------------------------------------------------


def raw_header(name: bytes, size: int, typeflag: bytes) -> bytes:
    """One 512-byte ustar header, built by hand (tarfile would refuse some of these)."""
    h = bytearray(512)
    h[0 : len(name)] = name
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = typeflag
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 512)


def bomb_archive(path: str, prefix: bytes) -> str:
    """A gzip'd tar: ``prefix`` (raw blocks), then the fixture's members."""
    import gzip

    body = io.BytesIO()
    with tarfile.open(fileobj=body, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in sorted(fixture_files().items()):
            if name.startswith("trace/"):
                continue  # the replay's part is enough, and keeps the archive small
            info = tarfile.TarInfo(f"{TOP}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    raw = body.getvalue()
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(prefix + raw)
    return path


HEADER_BOMB = 8 * 1024 * 1024  # 8 MiB of one header: far over any real name or pax record


def pax_record(key: bytes, value: bytes) -> bytes:
    body = b" " + key + b"=" + value + b"\n"
    n = len(body) + 1
    while len(str(n).encode()) + len(body) != n:
        n += 1
    return str(n).encode() + body


def test_pax_header_bomb_is_refused_before_it_is_read(tmp_path):
    record = pax_record(b"comment", b"a" * HEADER_BOMB)
    prefix = raw_header(b"././@PaxHeader", len(record), b"x") + padded(record)
    prefix += raw_header(b"ascend-lab-report/x.txt", 0, b"0")
    path = bomb_archive(str(tmp_path / "pax.tar.gz"), prefix)
    assert os.path.getsize(path) < HEADER_BOMB // 100  # a small file that asks for a lot
    with pytest.raises(BundleError, match="header"):
        read_bundle(path)


def test_gnu_long_name_bomb_is_refused_before_it_is_read(tmp_path):
    name = b"a" * HEADER_BOMB + b"\0"
    prefix = raw_header(b"././@LongLink", len(name), b"L") + padded(name)
    prefix += raw_header(b"ascend-lab-report/x.txt", 0, b"0")
    path = bomb_archive(str(tmp_path / "gnu.tar.gz"), prefix)
    with pytest.raises(BundleError, match="header"):
        read_bundle(path)


def test_too_many_members_is_refused(tmp_path):
    n = bundle_mod._READ_MAX_MEMBERS + 1 if hasattr(bundle_mod, "_READ_MAX_MEMBERS") else 20001
    empty = b"".join(raw_header(b"ascend-lab-report/e/%d" % i, 0, b"0") for i in range(n))
    path = bomb_archive(str(tmp_path / "many.tar.gz"), empty)
    with pytest.raises(BundleError, match="members"):
        read_bundle(path)


def test_decompression_budget_counts_what_is_skipped(tmp_path, monkeypatch):
    """A member of a type that is not read (here 'Z') still costs its decompressed bytes."""
    cap = 1024 * 1024
    monkeypatch.setattr(bundle_mod, "_READ_MAX_STREAM", cap, raising=False)
    skipped = raw_header(b"ascend-lab-report/skipped", 4 * cap, b"Z") + b"\0" * (4 * cap)
    path = bomb_archive(str(tmp_path / "bomb.tar.gz"), skipped)
    assert os.path.getsize(path) < cap // 10
    with pytest.raises(BundleError, match="decompress"):
        read_bundle(path)


def test_a_bomb_is_exit_2_from_the_command_line(tmp_path, capsys):
    record = pax_record(b"comment", b"a" * HEADER_BOMB)
    prefix = raw_header(b"././@PaxHeader", len(record), b"x") + padded(record)
    prefix += raw_header(b"ascend-lab-report/x.txt", 0, b"0")
    path = bomb_archive(str(tmp_path / "pax.tar.gz"), prefix)
    for cli in (run_status, run_doctor):
        rc, out, err = cli(path, capsys)
        assert rc == 2 and "header" in err


# -- 10. valid JSON of the wrong shape ----------------------------------------------------

WRONG_SHAPES = [
    ("machine/npu-smi/calls.json", []),
    ("machine/npu-smi/calls.json", {"calls": "info"}),
    ("machine/npu-smi/calls.json", {"calls": [{"argv": 5, "ok": True}]}),
    ("machine/npu-smi/calls.json", {"calls": [], "timeout": "soon"}),
    ("machine/npu-smi/calls.json", {"calls": [{"argv": ["info"], "ok": True, "stdout": 7}]}),
    ("machine/paths.json", []),
    ("machine/paths.json", {"root": 5, "paths": {}}),
    ("machine/paths.json", {"root": "/usr/local/Ascend", "paths": ["/x"]}),
    ("machine/paths.json", {"root": "/usr/local/Ascend", "paths": {"/x": "file"}}),
    ("machine/paths.json", {"root": "/usr/local/Ascend", "paths": {"/x": {"kind": "symlink"}}}),
    ("machine/environment.json", ["ASCEND_HOME_PATH"]),
    ("machine/environment.json", {"ASCEND_HOME_PATH": 5}),
    ("versions.json", "2.3.0"),
    ("versions.json", {"mindspore": ["2.3.0"]}),
    ("doctor_facts.json", []),
    ("doctor_facts.json", {"packages": [1, 2]}),
    ("doctor_facts.json", {"groups": "root", "root": 7}),
    ("status.json", ["subject"]),
    ("status.json", {"subject": {"nested": True}}),
]


@pytest.mark.parametrize(
    "name,data", WRONG_SHAPES, ids=[f"{n}={json.dumps(d)[:30]}" for n, d in WRONG_SHAPES]
)
def test_wrong_shape_json_is_exit_2_with_a_message(tmp_path, capsys, name, data):
    bundle = edited(tmp_path, name, lambda _old: data)
    for cli in (run_status, run_doctor):
        rc, out, err = cli(bundle, capsys)
        assert rc == 2, (out, err)
        assert os.path.basename(name) in err and "Traceback" not in err


def test_too_many_recorded_paths_is_exit_2_before_any_is_created(tmp_path, capsys):
    def edit(paths):
        paths["paths"].update({f"/many/{i}": {"kind": "dir"} for i in range(6000)})
        return paths

    bundle = edited(tmp_path, "machine/paths.json", edit)
    rc, out, err = run_status(bundle, capsys)
    assert rc == 2 and "paths.json" in err and "paths" in err


# -- 11. terminal escapes -----------------------------------------------------------------


def escaped_bundle(tmp_path: Any) -> str:
    files = fixture_files()
    env = json.loads(files["machine/environment.json"])
    env["ASCEND_CUSTOM_OPP_PATH"] = "/nope" + ESCAPES
    files["machine/environment.json"] = json.dumps(env).encode()
    calls = json.loads(files["machine/npu-smi/calls.json"])
    for c in calls["calls"]:
        c["stdout"] = c["stdout"].replace("910B3", "910B3" + ESCAPES)
    files["machine/npu-smi/calls.json"] = json.dumps(calls).encode()
    facts = json.loads(files["doctor_facts.json"])
    facts["user"] = "you" + ESCAPES
    files["doctor_facts.json"] = json.dumps(facts).encode()
    return write_bundle(str(tmp_path / "esc.tar.gz"), files)


def has_control(text: str) -> bool:
    return any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in text)


@pytest.mark.parametrize("cli", [run_doctor, run_status], ids=["doctor", "status"])
def test_no_control_character_from_a_bundle_reaches_the_terminal(tmp_path, capsys, cli):
    rc, out, err = cli(escaped_bundle(tmp_path), capsys)
    assert rc in (0, 1)
    assert "910B3" in out  # the planted strings were printed ...
    assert not has_control(out + err)  # ... without their escape sequences


def test_doctor_json_from_a_bundle_is_clean_too(tmp_path, capsys):
    buf = io.StringIO()
    rc = replay.doctor_cli(escaped_bundle(tmp_path), None, "text", [], True, buf)
    assert rc in (0, 1)
    text = json.dumps(json.loads(buf.getvalue()), ensure_ascii=False)
    assert "/nope" in text and not has_control(text)


# -- 13. the report's temp file ----------------------------------------------------------


def test_report_never_writes_through_a_planted_part_link(tmp_path):
    target_file = canary(tmp_path)
    out = tmp_path / "share" / "r.tar.gz"
    out.parent.mkdir()
    os.symlink(target_file, str(out) + ".part")
    files = {k: v for k, v in fixture_files().items() if not k.startswith("trace/")}
    write_archive(files, str(out))
    with open(target_file, "rb") as f:
        assert f.read() == CANARY_TEXT
    assert read_bundle(str(out))["status.json"] == files["status.json"]
    assert os.path.islink(str(out) + ".part")  # left alone, not followed nor replaced
    assert sorted(os.listdir(str(out.parent))) == ["r.tar.gz", "r.tar.gz.part"]


def test_bundle_pages_never_write_through_a_planted_link(tmp_path):
    """``python -m ascend_lab.report view BUNDLE -o DIR`` into a folder someone prepared."""
    from ascend_lab.report.view import traces_html

    target_file = canary(tmp_path)
    out = tmp_path / "pages"
    out.mkdir()
    os.symlink(target_file, str(out / "index.html"))
    traces_html(FIXTURE, str(out))
    with open(target_file, "rb") as f:
        assert f.read() == CANARY_TEXT
    assert not os.path.islink(str(out / "index.html"))
    assert "trace_O0.html" in (out / "index.html").read_text(encoding="utf-8")


def test_a_failed_write_leaves_no_temp_file(tmp_path):
    out = tmp_path / "r.tar.gz"

    class Boom(dict):
        def __iter__(self) -> Iterator[str]:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_archive(Boom(a=b"x"), str(out))
    assert os.listdir(str(tmp_path)) == []


# -- the redactor's patterns on 256 KiB adversarial inputs ---------------------------------

REDACT_CHILD = """
import json, resource
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from ascend_lab.report.redact import Redactor
SIZE = 1 << 18  # 256 KiB: a quadratic pattern needs ~7e10 steps here, far past the timeout

def fill(unit):
    return unit * max(1, SIZE // len(unit))

CASES = {
    "letters": fill("a"), "upper and digits": fill("A1"), "spaces": fill(" "),
    "newlines": fill("\\n"), "colons": fill(":"), "hex and colons": fill("a:"),
    "digits and dots": fill("1."), "password= repeated": fill("password="),
    "password= then one long value": "password=" + fill("x"),
    "scheme:// repeated": fill("http://"), "scheme:// then no @": "http://" + fill("a"),
    "authorization repeated": fill("authorization: bearer "),
    "/home/ repeated": fill("/home/"), "/home/ with spaces": "/home/a" + fill(" a"),
    "serial lines": fill("serial: " + "x" * 300 + "\\n"),
    "json serials": fill('"serial_number": "' + "a" * 100 + '",\\n'),
    "version keys": fill("version="), "version values": fill("Version=1.2.3.4 "),
    "file://": fill("file://"), "double colons": fill("::"),
    "almost keys": fill("A" * 21 + " "), "mixed case": fill("aB3"),
    "binary": bytes(range(256)).decode("latin-1") * (SIZE // 256),
}
out = {}
for name, text in CASES.items():
    r = Redactor()
    red = r.redact(text)
    out[name] = {k: v["distinct"] for k, v in r.summary().items()}
    out[name]["length"] = len(red)
print(json.dumps(out))
"""


def test_redactor_patterns_on_quarter_megabyte_adversarial_inputs():
    """Answering at all within the bound (a fresh interpreter, 1 GiB, 300 s for 23 inputs of
    256 KiB; a quarter of a second of CPU each here, where a quadratic pattern would need
    hours) shows the matching is linear; the answers are checked. The time ratios are measured
    in test_budgets.py."""
    from tests.support.python import run_python

    result = json.loads(run_python(REDACT_CHILD, timeout=300).stdout)
    for name in ("letters", "spaces", "newlines", "colons", "digits and dots", "binary"):
        assert set(result[name]) == {"length"}, name  # nothing found, nothing replaced
    assert result["version values"] == {"length": result["version values"]["length"]}
    assert result["password= then one long value"]["secret"] == 1
    assert result["double colons"] == {"length": 1 << 18}  # "::" is no address


def test_bundle_pages_of_a_bundle_with_clashing_trace_names_still_open(tmp_path):
    """A file where another member needs a folder: that member is left out, no traceback."""
    from ascend_lab.report.view import traces_html

    files = fixture_files()
    dump = sorted(n for n in files if n.startswith("trace/O0/dump/"))[0]
    files[dump + "/inside"] = b"x"
    bundle = write_bundle(str(tmp_path / "clash.tar.gz"), files)
    pages = traces_html(bundle, str(tmp_path / "pages"))
    assert os.path.basename(pages[0]) == "index.html" and len(pages) > 1

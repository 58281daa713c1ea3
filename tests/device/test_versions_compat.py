"""Version files, version ordering, the install-root reader and the compatibility table."""

import json
import os
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_lab.analysis import compat
from ascend_lab.parsers import versions
from ascend_lab.probes import ascend_install as install
from benchmarks.support.fakes.ascend_machine import ASCEND_TREE, make_fake_machine


def _read(*parts):
    with open(os.path.join(ASCEND_TREE, *parts), encoding="utf-8") as f:
        return f.read()


# -- version files ---------------------------------------------------------------------


def test_recorded_version_files():
    drv = _read("driver", "version.info")
    assert versions.parse_version_info(drv) == "24.1.rc1"
    assert versions.firmware_range(drv) == [("7.0.0", "7.2.99")]
    assert versions.parse_version_info(_read("firmware", "version.info")) == "7.1.0.11.220"
    info = _read("ascend-toolkit", "8.3.RC2", "aarch64-linux", "ascend_toolkit_install.info")
    assert versions.parse_toolkit_install_info(info) == "8.3.RC2"
    kv = versions.parse_key_value_file(info)
    assert kv["arch"] == "aarch64" and kv["innerversion"] == "V100R001C23SPC002B210"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "Version=",
        "version = \n",
        "no equals sign here",
        "Version=<script>alert(1)</script>",
        "Version=" + "9" * 200,
        "\x00\x01\x02binary",
        "Version=abc",  # no digit
    ],
)
def test_empty_or_malformed_version_files_give_none(text):
    assert versions.parse_version_info(text) is None
    assert versions.parse_toolkit_install_info(text) is None


def test_quoted_and_spaced_values():
    assert versions.parse_version_info('  Version = "24.1.0"  \n') == "24.1.0"
    assert versions.parse_version_info("# comment\nVersion=25.2.0\n") == "25.2.0"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_version_files_never_raise(text):
    v = versions.parse_version_info(text)
    assert v is None or (v.strip() == v and any(ch.isdigit() for ch in v))
    versions.parse_version_ranges(text)


def test_version_order():
    order = ["8.0.RC1", "8.0.RC2", "8.0.RC3", "8.0.0", "8.1.RC1", "8.3.RC2", "8.5.0"]
    assert sorted(reversed(order), key=versions.version_key) == order
    ms = ["2.2.14", "2.3.0rc1", "2.3.0rc2", "2.3.0", "2.3.1", "2.4.10", "2.10.0"]
    assert sorted(reversed(ms), key=versions.version_key) == ms
    assert versions.version_key("24.1.rc1") < versions.version_key("24.1.RC2")
    assert versions.same_release("8.0.RC2", "8.0.rc2")
    assert versions.same_release("2.4.1", "2.4.1.post1")
    assert versions.same_release("2.4.1", "2.4.1+cpu")
    assert not versions.same_release("2.4.1", "2.4.10")


def test_ranges():
    assert versions.in_range("7.1.0.11.220", "7.0.0", "7.2.99")
    assert not versions.in_range("7.3.0.1", "7.0.0", "7.2.99")
    assert not versions.in_range("6.4.0", "7.0.0", "7.2.99")
    # firmware files write "[23.0.rc3,23.0.rc3.]": every build of 23.0.rc3
    assert versions.parse_version_ranges("[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]") == [
        ("23.0.rc3", "23.0.rc3."),
        ("23.0.0", "23.0.0."),
    ]
    assert versions.in_range("23.0.rc3.b070", "23.0.rc3", "23.0.rc3.")
    assert not versions.in_range("23.0.0", "23.0.rc3", "23.0.rc3.")
    assert versions.parse_version_ranges("garbage [,] [a]") == []


# -- install root ----------------------------------------------------------------------


def test_read_install_with_latest_as_text_file():
    info = install.read_install(ASCEND_TREE)
    assert (info.driver, info.firmware, info.cann) == ("24.1.rc1", "7.1.0.11.220", "8.3.RC2")
    assert info.toolkit_home.endswith(os.path.join("ascend-toolkit", "8.3.RC2"))
    assert info.set_env.endswith("set_env.sh") and info.problems == []


def test_read_install_with_latest_as_symlink(tmp_path):
    m = make_fake_machine(tmp_path, latest_symlink=True)
    assert os.path.islink(os.path.join(m.root, "ascend-toolkit", "latest"))
    info = install.read_install(m.root)
    assert info.cann == "8.3.RC2" and info.toolkit_home.endswith("latest")


def test_read_install_without_latest_picks_highest_version(tmp_path):
    m = make_fake_machine(tmp_path)
    tk = os.path.join(m.root, "ascend-toolkit")
    os.remove(os.path.join(tk, "latest"))
    shutil.copytree(os.path.join(tk, "8.3.RC2"), os.path.join(tk, "8.0.RC2"))
    with open(
        os.path.join(tk, "8.0.RC2", "aarch64-linux", "ascend_toolkit_install.info"), "w"
    ) as f:
        f.write("version=8.0.RC2\n")
    assert install.read_install(m.root).cann == "8.3.RC2"


def test_latest_text_pointing_outside_is_ignored(tmp_path):
    m = make_fake_machine(tmp_path)
    with open(os.path.join(m.root, "ascend-toolkit", "latest"), "w") as f:
        f.write("../../../etc")
    info = install.read_install(m.root)
    assert info.cann == "8.3.RC2"  # fell back to the version directory


def test_missing_root_is_quiet():
    info = install.read_install("/nonexistent/ascend-root")
    assert not info.root_exists and not info.anything_installed and info.problems == []


def test_root_that_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    info = install.read_install(str(f))
    assert not info.root_exists
    ((component, message, fix),) = info.problems
    assert (
        component == "driver" and "not a directory" in message and "ASCEND_LAB_ASCEND_ROOT" in fix
    )


@pytest.mark.parametrize("content", ["", "garbage\x00\xff", "Version=\n"])
def test_bad_version_files_become_problems(tmp_path, content):
    m = make_fake_machine(tmp_path)
    for rel in ("driver/version.info", "firmware/version.info"):
        with open(os.path.join(m.root, rel), "w", encoding="utf-8", errors="replace") as f:
            f.write(content)
    info_file = os.path.join(
        m.root, "ascend-toolkit", "8.3.RC2", "aarch64-linux", "ascend_toolkit_install.info"
    )
    with open(info_file, "w", encoding="utf-8", errors="replace") as f:
        f.write(content)
    info = install.read_install(m.root)
    # the bad info file is said; the version then comes from the folder it sits in (#36)
    assert (info.driver, info.firmware, info.cann) == (None, None, "8.3.RC2")
    assert info.cann_version_from == install.VERSION_FROM_FOLDER
    assert [p[0] for p in info.problems] == ["driver", "firmware", "cann", "cann"]
    assert "ascend_toolkit_install.info is" in info.problems[2][1]
    assert "CANN version 8.3.RC2 read from" in info.problems[3][1]
    assert all(p[2] for p in info.problems)  # each has a fix


def test_version_file_that_is_a_directory(tmp_path):
    m = make_fake_machine(tmp_path)
    path = os.path.join(m.root, "driver", "version.info")
    os.remove(path)
    os.mkdir(path)
    info = install.read_install(m.root)
    assert info.driver is None
    assert any("a directory" in p[1] for p in info.problems)


# -- compatibility table ---------------------------------------------------------------


def test_table_rows_from_the_release_notes():
    rows = compat.load_table()
    assert len(rows) == 13  # and 3 releases no public page pairs (load_unpaired)
    pairs = {(r.mindspore_min, r.mindspore_max): (r.cann, r.driver) for r in rows}
    assert pairs[("2.3.0", "2.3.1")] == ("8.0.RC2", "24.1.RC2")
    assert pairs[("2.2.10", "2.2.14")] == ("7.0.0", None)
    assert pairs[("2.7.0", "2.7.0")] == ("8.2.RC1", "25.2.0")
    assert pairs[("2.7.2", "2.7.2")] == ("8.5.0", "25.5.0")
    assert pairs[("2.9.0", "2.9.0")] == ("9.0.0", "26.0.RC1")
    # Huawei's quick-install guides of 23.0.RC1 / 23.0.RC2 name the MindSpore of each CANN;
    # MindSpore's own install pages of r2.0 / r2.1 name the CANN of 2.0.0 and 2.1.1
    assert pairs[("2.0.0rc1", "2.0.0")] == ("6.3.RC1", "23.0.RC1")
    assert pairs[("2.1.0", "2.1.1")] == ("6.3.RC2", None)


def test_every_row_cites_its_page_and_unpaired_releases_say_where_to_check():
    with open(compat._TABLE_PATH, encoding="utf-8") as f:
        data = json.load(f)
    for row in data["rows"]:
        assert row["source"].startswith(
            (
                "https://www.mindspore.cn/",
                "https://www.hiascend.com/",
                "https://hiascend.com/",
                "https://gitee.com/mindspore/docs/",
            )
        ), row
    # every 2.x release without a documented CANN pairing: a row with cann null and a
    # note (never a guess)
    unpaired = [r["mindspore_min"] for r in data["rows"] if r["cann"] is None]
    assert unpaired == ["2.8.0", "2.10.0", "2.11.0"]
    for version in unpaired:
        assert not any(r.has_mindspore(version) for r in compat.load_table())
        c, _ = compat.check(version, "8.5.0", "25.5.0")
        assert c.verdict == "unknown" and "No public page pairs" in c.message
        # ... and it says where to check: that release's notes
        page = f"https://www.mindspore.cn/docs/en/r{version}/RELEASE.html"
        assert f"(check the CANN and driver it needs at {page})" in c.message


def test_an_unknown_pairing_says_where_to_check_it():
    assert (
        compat.where_to_check("2.10.0") == "https://www.mindspore.cn/docs/en/r2.10.0/RELEASE.html"
    )
    assert compat.where_to_check("2.12.0+cpu") == (
        "https://www.mindspore.cn/docs/en/r2.12.0/RELEASE.html"
    )
    # no page per release candidate or odd text: the list of releases
    for odd in ("2.6.0rc1", "2.x", "", None, "2.10.0/../../x"):
        assert compat.where_to_check(odd) == "https://www.mindspore.cn/versions"
    c, _ = compat.check("2.7.0rc1", None, None)
    assert "https://www.mindspore.cn/versions" in c.message


def test_match():
    c, w = compat.check("2.3.1", "8.0.RC2", "24.1.RC2")
    assert c.verdict == "match" and w == [] and c.expected["cann"] == "8.0.RC2"
    c, _ = compat.check("2.2.12", "7.0.0", "23.0.0")  # no driver in that row
    assert c.verdict == "match"
    c, _ = compat.check("2.4.10", "8.0.0", "24.1.0")
    assert c.verdict == "match"


def test_cann_mismatch_says_what_to_install():
    c, (w,) = compat.check("2.3.1", "8.0.RC3", "24.1.RC3")
    assert c.verdict == "mismatch"
    assert c.install == ["CANN 8.0.RC2", "mindspore==2.4.1"]
    assert w.component == "cann" and w.severity == "error"
    assert "8.0.RC2" in w.fix and "mindspore==2.4.1" in w.fix


def test_driver_too_old():
    c, (w,) = compat.check("2.7.0", "8.2.RC1", "24.1.0")
    assert c.verdict == "mismatch" and w.component == "driver"
    assert c.install == ["NPU driver and firmware 25.2.0 or newer"]


def test_unknown_cases():
    c, (w,) = compat.check("2.10.0", "8.0.RC2", "24.1.RC2")
    assert c.verdict == "unknown" and c.install == ["mindspore==2.3.1"] and w.severity == "info"
    c, w = compat.check("2.10.0", "8.3.RC2", None)
    assert c.verdict == "unknown" and w == []
    c, (w,) = compat.check(None, "8.0.0", None)
    assert c.verdict == "unknown" and "mindspore==2.5.0" in w.fix and w.component == "mindspore"
    c, (w,) = compat.check("2.6.0", None, None)
    assert c.verdict == "unknown" and w.component == "cann" and c.install == ["CANN 8.1.RC1"]


def test_plain_cpu_machine_gets_no_warnings():
    c, w = compat.check("2.10.0", None, None, ascend_present=False)
    assert c.verdict == "unknown" and w == [] and "CPU" in c.message
    c, w = compat.check(None, None, None, ascend_present=False)
    assert w == []


def test_toolkit_from_ascend_home_path_when_root_has_none(tmp_path):
    m = make_fake_machine(tmp_path)
    home = os.path.join(m.root, "ascend-toolkit", "8.3.RC2")
    info = install.read_install(str(tmp_path / "missing-root"), toolkit_hint=home)
    assert info.cann == "8.3.RC2" and info.toolkit_home == home
    assert info.set_env == os.path.join(m.root, "ascend-toolkit", "set_env.sh")
    assert info.driver is None and not info.root_exists
    # a root with its own toolkit wins over the hint
    other = tmp_path / "other"
    other.mkdir()
    assert install.read_install(m.root, toolkit_hint=str(other)).toolkit_home.startswith(m.root)

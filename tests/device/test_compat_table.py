"""The compatibility table's rows, judged the way ``%ascend_status`` judges them.

Each case is a fake Ascend machine (``make_fake_machine``: the fake ``npu-smi`` and the
fixture install tree) whose version files are rewritten to one row's versions, with the
MindSpore version pinned as an installed ``mindspore-<version>.dist-info``; then
``collect_status`` reads them. The toolkit's ``ascend_toolkit_install.info`` keeps the
recorded file's lines (tests/fixtures/real/cann, Huawei's MindCluster guide) with only
``version=`` changed; the driver's ``version.info`` keeps the fixture tree's lines with only
``Version=`` changed. ``ascend_ops_install.info`` is not public as a file: it is written in
the toolkit file's form (tests/fixtures/real/README.md says so).
"""

import json
import os
import re

import pytest

from ascend_lab.analysis import compat
from ascend_lab.i18n import localize
from ascend_lab.probes import device as probe
from benchmarks.support.fakes.ascend_machine import FIXTURES, make_fake_machine

RECORDED_TOOLKIT_INFO = os.path.join(
    FIXTURES, "real", "cann", "cann-8.5.0_aarch64-linux_ascend_toolkit_install.info"
)


def _toolkit_dir(root):
    return os.path.join(root, "ascend-toolkit", "8.3.RC2", "aarch64-linux")


def _with_version(path, key, version, package=None):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(rf"(?m)^{key}=.*$", f"{key}={version}", text)
    if package:
        text = re.sub(r"(?m)^package_name=.*$", f"package_name={package}", text)
    return text


def machine_with(tmp_path, monkeypatch, mindspore, cann, driver=None, ops=None, torch_npu=None):
    """The fake machine with CANN ``cann`` (and the ops package ``ops``: by default, from
    8.5.0 on, the toolkit's own; ``""`` for none), driver ``driver``, MindSpore
    ``mindspore`` (and ``torch_npu``, as its dist-info folder); returns its status."""
    m = make_fake_machine(tmp_path, mindspore=mindspore).activated(monkeypatch, sourced=True)
    if ops is None and compat.version_key(cann) >= compat.version_key("8.5.0"):
        ops = cann
    if torch_npu:
        site = os.path.join(str(tmp_path), "torch_site")
        os.makedirs(os.path.join(site, f"torch_npu-{torch_npu}.dist-info"))
        monkeypatch.syspath_prepend(site)
    folder = _toolkit_dir(m.root)
    with open(os.path.join(folder, "ascend_toolkit_install.info"), "w", encoding="utf-8") as f:
        f.write(_with_version(RECORDED_TOOLKIT_INFO, "version", cann))
    if ops:
        with open(os.path.join(folder, "ascend_ops_install.info"), "w", encoding="utf-8") as f:
            f.write(_with_version(RECORDED_TOOLKIT_INFO, "version", ops, "Ascend-cann-910b-ops"))
    if driver:
        path = os.path.join(m.root, "driver", "version.info")
        text = _with_version(path, "Version", driver)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return probe.collect_status(refresh=True)


# one release of every row family that pairs MindSpore with CANN, with the driver its
# row (or CANN's own HDK row) names, written in the driver file's lower-case form
MATCHING = [
    ("2.0.0", "6.3.RC1", "23.0.rc1"),
    ("2.1.1", "6.3.RC2", None),  # no driver named for these three: any driver passes
    ("2.2.0", "7.0.RC1", None),
    ("2.2.14", "7.0.0", None),
    ("2.3.0rc2", "8.0.RC1", "24.1.rc1"),
    ("2.3.1", "8.0.RC2", "24.1.rc2"),
    ("2.4.1", "8.0.RC3", "24.1.rc3"),
    ("2.5.0", "8.0.0", "24.1.0"),
    ("2.6.0", "8.1.RC1", "25.0.rc1"),
    ("2.7.0", "8.2.RC1", "25.2.0"),
    ("2.7.1", "8.3.RC1", "25.3.rc1"),
    ("2.7.2", "8.5.0", "25.5.0"),
    ("2.9.0", "9.0.0", "26.0.rc1"),
]


def test_every_row_family_has_a_case():
    families = {(r.mindspore_min, r.mindspore_max) for r in compat.load_table()}
    covered = {
        (r.mindspore_min, r.mindspore_max)
        for ms, _c, _d in MATCHING
        for r in compat.load_table()
        if r.has_mindspore(ms)
    }
    assert covered == families


@pytest.mark.parametrize("mindspore,cann,driver", MATCHING)
def test_each_row_reads_as_matched(tmp_path, monkeypatch, mindspore, cann, driver):
    s = machine_with(tmp_path, monkeypatch, mindspore, cann, driver)
    assert s.versions.cann == cann and s.versions.driver == (driver or "24.1.rc1")
    assert s.compatibility.verdict == "match", s.compatibility
    assert f"MindSpore {mindspore} and CANN {cann} match" in s.compatibility.message
    assert not [w for w in s.warnings if w.component in ("cann", "driver", "mindspore")]


def test_a_mismatched_pair_names_both_versions_and_the_right_pairing(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.9.0", "8.5.0", "25.5.0")
    c = s.compatibility
    assert c.verdict == "mismatch"
    assert c.message == "MindSpore 2.9.0 is built for CANN 9.0.0, but CANN 8.5.0 is installed."
    assert c.install == ["CANN 9.0.0", "mindspore==2.7.2"]  # 2.7.2 is 8.5.0's MindSpore
    (w,) = [w for w in s.warnings if w.component == "cann"]
    assert w.severity == "error"
    assert w.fix == "Install CANN 9.0.0, or keep CANN 8.5.0 and pip install mindspore==2.7.2"
    assert "MindSpore 2.9.0" in localize(w.message, "zh") and "CANN 9.0.0" in localize(w.fix, "zh")


def test_a_driver_older_than_the_row_names_the_driver(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.0.0", "6.3.RC1", "22.0.0")
    assert s.compatibility.verdict == "mismatch"
    (w,) = [w for w in s.warnings if w.component == "driver"]
    assert "needs NPU driver 23.0.RC1 or newer; driver 22.0.0 is installed" in w.message


@pytest.mark.parametrize("mindspore", ["2.8.0", "2.10.0", "2.11.0"])
def test_a_release_without_a_public_pairing_says_where_to_check(tmp_path, monkeypatch, mindspore):
    s = machine_with(tmp_path, monkeypatch, mindspore, "9.1.0", "26.1.0")
    c = s.compatibility
    page = f"https://www.mindspore.cn/docs/en/r{mindspore}/RELEASE.html"
    assert c.verdict == "unknown"
    assert c.message == (
        f"No public page pairs MindSpore {mindspore} with a CANN release yet (check the CANN "
        f"and driver it needs at {page})."
    )
    assert page in localize(c.message, "zh") and "CANN" in localize(c.message, "zh")
    assert not [w for w in s.warnings if w.severity == "error"]


def test_an_unknown_future_release_says_where_to_check(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.12.0", "9.2.0", "26.2.rc1")
    c = s.compatibility
    assert c.verdict == "unknown"
    assert c.message == (
        "MindSpore 2.12.0 is not in the compatibility table (check the CANN and driver it "
        "needs at https://www.mindspore.cn/docs/en/r2.12.0/RELEASE.html)."
    )


# -- packages of one install: the ops package against the toolkit ---------------------


def test_ops_paired_with_its_toolkit_gives_no_warning(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.12.0", "9.1.0", "26.1.0", ops="8.5.2")
    assert s.install["ops"] == "8.5.2"  # CANN 9.1.0's notes pair ops 8.5.2 with it
    assert not [w for w in s.warnings if "ops package" in w.message]


def test_ops_the_notes_do_not_pair_with_the_toolkit(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.7.2", "8.5.0", "25.5.0", ops="9.1.0")
    (w,) = [w for w in s.warnings if "ops package" in w.message]
    assert w.component == "cann" and w.severity == "warning"
    assert w.message == (
        "The ops package Ascend-cann-910b-ops 9.1.0 is installed on CANN toolkit 8.5.0; "
        "CANN's release notes pair ops 9.1.0 with toolkit 8.5.2, 9.0.0, 9.1.0"
    )
    assert w.fix.startswith("Install Ascend-cann-910b-ops 8.5.0 (the ops release of toolkit")
    assert "Ascend-cann-910b-ops 9.1.0" in localize(w.message, "zh")


def test_ops_on_a_toolkit_before_the_split(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.7.1", "8.3.RC1", "25.3.rc1", ops="9.0.0")
    (w,) = [w for w in s.warnings if "ops package" in w.message]
    assert w.severity == "error"
    assert "only upgraded separately from CANN 8.5.0 on" in w.message
    assert w.fix.startswith("Install CANN toolkit 9.0.0")


def test_check_packages_without_two_versions_says_nothing():
    assert compat.check_packages(None, "9.0.0") == []
    assert compat.check_packages("9.0.0", None) == []
    assert compat.check_packages("9.0.0", "9.0.0") == []
    # a toolkit newer than the notes read (9.2.0's ops table was not found): silent
    assert compat.check_packages("9.2.0", "9.0.0") == []


# -- the table's data --------------------------------------------------------------------


def _data():
    with open(compat._TABLE_PATH, encoding="utf-8") as f:
        return json.load(f)


def test_every_row_names_its_source():
    data = _data()
    for key in ("rows", "cann_hdk", "ops_toolkit"):
        for row in data[key]:
            assert row["source"].startswith("https://"), row
    for row in data["rows"]:
        if row["cann"] is None:
            assert row["note"] and row["driver"] is None, row


def test_coverage_of_mindspore_and_cann_releases():
    rows = compat.load_table()
    unpaired = compat.load_unpaired()
    # every MindSpore 2.x release from 2.0 to 2.11 has a row: paired or "where to check"
    for v in ["2.0.0", "2.1.0", "2.1.1", "2.2.0", "2.2.10", "2.2.12", "2.2.14", "2.3.0",
              "2.3.1", "2.4.0", "2.4.1", "2.4.10", "2.5.0", "2.6.0", "2.7.0", "2.7.1",
              "2.7.2", "2.8.0", "2.9.0", "2.10.0", "2.11.0"]:  # fmt: skip
        assert any(r.has_mindspore(v) for r in rows + unpaired), v
    assert [r.mindspore_min for r in unpaired] == ["2.8.0", "2.10.0", "2.11.0"]
    # CANN releases with their HDK pairing
    for cann, hdk in [
        ("6.3.RC1", "23.0.RC1"),
        ("6.3.RC2", "23.0.RC2"),
        ("7.0.RC1", "23.0.RC3"),
        ("7.0.0", "23.0.0"),
        ("8.0.RC1", "24.1.RC1"),
        ("8.0.RC2", "24.1.RC2"),
        ("8.0.RC3", "24.1.RC3"),
        ("8.0.0", "24.1.0"),
        ("8.1.RC1", "25.0.RC1"),
        ("8.2.RC1", "25.2.0"),
        ("8.3.RC1", "25.3.RC1"),
        ("8.5.0", "25.5.1"),
        ("8.5.1", "25.5.1"),
        ("8.5.2", "26.0.RC1"),
        ("9.0.0", "26.0.RC1"),
        ("9.0.1", "26.0.RC3"),
        ("9.1.0", "26.0.RC1"),
        ("9.1.1", "26.1.1"),
        ("9.2.0", "26.2.RC1"),
    ]:
        row = compat.hdk_for(cann)
        assert row is not None and row.hdk == hdk, cann


# CANN 6.3.RC2 / 7.0.x: paired on MindSpore's versions page with the Ascend Training Solution
# (23.0.RC2, 23.0.RC3, 23.0.0) that holds the driver; that page names no minimum (hdk_min null)
HDK_ROWS_FROM_THE_VERSIONS_PAGE = [
    ("2.1.1", "6.3.RC2", "23.0.rc2", "23.0.rc1"),
    ("2.2.0", "7.0.RC1", "23.0.rc3", "23.0.rc2"),
    ("2.2.14", "7.0.0", "23.0.0", "23.0.rc3"),
]


@pytest.mark.parametrize("mindspore,cann,paired,older", HDK_ROWS_FROM_THE_VERSIONS_PAGE)
def test_cann_6_3_and_7_0_with_their_paired_driver(
    tmp_path, monkeypatch, mindspore, cann, paired, older
):
    assert compat.hdk_for(cann).hdk.lower() == paired
    s = machine_with(tmp_path, monkeypatch, mindspore, cann, paired)
    assert s.versions.cann == cann and s.versions.driver == paired
    assert s.compatibility.verdict == "match", s.compatibility
    assert not [w for w in s.warnings if w.component in ("cann", "driver", "mindspore")]


@pytest.mark.parametrize("mindspore,cann,paired,older", HDK_ROWS_FROM_THE_VERSIONS_PAGE)
def test_cann_6_3_and_7_0_with_an_older_driver_get_no_claimed_minimum(
    tmp_path, monkeypatch, mindspore, cann, paired, older
):
    # the page pairs a release but states no oldest compatible HDK: no warning is made up
    assert compat.check_hdk(cann, older) is None
    s = machine_with(tmp_path, monkeypatch, mindspore, cann, older)
    assert s.versions.driver == older
    assert not [w for w in s.warnings if w.component == "driver"]


@pytest.mark.parametrize("cann", ["8.2.RC2", "8.3.RC2"])
def test_cann_releases_without_a_public_hdk_pairing_have_no_row(tmp_path, monkeypatch, cann):
    # both exist (MindIE 2.1.RC2 / 2.2.RC1 pair with them) but no page found names their HDK
    assert compat.hdk_for(cann) is None
    assert compat.check_hdk(cann, "23.0.0") is None
    s = machine_with(tmp_path, monkeypatch, "2.7.1", cann, "23.0.0")
    assert s.versions.cann == cann
    assert not [w for w in s.warnings if w.component == "driver" and "Ascend HDK" in w.message]


def test_an_hdk_row_without_a_stated_minimum_gives_no_driver_warning():
    assert compat.check_hdk("8.2.RC1", "24.1.0") is None  # the page names only 25.2.0
    assert compat.check_hdk("9.2.0", "25.2.0") is not None  # 9.2.0's notes: N for 25.2.X


def test_a_toolkit_from_85_without_its_ops_package(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.7.2", "8.5.0", "25.5.0", ops="")
    (w,) = [w for w in s.warnings if "without its ops package" in w.message]
    assert w.severity == "error" and w.component == "cann"
    assert "from CANN 8.5.0 the ops package is required" in w.message
    assert "Ascend-cann-<chip>-ops_8.5.0_linux-<arch>.run --install" in w.fix
    assert "8.5.0" in localize(w.message, "zh") and localize(w.message, "zh") != w.message


def test_a_toolkit_before_85_needs_no_ops_package(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.7.1", "8.3.RC1", "25.3.rc1", ops="")
    assert not [w for w in s.warnings if "ops package" in w.message]


# -- torch_npu against CANN (Ascend Extension for PyTorch's version table) ---------------


def test_torch_npu_built_for_the_installed_cann(tmp_path, monkeypatch):
    s = machine_with(
        tmp_path, monkeypatch, "2.6.0", "8.1.RC1", "25.0.rc1", torch_npu="2.1.0.post12"
    )
    assert not [w for w in s.warnings if "torch_npu" in w.message]


def test_torch_npu_built_for_another_cann(tmp_path, monkeypatch):
    s = machine_with(tmp_path, monkeypatch, "2.7.0", "8.2.RC1", "25.2.0", torch_npu="2.1.0.post12")
    (w,) = [w for w in s.warnings if "torch_npu" in w.message]
    assert (
        w.message
        == "torch_npu 2.1.0.post12 is the build for CANN 8.1.RC1, but CANN 8.2.RC1 is installed"
    )
    assert w.fix.startswith("pip install torch_npu==2.1.0.post13  (the build for CANN 8.2.RC1)")
    assert "2.1.0.post12" in localize(w.message, "zh") and localize(w.fix, "zh") != w.fix


def test_torch_npu_with_no_build_for_the_installed_cann(tmp_path, monkeypatch):
    w = compat.check_torch_npu("8.0.RC3", "2.2.0")  # 2.2.0: the 8.0.RC1 build; none on RC3
    assert w is not None and w.fix.startswith("Install CANN 8.0.RC1, or the torch_npu build")
    assert compat.check_torch_npu("8.0.RC3", "9.9.9") is None  # a build the table lacks
    assert compat.check_torch_npu(None, "2.2.0") is None

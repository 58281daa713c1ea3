"""The install probe on every real CANN layout collected for #36, and on bad version files.

The layouts are ``tests/fixtures/real/cann/layouts/<case>/`` (provenance in each
``case.json`` and in ``tests/fixtures/real/README.md``), laid out as fake machines by
``tests/device/layout_cases.py`` and read through :func:`ascend_install.discover`, the code
path a real machine takes; ``tests/device/measure_install_layouts.py`` prints the same
judgement as numbers. Files the tests write that are not real artifacts say so.
"""

import json
import os
import shutil

import jsonschema
import pytest

from ascend_lab.model.device_status import SCHEMA_PATH, DeviceStatus
from ascend_lab.parsers import versions
from ascend_lab.probes import ascend_install as install
from tests.device import layout_cases

CASES = layout_cases.names()
with open(SCHEMA_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)


@pytest.fixture
def clean_env(monkeypatch):
    for key in list(os.environ):
        if key.startswith(("ASCEND_", "ATB_")) or key == "CONDA_PREFIX":
            monkeypatch.delenv(key, raising=False)


def test_the_collection_is_as_described():
    assert len(CASES) >= 20
    halves = {layout_cases.half(n) for n in CASES}
    assert halves == {"dev", "held-out"}
    for name in CASES:
        case = layout_cases.load(name)
        for key in ("source", "what", "layout_from", "tree", "expect"):
            assert case.get(key), (name, key)
        for spec in case["tree"].values():
            kind, _, arg = spec.partition(":")
            if kind in ("file", "listing"):
                assert os.path.isfile(os.path.join(layout_cases.LAYOUTS, name, arg)), (name, arg)


@pytest.mark.parametrize("name", CASES)
def test_each_real_layout_reads_as_its_source_says(name, tmp_path, clean_env):
    case = layout_cases.load(name)
    machine, info = layout_cases.read(case, str(tmp_path / "machine"))
    result = layout_cases.judge(case, info, machine)
    wrong = {f: (w, g) for f, (w, g, ok) in result["fields"].items() if ok is not True}
    assert result["outcome"] == "right", (wrong, result["reasons"])
    # the status JSON of the reading validates (the install block carries the new fields)
    jsonschema.validate(DeviceStatus(install=info.to_dict()).to_dict(), SCHEMA)


# -- the files' forms, one parser each ------------------------------------------------------


def _case_text(case, file_name):
    return layout_cases._read_case_file(case, file_name)


CFG, ATB = versions.parse_version_cfg, versions.parse_atb_version_info
FORMS = [  # (case, file, parser, version): version.cfg, then ATB's version.info
    ("vllm-ascend-629-toolkit-8.1.RC1-x86_64-version-cfg", "version.cfg", CFG, "8.1.RC1"),
    ("mindie-2.1.RC2-image-latest-dir-atb", "version.cfg", CFG, "8.2.RC2"),
    ("mindie-2.0.T3.1-image-version-cfg-atb", "version.cfg", CFG, "8.0.T63"),
    ("ascend-samples-11-cann-6.0.1-310P3-version-cfg", "version.cfg", CFG, "6.0.1"),
    ("vllm-ascend-451-cat-n-8.0.0-atb-toolbox", "version.cfg.cat-n", CFG, "8.0.0"),
    ("mindie-2.1.RC2-image-latest-dir-atb", "atb_version.info", ATB, "8.2.RC2"),  # indented
    ("mindie-2.0.T3.1-image-version-cfg-atb", "atb_version.info", ATB, "8.0.T63"),
    ("vllm-ascend-451-cat-n-8.0.0-atb-toolbox", "atb_version.info.cat-n", ATB, "8.0.0"),
    ("mindie-2.1.RC1-component-version-files", "atb_version.info", ATB, "8.2.RC1"),
    ("report-cann-9.1.0-x86_64-nnal-9.1.0", "atb_version.info", ATB, "9.1.0"),  # not indented
]


@pytest.mark.parametrize("case, file_name, parse, version", FORMS)
def test_version_cfg_and_atb_version_info_forms(case, file_name, parse, version):
    assert parse(_case_text(case, file_name)) == version


def test_atb_models_version_info_is_not_nnal():
    """MindIE's atb-models/version.info ('ATB-Models Version : 2.0.T3.B010') is another
    product: it gives no NNAL version."""
    text = _case_text("mindie-2.0.T3.1-image-version-cfg-atb", "atb-models_version.info")
    assert versions.parse_atb_version_info(text) is None


def test_component_version_info_before_and_after_8_5():
    before = _case_text("mindie-2.1.RC1-component-version-files", "toolkit_version.info")
    assert versions.parse_component_version_info(before) == "8.2.RC1"  # not 8.2.0.0.201
    after = _case_text("report-cann-9.2.0-beta.2-custom-path", "opp_version.info")
    assert versions.parse_component_version_info(after) == "9.2.0-beta.2"  # version_dir=cann
    assert versions.parse_component_version_info("Version=8.2.0.0.201\n") is None


def test_folder_names_and_arch_names():
    assert versions.version_from_folder_name("cann-9.2.0-beta.2") == "9.2.0-beta.2"
    assert versions.version_from_folder_name("mxVision-5.0.RC3") is None
    assert versions.normal_arch("arm64-linux") == "aarch64"
    assert versions.normal_arch("x86_64-linux") == "x86_64"
    assert versions.normal_arch("bin") is None


def test_toolkit_install_path_key():
    text = _case_text(
        "vm-etc-ascend-install-info-toolkit-installpath-9.0.0", "etc_ascend_install.info"
    )
    assert versions.parse_toolkit_install_path(text) == "/home/ubuntu/Ascend/cann-9.0.0"
    assert versions.parse_install_path(text) == "/home/ubuntu/Ascend"


# -- NNAL / ATB against the toolkit ---------------------------------------------------------


def _machine(tmp_path, name, extra=None):
    case = layout_cases.load(name)
    if extra:
        case["tree"] = dict(case["tree"], **extra)
    return layout_cases.read(case, str(tmp_path / "machine"))


def _reread(name, machine):
    """Read a case's machine again, after the test changed a file in it."""
    return install.discover(
        environ=layout_cases.environ(layout_cases.load(name), machine),
        locations=install.Locations(
            cann_install_info=machine.at("/etc/Ascend/ascend_cann_install.info"),
            driver_install_info=machine.at("/etc/ascend_install.info"),
            default_root=machine.at("/usr/local/Ascend"),
        ),
    )


def test_atb_of_another_release_than_the_toolkit_is_flagged(tmp_path, clean_env):
    """Two real files on one machine: the 8.1.RC1 toolkit of vllm-ascend#629 and the 8.0.0
    ATB version.info of vllm-ascend#451 (put together here)."""
    src = os.path.join(layout_cases.LAYOUTS, "vllm-ascend-451-cat-n-8.0.0-atb-toolbox")
    machine, info = _machine(
        tmp_path,
        "vllm-ascend-629-toolkit-8.1.RC1-x86_64-version-cfg",
        {"/usr/local/Ascend/nnal/atb/latest/version.info": "text:"},
    )
    target = os.path.join(machine.at("/usr/local/Ascend/nnal/atb/latest/version.info"))
    with open(target, "w", encoding="utf-8") as f:
        f.write(layout_cases._uncat(open(os.path.join(src, "atb_version.info.cat-n")).read()))
    mixed = _reread("vllm-ascend-629-toolkit-8.1.RC1-x86_64-version-cfg", machine)
    assert mixed.cann == "8.1.RC1" and mixed.atb == "8.0.0"
    assert mixed.atb_matches is False
    said = [m for c, m, fix in mixed.problems if "NNAL/ATB 8.0.0" in m]
    assert said and "8.1.RC1" in said[0]
    fixes = [fix for c, m, fix in mixed.problems if "NNAL/ATB 8.0.0" in m]
    assert "Ascend-cann-nnal_8.1.RC1_linux-<arch>.run" in fixes[0]


def test_atb_matching_the_toolkit_says_nothing(tmp_path, clean_env):
    machine, info = _machine(tmp_path, "report-cann-9.1.0-x86_64-nnal-9.1.0")
    assert info.atb == "9.1.0" and info.atb_matches is True
    assert not [m for c, m, f in info.problems if "NNAL" in m]
    # the status names it, with the folder it was read from, and its JSON validates
    status = DeviceStatus(install=info.to_dict())
    lines = {t: v for t, v, _ in status.install_lines()}
    atb_home = machine.at("/usr/local/Ascend/nnal/atb/latest")  # via ATB_HOME_PATH
    assert lines["NNAL/ATB: {}"] == f"9.1.0 ({atb_home})"
    jsonschema.validate(status.to_dict(), SCHEMA)


def test_pre_release_atb_matches_its_release():
    assert install._release("8.0.RC2.beta1") == "8.0.RC2"
    assert install._release("9.2.0-beta.2") == "9.2.0"
    assert install._release("8.1.RC1") == "8.1.RC1"


# -- garbage in a version file: a reason, never a traceback ----------------------------------

GARBAGE = {
    "binary": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4,
    "html": b"<html><body>404 Not Found</body></html>\n",
    "half a line": b"version=",
    "brackets": b"toolkit_running_version=[[[:::]]]\nruntime_running_version=[\n",
    "huge": b"version=8.1.RC1\n" + b"#" * (70 * 1024),
    "latin-1": "Version=8.0.\xe9\n".encode("latin-1"),
}


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_garbage_toolkit_files_give_a_reason(kind, tmp_path, clean_env):
    """The real 8.3.RC2 layout with its install-info file replaced by garbage (written here)."""
    machine, _info = _machine(tmp_path, "vllm-ascend-5606-toolkit-8.3.RC2")
    path = machine.at(
        "/usr/local/Ascend/ascend-toolkit/8.3.RC2/aarch64-linux/ascend_toolkit_install.info"
    )
    with open(path, "wb") as f:
        f.write(GARBAGE[kind])
    info = _reread("vllm-ascend-5606-toolkit-8.3.RC2", machine)
    # the folder still names 8.3.RC2, but the garbage file is said, with why
    said = [m for c, m, f in info.problems if "ascend_toolkit_install.info is" in m]
    assert said, info.problems
    if kind == "huge":
        assert "too large" in said[0] and "65536" in said[0]
    if kind == "binary":
        assert "binary" in said[0]
    assert info.cann == "8.3.RC2" and info.cann_version_from == install.VERSION_FROM_FOLDER
    assert any("CANN version 8.3.RC2 read from" in m for c, m, f in info.problems)


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_garbage_atb_and_driver_files_give_a_reason(kind, tmp_path, clean_env):
    machine, _info = _machine(tmp_path, "mindie-2.1.RC2-image-latest-dir-atb")
    atb = machine.at("/usr/local/Ascend/nnal/atb/latest/version.info")
    cfg = machine.at("/usr/local/Ascend/ascend-toolkit/latest/version.cfg")
    driver = machine.at("/usr/local/Ascend/driver/version.info")
    for path in (atb, cfg, driver):
        with open(path, "wb") as f:
            f.write(GARBAGE[kind])
    info = _reread("mindie-2.1.RC2-image-latest-dir-atb", machine)
    messages = " | ".join(m for c, m, f in info.problems)
    assert atb in messages and driver in messages
    assert info.driver is None and info.atb is None
    # with version.cfg unreadable, the version comes from what latest's links point into
    assert info.cann == "8.2.RC2" and info.cann_version_from == install.VERSION_FROM_FOLDER


def test_a_fifo_named_version_cfg_is_not_waited_on(tmp_path, clean_env):
    machine, _info = _machine(tmp_path, "ascend-samples-11-cann-6.0.1-310P3-version-cfg")
    cfg = machine.at("/usr/local/Ascend/ascend-toolkit/latest/version.cfg")
    os.remove(cfg)
    os.mkfifo(cfg)
    text, why = install.read_small_text(cfg)
    assert text is None and why


def test_toolkit_install_path_naming_the_product_folder(tmp_path, clean_env):
    """``Toolkit_InstallPath=`` naming ``ascend-toolkit`` (the folder holding latest and
    set_env.sh, as CANN's build scripts source it); the root is nowhere else (written here
    in the key's form; the info file is vllm-ascend#834's, real)."""
    base = tmp_path / "machine"
    src = os.path.join(layout_cases.LAYOUTS, "vllm-ascend-834-custom-root-8.1.RC1.alpha001")
    home = base / "opt" / "cann" / "ascend-toolkit" / "8.1.RC1.alpha001" / "aarch64-linux"
    home.mkdir(parents=True)
    shutil.copyfile(os.path.join(src, "ascend_toolkit_install.info"), home / install.TOOLKIT_INFO)
    os.symlink("8.1.RC1.alpha001", base / "opt" / "cann" / "ascend-toolkit" / "latest")
    etc = base / "etc" / "Ascend"
    etc.mkdir(parents=True)
    (etc / "ascend_cann_install.info").write_text(
        f"Toolkit_InstallPath={base}/opt/cann/ascend-toolkit\n"
    )
    (base / "home").mkdir()
    info = install.discover(
        environ={"HOME": str(base / "home")},
        locations=install.Locations(
            cann_install_info=str(etc / "ascend_cann_install.info"),
            driver_install_info=str(base / "etc" / "ascend_install.info"),
            default_root=str(base / "usr" / "local" / "Ascend"),
        ),
    )
    assert info.cann == "8.1.RC1.alpha001" and info.cann_arch == "aarch64"
    assert info.cann_source == "ascend_cann_install.info"

"""CANN layouts the install-info file does not describe (#36): a version from the folder
name, several versions side by side, conda environments.

The trees are laid out as the real installs are (``tests/fixtures/real/README.md``, section
cann/): CANN >= 8.5 installs ``<root>/cann-<version>/`` with the ``cann`` link to it (the
8.5.0 and 9.0.0 images set ``ASCEND_HOME_PATH=/usr/local/Ascend/cann-<version>``), older
CANN ``<root>/ascend-toolkit/<version>/`` with ``latest``; ``conda install
ascend::cann-toolkit`` puts CANN in ``<env>/Ascend`` (sourced with
``<env>/Ascend/cann/set_env.sh``; 8.2.RC1: ``<env>/Ascend/ascend-toolkit/set_env.sh``) and
``conda list`` reads the env's ``conda-meta/``. Files that are not real artifacts are said
to be written here: set_env.sh stand-ins and ``conda-meta`` records (name, version, build:
the fields ``conda list`` shows).
"""

import json
import os

import pytest

from ascend_lab.model.device_status import DeviceStatus
from ascend_lab.parsers import versions
from ascend_lab.probes import ascend_install as install
from ascend_lab.probes import device as probe
from tests.device.test_cann_install import (
    DOCKERFILE_90,
    INFO_85,
    copy_real,
    dockerfile_env,
    make_tree,
    put,
    real,
)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    return make_tree(tmp_path, monkeypatch)


def cann_without_info(root, version, link=False):
    """``<root>/cann-<version>/aarch64-linux/`` as installed, its install-info file lost."""
    home = os.path.join(root, f"cann-{version}")
    os.makedirs(os.path.join(home, "aarch64-linux", "lib64"))
    put(os.path.join(home, "set_env.sh"), "# stand-in (written here)\n")
    if link:
        os.symlink(f"cann-{version}", os.path.join(root, "cann"))
    return home


def conda_record(env_dir, name, version, build="h1234_0"):
    """A ``conda-meta/<name>-<version>-<build>.json`` record (written here, with the fields
    conda list shows: name, version, build)."""
    data = {"name": name, "version": version, "build": build, "channel": "ascend"}
    return put(
        os.path.join(env_dir, "conda-meta", f"{name}-{version}-{build}.json"), json.dumps(data)
    )


# -- a version from the folder name -------------------------------------------------------


def test_folder_names_that_carry_a_version():
    name = versions.version_from_folder_name
    assert name("cann-9.0.0") == "9.0.0"
    assert name("cann-8.5.0") == "8.5.0"
    assert name("8.1.RC1") == "8.1.RC1"
    assert name("8.1.RC1.alpha001") == "8.1.RC1.alpha001"
    for junk in ("latest", "cann", "cann-", "set_env.sh", "9", "cann-x.y", "", "8.0.0/../x", None):
        assert name(junk) is None, junk


def test_the_9_0_image_layout_without_its_info_file(tree):
    """/usr/local/Ascend/cann-9.0.0 (the path the real 9.0.0 image's Dockerfile sets as
    ASCEND_HOME_PATH), the install-info file missing: the version is the folder's."""
    env_90 = dockerfile_env(real(DOCKERFILE_90))
    assert env_90["ASCEND_HOME_PATH"] == "/usr/local/Ascend/cann-9.0.0"
    cann_without_info(tree.root, "9.0.0", link=True)
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "9.0.0" and info.cann_version_from == install.VERSION_FROM_FOLDER
    assert info.cann_info_file is None
    (problem,) = [p for p in info.problems if p[0] == "cann"]
    assert "read from the folder name" in problem[1] and "cann-9.0.0" in problem[1]
    # the same through the environment the image sets
    home = tree.at(env_90["ASCEND_HOME_PATH"])
    info = install.discover(environ=tree.env(ASCEND_HOME_PATH=home), locations=tree.locations)
    assert info.cann == "9.0.0" and info.toolkit_home == home


def test_an_ascend_toolkit_version_folder_without_its_info_file(tree):
    base = os.path.join(tree.root, "ascend-toolkit")
    os.makedirs(os.path.join(base, "8.1.RC1", "aarch64-linux"))
    os.symlink("8.1.RC1", os.path.join(base, "latest"))
    put(os.path.join(base, "set_env.sh"), "# stand-in (written here)\n")
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.1.RC1" and info.cann_version_from == install.VERSION_FROM_FOLDER
    assert info.toolkit_home == os.path.join(base, "latest")
    assert info.set_env == os.path.join(base, "set_env.sh")


def test_a_folder_that_names_no_version_says_so(tree):
    os.makedirs(os.path.join(tree.root, "cann", "aarch64-linux"))  # a plain folder, no link
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann is None and info.toolkit_home == os.path.join(tree.root, "cann")
    (problem,) = [p for p in info.problems if p[0] == "cann"]
    assert "names no version" in problem[1]


def test_an_info_file_still_wins_over_a_folder_name(tree):
    tree.cann85()
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.5.0" and info.cann_version_from == install.VERSION_FROM_INFO
    assert not [p for p in info.problems if p[0] == "cann"]


# -- several versions side by side ---------------------------------------------------------


def test_side_by_side_each_named_with_what_latest_and_set_env_choose(tree):
    """cann-8.5.0 (its real info file) and cann-9.0.0 (no info file), the cann link on
    9.0.0, and a shell whose sourced set_env.sh left ASCEND_HOME_PATH on 8.5.0."""
    tree.cann85(link=False)
    cann_without_info(tree.root, "9.0.0", link=True)
    home_85 = os.path.join(tree.root, "cann-8.5.0")
    info = install.discover(environ=tree.env(ASCEND_HOME_PATH=home_85), locations=tree.locations)
    assert info.cann == "8.5.0" and info.cann_source == "ASCEND_HOME_PATH"  # what runs
    side = {x.version: x for x in info.side_by_side()}
    assert set(side) == {"8.5.0", "9.0.0"}
    assert side["8.5.0"].version_from == install.VERSION_FROM_INFO
    assert side["9.0.0"].version_from == install.VERSION_FROM_FOLDER
    assert side["9.0.0"].latest and not side["9.0.0"].environment and not side["9.0.0"].used
    assert side["8.5.0"].environment and side["8.5.0"].used and not side["8.5.0"].latest
    warning = probe.environment_not_latest(info)
    assert warning is not None and warning.severity == "info" and warning.component == "cann"
    assert "CANN 8.5.0" in warning.message and "points at CANN 9.0.0" in warning.message
    # the status's install block and its lines
    status = DeviceStatus(install=info.to_dict())
    lines = {t: v for t, v, _ in status.install_lines()}
    assert lines["CANN versions side by side: {}"] == "8.5.0 (set_env.sh, used), 9.0.0 (latest)"
    # without the environment, latest decides, and nothing to warn about
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "9.0.0" and info.cann_version_from == install.VERSION_FROM_FOLDER
    assert [x.version for x in info.side_by_side() if x.used] == ["9.0.0"]
    assert probe.environment_not_latest(info) is None


def test_older_toolkits_side_by_side_under_ascend_toolkit(tree):
    """ascend-toolkit/8.0.0 and ascend-toolkit/8.1.RC1.alpha001 (its real info file), latest
    on the older one: the status reports what latest chooses, and lists both."""
    base = os.path.join(tree.root, "ascend-toolkit")
    copy_real(
        "ascend-toolkit-8.1.RC1.alpha001_aarch64-linux_ascend_toolkit_install.info",
        os.path.join(base, "8.1.RC1.alpha001", "aarch64-linux", install.TOOLKIT_INFO),
    )
    os.makedirs(os.path.join(base, "8.0.0", "aarch64-linux"))
    os.symlink("8.0.0", os.path.join(base, "latest"))
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.0.0" and info.cann_version_from == install.VERSION_FROM_FOLDER
    side = [(x.version, x.latest, x.used) for x in info.side_by_side()]
    assert side == [("8.0.0", True, True), ("8.1.RC1.alpha001", False, False)]


def test_one_version_is_not_side_by_side(tree):
    tree.cann85()
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert [x.version for x in info.cann_installs] == ["8.5.0"] and info.side_by_side() == []
    status = DeviceStatus(install=info.to_dict())
    assert "CANN versions side by side: {}" not in {t for t, _, _ in status.install_lines()}


# -- conda environments --------------------------------------------------------------------


def test_conda_env_version_from_conda_meta_when_no_info_file(tree):
    """conda install ascend::cann-toolkit==9.0.0: <env>/Ascend/cann/set_env.sh; here the
    install-info file is missing and the folder is not version-named: conda's record says."""
    env_dir = tree.at("/home/user/miniconda3/envs/ms")
    ascend = os.path.join(env_dir, "Ascend")
    os.makedirs(os.path.join(ascend, "cann", "aarch64-linux"))
    put(os.path.join(ascend, "cann", "set_env.sh"), "# stand-in (written here)\n")
    conda_record(env_dir, "cann-toolkit", "9.0.0")
    conda_record(env_dir, "python", "3.11.4")
    info = install.discover(environ=tree.env(CONDA_PREFIX=env_dir), locations=tree.locations)
    assert info.cann == "9.0.0" and info.cann_version_from == install.VERSION_FROM_CONDA
    assert info.cann_source == install.FROM_CONDA
    assert info.set_env == os.path.join(ascend, "cann", "set_env.sh")
    (problem,) = [p for p in info.problems if p[0] == "cann"]
    assert "conda-meta" in problem[1] and "cann-toolkit-9.0.0" in problem[1]


def test_conda_env_without_cann_gives_the_reason(tree):
    env_dir = tree.at("/home/user/miniconda3/envs/ms")
    conda_record(env_dir, "python", "3.11.4")
    info = install.discover(environ=tree.env(CONDA_PREFIX=env_dir), locations=tree.locations)
    assert info.cann is None
    (problem,) = [p for p in info.problems if p[0] == "cann"]
    assert "No CANN in the conda environment" in problem[1] and "cann-toolkit" in problem[1]
    assert "conda install ascend::cann-toolkit" in problem[2]
    # conda says the package is there, but its files are not
    conda_record(env_dir, "cann-toolkit", "8.5.0")
    info = install.discover(environ=tree.env(CONDA_PREFIX=env_dir), locations=tree.locations)
    (problem,) = [p for p in info.problems if p[0] == "cann"]
    assert "conda lists cann-toolkit 8.5.0" in problem[1]


def test_conda_env_of_the_running_python_without_activation(tree):
    """A kernel started with <env>/bin/python has no $CONDA_PREFIX: the Python's own prefix
    (sys.prefix) is looked at when it is a conda env."""
    env_dir = tree.at("/opt/conda/envs/ms")
    conda_record(env_dir, "cann-toolkit", "8.5.0")
    tree.cann85(root=os.path.join(env_dir, "Ascend"))
    locations = install.Locations(
        cann_install_info=tree.locations.cann_install_info,
        driver_install_info=tree.locations.driver_install_info,
        default_root=tree.locations.default_root,
        python_prefix=env_dir,
    )
    info = install.discover(environ=tree.env(), locations=locations)
    assert info.cann == "8.5.0" and info.cann_source == install.FROM_CONDA
    assert info.cann_version_from == install.VERSION_FROM_INFO
    # a prefix that is not a conda env is not looked at
    plain = install.Locations(default_root=tree.root, python_prefix=tree.home)
    assert not any(
        "Ascend" in x.path and tree.home in x.path
        for x in install.discover(environ={"PATH": "/bin"}, locations=plain).looked
    )


def test_conda_meta_records():
    assert versions.parse_conda_meta('{"name": "cann-toolkit", "version": "9.0.0"}') == (
        "cann-toolkit",
        "9.0.0",
    )
    for junk in ("", "[]", "{", '{"name": 1, "version": "9"}', '{"name": "x", "version": "../"}'):
        assert versions.parse_conda_meta(junk) is None


def test_the_real_85_info_file_names_the_version_folder():
    """The real 8.5.0 info file records path=/usr/local/Ascend/cann-8.5.0/<arch>-linux: the
    folder name and the file agree, which is what lets the folder stand in for the file."""
    for name in INFO_85.values():
        kv = versions.parse_key_value_file(real(name))
        folder = kv["path"].split("/")[-2]
        assert versions.version_from_folder_name(folder) == kv["version"] == "8.5.0"

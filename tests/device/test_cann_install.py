"""Finding CANN in every install layout, on fake trees built from real public files.

The files in ``tests/fixtures/real/cann/`` (provenance: ``tests/fixtures/real/README.md``)
are copied verbatim into a tree under ``tmp_path`` laid out as the real install is (CANN
8.5's ``cann-<version>`` + ``cann`` link, ``ascend-toolkit/<version>`` + ``latest``,
``~/Ascend``, ``$CONDA_PREFIX/Ascend``). The system paths discovery reads (``/etc/...``,
``/usr/local/Ascend``) are given as :class:`Locations` pointing into the tree, so the code
path is the one a real machine takes. Where a test writes a file that is not a real
artifact (a set_env.sh stand-in, an ``ascend_cann_install.info`` in its documented
``Install_Path=`` format), it says so.
"""

import argparse
import json
import os
import re
import shutil

import jsonschema
import pytest

from ascend_lab.analysis import compat
from ascend_lab.kernel import cli_install, setenv
from ascend_lab.model.device_status import SCHEMA_PATH as STATUS_SCHEMA_PATH
from ascend_lab.parsers import versions
from ascend_lab.probes import ascend_install as install
from ascend_lab.probes import device as probe
from benchmarks.support.fakes.ascend_machine import ASCEND_TREE, make_fake_machine

REAL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
REAL = os.path.join(REAL, "real", "cann")
INFO_85 = {
    "aarch64": "cann-8.5.0_aarch64-linux_ascend_toolkit_install.info",
    "x86_64": "cann-8.5.0_x86_64-linux_ascend_toolkit_install.info",
}
INFO_81 = "ascend-toolkit-8.1.RC1.alpha001_aarch64-linux_ascend_toolkit_install.info"
DOCKERFILE_85 = "cann-8.5.0-910b-ubuntu22.04-py3.11.Dockerfile"
DOCKERFILE_90 = "cann-9.0.0-910b-ubuntu22.04-py3.11.Dockerfile"
DRIVER_INFO = "etc_ascend_install.info"
SCHEMA = json.load(open(STATUS_SCHEMA_PATH))


def real(name):
    with open(os.path.join(REAL, name), encoding="utf-8") as f:
        return f.read()


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def copy_real(name, dest):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(os.path.join(REAL, name), dest)
    return dest


def dockerfile_env(text):
    """The ``ENV`` values of a Dockerfile, ``${VAR}`` expanded in order (as docker does)."""
    env = {}
    for m in re.finditer(r"^ENV ([A-Z_][A-Z0-9_]*)=(\S*)$", text, re.M):
        value = re.sub(r"\$\{?([A-Z_][A-Z0-9_]*)\}?", lambda v: env.get(v.group(1), ""), m.group(2))
        env[m.group(1)] = value
    return env


class Tree:
    """A machine's filesystem under ``tmp_path``: ``/etc``, ``/usr/local/Ascend``, a home."""

    def __init__(self, tmp_path):
        self.base = str(tmp_path / "machine")
        self.etc = os.path.join(self.base, "etc")
        self.root = self.at("/usr/local/Ascend")
        self.home = self.at("/home/user")
        os.makedirs(self.root)
        os.makedirs(self.home)
        self.locations = install.Locations(
            cann_install_info=os.path.join(self.etc, "Ascend", "ascend_cann_install.info"),
            driver_install_info=os.path.join(self.etc, "ascend_install.info"),
            default_root=self.root,
        )

    def at(self, path):
        """A real machine's absolute path, inside the tree."""
        return self.base + path

    def env(self, **extra):
        out = {"HOME": self.home, "PATH": "/usr/bin:/bin"}
        out.update(extra)
        return out

    def cann85(self, root=None, arch="aarch64", link=True):
        """CANN 8.5.0 as its installer lays it out: ``cann-8.5.0/<arch>-linux/...info``,
        ``cann -> cann-8.5.0``, ``cann/set_env.sh`` (a stand-in: the real script is not
        public; it exports what the 8.5.0 image's Dockerfile says set_env.sh sets)."""
        root = root or self.root
        home = os.path.join(root, "cann-8.5.0")
        copy_real(INFO_85[arch], os.path.join(home, f"{arch}-linux", install.TOOLKIT_INFO))
        put(os.path.join(home, "set_env.sh"), stand_in_set_env(DOCKERFILE_85, self.base))
        if link:
            os.symlink("cann-8.5.0", os.path.join(root, "cann"))
        return home


def stand_in_set_env(dockerfile, base):
    """A set_env.sh exporting the toolkit variables the image's Dockerfile copied from the
    real set_env.sh, with /usr/local/Ascend moved into the tree (written here, not real)."""
    env = dockerfile_env(real(dockerfile))
    lines = ["# stand-in, exports the values of " + dockerfile]
    for key in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH"):
        lines.append(f'export {key}="{base + env[key]}"')
    lines.append(
        'export LD_LIBRARY_PATH="{}/lib64:$LD_LIBRARY_PATH"'.format(base + env["ASCEND_HOME_PATH"])
    )
    return "\n".join(lines) + "\n"


def make_tree(tmp_path, monkeypatch):
    """A :class:`Tree`, with this process's Ascend and conda variables out of the way."""
    for key in list(os.environ):
        if key.startswith("ASCEND_") or key == "CONDA_PREFIX":
            monkeypatch.delenv(key, raising=False)
    t = Tree(tmp_path)
    monkeypatch.setenv("HOME", t.home)
    return t


@pytest.fixture
def tree(tmp_path, monkeypatch):
    return make_tree(tmp_path, monkeypatch)


# -- the real files themselves --------------------------------------------------------------


@pytest.mark.parametrize("arch", ["aarch64", "x86_64"])
def test_cann_85_install_info_files(arch):
    text = real(INFO_85[arch])
    assert versions.parse_toolkit_install_info(text) == "8.5.0"
    kv = versions.parse_key_value_file(text)
    assert kv["arch"] == arch and kv["path"] == f"/usr/local/Ascend/cann-8.5.0/{arch}-linux"


def test_cann_81_install_info_in_a_custom_path():
    kv = versions.parse_key_value_file(real(INFO_81))
    assert versions.parse_toolkit_install_info(real(INFO_81)) == "8.1.RC1.alpha001"
    assert kv["path"] == "/data/8.1/ascend-toolkit/8.1.RC1.alpha001/aarch64-linux"


def test_driver_install_info_names_the_driver_and_firmware_root():
    assert versions.parse_driver_install_paths(real(DRIVER_INFO)) == (
        "/usr/local/Ascend",
        "/usr/local/Ascend",
    )


@pytest.mark.parametrize("dockerfile,version", [(DOCKERFILE_85, "8.5.0"), (DOCKERFILE_90, "9.0.0")])
def test_cann_images_set_ascend_home_path_to_cann_version(dockerfile, version):
    env = dockerfile_env(real(dockerfile))
    assert env["ASCEND_HOME_PATH"] == f"/usr/local/Ascend/cann-{version}"
    assert env["ASCEND_OPP_PATH"] == f"/usr/local/Ascend/cann-{version}/opp"
    assert "source /usr/local/Ascend/ascend-toolkit/set_env.sh" in real(dockerfile)


# -- CANN >= 8.5: cann-<version> and the cann link ------------------------------------------


@pytest.mark.parametrize("arch", ["aarch64", "x86_64"])
def test_cann_85_default_layout(tree, arch):
    home = tree.cann85(arch=arch)
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.5.0"
    assert info.toolkit_home == os.path.join(tree.root, "cann")
    assert info.cann_real_home == os.path.realpath(home)
    assert info.cann_layout == "cann" and info.cann_source == install.FROM_DEFAULT
    assert info.cann_info_file == os.path.join(
        tree.root, "cann", f"{arch}-linux", install.TOOLKIT_INFO
    )
    assert info.set_env == os.path.join(tree.root, "cann", "set_env.sh")


def test_cann_85_without_the_link_uses_the_highest_version_folder(tree):
    tree.cann85(link=False)
    os.makedirs(os.path.join(tree.root, "cann-8.3.0"))  # an older leftover, no version file
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.5.0" and info.cann_layout == "cann-<version>"
    assert info.set_env == os.path.join(tree.root, "cann-8.5.0", "set_env.sh")


def test_status_on_an_85_layout_says_version_where_and_set_env(tree, monkeypatch, tmp_path):
    machine = make_fake_machine(tmp_path / "fake").activated(monkeypatch)  # 8 x 910B3 npu-smi
    monkeypatch.delenv("ASCEND_LAB_ASCEND_ROOT")  # discover, do not use the fake root
    assert machine.root != tree.root
    tree.cann85()
    s = probe.collect_status(refresh=True, locations=tree.locations)
    d = s.to_dict()
    jsonschema.validate(d, SCHEMA)
    assert s.mode == "ascend" and s.versions.cann == "8.5.0"
    assert d["install"]["cann_home"] == os.path.join(tree.root, "cann")
    assert d["install"]["set_env"] == os.path.join(tree.root, "cann", "set_env.sh")
    text = s.to_text()
    assert "CANN       8.5.0" in text
    assert (
        "CANN home: {} -> {}".format(
            os.path.join(tree.root, "cann"), os.path.realpath(os.path.join(tree.root, "cann-8.5.0"))
        )
        in text
    )
    assert "set_env.sh: " + os.path.join(tree.root, "cann", "set_env.sh") in text
    assert not [w for w in s.warnings if "CANN not found" in w.message]
    # the fix for the unsourced environment names that set_env.sh
    env_warning = next(w for w in s.warnings if w.component == "environment")
    assert env_warning.fix.startswith("source " + os.path.join(tree.root, "cann", "set_env.sh"))


def test_kernel_installer_picks_the_set_env_status_reports(tree):
    tree.cann85()
    status_set_env = install.discover(environ=tree.env(), locations=tree.locations).set_env
    args = argparse.Namespace(cpu=False, set_env=None)
    assert cli_install.resolve_set_env(args, tree.locations) == status_set_env
    assert setenv.find_set_env(locations=tree.locations) == status_set_env


def test_sourcing_the_picked_set_env_gives_the_status_an_85_home(tree):
    """The kernel sources the set_env.sh; in the environment it makes, status finds CANN
    through ASCEND_HOME_PATH (the cann-8.5.0 folder the real image's Dockerfile names)."""
    tree.cann85()
    script = setenv.find_set_env(locations=tree.locations)
    changed, error = setenv.source_set_env(script, base_env=tree.env())
    assert error is None
    assert changed["ASCEND_HOME_PATH"] == tree.at("/usr/local/Ascend/cann-8.5.0")
    env = tree.env(**changed)
    info = install.discover(environ=env, locations=tree.locations)
    assert info.cann == "8.5.0" and info.cann_source == "ASCEND_HOME_PATH"
    assert info.toolkit_home == tree.at("/usr/local/Ascend/cann-8.5.0")
    assert info.set_env == os.path.join(info.toolkit_home, "set_env.sh")


# -- older layouts: ascend-toolkit/<version> + latest, nnae, nnrt ---------------------------


def test_ascend_toolkit_latest_in_a_root_named_by_the_install_info(tree):
    """CANN 8.1 installed under /data/8.1 (the path its real install-info file records);
    /etc/Ascend/ascend_cann_install.info says so (written in its documented format)."""
    root = tree.at("/data/8.1")
    version_dir = os.path.join(root, "ascend-toolkit", "8.1.RC1.alpha001")
    copy_real(INFO_81, os.path.join(version_dir, "aarch64-linux", install.TOOLKIT_INFO))
    os.symlink("8.1.RC1.alpha001", os.path.join(root, "ascend-toolkit", "latest"))
    put(os.path.join(root, "ascend-toolkit", "set_env.sh"), "# stand-in\n")
    put(tree.locations.cann_install_info, f"Install_Path={root}\n")
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.1.RC1.alpha001"
    assert info.toolkit_home == os.path.join(root, "ascend-toolkit", "latest")
    assert info.cann_source == "ascend_cann_install.info"
    assert info.set_env == os.path.join(root, "ascend-toolkit", "set_env.sh")
    args = argparse.Namespace(cpu=False, set_env=None)
    assert cli_install.resolve_set_env(args, tree.locations) == info.set_env


@pytest.mark.parametrize(
    "product,info_name",
    [("nnae", "ascend_nnae_install.info"), ("nnrt", "ascend_nnrt_install.info")],
)
def test_inference_only_cann_before_85(tree, product, info_name):
    """nnae keeps its file in latest/, nnrt in latest/<arch>-linux/ (CANN 8.0 docs). No real
    nnae/nnrt file was found: the real toolkit file stands in (only version= is read)."""
    latest = os.path.join(tree.root, product, "8.1.RC1.alpha001")
    where = latest if product == "nnae" else os.path.join(latest, "aarch64-linux")
    copy_real(INFO_81, os.path.join(where, info_name))
    os.symlink("8.1.RC1.alpha001", os.path.join(tree.root, product, "latest"))
    put(os.path.join(tree.root, product, "set_env.sh"), "# stand-in\n")
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.1.RC1.alpha001" and info.cann_layout == product
    assert info.set_env == os.path.join(tree.root, product, "set_env.sh")


def test_85_layout_wins_over_an_older_toolkit_in_the_same_root(tree):
    shutil.copytree(
        os.path.join(ASCEND_TREE, "ascend-toolkit"), os.path.join(tree.root, "ascend-toolkit")
    )
    tree.cann85()
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.5.0"
    assert [x.path for x in info.looked if x.what == "CANN" and x.found][0] == info.cann_info_file


# -- non-root and conda installs ------------------------------------------------------------


def test_non_root_install_in_home(tree):
    tree.cann85(root=os.path.join(tree.home, "Ascend"))
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.5.0" and info.cann_source == install.FROM_HOME
    assert info.set_env == os.path.join(tree.home, "Ascend", "cann", "set_env.sh")


def test_non_root_install_info_file_in_home(tree):
    """${HOME}/Ascend/ascend_cann_install.info records a non-root install (CANN 8.5 docs)."""
    root = tree.at("/opt/cann")
    tree.cann85(root=root)
    put(os.path.join(tree.home, "Ascend", "ascend_cann_install.info"), f"Install_Path={root}\n")
    info = install.discover(environ=tree.env(), locations=tree.locations)
    assert info.cann == "8.5.0" and info.toolkit_home == os.path.join(root, "cann")


def test_conda_install(tree):
    """`conda install ascend::cann-toolkit` puts CANN in <env>/Ascend (CANN 9.0 docs)."""
    prefix = tree.at("/home/user/miniconda3/envs/ms")
    tree.cann85(root=os.path.join(prefix, "Ascend"))
    info = install.discover(environ=tree.env(CONDA_PREFIX=prefix), locations=tree.locations)
    assert info.cann == "8.5.0" and info.cann_source == install.FROM_CONDA
    assert info.set_env == os.path.join(prefix, "Ascend", "cann", "set_env.sh")


# -- the order of the places ----------------------------------------------------------------


def test_order_named_root_then_environment_then_install_info_then_defaults(tree):
    named, recorded = tree.at("/named"), tree.at("/recorded")
    tree.cann85(root=named)
    tree.cann85(root=recorded)
    tree.cann85()  # the default root
    env_home = tree.cann85(root=tree.at("/from-env"))
    put(tree.locations.cann_install_info, f"Install_Path={recorded}\n")

    def source(root=None, **env):
        return install.discover(root, tree.env(**env), tree.locations).cann_source

    assert source(named, ASCEND_HOME_PATH=env_home) == install.FROM_ROOT
    assert source(ASCEND_LAB_ASCEND_ROOT=named, ASCEND_HOME_PATH=env_home) == install.FROM_ROOT
    assert source(ASCEND_TOOLKIT_HOME=env_home) == "ASCEND_TOOLKIT_HOME"
    assert source() == "ascend_cann_install.info"
    os.remove(tree.locations.cann_install_info)
    assert source() == install.FROM_DEFAULT


def test_a_named_root_is_never_mixed_with_the_defaults(tree):
    tree.cann85()  # /usr/local/Ascend has CANN, but the user named another root
    info = install.discover(tree.at("/empty"), tree.env(), tree.locations)
    assert info.cann is None and info.cann_places() == [tree.at("/empty")]


def test_driver_root_from_the_drivers_install_info(tree):
    """The real /etc/ascend_install.info, its paths moved into the tree."""
    driver_root = tree.at("/usr/local/Ascend")
    text = real(DRIVER_INFO).replace("=/usr/local/Ascend", "=" + tree.at("/usr/local/Ascend"))
    put(tree.locations.driver_install_info, text)
    shutil.copytree(os.path.join(ASCEND_TREE, "driver"), os.path.join(driver_root, "driver"))
    shutil.copytree(os.path.join(ASCEND_TREE, "firmware"), os.path.join(driver_root, "firmware"))
    other = install.Locations(
        tree.locations.cann_install_info, tree.locations.driver_install_info, tree.at("/nowhere")
    )
    info = install.discover(environ=tree.env(), locations=other)
    assert info.root == driver_root and info.driver == "24.1.rc1"
    assert info.firmware == "7.1.0.11.220"


# -- nothing found: say where we looked -----------------------------------------------------


def test_nothing_found_lists_every_place_looked(tree):
    prefix = tree.at("/conda")
    env = tree.env(CONDA_PREFIX=prefix, ASCEND_HOME_PATH=tree.at("/gone/cann-9.0.0"))
    info = install.discover(environ=env, locations=tree.locations)
    assert info.cann is None and info.set_env is None
    assert info.cann_places() == [
        tree.at("/gone/cann-9.0.0"),
        tree.root,
        os.path.join(tree.home, "Ascend"),
        os.path.join(prefix, "Ascend"),
    ]
    files = [x.path for x in info.looked if x.what == "install-info file"]
    assert tree.locations.cann_install_info in files
    assert tree.locations.driver_install_info in files


def test_status_lists_where_it_looked(tree, monkeypatch):
    monkeypatch.setenv("ASCEND_HOME_PATH", tree.at("/usr/local/Ascend/cann-9.0.0"))  # image env
    s = probe.collect_status(refresh=True, query_npu_smi=False, locations=tree.locations)
    jsonschema.validate(s.to_dict(), SCHEMA)
    assert s.versions.cann is None
    looked = "CANN not found; looked in: {}, {}, {}".format(
        tree.at("/usr/local/Ascend/cann-9.0.0"), tree.root, os.path.join(tree.home, "Ascend")
    )
    assert looked in s.to_text()
    assert looked in s._repr_html_()  # html.escape leaves "/" and "," alone


def test_driver_without_cann_warns_with_the_places(tree, monkeypatch):
    shutil.copytree(os.path.join(ASCEND_TREE, "driver"), os.path.join(tree.root, "driver"))
    s = probe.collect_status(refresh=True, query_npu_smi=False, locations=tree.locations)
    (w,) = [w for w in s.warnings if w.message.startswith("CANN not found")]
    assert w.component == "cann" and tree.root in w.message
    assert "ASCEND_HOME_PATH" in w.fix


def test_kernel_installer_in_cpu_mode_says_where_it_looked(tree, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    args = argparse.Namespace(
        cpu=False, set_env=None, name="ms-test", device_id=None, display_name=None, force=False
    )
    cli_install.install_from_args(
        args, {"user": False, "prefix": str(tmp_path / "prefix")}, locations=tree.locations
    )
    out = capsys.readouterr().out
    assert "CPU mode: no set_env.sh under" in out and tree.root in out


# -- CANN <-> HDK ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cann,driver,bad",
    [
        ("8.5.0", "24.1.rc1", True),  # 24.1 is older than 25.0.X
        ("8.5.0", "25.0.rc1", False),
        ("9.1.0", "25.0.0", True),  # 9.1.X: N for 25.0.X
        ("9.1.1", "25.2.0", False),
        ("9.2.0", "25.2.0", True),  # 9.2.0: N for 25.2.X
        ("9.2.0", "26.2.rc1", False),
        ("9.0.0-beta.1", "25.5.1", False),
        ("8.3.RC2", "20.0.0", False),  # no row: no verdict from this table
    ],
)
def test_cann_hdk_rows(cann, driver, bad):
    w = compat.check_hdk(cann, driver)
    assert (w is not None) == bad
    if bad:
        assert w.component == "driver" and w.severity == "error" and cann in w.message


def test_cann_hdk_rows_have_sources_and_pairings():
    data = json.load(open(os.path.join(os.path.dirname(compat.__file__), "compat.json")))
    rows = data["cann_hdk"]
    assert {r["cann"] for r in rows} >= {"8.5.0", "9.0.X", "9.1.X", "9.2.0"}
    for r in rows:
        assert r["source"].startswith("https://") and r["hdk"]
        # CANN >= 8.5's notes have a compatibility matrix (the oldest HDK line); the pages
        # of older releases name only the paired HDK
        if compat.version_key(r["cann"]) >= compat.version_key("8.5.0"):
            assert r["hdk_min"], r
    assert compat.hdk_for("9.1.1").hdk == "26.1.1" and compat.hdk_for("9.1.0").hdk == "26.0.RC1"


def test_status_flags_a_driver_too_old_for_cann_85(tree, monkeypatch):
    shutil.copytree(os.path.join(ASCEND_TREE, "driver"), os.path.join(tree.root, "driver"))
    tree.cann85()
    s = probe.collect_status(refresh=True, query_npu_smi=False, locations=tree.locations)
    assert s.versions.cann == "8.5.0" and s.versions.driver == "24.1.rc1"
    assert s.compatibility.verdict == "mismatch"
    assert any("needs Ascend HDK 25.0 or newer" in w.message for w in s.warnings)


def test_where_lines_and_warnings_in_chinese(tree, monkeypatch, tmp_path):
    from ascend_lab.i18n import localize, using

    shutil.copytree(os.path.join(ASCEND_TREE, "driver"), os.path.join(tree.root, "driver"))
    s = probe.collect_status(refresh=True, query_npu_smi=False, locations=tree.locations)
    with using("zh"):
        text = s.to_text()
        (w,) = [w for w in s.warnings if w.component == "cann"]
        assert localize(w.message).startswith("未找到 CANN；已查找：" + tree.root)
    assert "未找到 CANN；已查找：" + tree.root in text
    tree.cann85()
    s = probe.collect_status(refresh=True, query_npu_smi=False, locations=tree.locations)
    with using("zh"):
        text = s.to_text()
        html = s._repr_html_()
        hdk = next(w for w in s.warnings if "HDK" in w.message)
        assert (
            localize(hdk.message)
            == "CANN 8.5.0 需要 Ascend HDK 25.0 或更新版本；当前安装的驱动是 24.1.rc1"
        )
    assert "CANN 目录：" + os.path.join(tree.root, "cann") in text
    assert "找到方式：默认位置" in text and "找到方式：默认位置" in html
    assert "set_env.sh：" + os.path.join(tree.root, "cann", "set_env.sh") in text


def test_one_cann_environment_check_for_status_and_doctor(tree):
    """envcheck.cann_variables is what both status and the doctor judge the variables by."""
    from ascend_lab.doctor.checks import Environment, cann_env_problems
    from ascend_lab.probes import envcheck

    home = tree.cann85()
    env = dockerfile_env(real(DOCKERFILE_85))  # the 8.5.0 image's values, not in this tree
    kinds = [(k, n) for k, n, _v in envcheck.cann_variables(env)]
    # the image's LD_LIBRARY_PATH has ${ASCEND_TOOLKIT_HOME}/lib64: only the folders are absent
    assert kinds == [("missing", "ASCEND_HOME_PATH"), ("missing", "ASCEND_OPP_PATH")]
    facts = Environment(env=env, root=tree.root)
    assert cann_env_problems(facts) == [
        "ASCEND_HOME_PATH=/usr/local/Ascend/cann-8.5.0 does not exist",
        "ASCEND_OPP_PATH=/usr/local/Ascend/cann-8.5.0/opp does not exist",
    ]
    os.makedirs(os.path.join(home, "opp"))
    moved = {"ASCEND_HOME_PATH": home, "ASCEND_OPP_PATH": os.path.join(home, "opp")}
    moved["LD_LIBRARY_PATH"] = os.path.join(home, "lib64")
    assert envcheck.cann_variables(moved) == []
    assert [k for k, _n, _v in envcheck.cann_variables({})] == ["unset", "unset", "no-ascend-ld"]


def test_hdk_mismatch_says_what_to_install(tree):
    shutil.copytree(os.path.join(ASCEND_TREE, "driver"), os.path.join(tree.root, "driver"))
    tree.cann85()
    s = probe.collect_status(refresh=True, query_npu_smi=False, locations=tree.locations)
    assert "NPU driver and firmware Ascend HDK 25.5.1" in s.compatibility.install

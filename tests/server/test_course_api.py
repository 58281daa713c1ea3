"""``GET {base_url}ascend-lab/api/course`` and the extension's configuration."""

import json
from pathlib import Path

import pytest

from ascend_lab.server.config import AscendLabServerConfig
from ascend_lab.server.course_locator import locate_course
from ascend_lab.server.handlers import CourseHandler, StatusHandler
from tests.support.python import run_python


def _notebook(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.fixture
def course_in_root(jp_root_dir):
    _notebook(jp_root_dir / "notebooks" / "01_graphs.ipynb")
    return _notebook(jp_root_dir / "notebooks" / "00_welcome.ipynb")


async def test_course_under_root(jp_fetch, course_in_root, monkeypatch):
    monkeypatch.delenv("ASCEND_LAB_COURSE_DIR", raising=False)
    response = await jp_fetch("ascend-lab", "api", "course")
    assert response.code == 200
    data = json.loads(response.body)
    assert data["path"] == "notebooks/00_welcome.ipynb"
    assert data["absolute"] == str(course_in_root)
    assert data["kernel"] in ("mindspore", None)


def test_course_outside_root_says_so(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = _notebook(tmp_path / "course" / "00_welcome.ipynb")
    data = locate_course(str(outside.parent), str(root), ["python3"])
    assert data["path"] is None
    assert data["absolute"] == str(outside)
    assert "outside the Jupyter server's root" in data["message"]
    assert data["kernel"] is None
    assert "ascend-lab install-kernel" in data["message"]


def test_course_kernel_reported_when_installed(tmp_path):
    _notebook(tmp_path / "notebooks" / "00_welcome.ipynb")
    data = locate_course("", str(tmp_path), ["python3", "mindspore"])
    assert data["path"] == "notebooks/00_welcome.ipynb"
    assert data["kernel"] == "mindspore"
    assert data["message"] == ""


def test_own_notebooks_in_root_are_not_the_course(tmp_path, monkeypatch):
    _notebook(tmp_path / "root" / "analysis.ipynb")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    data = locate_course("", str(tmp_path / "root"), [])
    assert data["path"] != "analysis.ipynb"


def test_config_defaults_from_environment(monkeypatch):
    monkeypatch.setenv("ASCEND_LAB_CACHE_SECONDS", "7.5")
    monkeypatch.setenv("ASCEND_LAB_NPU_SMI_TIMEOUT", "12")
    monkeypatch.setenv("ASCEND_LAB_COURSE_DIR", "/srv/course")
    config = AscendLabServerConfig()
    assert (config.cache_seconds, config.timeout, config.course_dir) == (7.5, 12.0, "/srv/course")


def test_config_bad_environment_falls_back(monkeypatch):
    monkeypatch.setenv("ASCEND_LAB_CACHE_SECONDS", "soon")
    monkeypatch.setenv("ASCEND_LAB_NPU_SMI_TIMEOUT", "-3")
    config = AscendLabServerConfig()
    assert (config.cache_seconds, config.timeout) == (2.0, 5.0)


def test_config_rejects_negative_values():
    with pytest.raises(Exception, match="must be >= 0"):
        AscendLabServerConfig(timeout=-1.0)


def test_every_handler_method_is_authenticated():
    # tornado.web.authenticated wraps the method; the wrapper keeps the original in __wrapped__
    for handler in (StatusHandler, CourseHandler):
        for verb in ("get", "post", "put", "patch", "delete"):
            method = handler.__dict__.get(verb)
            if method is not None:
                assert hasattr(method, "__wrapped__"), (handler.__name__, verb)


def test_extension_points_and_loading_do_not_import_mindspore():

    code = (
        "import sys, ascend_lab, ascend_lab.server, ascend_lab.server.handlers;"
        "assert ascend_lab._jupyter_server_extension_points() == [{'module': 'ascend_lab.server'}];"
        "assert ascend_lab._jupyter_labextension_paths() == "
        "[{'src': 'labextension', 'dest': 'ascend-lab'}];"
        "assert 'mindspore' not in sys.modules, 'mindspore imported'"
    )
    result = run_python(code, check=False)
    assert result.returncode == 0, result.stderr

"""A kernel serving a notebook of the Chinese edition speaks Chinese without ASCEND_LAB_LANG:
status, doctor and trace messages use the exercises' edition detection (one detection,
:mod:`ascend_lab.i18n.edition`). An explicit language still wins."""

import sys
from types import ModuleType

import pytest

from ascend_lab import i18n
from ascend_lab.exercises import language
from ascend_lab.i18n import choose, edition

ZH_NOTEBOOK = "notebooks/zh/03_graph_compilation.ipynb"
EN_NOTEBOOK = "notebooks/03_graph_compilation.ipynb"


@pytest.fixture
def course(tmp_path):
    """A course folder: English notebooks, and the Chinese ones in zh/."""
    (tmp_path / "zh").mkdir()
    (tmp_path / "00_stack_and_machine.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "zh" / "00_stack_and_machine.ipynb").write_text("{}", encoding="utf-8")
    return tmp_path


@pytest.fixture
def no_kernel_folder(monkeypatch, tmp_path):
    """The process started (and now runs) in a folder that is no course folder."""
    monkeypatch.setattr(edition, "START_FOLDER", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def test_a_zh_notebook_session_beats_ascend_lab_lang_and_the_locale(monkeypatch, no_kernel_folder):
    monkeypatch.setenv("ASCEND_LAB_LANG", "en")  # as the test suite (and a shell) may set it
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("JPY_SESSION_NAME", ZH_NOTEBOOK)
    assert choose() == "zh_CN" and i18n.current() == "zh_CN"
    assert i18n._("CPU mode") == "CPU 模式"
    assert language.edition() == language.CHINESE  # the exercises decide the same
    assert choose("en") == "en"  # --lang / an explicit argument still wins
    monkeypatch.setenv("JPY_SESSION_NAME", EN_NOTEBOOK)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.setenv("ASCEND_LAB_LANG", "zh")
    assert choose() == "en" and language.edition() == "en"


def test_every_course_notebook_name_is_recognised_and_others_are_not():
    from benchmarks.support.nbrun import EXPECTED

    for name in EXPECTED:  # 05b_host_and_device too
        assert edition.from_notebook_path(f"notebooks/zh/{name}") == "zh_CN", name
        assert edition.from_notebook_path(f"notebooks/{name}") == "en", name
    for other in ("Untitled.ipynb", "5_x.ipynb", "05bb_x.ipynb", "notebooks/zh/05b_.md"):
        assert edition.from_notebook_path(other) is None, other


def test_without_a_course_notebook_ascend_lab_lang_then_the_locale(monkeypatch, no_kernel_folder):
    monkeypatch.setenv("JPY_SESSION_NAME", "Untitled.ipynb")
    monkeypatch.setenv("ASCEND_LAB_LANG", "zh")
    assert choose() == "zh_CN"
    monkeypatch.delenv("ASCEND_LAB_LANG")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert choose() == "en"


def test_status_magic_and_doctor_follow_the_notebook(monkeypatch, no_kernel_folder):
    from ascend_lab.device.magic import status_magic
    from ascend_lab.doctor.magic import doctor_magic
    from ascend_lab.model.device_status import DeviceStatus

    monkeypatch.setenv("ASCEND_LAB_LANG", "en")
    monkeypatch.setenv("JPY_SESSION_NAME", ZH_NOTEBOOK)
    monkeypatch.setattr(
        "ascend_lab.probes.device.collect_status",
        lambda **kw: DeviceStatus(mode="cpu", reason="npu-smi not found on PATH"),
    )
    shown = status_magic(None, "")
    assert shown.lang == "zh_CN" and "CPU 模式" in shown.to_text()
    assert status_magic(None, "--lang en").lang == "en"

    class Shell:
        pass

    assert doctor_magic(Shell(), '"ret is -8020"', None).lang == "zh_CN"


def test_the_kernel_folders_count_only_inside_a_kernel(monkeypatch, course):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv("ASCEND_LAB_LANG", "en")
    monkeypatch.setattr(edition, "START_FOLDER", str(course / "zh"))
    monkeypatch.setattr(language, "START_FOLDER", edition.START_FOLDER)  # its alias
    monkeypatch.chdir(course)
    # a terminal in the course's zh folder: the environment decides
    assert not edition.in_kernel({}) and choose() == "en"
    # the exercises always read the folder
    assert language.edition() == language.CHINESE

    class ZMQInteractiveShell:  # what ipykernel runs
        pass

    fake = ModuleType("IPython")
    fake.get_ipython = ZMQInteractiveShell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert edition.in_kernel({})
    assert choose() == "zh_CN"  # the folder the kernel started in, before the scratch folder
    monkeypatch.setattr(edition, "START_FOLDER", "")
    assert choose() == "en"  # the current folder is the English course folder
    fake.get_ipython = lambda: None  # IPython loaded, no kernel (a plain script)
    monkeypatch.setattr(edition, "START_FOLDER", str(course / "zh"))
    assert choose() == "en"


def test_one_detection(course):
    """The exercises' detection is the i18n one, with the same language codes."""
    for env, cwd in (
        ({"JPY_SESSION_NAME": ZH_NOTEBOOK}, str(course)),
        ({}, str(course / "zh")),
        ({}, str(course)),
        ({"ASCEND_LAB_LANG": "zh"}, "/"),
        ({"LANG": "en_US"}, "/"),
    ):
        lang = edition.from_context(env, [cwd]) or i18n.from_environment(env)
        assert language.edition(env, cwd=cwd) == lang

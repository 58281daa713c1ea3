"""The settings registry (issue #25): every ``ASCEND_LAB_*`` name of the package is in it,
the README tables are what scripts/settings_table.py writes, and garbage falls back.

The package's names are found by scanning its source text (``.py`` files), not by importing
it; the registry's module is checked with ``ast`` to import nothing of the package.
"""

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Set

import pytest

from ascend_lab import settings
from ascend_lab.parsers import limits
from ascend_lab.probes import ascend_install
from ascend_lab.server import view_jobs

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ascend_lab"
SCRIPT = ROOT / "scripts" / "settings_table.py"
NAME = re.compile(r"ASCEND_LAB_[A-Z0-9_]*")


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("_settings_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def names_in(paths: Iterable[Path]) -> Dict[str, Set[str]]:
    """Every ``ASCEND_LAB_*`` name in the text of ``paths`` -> the files naming it."""
    found: Dict[str, Set[str]] = {}
    for path in sorted(paths):
        for name in NAME.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, set()).add(path.name)
    return found


def unregistered(found: Dict[str, Set[str]]) -> Dict[str, List[str]]:
    return {
        name: sorted(files)
        for name, files in found.items()
        if name not in settings.SETTINGS and name not in settings.NOT_SETTINGS
    }


def names_in_package() -> Dict[str, Set[str]]:
    return names_in(PACKAGE.rglob("*.py"))


def test_every_name_in_the_package_is_registered_or_listed_as_not_a_setting() -> None:
    found = names_in_package()
    assert len(found) >= 22  # the scan sees the package (22+ names when issue #25 was filed)
    assert unregistered(found) == {}


def test_every_name_in_deploy_and_tests_is_registered_or_listed_as_not_a_setting() -> None:
    """The trial hub's config and the test suite read settings of their own (``hub``,
    ``tests-only``): they are in the registry too."""
    paths = [
        p
        for p in list((ROOT / "deploy").rglob("*")) + list((ROOT / "tests").rglob("*.py"))
        if p.suffix in (".py", ".md", ".sh") and p != Path(__file__).resolve()
    ]
    found = names_in(paths)
    assert "ASCEND_LAB_HUB_PER_CHIP" in found and "ASCEND_LAB_ARTIFACTS" in found
    assert unregistered(found) == {}


def test_the_scan_catches_an_unregistered_name(tmp_path: Path) -> None:
    planted = "ASCEND_LAB_" + "NOT_REGISTERED_ANYWHERE"
    (tmp_path / "m.py").write_text(
        f'X = "{planted}"\nY = "ASCEND_LAB_LANG"  # {planted}\n', encoding="utf-8"
    )
    assert unregistered(names_in([tmp_path / "m.py"])) == {planted: ["m.py"]}


def test_registered_and_not_settings_are_apart_and_each_setting_is_described() -> None:
    assert not set(settings.SETTINGS) & set(settings.NOT_SETTINGS)
    for name, item in settings.SETTINGS.items():
        assert item.name == name and NAME.fullmatch(name)
        assert item.kind in settings.KINDS
        assert item.parts and set(item.parts) <= set(settings.PARTS)
        assert item.doc_en and item.doc_zh and item.doc_en != item.doc_zh
        assert re.search(r"[\u4e00-\u9fff]", item.doc_zh), name  # really Chinese
        assert "\n" not in item.doc_en + item.doc_zh  # one line each
        assert item.default_text("en") and item.default_text("zh")
        assert item.parse(None) == (item.default, "")


def test_the_registry_imports_nothing_of_the_package() -> None:
    path = PACKAGE / "settings.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append("." * node.level + (node.module or ""))
    assert imported  # the walk sees its imports (os, re, ...)
    assert [m for m in imported if m.startswith(".") or m.split(".")[0] == "ascend_lab"] == []


def test_readme_tables_are_what_the_script_writes() -> None:
    script = _script()
    for lang, path in script.READMES.items():
        text = path.read_text(encoding="utf-8")
        assert script.render(text, lang, path.name) == text, f"run python {SCRIPT.name}"
        block = text[text.index(script.BEGIN) : text.index(script.END)]
        for name in settings.SETTINGS:
            assert f"`{name}`" in block
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def test_check_fails_on_a_stale_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    stale = {}
    for lang, path in script.READMES.items():
        text = path.read_text(encoding="utf-8")
        copy = tmp_path / path.name
        copy.write_text(text.replace("| `ASCEND_LAB_LANG` |", "| `ASCEND_LAB_LANGUAGE` |"))
        stale[lang] = copy
    monkeypatch.setattr(script, "READMES", stale)
    assert script.main(["--check"]) == 1
    assert script.main([]) == 0  # rewrites the copies
    assert script.main(["--check"]) == 0
    for copy in stale.values():
        assert "`ASCEND_LAB_LANGUAGE`" not in copy.read_text(encoding="utf-8")


def test_chinese_table_is_chinese_and_english_is_not() -> None:
    script = _script()
    zh, en = script.table("zh"), script.table("en")
    assert "诊断" in zh and "诊断" not in en
    assert zh.count("\n") == en.count("\n") == len(settings.SETTINGS) + 2


GARBAGE = [
    "12x",
    "",
    "   ",
    "-1",
    "0x10",
    "nan",
    "inf",
    "1" * 200,
    "9" * (1 << 20),
    "x" * (1 << 20),
]


@pytest.mark.parametrize("text", GARBAGE, ids=lambda t: repr(t[:8]) + f"/{len(t)}")
@pytest.mark.parametrize("name", ["ASCEND_LAB_VIEW_MAX_NODES", "ASCEND_LAB_VIEW_MAX_BYTES"])
def test_whole_numbers_fall_back_on_garbage_with_a_problem(name: str, text: str) -> None:
    item = settings.setting(name)
    env = {name: text}
    assert item.value(env) == item.default
    assert settings.get(name, env) == item.default
    if text.strip():
        why = item.problem(env)
        assert why.startswith(f"{name}=") and "used the default" in why
        assert len(why) < 300  # a megabyte value is not copied into the message
        assert settings.problems(env) == {name: why}
    else:
        assert item.problem(env) == ""  # empty means unset


@pytest.mark.parametrize("text", ["12x", "-1", "nan", "inf", "0", "1e999", "5" * (1 << 20)])
def test_seconds_fall_back_on_garbage(text: str) -> None:
    item = settings.setting("ASCEND_LAB_VIEW_TIMEOUT")  # must be above 0
    assert item.value({item.name: text}) == 120.0
    assert "used the default (120)" in item.problem({item.name: text})


@pytest.mark.parametrize(
    "name, text, value",
    [
        ("ASCEND_LAB_VIEW_MAX_NODES", "1_000", 1000),
        ("ASCEND_LAB_VIEW_MAX_NODES", " 42 ", 42),
        ("ASCEND_LAB_VIEW_MAX_BYTES", "64M", 64 << 20),
        ("ASCEND_LAB_VIEW_MAX_BYTES", "2GiB", 2 << 30),
        ("ASCEND_LAB_VIEW_MAX_BYTES", "1_024", 1024),
        ("ASCEND_LAB_VIEW_TIMEOUT", "2.5", 2.5),
        ("ASCEND_LAB_CACHE_SECONDS", "0", 0.0),
        ("ASCEND_LAB_LANG", "zh_CN.UTF-8", "zh"),
        ("ASCEND_LAB_LANG", "EN", "en"),
        ("ASCEND_LAB_PROGRESS", "off", False),
        ("ASCEND_LAB_PROGRESS", "Yes", True),
        ("ASCEND_LAB_QUIET", "0", True),  # any non-empty value, as tracing/progress.py reads it
        ("ASCEND_LAB_STATUS_KERNEL", "", ""),  # empty is a value: the server's own Python
        ("ASCEND_LAB_ASCEND_ROOT", "/opt/Ascend", "/opt/Ascend"),
    ],
)
def test_good_values_parse(name: str, text: str, value: object) -> None:
    item = settings.setting(name)
    assert item.parse(text) == (value, "")


@pytest.mark.parametrize(
    "name, text",
    [
        ("ASCEND_LAB_LANG", "fr"),
        ("ASCEND_LAB_PROGRESS", "maybe"),
        ("ASCEND_LAB_ASCEND_ROOT", "/opt\x00/Ascend"),
        ("ASCEND_LAB_ASCEND_ROOT", "/" * (1 << 20)),
        ("ASCEND_LAB_VIEW_MAX_BYTES", "12iB"),
        ("ASCEND_LAB_DOCTOR_MAX_LINE_CHARS", "999"),
    ],
)
def test_other_kinds_fall_back_with_a_problem(name: str, text: str) -> None:
    item = settings.setting(name)
    value, why = item.parse(text)
    assert value == item.default and why.startswith(name + "=")


def test_viewer_limits_read_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    assert view_jobs.DEFAULT_MAX_BYTES == 1 << 30
    assert view_jobs.DEFAULT_MAX_NODES == 250_000
    assert view_jobs.DEFAULT_TIMEOUT == 120.0
    monkeypatch.setenv(view_jobs.VIEW_MAX_BYTES_ENV, "12_345")
    monkeypatch.setenv(view_jobs.TIMEOUT_ENV, "7.5")
    assert (view_jobs.max_bytes(), view_jobs._timeout()) == (12345, 7.5)
    monkeypatch.setenv(view_jobs.VIEW_MAX_BYTES_ENV, "9" * (1 << 20))  # int() would raise
    monkeypatch.setenv(view_jobs.TIMEOUT_ENV, "-3")
    assert (view_jobs.max_bytes(), view_jobs._timeout()) == (1 << 30, 120.0)


def test_parser_limits_keep_their_defaults_and_refuse_garbage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert limits.DEFAULTS == {
        limits.IR_MAX_BYTES_ENV: 256 << 20,
        limits.IR_MAX_LINE_ENV: 4 << 20,
        limits.MINDIR_MAX_BYTES_ENV: (2 << 30) - 1,
    }
    monkeypatch.setenv(limits.IR_MAX_BYTES_ENV, "1_000")
    assert limits.limit(limits.IR_MAX_BYTES_ENV) == 1000
    monkeypatch.setenv(limits.IR_MAX_BYTES_ENV, "x" * (1 << 20))
    with pytest.raises(ValueError, match="positive whole number") as info:
        limits.limit(limits.IR_MAX_BYTES_ENV)
    assert len(str(info.value)) < 200


def test_install_root_reads_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ascend_install.ROOT_ENV, "/somewhere/Ascend")
    assert ascend_install.default_root() == "/somewhere/Ascend"
    monkeypatch.setenv(ascend_install.ROOT_ENV, "")
    assert ascend_install.default_root() == ascend_install.DEFAULT_ROOT


def test_server_config_reads_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_lab.server.config import AscendLabServerConfig

    monkeypatch.setenv("ASCEND_LAB_CACHE_SECONDS", "3.5")
    monkeypatch.setenv("ASCEND_LAB_NPU_SMI_TIMEOUT", "12x")  # garbage: the default, 5
    monkeypatch.setenv("ASCEND_LAB_STATUS_KERNEL", "")  # empty: the server's own Python
    monkeypatch.delenv("ASCEND_LAB_COURSE_DIR", raising=False)
    config = AscendLabServerConfig()
    got = (config.cache_seconds, config.timeout, config.kernel_name, config.course_dir)
    assert got == (3.5, 5.0, "", "")
    monkeypatch.delenv("ASCEND_LAB_STATUS_KERNEL")
    monkeypatch.setenv("ASCEND_LAB_NPU_SMI_TIMEOUT", "-1")
    monkeypatch.setenv("ASCEND_LAB_COURSE_DIR", "/srv/course")
    config = AscendLabServerConfig()
    assert (config.timeout, config.kernel_name, config.course_dir) == (
        5.0,
        "mindspore",
        "/srv/course",
    )


def test_readers_not_moved_agree_with_the_registry() -> None:
    """The doctor parses its limits itself (its notes are translated); the bounds agree."""
    from ascend_lab.doctor import intake

    mb = settings.setting(intake.ENV_MAX_MB)
    chars = settings.setting(intake.ENV_MAX_LINE_CHARS)
    assert (intake.DEFAULT_MAX_MB, intake.DEFAULT_MAX_LINE_CHARS) == (20.0, 100_000)
    assert chars.minimum == intake.MIN_LINE_CHARS and mb.minimum == 0.001
    for text in ("12x", "-1", "999", "nan", "2000"):
        env = {intake.ENV_MAX_LINE_CHARS: text}
        limits_, notes = intake.limits_from_env(env)
        assert limits_.max_line_chars == int(chars.value(env))
        assert bool(notes) == bool(chars.problem(env))


def test_the_import_contract_forbids_every_other_module_of_the_package() -> None:
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    contract = config["importlinter:contract:settings-at-the-bottom"]
    assert contract["source_modules"].split() == ["ascend_lab.settings"]
    forbidden = set(contract["forbidden_modules"].split())
    modules = {
        "ascend_lab." + (p.stem if p.is_file() else p.name)
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and not p.name.startswith("_"))
        or (p.is_dir() and (p / "__init__.py").is_file())
    }
    assert len(modules) > 20
    assert forbidden == modules - {"ascend_lab.settings"}


@pytest.mark.parametrize("quiet, shown", [("1", False), ("0", False), ("", True)])
def test_progress_reads_quiet_from_the_registry(
    monkeypatch: pytest.MonkeyPatch, quiet: str, shown: bool
) -> None:
    """ASCEND_LAB_QUIET: any non-empty value silences trace()'s progress line."""
    from ascend_lab.tracing import progress

    monkeypatch.delenv("ASCEND_LAB_PROGRESS", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("ASCEND_LAB_QUIET", quiet)

    class ZMQInteractiveShell:  # what a notebook's kernel is
        pass

    monkeypatch.setattr("IPython.get_ipython", lambda: ZMQInteractiveShell())
    assert progress.is_interactive() is shown
